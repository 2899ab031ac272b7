package dev.kernelweave.scheduler;

import dev.kernelweave.call.CallKind;
import dev.kernelweave.call.CallRecord;

/**
 * The application's streams and events as the host sees them, for one context's {@link Scheduler}:
 * joining a stream's work, wherever it went, onto the stream itself before a synchronize, a query or
 * an event record on it; what an event stands for, for a stream made to wait for it; the order of a
 * stream's work after a record of an event that may be timed; and the work CUDA completed for the
 * host at a synchronous call that the agent did not wait for, which a later query must wait for.
 *
 * <p>Not thread-safe: used under the context's dispatch lock, like its scheduler, whose pool,
 * events, streams and lists of blocking work it shares.
 */
final class StreamJoins {

  private final StreamDevice device;
  private final StreamPool pool;
  private final EventPool events;
  private final AppStreams appStreams;
  /** {@link OrderingRules.Rule#EVENT_QUERIES_SEE_HOST_COMPLETION}. */
  private final boolean eventQueriesSeeHostCompletion;
  /** {@link OrderingRules.Rule#HOST_WAITS_COVER_VISIBLE_WORK}. */
  private final boolean hostWaitsCoverVisibleWork;
  /** {@link OrderingRules.Rule#HAND_BACK_JOINS_EACH_STREAM}. */
  private final boolean handBackJoinsEachStream;
  /** The scheduler's: barriers every later call of the legacy and blocking streams follows. */
  private final LanePositions blockingFollow;
  /** The scheduler's: barriers of blocking streams that later calls of the legacy stream follow. */
  private final LanePositions legacyFollow;
  /** The scheduler's: pending host-visible work of the legacy and blocking streams. */
  private final LanePositions blockingVisible;
  /** The scheduler's: pending host-visible work of blocking streams that the legacy stream's later work follows. */
  private final LanePositions legacyVisible;
  /** The scheduler's: per lane, the newest call of the legacy or a blocking stream. */
  private final LanePositions blockingAll;
  /**
   * Work of the legacy and blocking streams that CUDA completed before a synchronous copy or a
   * synchronize of the legacy stream returned, which the agent did not wait for (the host could not
   * see it then). A later query that covers it waits for it first, so that it answers as CUDA would.
   */
  private final LanePositions completedForHost;
  /** How often CUDA completed the legacy and blocking streams' work for the host ({@link #noteCompletedForHost}). */
  private long hostCompletions;
  /** Application events, by handle, as last recorded. */
  private final java.util.HashMap<Long, AppEvent> appEvents = new java.util.HashMap<>();

  /** An application event's last record. */
  private static final class AppEvent {
    /** Where the work it stands for went. */
    final LanePositions recorded;
    /** {@link #hostCompletions} when it was recorded. */
    long completionsAtRecord;
    /** Recorded on the legacy stream or one the legacy stream synchronizes with. */
    boolean legacyOrdered;

    AppEvent(int laneCount) {
      recorded = new LanePositions(laneCount);
    }
  }
  /** Scratch: what a join covers. */
  private final LanePositions needs;

  StreamJoins(StreamDevice device, StreamPool pool, EventPool events, AppStreams appStreams, OrderingRules rules,
      LanePositions blockingFollow, LanePositions legacyFollow, LanePositions blockingVisible,
      LanePositions legacyVisible, LanePositions blockingAll) {
    this.device = device;
    this.pool = pool;
    this.events = events;
    this.appStreams = appStreams;
    this.eventQueriesSeeHostCompletion = rules.keeps(OrderingRules.Rule.EVENT_QUERIES_SEE_HOST_COMPLETION);
    this.hostWaitsCoverVisibleWork = rules.keeps(OrderingRules.Rule.HOST_WAITS_COVER_VISIBLE_WORK);
    this.handBackJoinsEachStream = rules.keeps(OrderingRules.Rule.HAND_BACK_JOINS_EACH_STREAM);
    this.blockingFollow = blockingFollow;
    this.legacyFollow = legacyFollow;
    this.blockingVisible = blockingVisible;
    this.legacyVisible = legacyVisible;
    this.blockingAll = blockingAll;
    this.completedForHost = new LanePositions(pool.laneCount);
    this.needs = new LanePositions(pool.laneCount);
  }

  /** A synchronize of the legacy stream completes, for CUDA, all earlier work of the blocking streams too. */
  void noteLegacySynchronize(CallRecord call) {
    if (appStreams.of(call) == appStreams.legacy()) {
      noteCompletedForHost();
    }
  }

  /** CUDA completes, before a synchronous copy or a legacy-stream synchronize returns, all earlier legacy and blocking work. */
  void noteCompletedForHost() {
    blockingAll.addPendingTo(completedForHost, pool);
    hostCompletions++;
  }

