package dev.kernelweave.scheduler;

/**
 * What one call in progress holds between {@link Dispatch#enter} and {@link Dispatch#exit}: its
 * placement, whether it holds the context's lock, and the positions the host will know complete
 * once the real call returns. The enter advice gets it back with the record and hands it to the
 * exit advice, so nothing travels through thread-locals.
 *
 * <p>Reused call after call by one application thread (allocation-free once sized); not
 * thread-safe.
 */
public final class Ticket {

  /** A wait that synchronizes its lane, for a position that was the lane's tail: no event needed. */
  static final int WHOLE_LANE = -1;

  Placement placement = Placement.NONE;
  /** Whether {@link Dispatch#enterLaunch} handed the launch to the context's windows. */
  boolean heldByWindows;
  /** The dispatch whose lock this ticket holds, or null. */
  Dispatch locked;
  /** Positions settled (known complete) when the real call succeeds. */
  LanePositions settled;
  /**
   * Events the host waits for outside the lock, with the lane position each stands for;
   * {@link #WHOLE_LANE} in place of an event: the host synchronizes the lane itself.
   */
  int[] waitEvent = new int[8];
  int[] waitLane = new int[8];
  long[] waitPosition = new long[8];
  int waitCount;
  /**
   * For a wait that settles everything its lane waited for ({@link HostWaits#settleThrough}): that
   * lane's clock when the wait was noted, at the position waited for. Not the lane's clock when the
   * host is back: while it waited without the lock, other threads may have made the lane wait for
   * more, which the host did not wait for.
   */
  long[] throughClock;
  /**
   * Whether the waits run while a stream captures a graph: then in the thread's relaxed capture
   * mode, so that they neither fail nor invalidate the program's capture.
   */
  boolean waitsDuringCapture;

  /** Whether this ticket holds a context's lock. */
  public boolean holdsLock() {
    return locked != null;
  }

  /**
   * Whether the launch entered last is held by the context's windows: the real call must be
   * skipped, and {@link Dispatch#exit} is not called for it.
   */
  public boolean heldByWindows() {
    return heldByWindows;
  }

  /** The placement the call was entered with. */
  public Placement placement() {
    return placement;
  }

  void reset(Placement p, int laneCount) {
    placement = p;
    heldByWindows = false;
    waitCount = 0;
    waitsDuringCapture = false;
    if (settled == null || settled.capacity() != laneCount) {
      settled = new LanePositions(laneCount);
      throughClock = new long[laneCount];
    } else {
      settled.clear();
    }
  }

  void addWait(int event, int lane, long position) {
    if (waitCount == waitEvent.length) {
      int n = waitCount * 2;
      waitEvent = java.util.Arrays.copyOf(waitEvent, n);
      waitLane = java.util.Arrays.copyOf(waitLane, n);
      waitPosition = java.util.Arrays.copyOf(waitPosition, n);
    }
    waitEvent[waitCount] = event;
    waitLane[waitCount] = lane;
    waitPosition[waitCount] = position;
    waitCount++;
  }
}
