package dev.kernelweave.scheduler;

/**
 * For each lane, the newest position of interest there and the sequence number of the call at that
 * position: what a call must wait for, or where an application stream's work went. Only the newest
 * position per lane matters, because a lane runs its work in order.
 *
 * <p>Allocation-free after construction; {@link #clear} costs the number of lanes present.
 */
final class LanePositions {

  private final long[] position;
  private final long[] seq;
  private final int[] lanes;
  private int count;
  /** The lane of the most recent {@link #add}, or -1. */
  private int lastLane = -1;

  LanePositions(int laneCount) {
    position = new long[laneCount];
    seq = new long[laneCount];
    lanes = new int[laneCount];
  }

  /** Notes position {@code p} (at least 1) of {@code lane}, held by call {@code callSeq}. */
  void add(int lane, long p, long callSeq) {
    long old = position[lane];
    if (old == 0) {
      lanes[count++] = lane;
    }
    if (p > old) {
      position[lane] = p;
      seq[lane] = callSeq;
    }
    lastLane = lane;
  }

  /** Adds to {@code into} each position of this one that {@code pool} does not know complete. */
  void addPendingTo(LanePositions into, StreamPool pool) {
    for (int i = 0; i < count; i++) {
      int lane = lanes[i];
      long p = position[lane];
      if (pool.pending(lane, p)) {
        into.add(lane, p, seq[lane]);
      }
    }
  }

  /** The number of lanes this can hold. */
  int capacity() {
    return position.length;
  }

  int count() {
    return count;
  }

  /** The {@code i}th lane present, in the order lanes were first added. */
  int lane(int i) {
    return lanes[i];
  }

  /** The newest position noted for {@code lane}, 0 when none. */
  long position(int lane) {
    return position[lane];
  }

  long seq(int lane) {
    return seq[lane];
  }

  /** The lane most recently added to, or -1 when empty. */
  int lastLane() {
    return count == 0 ? -1 : lastLane;
  }

  void clear() {
    for (int i = 0; i < count; i++) {
      position[lanes[i]] = 0;
    }
    count = 0;
    lastLane = -1;
  }
}