  /** Work was just given to stream {@code s}, on a lane or on the application's stream itself. */
  void noteStreamWork(AppStreams.Stream s) {
    s.completionsAtLastWork = hostCompletions;
    if (s == appStreams.legacy()) {
      legacyWorkIssued();
    }
  }

  /**
   * Work of the legacy stream was issued after the barriers in {@code legacyFollow} and the
   * host-visible work in {@code legacyVisible}: every blocking stream's later work follows that
   * work, so it follows those too.
   */
  private void legacyWorkIssued() {
    if (legacyFollow.count() > 0) {
      legacyFollow.addPendingTo(blockingFollow, pool);
      legacyFollow.clear();
    }
    if (legacyVisible.count() > 0) {
      legacyVisible.addPendingTo(blockingVisible, pool);
      legacyVisible.clear();
    }
  }

  /**
   * Whether CUDA had completed, for the host, all the work of the call's application stream: the
   * legacy stream synchronizes with it, and a synchronous copy or a synchronize of the legacy stream
   * returned since its last work was issued. A query of it must then answer complete, though what
   * the agent put on the stream itself (event records, waits for its lanes) may not have run: the
   * narrowed host wait of that copy did not wait for it.
   */
  boolean appStreamCompletedForHost(CallRecord call) {
    AppStreams.Stream s = appStreams.of(call);
    return s != appStreams.legacy() && !s.nonBlocking && s.completionsAtLastWork >= 0
        && hostCompletions > s.completionsAtLastWork;
  }

  /**
   * Whether CUDA had already completed the application event's last record for the host: it was
   * recorded on the legacy stream or a stream the legacy stream synchronizes with, and a synchronous
   * copy or a synchronize of the legacy stream returned since, which the agent may not have waited
   * for. A query of the event must then answer complete.
   */
  boolean eventCompletedForHost(long appEvent) {
    AppEvent e = appEvents.get(appEvent);
    return e != null && e.legacyOrdered && hostCompletions > e.completionsAtRecord
        && eventQueriesSeeHostCompletion;
  }

  /**
   * Before a query of the call's application stream: notes in {@code ticket} the host's wait for the
   * work the query covers that CUDA already completed for the host (see {@link #completedForHost})
   * but that may still run under the agent, so that the query answers as CUDA would. The host waits
   * only for work CUDA had finished before the query, never for later work.
   */
  void collectCompletedForHost(CallRecord call, Ticket ticket) {
    needs.clear();
    collectJoin(appStreams.of(call), false, needs);
    for (int i = 0, n = needs.count(); i < n; i++) {
      int lane = needs.lane(i);
      long p = Math.min(needs.position(lane), completedForHost.position(lane));
      if (pool.pending(lane, p)) {
        events.addHostWait(call, ticket, lane, p, needs.seq(lane), pool, device);
      }
    }
    if (ticket.waitCount > 0) {
      call.hostWaited = true;
      call.hostWaitNarrowed = true;
    }
  }

  /**
   * Adds to {@code into} what CUDA orders before a point of stream {@code s}: its own work wherever
   * it went, what it was made to follow and, for a stream the legacy stream synchronizes with, the
   * host-visible legacy and blocking work before it. {@code newWork}: the point is new work on the
   * stream (an event record, a copy), which follows everything of the legacy stream issued so far;
   * otherwise (a query, a synchronize) only what the stream's own calls followed when issued.
   */
  void collectJoin(AppStreams.Stream s, boolean newWork, LanePositions into) {
    s.footprint.addPendingTo(into, pool);
    s.follow.addPendingTo(into, pool);
    if (s.nonBlocking) {
      return;
    }
    if (newWork) {
      blockingFollow.addPendingTo(into, pool);
      if (s == appStreams.legacy()) {
        legacyFollow.addPendingTo(into, pool);
      }
      if (hostWaitsCoverVisibleWork) {
        blockingVisible.addPendingTo(into, pool);
        if (s == appStreams.legacy()) {
          legacyVisible.addPendingTo(into, pool);
        }
      }
    } else if (hostWaitsCoverVisibleWork) {
      s.implied.addPendingTo(into, pool);
    }
  }

