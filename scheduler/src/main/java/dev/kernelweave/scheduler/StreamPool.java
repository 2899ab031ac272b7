package dev.kernelweave.scheduler;

/**
 * The lanes and what the scheduler knows about their progress: how many calls each has been given
 * (its position), which position of every other lane it has already been made to wait for, and
 * which positions the host knows to be complete.
 *
 * <p>Positions start at 1; position 0 stands for "nothing". A lane's {@code waited} row is a vector
 * clock: all work issued on lane {@code a} from now on runs after position {@code waited(a, b)} of
 * every lane {@code b}, directly or through a chain of waits.
 */
final class StreamPool {

  final int streams;
  final int laneCount;
  final int legacy;
  private final long[] position;
  private final long[] completed;
  private final boolean[] created;
  private final long[] lastUse;
  /** Per lane, the position of its newest barrier, 0 for none. */
  private final long[] barrierAt;
  private long useClock;
  /** {@code waited[a * laneCount + b]}. */
  private final long[] waited;

  StreamPool(int streams) {
    this.streams = streams;
    this.laneCount = streams + 1;
    this.legacy = streams;
    position = new long[laneCount];
    completed = new long[laneCount];
    created = new boolean[laneCount];
    lastUse = new long[laneCount];
    barrierAt = new long[laneCount];
    waited = new long[laneCount * laneCount];
  }

  /** The position of the newest call issued on {@code lane}: its tail. */
  long tail(int lane) {
    return position[lane];
  }

  /** Whether position {@code p} of {@code lane} may still be running. */
  boolean pending(int lane, long p) {
    return p > completed[lane];
  }

  /** Creates a pool lane's stream before its first use; the legacy lane needs none. */
  void ensureCreated(int lane, StreamDevice device) {
    if (!created[lane] && lane != legacy) {
      device.createStream(lane);
      created[lane] = true;
    }
  }

  /** Counts one more call on {@code lane} and returns its position. */
  long issue(int lane) {
    lastUse[lane] = ++useClock;
    return ++position[lane];
  }

  /** Marks {@code lane} as chosen just now, so that independent work goes elsewhere next. */
  void touch(int lane) {
    lastUse[lane] = ++useClock;
  }

  /**
   * The pool lane chosen longest ago (never-used lanes first, lowest index on ties), passing over
   * lanes held by a pending barrier while another is free: a barrier may wait for the host (a host
   * function), and work CUDA does not order after it must not queue behind it.
   */
  int leastRecentlyUsed() {
    int best = -1;
    long bestUse = Long.MAX_VALUE;
    for (int lane = 0; lane < streams; lane++) {
      if (lastUse[lane] < bestUse && !pending(lane, barrierAt[lane])) {
        best = lane;
        bestUse = lastUse[lane];
      }
    }
    if (best >= 0) {
      return best;
    }
    best = 0;
    for (int lane = 1; lane < streams; lane++) {
      if (lastUse[lane] < lastUse[best]) {
        best = lane;
      }
    }
    return best;
  }

  /** The position of the newest barrier issued on {@code lane}, 0 for none. */
  long barrierAt(int lane) {
    return barrierAt[lane];
  }

  /** A barrier was issued at position {@code p} of {@code lane}. */
  void barrierIssued(int lane, long p) {
    barrierAt[lane] = p;
  }

  /** The newest position of {@code b} that lane {@code a} already waits for. */
  long waited(int a, int b) {
    return waited[a * laneCount + b];
  }

  /** Lane {@code a} now waits for position {@code p} of lane {@code b} and, through it, for {@code clock}. */
  void mergeWait(int a, int b, long p, long[] clock, int clockOffset) {
    int row = a * laneCount;
    for (int c = 0; c < laneCount; c++) {
      long v = clock[clockOffset + c];
      if (v > waited[row + c]) {
        waited[row + c] = v;
      }
    }
    if (p > waited[row + b]) {
      waited[row + b] = p;
    }
  }

  /** Copies lane {@code a}'s clock into {@code into} at {@code offset}. */
  void copyClock(int a, long[] into, int offset) {
    System.arraycopy(waited, a * laneCount, into, offset, laneCount);
  }

  /** The host saw position {@code p} of {@code lane} complete, and with it everything in {@code clock}. */
  void complete(int lane, long p, long[] clock, int clockOffset) {
    for (int c = 0; c < laneCount; c++) {
      long v = clock[clockOffset + c];
      if (v > completed[c]) {
        completed[c] = v;
      }
    }
    if (p > completed[lane]) {
      completed[lane] = p;
    }
  }

  /** The host saw position {@code p} of {@code lane} complete (and so everything before it there). */
  void completeAt(int lane, long p) {
    if (p > completed[lane]) {
      completed[lane] = p;
    }
  }

  /** The host saw position {@code p} of {@code lane} complete, and everything it waited for. */
  void completeThrough(int lane, long p) {
    complete(lane, p, waited, lane * laneCount);
  }

  /** Everything issued so far is complete. */
  void completeAll() {
    System.arraycopy(position, 0, completed, 0, laneCount);
  }

  /** The number of lanes with work that may still be running. */
  int activeLanes() {
    int n = 0;
    for (int lane = 0; lane < laneCount; lane++) {
      if (position[lane] > completed[lane]) {
        n++;
      }
    }
    return n;
  }
}
