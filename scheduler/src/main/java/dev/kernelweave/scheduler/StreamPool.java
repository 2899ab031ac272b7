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

  /** The pool lane chosen longest ago (never-used lanes first, lowest index on ties). */
  int leastRecentlyUsed() {
    int best = 0;
    long bestUse = lastUse[0];
    for (int lane = 1; lane < streams; lane++) {
      if (lastUse[lane] < bestUse) {
        best = lane;
        bestUse = lastUse[lane];
      }
    }
    return best;
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
