package dev.kernelweave.memory;

import dev.kernelweave.call.AccessMode;
import dev.kernelweave.call.CallRecord;
import java.util.Arrays;

/**
 * The live allocations of the process, so that an address anywhere inside one resolves to it.
 *
 * <p>Each allocation has an {@code id}, unique for the life of the process (what the journal
 * shows), and a {@code slot}, a small index that is reused after a free (what the scheduler indexes
 * its per-allocation history by). A new allocation at an address that was freed gets a new id and a
 * slot whose history starts empty.
 *
 * <p>Thread safety: lookups are lock-free and allocate nothing; they read an immutable snapshot that
 * {@link #add} and {@link #remove} replace under a lock. Allocations and frees are rare next to
 * launches, so copying the snapshot on each change is the cheaper side of the trade.
 */
public final class AllocationTable {

  /**
   * Returned by {@link #remove} when no allocation starts at the address, and by lookups when the
   * address lies in no live allocation.
   */
  public static final int NOT_FOUND = -1;

  private static final class Snapshot {
    final long[] bases;
    final long[] ends;
    final int[] ids;
    final int[] slots;
    final byte[] kinds;

    Snapshot(long[] bases, long[] ends, int[] ids, int[] slots, byte[] kinds) {
      this.bases = bases;
      this.ends = ends;
      this.ids = ids;
      this.slots = slots;
      this.kinds = kinds;
    }

    int size() {
      return bases.length;
    }
  }

  private volatile Snapshot snapshot = new Snapshot(new long[0], new long[0], new int[0], new int[0], new byte[0]);
  private int nextId = 1;
  private boolean[] slotInUse = new boolean[64];

  /**
   * Records a new allocation. An existing allocation overlapping the range (a free the agent did not
   * see) is dropped first.
   *
   * @return the new allocation's id
   */
  public synchronized int add(long base, long size, MemoryKind kind) {
    if (size <= 0) {
      size = 1;
    }
    long end = base + size;
    Snapshot s = snapshot;
    int n = s.size();
    int kept = 0;
    for (int i = 0; i < n; i++) {
      if (s.ends[i] <= base || s.bases[i] >= end) {
        kept++;
      } else {
        slotInUse[s.slots[i]] = false;
      }
    }
    long[] bases = new long[kept + 1];
    long[] ends = new long[kept + 1];
    int[] ids = new int[kept + 1];
    int[] slots = new int[kept + 1];
    byte[] kinds = new byte[kept + 1];
    int id = nextId++;
    int slot = claimSlot();
    int j = 0;
    boolean placed = false;
    for (int i = 0; i < n; i++) {
      if (!(s.ends[i] <= base || s.bases[i] >= end)) {
        continue;
      }
      if (!placed && s.bases[i] > base) {
        bases[j] = base; ends[j] = end; ids[j] = id; slots[j] = slot; kinds[j] = (byte) kind.ordinal();
        j++;
        placed = true;
      }
      bases[j] = s.bases[i]; ends[j] = s.ends[i]; ids[j] = s.ids[i]; slots[j] = s.slots[i]; kinds[j] = s.kinds[i];
      j++;
    }
    if (!placed) {
      bases[j] = base; ends[j] = end; ids[j] = id; slots[j] = slot; kinds[j] = (byte) kind.ordinal();
    }
    snapshot = new Snapshot(bases, ends, ids, slots, kinds);
    return id;
  }

  /**
   * Forgets the allocation that starts at {@code base}.
   *
   * @return its id, or {@link #NOT_FOUND} when no allocation starts there
   */
  public synchronized int remove(long base) {
    return remove(base, NOT_FOUND);
  }

  /**
   * Forgets the allocation that starts at {@code base} if it is still allocation {@code id}: a new
   * allocation at the same address, made by another thread once the memory was freed, stays.
   *
   * @param id the allocation's id, or {@link #NOT_FOUND} for whichever starts there
   * @return its id, or {@link #NOT_FOUND} when no such allocation starts there
   */
  public synchronized int remove(long base, int id) {
    Snapshot s = snapshot;
    int i = Arrays.binarySearch(s.bases, base);
    if (i < 0 || id != NOT_FOUND && s.ids[i] != id) {
      return NOT_FOUND;
    }
    int n = s.size();
    id = s.ids[i];
    slotInUse[s.slots[i]] = false;
    snapshot = new Snapshot(
        removeAt(s.bases, i), removeAt(s.ends, i), removeAt(s.ids, i), removeAt(s.slots, i), removeAt(s.kinds, i, n));
    return id;
  }

