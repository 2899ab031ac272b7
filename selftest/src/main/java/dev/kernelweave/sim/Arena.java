package dev.kernelweave.sim;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.util.Arrays;
import java.util.Map;
import java.util.TreeMap;

/**
 * A range of simulated memory with a first-fit allocator, so that a freed address is handed out
 * again to the next allocation that fits, as real allocators often do. Freed memory is poisoned.
 */
final class Arena {

  /** What freed memory holds until it is written again. */
  static final byte POISON = (byte) 0xDB;
  private static final int ALIGNMENT = 256;
  /** Device memory is little-endian, as every GPU CUDA runs on. */
  private static final VarHandle INTS = MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.LITTLE_ENDIAN);
  private static final VarHandle LONGS = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);

  /** A live allocation; {@code id} is unique for the life of the device. */
  record Allocation(int id, long base, long size) {
    boolean contains(long address, long length) {
      return address >= base && address + length <= base + size;
    }
  }

  final long base;
  private final long size;
  private final byte fill;
  /** Backing store for the part of the arena used so far; grows on demand. */
  private byte[] bytes = new byte[0];
  private final TreeMap<Long, Long> freeBlocks = new TreeMap<>();
  /**
   * The live allocations by base address, ascending, in {@code live[0 .. liveCount)}: searched on
   * every range an operation touches, so without the boxing of a sorted map.
   */
  private Allocation[] live = new Allocation[16];
  private int liveCount;

  /**
   * @param size the arena's address range, in bytes
   * @param fill what memory holds before it is first written
   */
  Arena(long base, long size, byte fill) {
    this.base = base;
    this.size = size;
    this.fill = fill;
    freeBlocks.put(0L, size);
  }

  boolean holds(long address) {
    return address >= base && address < base + size;
  }

  /** The first free block that fits, or throws when none does. */
  Allocation allocate(int id, long wanted) {
    long rounded = Math.max(ALIGNMENT, (wanted + ALIGNMENT - 1) / ALIGNMENT * ALIGNMENT);
    for (Map.Entry<Long, Long> block : freeBlocks.entrySet()) {
      long offset = block.getKey();
      long length = block.getValue();
      if (length >= rounded) {
        freeBlocks.remove(offset);
        if (length > rounded) {
          freeBlocks.put(offset + rounded, length - rounded);
        }
        if (offset + rounded > bytes.length) {
          int old = bytes.length;
          bytes = Arrays.copyOf(bytes, (int) Math.max(offset + rounded, 2L * old));
          Arrays.fill(bytes, old, bytes.length, fill);
        }
        Allocation a = new Allocation(id, base + offset, rounded);
        addLive(a);
        return a;
      }
    }
    throw new IllegalStateException("simulated memory exhausted: " + wanted + " bytes wanted");
  }

  /** Frees and poisons the allocation at {@code address}; null when none starts there. */
  Allocation free(long address) {
    int i = floorIndex(address);
    if (i < 0 || live[i].base() != address) {
      return null;
    }
    Allocation a = live[i];
    System.arraycopy(live, i + 1, live, i, liveCount - i - 1);
    live[--liveCount] = null;
    int offset = (int) (a.base() - base);
    Arrays.fill(bytes, offset, offset + (int) a.size(), POISON);
    long start = offset;
    long length = a.size();
    Map.Entry<Long, Long> before = freeBlocks.floorEntry(start);
    if (before != null && before.getKey() + before.getValue() == start) {
      freeBlocks.remove(before.getKey());
      start = before.getKey();
      length += before.getValue();
    }
    Long after = freeBlocks.remove(start + length);
    if (after != null) {
      length += after;
    }
    freeBlocks.put(start, length);
    return a;
  }

  /** The live allocation holding {@code address}, or null. */
  Allocation find(long address) {
    int i = floorIndex(address);
    return i >= 0 && live[i].contains(address, 1) ? live[i] : null;
  }

  /** The index of the last live allocation based at or below {@code address}, or -1. */
  private int floorIndex(long address) {
    int low = 0;
    int high = liveCount - 1;
    while (low <= high) {
      int mid = (low + high) >>> 1;
      if (live[mid].base() <= address) {
        low = mid + 1;
      } else {
        high = mid - 1;
      }
    }
    return high;
  }

  private void addLive(Allocation a) {
    if (liveCount == live.length) {
      live = Arrays.copyOf(live, 2 * liveCount);
    }
    int at = floorIndex(a.base()) + 1;
    System.arraycopy(live, at, live, at + 1, liveCount - at);
    live[at] = a;
    liveCount++;
  }

  /** Whether {@code [address, address + length)} lies in the part of the arena ever allocated. */
  boolean backs(long address, long length) {
    return address >= base && address + length <= base + bytes.length;
  }

  void read(long address, byte[] into, int intoOffset, int length) {
    System.arraycopy(bytes, (int) (address - base), into, intoOffset, length);
  }

  void readInts(long address, int[] into, int n) {
    int offset = (int) (address - base);
    for (int i = 0; i < n; i++) {
      into[i] = (int) INTS.get(bytes, offset + 4 * i);
    }
  }

  void writeInts(long address, int[] from) {
    int offset = (int) (address - base);
    for (int i = 0; i < from.length; i++) {
      INTS.set(bytes, offset + 4 * i, from[i]);
    }
  }

  int intAt(long address) {
    return (int) INTS.get(bytes, (int) (address - base));
  }

  long longAt(long address) {
    return (long) LONGS.get(bytes, (int) (address - base));
  }

  void write(long address, byte[] from, int fromOffset, int length) {
    System.arraycopy(from, fromOffset, bytes, (int) (address - base), length);
  }
}
