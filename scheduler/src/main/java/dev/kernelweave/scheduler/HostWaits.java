package dev.kernelweave.scheduler;

import dev.kernelweave.call.CallRecord;

/**
 * The host's side of one context's {@link Scheduler}: which positions the host waits for before a
 * call that blocks it, how it waits for them outside the context's lock, and what it then knows
 * complete. What a call must wait for is the scheduler's to collect; this class turns it into the
 * waits of a {@link Ticket} (an event, or the whole lane where the position is its tail) and back
 * into completed positions.
 *
 * <p>Per call that blocks the host: {@link #addWaits} (under the lock) notes the waits in the
 * ticket; {@link #await} (without the lock) makes them; {@link #settle} or {@link #settleThrough}
 * (under the lock again) marks what they covered complete. A synchronization notes what it covers
 * with {@link #snapshotAll} before the real call and settles it after.
 *
 * <p>Not thread-safe: used under the context's dispatch lock, but {@link #await}, which makes only
 * device calls and touches nothing but its ticket.
 */
final class HostWaits {

  private final StreamDevice device;
  private final StreamPool pool;
  private final EventPool events;

  HostWaits(StreamDevice device, StreamPool pool, EventPool events) {
    this.device = device;
    this.pool = pool;
    this.events = events;
  }

  /**
   * Notes in {@code ticket} a host wait for each position in {@code needs}, but the legacy lane's
   * where the real call waits there anyway ({@code legacyWaitsAnyway}: a synchronous call on the
   * legacy stream) or where a wait would join a blocking stream's capture; marks the call
   * host-waited, narrowed when fewer lanes than are active.
   *
   * <p>A position that is its lane's tail is waited for by synchronizing the lane, with no event; an
   * event is recorded only for an older position no recording covers yet, so that the host does
   * not wait for the lane's later work.
   */
  void addWaits(CallRecord call, Ticket ticket, LanePositions needs, boolean legacyWaitsAnyway) {
    for (int i = 0, n = needs.count(); i < n; i++) {
      int lane = needs.lane(i);
      long p = needs.position(lane);
      if (legacyWaitsAnyway && lane == pool.legacy) {
        continue; // the real call on the legacy stream waits for it anyway
      }
      if (ticket.waitsDuringCapture && lane == pool.legacy) {
        continue; // an event or a wait there would join, and so break, a blocking stream's capture
      }
      events.addHostWait(call, ticket, lane, p, needs.seq(lane), pool, device);
    }
    if (ticket.waitCount > 0) {
      call.hostWaited = true;
      call.hostWaitNarrowed = ticket.waitCount < pool.activeLanes();
    }
  }

  /** Adds each lane's pending barrier to {@code needs}: a barrier may reach memory that no parameter names. */
  void addPendingBarriers(LanePositions needs) {
    for (int lane = 0; lane < pool.laneCount; lane++) {
      long p = pool.barrierAt(lane);
      if (p > 0 && pool.pending(lane, p)) {
        needs.add(lane, p, 0);
      }
    }
  }

  /**
   * The host waits for what {@link #addWaits} noted in {@code ticket}: each event, or the whole
   * lane where the position was its tail. Needs no lock: the device calls may be made without it.
   */
  void await(Ticket ticket) {
    int captureMode = ticket.waitsDuringCapture ? device.relaxCaptureMode() : 0;
    try {
      for (int i = 0; i < ticket.waitCount; i++) {
        if (ticket.waitEvent[i] == Ticket.WHOLE_LANE) {
          device.synchronizeLane(ticket.waitLane[i]);
        } else {
          device.synchronizeEvent(ticket.waitEvent[i]);
        }
      }
    } finally {
      if (ticket.waitsDuringCapture) {
        device.restoreCaptureMode(captureMode);
      }
    }
  }

  /** The host saw these positions complete (the waits of a ticket, or what a synchronization covered). */
  void settle(Ticket ticket) {
    for (int i = 0; i < ticket.waitCount; i++) {
      pool.completeAt(ticket.waitLane[i], ticket.waitPosition[i]);
    }
    LanePositions s = ticket.settled;
    for (int i = 0, n = s.count(); i < n; i++) {
      int lane = s.lane(i);
      pool.completeAt(lane, s.position(lane));
    }
  }

  /**
   * The host waited for a staged read: it, everything before it on its lane and everything that
   * lane had waited for up to it ({@link Ticket#throughClock}) is done. The ticket holds one wait,
   * noted by {@link #addTailWaitThrough}.
   */
  void settleThrough(Ticket ticket) {
    if (ticket.waitCount > 0) {
      pool.complete(ticket.waitLane[0], ticket.waitPosition[0], ticket.throughClock, 0);
    }
  }

  /**
   * Notes in {@code ticket} the host's wait for {@code lane} through its tail {@code position}, to
   * be settled by {@link #settleThrough}: the lane's clock is taken now, under the lock, since it
   * is the clock at that position only while the position is the tail.
   */
  void addTailWaitThrough(Ticket ticket, int lane, long position) {
    ticket.addWait(Ticket.WHOLE_LANE, lane, position);
    pool.copyClock(lane, ticket.throughClock, 0);
  }

  /** Notes every lane's tail in the ticket: what a device synchronization about to run covers. */
  void snapshotAll(Ticket ticket) {
    for (int lane = 0; lane < pool.laneCount; lane++) {
      if (pool.tail(lane) > 0) {
        ticket.settled.add(lane, pool.tail(lane), 0);
      }
    }
  }

  /** Notes in {@code ticket} the host's wait for everything queued on the call's lane so far, if any is pending. */
  void collectLaneTail(CallRecord call, Ticket ticket) {
    int lane = call.stream;
    long tail = pool.tail(lane);
    if (pool.pending(lane, tail)) {
      addTailWaitThrough(ticket, lane, tail);
      call.hostWaited = true;
    }
  }

  /**
   * A synchronous read makes the host wait for the lanes of its predecessors ({@code needs}) and
   * for the legacy lane's own earlier work, no more: narrowed when other lanes still have work running.
   */
  void noteSynchronousRead(CallRecord call, LanePositions needs) {
    int covered = 0;
    boolean legacyCovered = false;
    for (int i = 0, n = needs.count(); i < n; i++) {
      int lane = needs.lane(i);
      if (pool.pending(lane, needs.position(lane))) {
        covered++;
        legacyCovered |= lane == pool.legacy;
      }
    }
    if (!legacyCovered && pool.pending(pool.legacy, pool.tail(pool.legacy))) {
      covered++;
    }
    call.hostWaited = true;
    call.hostWaitNarrowed = covered < pool.activeLanes();
  }
}