  /**
   * Resolves {@code address} into {@code into}. Allocation-free.
   *
   * @return false when the address lies in no live allocation
   */
  public boolean lookup(long address, Allocation into) {
    Snapshot s = snapshot;
    int i = indexOf(s, address);
    if (i < 0) {
      return false;
    }
    fill(s, i, into);
    return true;
  }

  private static void fill(Snapshot s, int i, Allocation into) {
    into.id = s.ids[i];
    into.slot = s.slots[i];
    into.base = s.bases[i];
    into.size = s.ends[i] - s.bases[i];
    into.kind = MemoryKind.ofOrdinal(s.kinds[i]);
  }

  /**
   * {@link #addAccess}'s size for an access that may touch any byte of the allocation holding the
   * address, before it as well as after it: a kernel may index back from an interior pointer.
   */
  public static final long WHOLE_ALLOCATION = -1;

  /**
   * Adds to {@code call} its access to {@code [address, address + size)} ({@code size} 0: to the end
   * of the allocation; {@link #WHOLE_ALLOCATION}: all of it) as the interceptor records it: one access per allocation, widened and made
   * read-write when the call names the allocation twice; host memory the device reaches directly
   * (pinned, registered, managed) marks the call {@code touchesHostMemory}, managed memory also
   * {@code touchesUnknownMemory}. Allocation-free.
   *
   * @param found scratch for the lookup, owned by the caller's thread
   * @return false, adding nothing, when the address lies in no live allocation
   */
  public boolean addAccess(CallRecord call, long address, long size, AccessMode mode, Allocation found) {
    if (!lookup(address, found)) {
      return false;
    }
    long offset = size < 0 ? 0 : address - found.base;
    long length = size > 0 ? Math.min(size, found.size - offset) : found.size - offset;
    addFound(call, offset, length, mode, found);
    return true;
  }

  /**
   * Adds to {@code call} its access to the absolute addresses {@code [start, end)}, clipped to the
   * allocation {@code address} lies in, as {@link #addAccess(CallRecord, long, long, AccessMode,
   * Allocation)} does ({@code Long.MIN_VALUE, Long.MAX_VALUE}: the whole allocation). Allocation-free.
   *
   * @param found scratch for the lookup, owned by the caller's thread
   * @return false, adding nothing, when the address lies in no live allocation or the range misses it
   */
  public boolean addAccess(CallRecord call, long address, long start, long end, AccessMode mode, Allocation found) {
    Snapshot s = snapshot;
    int i = indexOf(s, address);
    return i >= 0 && addClipped(call, s, i, start, end, mode, found);
  }

  /**
   * {@link #addAccess(CallRecord, long, long, long, AccessMode, Allocation)} for a pointer a kernel is
   * given, which may be one past the end of its allocation (a kernel indexing backwards from an end
   * pointer): the allocation that ends exactly at {@code pointer} gets the access as well, clipped
   * the same way, even where another allocation starts there. Allocation-free.
   *
   * @param found scratch for the lookup, owned by the caller's thread
   * @return false when the pointer lies in no live allocation (an end pointer followed by memory the
   *     table does not know included: that memory may be what it names), or when the range misses
   *     both allocations
   */
  public boolean addPointerAccess(CallRecord call, long pointer, long start, long end, AccessMode mode,
      Allocation found) {
    Snapshot s = snapshot;
    int at = indexOf(s, pointer);
    int before = indexEndingAt(s, pointer);
    boolean added = at >= 0 && addClipped(call, s, at, start, end, mode, found);
    added |= before >= 0 && addClipped(call, s, before, start, end, mode, found);
    return at >= 0 && added;
  }

  /** Adds {@code [start, end)} clipped to allocation {@code i} of {@code s}; false when they do not meet. */
  private static boolean addClipped(CallRecord call, Snapshot s, int i, long start, long end, AccessMode mode,
      Allocation found) {
    fill(s, i, found);
    long from = Math.max(start, found.base);
    long to = Math.min(end, found.base + found.size);
    if (from >= to) {
      return false;
    }
    addFound(call, from - found.base, to - from, mode, found);
    return true;
  }

