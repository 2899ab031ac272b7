package dev.kernelweave.scheduler;

import dev.kernelweave.call.PriorityClass;

/**
 * The lanes and what the scheduler knows about their progress: how many calls each has been given
 * (its position), which position of every other lane it has already been made to wait for, and
 * which positions the host knows to be complete.
 *
 * <p>Positions start at 1; position 0 stands for "nothing". A lane's {@code waited} row is a vector
 * clock: all work issued on lane {@code a} from now on runs after position {@code waited(a, b)} of
 * every lane {@code b}, directly or through a chain of waits.
 *
 * <p>Lanes come in {@link PriorityClass priority classes}: {@code [0, normal)} are normal, then, with
 * priority lanes, some high and as many low lanes; the legacy lane, the last, is
 * normal. Without priority lanes the layout is the plain one, {@code streams} normal lanes.
 */
final class StreamPool {

  /** The pool lanes, of every class; also the legacy lane's index. */
  final int streams;
  final int laneCount;
  final int legacy;
  /** The first pool lane of each class, by ordinal, and one past the last ({@code classEnd}). */
  private final int[] classStart = new int[PriorityClass.values().length];
  private final int[] classEnd = new int[PriorityClass.values().length];
  /** Whether high and low calls have lanes of their own; without, all share the normal lanes. */
  final boolean priorityLanes;
  /** Each lane's class, the stream priority it is created with. */
  private final PriorityClass[] laneClass;
  private final long[] position;
  private final long[] completed;
  private final boolean[] created;
  private final long[] lastUse;
  /** Per lane, the position of its newest barrier, 0 for none. */
  private final long[] barrierAt;
  /** Per lane, the position of the newest call that may wait for the host; 0 for none. */
  private final long[] hostWaitAt;
  /** Whether any call that may wait for the host was issued: most programs never issue one. */
  private boolean anyHostWait;
  private long useClock;
  /** {@code waited[a * laneCount + b]}. */
  private final long[] waited;

  StreamPool(int streams) {
    this(streams, 0);
  }

  /**
   * @param normalStreams the normal class's lanes: all of them without priority lanes
   * @param classLanes the high lanes, and as many low ones, that follow the normal ones; 0 for none
   */
  StreamPool(int normalStreams, int classLanes) {
    boolean priorityLanes = classLanes > 0;
    this.priorityLanes = priorityLanes;
    int extra = classLanes;
    int streams = normalStreams + 2 * extra;
    classStart[PriorityClass.NORMAL.ordinal()] = 0;
    classEnd[PriorityClass.NORMAL.ordinal()] = normalStreams;
    // Without priority lanes every class shares the normal lanes: placement is as before.
    classStart[PriorityClass.HIGH.ordinal()] = priorityLanes ? normalStreams : 0;
    classEnd[PriorityClass.HIGH.ordinal()] = priorityLanes ? normalStreams + extra : normalStreams;
    classStart[PriorityClass.LOW.ordinal()] = priorityLanes ? normalStreams + extra : 0;
    classEnd[PriorityClass.LOW.ordinal()] = priorityLanes ? streams : normalStreams;
    this.streams = streams;
    this.laneCount = streams + 1;
    this.legacy = streams;
    laneClass = new PriorityClass[laneCount];
    for (int lane = 0; lane < laneCount; lane++) {
      laneClass[lane] = lane >= normalStreams && lane < normalStreams + extra ? PriorityClass.HIGH
          : lane >= normalStreams + extra && lane < streams ? PriorityClass.LOW : PriorityClass.NORMAL;
    }
    position = new long[laneCount];
    completed = new long[laneCount];
    created = new boolean[laneCount];
    lastUse = new long[laneCount];
    barrierAt = new long[laneCount];
    hostWaitAt = new long[laneCount];
    waited = new long[laneCount * laneCount];
  }

  /** The position of the newest call issued on {@code lane}: its tail. */
  long tail(int lane) {
    return position[lane];
  }

  /** Adds each lane's tail that may still be running to {@code into}: what follows everything pending. */
  void addPendingTails(LanePositions into) {
    for (int lane = 0; lane < laneCount; lane++) {
      long p = position[lane];
      if (p > 0 && pending(lane, p)) {
        into.add(lane, p, 0);
      }
    }
  }

  /** Whether position {@code p} of {@code lane} may still be running. */
  boolean pending(int lane, long p) {
    return p > completed[lane];
  }

  /** The class of a lane's stream; the legacy lane is normal. */
  PriorityClass classOf(int lane) {
    return laneClass[lane];
  }

  /** Whether a call of class {@code c} may run on {@code lane}: one of its class's pool lanes. */
  boolean serves(int lane, PriorityClass c) {
    return lane >= classStart[c.ordinal()] && lane < classEnd[c.ordinal()];
  }

  /** Creates a pool lane's stream, with its class's priority, before its first use; the legacy lane needs none. */
  void ensureCreated(int lane, StreamDevice device) {
    if (!created[lane] && lane != legacy) {
      device.createStream(lane, classOf(lane));
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
    return leastRecentlyUsed(PriorityClass.NORMAL);
  }

  /** {@link #leastRecentlyUsed()} among the pool lanes of class {@code c}. */
  int leastRecentlyUsed(PriorityClass c) {
    int from = classStart[c.ordinal()];
    int to = classEnd[c.ordinal()];
    int best = -1;
    long bestUse = Long.MAX_VALUE;
    for (int lane = from; lane < to; lane++) {
      if (lastUse[lane] < bestUse && !pending(lane, barrierAt[lane])) {
        best = lane;
        bestUse = lastUse[lane];
      }
    }
    if (best >= 0) {
      return best;
    }
    best = from;
    for (int lane = from + 1; lane < to; lane++) {
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

  /**
   * A call that may wait for the host (one touching memory the agent cannot see: a host function,
   * a stream callback, a kernel whose code it cannot read) was issued at position {@code p} of {@code lane}.
   */
  void hostWaitIssued(int lane, long p) {
    hostWaitAt[lane] = p;
    anyHostWait = true;
  }

  /**
   * Whether work on {@code lane} through position {@code p} may wait for a pending call that may
   * wait for the host: one on the lane itself, or one it waits for on another lane, as far as
   * {@link #waited} knows (for any position of the lane, so this may answer true for too early a
   * {@code p}, never false for one that does wait).
   */
  boolean mayWaitForTheHost(int lane, long p) {
    if (!anyHostWait) {
      return false;
    }
    for (int other = 0; other < laneCount; other++) {
      long h = hostWaitAt[other];
      if (h > 0 && pending(other, h) && (other == lane ? p >= h : waited(lane, other) >= h)) {
        return true;
      }
    }
    return false;
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

  /**
   * The host saw position {@code p} of {@code lane} complete, and everything it waited for: {@code p}
   * must be the lane's tail, whose clock is the lane's clock now (a host that waited without the
   * lock settles with the clock taken at its wait, {@link HostWaits#settleThrough}).
   */
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