  /**
   * Makes the application's own stream wait, device-side, for everything CUDA would have ordered
   * before a call on it (the stream's work wherever it went, what it must follow and, for a stream
   * the legacy stream synchronizes with, pending host-visible work), so that the real call on that
   * stream, a synchronize, a query or an event record, means what it means without the agent.
   * The host does not wait here.
   */
  void joinOntoAppStream(CallRecord call, Ticket ticket, boolean newWork) {
    AppStreams.Stream s = appStreams.of(call);
    needs.clear();
    collectJoin(s, newWork, needs);
    if (call.timedEvent && s == appStreams.legacy()) {
      // CUDA's legacy stream follows every blocking stream's earlier work: so does a timed record on it.
      blockingAll.addPendingTo(needs, pool);
    }
    for (int i = 0, n = needs.count(); i < n; i++) {
      int lane = needs.lane(i);
      long p = needs.position(lane);
      ticket.settled.add(lane, p, needs.seq(lane));
      // Where the stream already waits for it, nothing: a query polled in a loop must not queue a wait each time.
      if (joinLane(s, call.appStream, lane, p, needs.seq(lane))) {
        call.eventRecorded |= events.recorded;
        call.addPredecessor(needs.seq(lane));
      }
    }
    if (newWork) {
      noteStreamWork(s);
    }
    if (call.kind == CallKind.EVENT && call.appEvent != 0) {
      AppEvent e = appEvents.get(call.appEvent);
      if (e == null) {
        e = new AppEvent(pool.laneCount);
        appEvents.put(call.appEvent, e);
      }
      e.completionsAtRecord = hostCompletions;
      e.legacyOrdered = !s.nonBlocking;
      e.recorded.clear();
      LanePositions settled = ticket.settled;
      for (int i = 0, n = settled.count(); i < n; i++) {
        int lane = settled.lane(i);
        e.recorded.add(lane, settled.position(lane), settled.seq(lane));
      }
    }
  }

  /**
   * Hands every stream back to the program (the agent stops scheduling): makes the legacy stream and
   * every live application stream wait, device-side, for what a synchronize of it would wait for
   * ({@link #collectHandOver}): the work the agent moved off it and what it was made to follow. A
   * synchronize of a stream with no later work then waits for its moved work too, which a wait of
   * the legacy stream alone would not give a blocking stream; and no stream waits for another's
   * work that CUDA does not order before it, which could be a host function waiting for the
   * program's next read. CUDA's implicit synchronization between the legacy and blocking streams
   * then orders each stream's later work after the others' joins, as it ordered it after their work.
   * A per-thread default stream can be named only on its own thread ({@link
   * #joinHandOverOntoPerThreadStream}), and a destroyed stream's never: the driver may have freed
   * what it named. The legacy stream waits for the work of both, where they are blocking streams,
   * which CUDA orders before the legacy stream's next call. The host does not wait, and nothing
   * waits for the streams: only work issued before can be waited for, so no wait can close a cycle.
   */
  void handOverEveryStream() {
    AppStreams.Stream legacy = appStreams.legacy();
    needs.clear();
    if (!handBackJoinsEachStream) {
      // The deliberate fault: the legacy and non-blocking streams wait for everything, no other stream.
      pool.addPendingTails(needs);
      joinAll(legacy, 0, needs);
      appStreams.forEachLiveNonBlocking((stream, handle) -> joinAll(stream, handle, needs));
      return;
    }
    collectHandOver(legacy, needs);
    appStreams.forEachUnnamedBlocking(stream -> collectHandOver(stream, needs));
    joinAll(legacy, 0, needs);
    appStreams.forEachLiveNamed((stream, handle) -> {
      needs.clear();
      collectHandOver(stream, needs);
      joinAll(stream, handle, needs);
    });
  }

  /** Calls {@code threads} with each thread whose per-thread default stream has not joined all it must at the hand-over. */
  void threadsBehindTheHandOver(java.util.function.LongConsumer threads) {
    if (!handBackJoinsEachStream) {
      return;
    }
    appStreams.forEachPerThread((stream, thread) -> {
      needs.clear();
      collectHandOver(stream, needs);
      for (int i = 0, n = needs.count(); i < n; i++) {
        int lane = needs.lane(i);
        if (stream.joined.position(lane) < needs.position(lane)) {
          threads.accept(thread);
          return;
        }
      }
    });
  }

  /**
   * On thread {@code thread}, after the hand-over: makes its per-thread default stream ({@code
   * CU_STREAM_PER_THREAD}, which names the calling thread's) wait, device-side, for what a synchronize
   * of it would wait for, as {@link #handOverEveryStream} does for the other streams.
   */
  void joinHandOverOntoPerThreadStream(long thread) {
    AppStreams.Stream s = appStreams.find(Scheduler.streamKey(Scheduler.PER_THREAD_HANDLE, thread));
    if (s != null) {
      needs.clear();
      collectHandOver(s, needs);
      joinAll(s, Scheduler.PER_THREAD_HANDLE, needs);
    }
  }

  /**
   * What a synchronize of stream {@code s} waits for: its own work wherever it went and what it was
   * made to follow. Not what its new work would follow beyond that: the join is itself work on the
   * stream, which CUDA's implicit synchronization makes the other streams' later work follow, and
   * that later work follows their own joins in the same way.
   */
  private void collectHandOver(AppStreams.Stream s, LanePositions into) {
    collectJoin(s, false, into);
  }