  /** Adds {@code [offset, offset + length)} of the allocation in {@code found}, merged with the call's own. */
  private static void addFound(CallRecord call, long offset, long length, AccessMode mode, Allocation found) {
    if (found.kind == MemoryKind.MANAGED) {
      call.touchesUnknownMemory = true;
    }
    if (found.kind == MemoryKind.PINNED_HOST || found.kind == MemoryKind.MANAGED) {
      call.touchesHostMemory = true;
    }
    for (int i = 0; i < call.accessCount; i++) {
      if (call.accessId[i] == found.id) {
        if (call.accessMode[i] != mode.ordinal()) {
          call.accessMode[i] = (byte) AccessMode.READ_WRITE.ordinal();
        }
        long start = Math.min(call.accessOffset[i], offset);
        long end = Math.max(call.accessOffset[i] + call.accessSize[i], offset + length);
        call.accessOffset[i] = start;
        call.accessSize[i] = end - start;
        return;
      }
    }
    call.addAccess(found.id, found.slot, found.base, offset, length, mode);
  }

  /** The number of live allocations. */
  public int size() {
    return snapshot.size();
  }

  /** One more than the largest slot in use: the size per-slot arrays need. */
  public synchronized int slotCapacity() {
    return slotInUse.length;
  }

  /** A mutable holder for {@link #lookup} results, reused by its owner to avoid allocation. */
  public static final class Allocation {
    public int id;
    public int slot;
    public long base;
    public long size;
    public MemoryKind kind;

    @Override
    public String toString() {
      return "allocation #" + id + " [0x" + Long.toHexString(base) + ", +" + size + ") " + kind;
    }
  }

  private static int indexOf(Snapshot s, long address) {
    long[] bases = s.bases;
    int lo = 0;
    int hi = bases.length - 1;
    int found = -1;
    while (lo <= hi) {
      int mid = (lo + hi) >>> 1;
      if (Long.compareUnsigned(bases[mid], address) <= 0) {
        found = mid;
        lo = mid + 1;
      } else {
        hi = mid - 1;
      }
    }
    if (found >= 0 && Long.compareUnsigned(address, s.ends[found]) < 0) {
      return found;
    }
    return NOT_FOUND;
  }

  /** The allocation whose end (one past its last byte) is {@code address}, or {@link #NOT_FOUND}. */
  private static int indexEndingAt(Snapshot s, long address) {
    long[] bases = s.bases;
    int lo = 0;
    int hi = bases.length - 1;
    int below = -1; // the last allocation starting before the address: the only one that can end there
    while (lo <= hi) {
      int mid = (lo + hi) >>> 1;
      if (Long.compareUnsigned(bases[mid], address) < 0) {
        below = mid;
        lo = mid + 1;
      } else {
        hi = mid - 1;
      }
    }
    return below >= 0 && s.ends[below] == address ? below : NOT_FOUND;
  }

  private int claimSlot() {
    for (int i = 0; i < slotInUse.length; i++) {
      if (!slotInUse[i]) {
        slotInUse[i] = true;
        return i;
      }
    }
    int slot = slotInUse.length;
    slotInUse = Arrays.copyOf(slotInUse, slotInUse.length * 2);
    slotInUse[slot] = true;
    return slot;
  }

  private static long[] removeAt(long[] a, int i) {
    long[] r = new long[a.length - 1];
    System.arraycopy(a, 0, r, 0, i);
    System.arraycopy(a, i + 1, r, i, a.length - i - 1);
    return r;
  }

  private static int[] removeAt(int[] a, int i) {
    int[] r = new int[a.length - 1];
    System.arraycopy(a, 0, r, 0, i);
    System.arraycopy(a, i + 1, r, i, a.length - i - 1);
    return r;
  }

  private static byte[] removeAt(byte[] a, int i, int n) {
    byte[] r = new byte[n - 1];
    System.arraycopy(a, 0, r, 0, i);
    System.arraycopy(a, i + 1, r, i, n - i - 1);
    return r;
  }
}
