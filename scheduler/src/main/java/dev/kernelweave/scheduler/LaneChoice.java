package dev.kernelweave.scheduler;

import dev.kernelweave.call.CallRecord;
import dev.kernelweave.call.PriorityClass;

/**
 * Where one context's {@link Scheduler} puts a call whose predecessors it has collected, and the
 * device-side waits that make the call follow them: a chain goes on on its lane, a brief call
 * queues behind its newest predecessor, anything else takes the lane chosen longest ago; a
 * predecessor on another lane costs one event wait, unless the lane already follows it.
 *
 * <p>Per call: {@link #choose} the lane from the needs, then (once the lane exists) {@link
 * #waitForNeeds}. Not thread-safe: used under the context's dispatch lock, like its scheduler,
 * whose pool, events and streams it shares.
 */
final class LaneChoice {

  private final StreamDevice device;
  private final StreamPool pool;
  private final EventPool events;
  private final AppStreams appStreams;
  /** {@link OrderingRules.Rule#PRIORITY_KEEPS_DEPENDENCIES}. */
  private final boolean priorityKeepsDependencies;

  LaneChoice(StreamDevice device, StreamPool pool, EventPool events, AppStreams appStreams, OrderingRules rules) {
    this.device = device;
    this.pool = pool;
    this.events = events;
    this.appStreams = appStreams;
    this.priorityKeepsDependencies = rules.keeps(OrderingRules.Rule.PRIORITY_KEEPS_DEPENDENCIES);
  }

  /**
   * Picks the pool lane for a call whose predecessors are in {@code needs}: the lane of a
   * predecessor that is its lane's newest call (a chain goes on), else, for a {@code brief} call,
   * the lane of its newest predecessor or, with none pending, the lane its application stream's
   * last call went to (where, without the agent, it would have queued anyway), else the least
   * recently used lane.
   */
  int choose(CallRecord call, LanePositions needs) {
    boolean brief = call.brief;
    PriorityClass priority = call.priority;
    // A chain the program wrote on the legacy stream stays there: a synchronous copy that reads its
    // result back runs there too, and then waits for it in the stream, with no host wait first. The
    // legacy lane is normal: a call of another class leaves it for a lane of its own class.
    boolean legacyChains = appStreams.of(call) == appStreams.legacy()
        && (priority == PriorityClass.NORMAL || !pool.priorityLanes);
    int chain = -1;
    long chainSeq = Long.MIN_VALUE;
    int newest = -1;
    long newestSeq = Long.MIN_VALUE;
    for (int i = 0, n = needs.count(); i < n; i++) {
      int lane = needs.lane(i);
      if (lane == pool.legacy ? !legacyChains : !pool.serves(lane, priority)) {
        continue; // a lane of another class never takes the call: it would wait behind that class's work
      }
      long seq = needs.seq(lane);
      if (needs.position(lane) == pool.tail(lane) && seq > chainSeq) {
        chain = lane;
        chainSeq = seq;
      }
      if (seq > newestSeq) {
        newest = lane;
        newestSeq = seq;
      }
    }
    if (chain >= 0) {
      return chain;
    }
    if (brief) {
      if (newest >= 0) {
        return followsAnyBarrierOn(newest, needs) ? newest : pool.leastRecentlyUsed(priority);
      }
      int streamLane = appStreams.of(call).footprint.lastLane();
      if (streamLane >= 0 && streamLane != pool.legacy && pool.serves(streamLane, priority)
          && followsAnyBarrierOn(streamLane, needs)) {
        return streamLane;
      }
    }
    return pool.leastRecentlyUsed(priority);
  }

  /**
   * Whether the call being placed must follow {@code lane}'s pending barrier anyway (or there is
   * none): only then may it queue there, since a barrier may wait for the host (a host function)
   * and work CUDA does not order after it must not queue behind it.
   */
  private boolean followsAnyBarrierOn(int lane, LanePositions needs) {
    long barrier = pool.barrierAt(lane);
    return !pool.pending(lane, barrier) || needs.position(lane) >= barrier;
  }

  /**
   * Makes {@code lane} wait, device-side, for each need on another lane it does not already follow;
   * first, where the call may wait for the host, leaves the lane's pending work an event of its own
   * ({@link #keepTailCoverable}).
   */
  void waitForNeeds(CallRecord call, int lane, LanePositions needs) {
    if (call.touchesUnknownMemory || needsMayWaitForTheHost(lane, needs)) {
      keepTailCoverable(call, lane);
    }
    for (int i = 0, n = needs.count(); i < n; i++) {
      int from = needs.lane(i);
      long p = needs.position(from);
      if (from == lane || pool.waited(lane, from) >= p || !pool.pending(from, p)) {
        continue;
      }
      if (!priorityKeepsDependencies && call.priority == PriorityClass.HIGH
          && pool.classOf(from) != PriorityClass.HIGH) {
        continue; // the deliberate fault: the high call overtakes what it depends on
      }
      int event = events.cover(from, p, pool, device);
      call.eventRecorded |= events.recorded;
      device.waitEvent(lane, event);
      pool.mergeWait(lane, from, events.recordedAt(event), events.clocks(), events.clockOffset(event));
      call.addPredecessor(needs.seq(from));
    }
  }

  /** Whether a need on a lane other than {@code lane} may wait for the host ({@link StreamPool#mayWaitForTheHost}). */
  private boolean needsMayWaitForTheHost(int lane, LanePositions needs) {
    for (int i = 0, n = needs.count(); i < n; i++) {
      int from = needs.lane(i);
      if (from != lane && pool.mayWaitForTheHost(from, needs.position(from))) {
        return true;
      }
    }
    return false;
  }

  /**
   * Before {@code lane} queues what may wait for the host (a host function may wait until the
   * program reads another stream's results), records an event after its pending work where none
   * covers it: a later join of that work (a synchronize of its stream) then waits for it alone, not
   * for the host function behind it, which an event recorded at the lane's end would include.
   */
  private void keepTailCoverable(CallRecord call, int lane) {
    long tail = pool.tail(lane);
    if (tail > 0 && pool.pending(lane, tail) && events.covering(lane, tail) < 0) {
      events.cover(lane, tail, pool, device);
      call.eventRecorded |= events.recorded;
    }
  }
}
