package dev.kernelweave.scheduler;

import dev.kernelweave.call.AccessMode;
import dev.kernelweave.call.CallRecord;
import java.util.Arrays;

/**
 * Per allocation slot: the last writer, and the readers since that write (the newest one per lane),
 * each as (lane, position, sequence number). From these it finds what a call must follow:
 * read-after-write, write-after-read and write-after-write.
 *
 * <p>Slots are small reused indices (see {@code AllocationTable}); arrays grow on demand and are
 * then reused, so steady-state calls allocate nothing.
 */
final class DependencyTracker {

  private static final int READ = AccessMode.READ.ordinal();

  private final int laneCount;
  private final boolean followWrites;
  private final boolean followReads;
  private final boolean trackModuleVariables;
  private int capacity;
  /** Position 0: no writer. */
  private int[] writerLane;
  private long[] writerPosition;
  private long[] writerSeq;
  private int[] readerCount;
  /** {@code readerLanes[slot * laneCount + i]}: the ith lane with a reader since the last write. */
  private int[] readerLanes;
  /** {@code readerPosition[slot * laneCount + lane]}, 0 when that lane has no reader. */
  private long[] readerPosition;
  private long[] readerSeq;

  /**
   * @param followWrites whether reads follow the last writer (false only for {@link Mutant#DROP_RAW})
   * @param followReads whether writes follow the readers (false only for {@link Mutant#DROP_WAR})
   * @param trackModuleVariables whether a launch's uses of module variables order it (false only for
   *     {@link Mutant#UNTRACKED_CONSTANT})
   */
  DependencyTracker(int laneCount, boolean followWrites, boolean followReads, boolean trackModuleVariables) {
    this.laneCount = laneCount;
    this.followWrites = followWrites;
    this.followReads = followReads;
    this.trackModuleVariables = trackModuleVariables;
    grow(64);
  }

  /** Adds to {@code needs} every pending call that {@code call} must follow. */
  void collect(CallRecord call, StreamPool pool, LanePositions needs) {
    int[] slots = call.accessSlot;
    byte[] modes = call.accessMode;
    for (int i = firstTracked(call), n = call.accessCount; i < n; i++) {
      int slot = slots[i];
      if (slot < 0 || slot >= capacity) {
        continue;
      }
      int mode = modes[i];
      boolean writes = mode != READ;
      if (writes || followWrites) {
        long p = writerPosition[slot];
        if (p != 0) {
          int lane = writerLane[slot];
          if (pool.pending(lane, p)) {
            needs.add(lane, p, writerSeq[slot]);
          }
        }
      }
      if (writes && followReads) {
        int row = slot * laneCount;
        for (int r = 0, count = readerCount[slot]; r < count; r++) {
          int lane = readerLanes[row + r];
          long p = readerPosition[row + lane];
          if (pool.pending(lane, p)) {
            needs.add(lane, p, readerSeq[row + lane]);
          }
        }
      }
    }
  }

  /** The index of the call's first access that orders it. */
  private int firstTracked(CallRecord call) {
    return trackModuleVariables ? 0 : call.moduleVariableCount;
  }

  /** Adds to {@code users} every pending call that touched {@code slot}. */
  void collectUsers(int slot, StreamPool pool, LanePositions users) {
    if (slot < 0 || slot >= capacity) {
      return;
    }
    long p = writerPosition[slot];
    if (p != 0 && pool.pending(writerLane[slot], p)) {
      users.add(writerLane[slot], p, writerSeq[slot]);
    }
    int row = slot * laneCount;
    for (int r = 0, count = readerCount[slot]; r < count; r++) {
      int lane = readerLanes[row + r];
      long rp = readerPosition[row + lane];
      if (pool.pending(lane, rp)) {
        users.add(lane, rp, readerSeq[row + lane]);
      }
    }
  }

  /** Records that {@code call} ran at {@code position} of {@code lane}. */
  void record(CallRecord call, int lane, long position) {
    int[] slots = call.accessSlot;
    byte[] modes = call.accessMode;
    for (int i = firstTracked(call), n = call.accessCount; i < n; i++) {
      int slot = slots[i];
      if (slot < 0) {
        continue;
      }
      if (slot >= capacity) {
        grow(Math.max(capacity * 2, slot + 1));
      }
      if (modes[i] != READ) {
        clearReaders(slot);
        writerLane[slot] = lane;
        writerPosition[slot] = position;
        writerSeq[slot] = call.seq;
      } else {
        int row = slot * laneCount;
        if (readerPosition[row + lane] == 0) {
          readerLanes[row + readerCount[slot]++] = lane;
        }
        readerPosition[row + lane] = position;
        readerSeq[row + lane] = call.seq;
      }
    }
  }

  /** Forgets everything about {@code slot}: a new allocation there starts fresh. */
  void clear(int slot) {
    if (slot < 0 || slot >= capacity) {
      return;
    }
    clearReaders(slot);
    writerPosition[slot] = 0;
  }

  private void clearReaders(int slot) {
    int row = slot * laneCount;
    for (int r = 0, count = readerCount[slot]; r < count; r++) {
      readerPosition[row + readerLanes[row + r]] = 0;
    }
    readerCount[slot] = 0;
  }

  private void grow(int slots) {
    capacity = slots;
    writerLane = writerLane == null ? new int[slots] : Arrays.copyOf(writerLane, slots);
    writerPosition = writerPosition == null ? new long[slots] : Arrays.copyOf(writerPosition, slots);
    writerSeq = writerSeq == null ? new long[slots] : Arrays.copyOf(writerSeq, slots);
    readerCount = readerCount == null ? new int[slots] : Arrays.copyOf(readerCount, slots);
    int cells = slots * laneCount;
    readerLanes = readerLanes == null ? new int[cells] : Arrays.copyOf(readerLanes, cells);
    readerPosition = readerPosition == null ? new long[cells] : Arrays.copyOf(readerPosition, cells);
    readerSeq = readerSeq == null ? new long[cells] : Arrays.copyOf(readerSeq, cells);
  }
}