  /** Makes stream {@code s} (handle {@code handle}) wait for each of {@code positions}. */
  private void joinAll(AppStreams.Stream s, long handle, LanePositions positions) {
    for (int i = 0, n = positions.count(); i < n; i++) {
      int lane = positions.lane(i);
      joinLane(s, handle, lane, positions.position(lane), positions.seq(lane));
    }
  }

  /**
   * Makes stream {@code s} (the legacy one, or the application stream {@code handle}) wait,
   * device-side, for {@code lane} through position {@code p}; false, and nothing done, where it
   * already does.
   */
  private boolean joinLane(AppStreams.Stream s, long handle, int lane, long p, long seq) {
    boolean legacy = s == appStreams.legacy();
    if (legacy ? lane == pool.legacy || pool.waited(pool.legacy, lane) >= p : s.joined.position(lane) >= p) {
      return false;
    }
    int event = events.cover(lane, p, pool, device);
    if (legacy) {
      device.waitEvent(pool.legacy, event);
      pool.mergeWait(pool.legacy, lane, events.recordedAt(event), events.clocks(), events.clockOffset(event));
    } else {
      device.waitEventOnAppStream(handle, event);
      s.joined.add(lane, events.recordedAt(event), seq);
    }
    return true;
  }

  /**
   * The application recorded an event that may be timed on its stream (after {@link
   * #joinOntoAppStream}): the stream's later work must not start before the record, or a pair of
   * records would no longer time the work between them ({@code cuEventElapsedTime}).
   * Events created without timing order nothing more. A pool lane waits for the record,
   * device-side, and the stream's later work follows that wait; the next of it chains there.
   */
  void afterAppEventRecord(CallRecord call, boolean succeeded) {
    if (succeeded && call.appEvent != 0 && call.timedEvent) {
      laterWorkFollowsAppEvent(call);
    }
  }

  /**
   * The application created an event: whatever a handle reused by it stood for is forgotten, so that
   * the new event counts as never recorded here until it is (a record of it in another context, which
   * this scheduler never sees, is then an unknown event's, which a stream's wait follows).
   */
  void eventCreated(long appEvent) {
    appEvents.remove(appEvent);
  }

  /** The application made a stream wait for an event: its later work follows what the event stands for. */
  void streamWaitsForEvent(CallRecord call) {
    AppEvent e = appEvents.get(call.appEvent);
    if (e != null) {
      AppStreams.Stream s = appStreams.of(call);
      e.recorded.addPendingTo(s.follow, pool);
      noteStreamWork(s); // the stream now waits for that work, which no earlier copy completed
    }
  }

  /**
   * After the application's stream waited for an event whose record the agent did not see (made
   * before it engaged, or in another context): the stream itself waits for it, but its later work,
   * which the agent moves off the stream, must follow it too. A pool lane waits for the event,
   * device-side, and the stream's later work follows that wait, as after a timed record.
   */
  void afterAppStreamWait(CallRecord call, boolean succeeded) {
    if (succeeded && call.appEvent != 0 && !appEvents.containsKey(call.appEvent)) {
      laterWorkFollowsAppEvent(call);
      noteStreamWork(appStreams.of(call));
    }
  }

  /**
   * A pool lane waits for the call's application event; the call's stream's later work follows that
   * wait, and, on the legacy stream, every blocking stream's later work too, as CUDA orders it.
   */
  private void laterWorkFollowsAppEvent(CallRecord call) {
    int lane = pool.leastRecentlyUsed(call.priority); // the stream's next call, of this thread, chains there
    pool.ensureCreated(lane, device);
    device.laneWaitsForAppEvent(lane, call.appEvent);
    long at = pool.issue(lane);
    AppStreams.Stream s = appStreams.of(call);
    s.recordFollow.add(lane, at, call.seq);
    if (s == appStreams.legacy()) {
      blockingFollow.add(lane, at, call.seq);
    }
  }

  /**
   * While a stream captures: whether the call is asynchronous work, an event record or wait, or a
   * query or synchronize, of an application stream that is not capturing (never the legacy
   * stream, whose work would join a blocking stream's capture). Such a call is scheduled as
   * usual, so that the stream's later work stays ordered after it; the agent's own stream and event
   * calls are legal during a capture. Everything else passes through as written.
   */
  boolean outsideCapture(CallRecord call, Placement placement) {
    if (placement == Placement.FREE) {
      return true; // it still waits for the users the agent moved, in relaxed capture mode
    }
    boolean streamWork = placement == Placement.ASYNC && !call.returnsWhenDone
        || placement == Placement.EVENT_RECORD || placement == Placement.STREAM_WAIT_EVENT
        || placement == Placement.STREAM_SYNC || placement == Placement.STREAM_QUERY;
    return streamWork && appStreams.of(call) != appStreams.legacy() && !device.appStreamCapturing(call.appStream);
  }
}
