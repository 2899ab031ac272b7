package dev.kernelweave.interceptor.observe;

import dev.kernelweave.call.CallKind;
import dev.kernelweave.call.CallRecord;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.lang.ref.WeakReference;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;

/**
 * Live totals of the finished calls, counted the way {@code inspect stats} counts a journal: the
 * same numbers, while the program runs.
 *
 * <p>Thread safety: {@link #add} may be called from any number of threads at once. Each thread
 * counts into a block of its own (no lock, no atomic instruction, no allocation after its first
 * call); readers sum the blocks. A read is not a snapshot: a total may lag by the calls finishing
 * while it is read, and two totals read one after the other may come from different moments.
 * When a thread has ended, its block is folded into the totals of ended threads (at the next new
 * thread's first call, once the number of blocks has doubled), so that a program that starts a
 * thread per task keeps a bounded number of blocks; totals never go down.
 */
public final class SchedulingCounters {

  // Slots of a thread's block.
  static final int CALLS = 0;
  static final int FAILED = 1;
  static final int BYTES_HOST_TO_DEVICE = 2;
  static final int BYTES_DEVICE_TO_HOST = 3;
  static final int BYTES_DEVICE_TO_DEVICE = 4;
  static final int CROSS_STREAM_WAITS = 5;
  static final int EVENTS_RECORDED = 6;
  static final int HOST_WAITS = 7;
  static final int HOST_WAITS_NARROWED = 8;
  static final int BARRIERS = 9;
  static final int HOST_WAIT_NANOS = 10;
  /** A bit per agent stream the thread's calls ran on (streams are 0 to 63). */
  static final int STREAM_MASK = 11;
  /** Kernel launches issued inside a replayed CUDA graph. */
  static final int LAUNCHES_REPLAYED = 12;
  /** cuBLAS routines issued inside a replayed CUDA graph, counted apart from kernel launches. */
  static final int BLAS_CALLS_REPLAYED = 13;
  private static final int KINDS = 14;
  private static final int SLOTS = KINDS + CallKind.values().length;

  /** Opaque writes: never torn and seen by readers soon, at the cost of a plain store. */
  private static final VarHandle SLOT = MethodHandles.arrayElementVarHandle(long[].class);

  /** A thread's slots and the thread, to notice when it has ended. */
  private record Block(long[] slots, WeakReference<Thread> owner) {
    boolean ended() {
      Thread t = owner.get();
      return t == null || !t.isAlive();
    }
  }

  /** Guarded by itself, as are {@link #ended} and {@link #foldAt}. */
  private final List<Block> blocks = new ArrayList<>();
  /** The sums of the blocks of threads that ended. */
  private final long[] ended = new long[SLOTS];
  private int foldAt = 64;
  private final ThreadLocal<long[]> own = new ThreadLocal<>();
  private final Runnable firstCall;

  /** Counters that do nothing special at the first call. */
  public SchedulingCounters() {
    this(() -> { });
  }

  /**
   * @param firstCall run once per thread, at that thread's first {@link #add}, outside the hot
   *     path; it must not throw
   */
  SchedulingCounters(Runnable firstCall) {
    this.firstCall = firstCall;
  }

  /** Counts one finished call. Allocation-free after the thread's first call. */
  public void add(CallRecord r) {
    long[] b = own.get();
    if (b == null) {
      b = newBlock();
    }
    bump(b, CALLS, 1);
    bump(b, KINDS + r.kind.ordinal(), 1);
    if (r.result != 0) {
      bump(b, FAILED, 1);
    }
    switch (r.kind) {
      case COPY_HOST_TO_DEVICE -> bump(b, BYTES_HOST_TO_DEVICE, r.bytes);
      case COPY_DEVICE_TO_HOST -> bump(b, BYTES_DEVICE_TO_HOST, r.bytes);
      case COPY_DEVICE_TO_DEVICE -> bump(b, BYTES_DEVICE_TO_DEVICE, r.bytes);
      default -> { }
    }
    if (r.stream >= 0 && r.stream < 64 && (b[STREAM_MASK] & (1L << r.stream)) == 0) {
      SLOT.setOpaque(b, STREAM_MASK, b[STREAM_MASK] | (1L << r.stream));
    }
    if (r.predecessorCount > 0) {
      bump(b, CROSS_STREAM_WAITS, r.predecessorCount);
    }
    if (r.eventRecorded) {
      bump(b, EVENTS_RECORDED, 1);
    }
    if (r.hostWaited) {
      bump(b, HOST_WAITS, 1);
      bump(b, HOST_WAIT_NANOS, r.durationNanos);
    }
    if (r.hostWaitNarrowed) {
      bump(b, HOST_WAITS_NARROWED, 1);
    }
    if (r.barrier) {
      bump(b, BARRIERS, 1);
    }
    if (r.graphWindow > 0) {
      bump(b, r.kind == CallKind.BLAS ? BLAS_CALLS_REPLAYED : LAUNCHES_REPLAYED, 1);
    }
  }

  private long[] newBlock() {
    long[] b = new long[SLOTS];
    own.set(b);
    synchronized (blocks) {
      if (blocks.size() >= foldAt) {
        foldEnded();
        foldAt = Math.max(64, blocks.size() * 2);
      }
      blocks.add(new Block(b, new WeakReference<>(Thread.currentThread())));
    }
    firstCall.run();
    return b;
  }

  /**
   * Moves the counts of ended threads into {@link #ended}. Exact: a thread's end happens-before
   * another thread seeing it ended, so its last counts are visible here.
   */
  private void foldEnded() {
    for (Iterator<Block> it = blocks.iterator(); it.hasNext(); ) {
      Block block = it.next();
      if (block.ended()) {
        long[] b = block.slots();
        for (int i = 0; i < SLOTS; i++) {
          ended[i] = i == STREAM_MASK ? ended[i] | b[i] : ended[i] + b[i];
        }
        it.remove();
      }
    }
  }

  /** The number of per-thread blocks kept; for tests. */
  int blocks() {
    synchronized (blocks) {
      return blocks.size();
    }
  }

  /** Only the owning thread writes a block, so read-add-write needs no atomic instruction. */
  private static void bump(long[] b, int slot, long amount) {
    SLOT.setOpaque(b, slot, b[slot] + amount);
  }

  /** The sum of one slot over every thread's block. */
  long total(int slot) {
    synchronized (blocks) {
      long sum = ended[slot];
      for (Block b : blocks) {
        sum += (long) SLOT.getOpaque(b.slots(), slot);
      }
      return sum;
    }
  }

  /** Calls of one kind. */
  public long calls(CallKind kind) {
    return total(KINDS + kind.ordinal());
  }

  /** The number of distinct agent streams any call ran on, as {@code inspect stats} counts them. */
  public int streamsUsed() {
    synchronized (blocks) {
      long mask = ended[STREAM_MASK];
      for (Block b : blocks) {
        mask |= (long) SLOT.getOpaque(b.slots(), STREAM_MASK);
      }
      return Long.bitCount(mask);
    }
  }
}
