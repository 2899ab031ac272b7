package dev.kernelweave.scheduler;

import dev.kernelweave.call.CallKind;
import dev.kernelweave.call.CallRecord;
import dev.kernelweave.call.PriorityClass;

/**
 * Decides, for one CUDA context, on which stream each call runs and what it must wait for, from
 * the device memory the calls touch.
 *
 * <p>The application issues its calls one after another; this class keeps, per allocation slot,
 * the pending accesses with their byte ranges, and makes each call follow exactly the calls it
 * depends on: read-after-write, write-after-read and write-after-write, where two accesses of one
 * allocation conflict only when their byte ranges overlap. A call with one predecessor whose
 * lane it can extend stays on that lane (chains stay on one stream); independent calls spread over
 * the pool; a predecessor on another lane costs one {@code waitEvent} on the newest needed event of
 * that lane, and an event is recorded only when such a wait needs it. The host never waits on the
 * launch path.
 *
 * <p>Calls reach it through {@link Dispatch}, which maps each {@link Placement} to its steps and
 * holds the context's lock; each step fills the call's decision fields ({@code stream},
 * {@code predecessors}, {@code eventRecorded}, {@code hostWaited}, {@code barrier}) for the journal.
 * Beyond data, it keeps what CUDA orders for the host (see {@code docs/semantics.md}): per
 * application stream where its work went and what its later work must follow, and the pending
 * host-visible work of the legacy and blocking streams.
 *
 * <p>What it knows, and how it stays cheap: each lane counts the calls issued on it (positions);
 * per allocation slot a {@code DependencyTracker} keeps a bounded list of pending accesses, each a
 * byte range, read or write, and the (lane, position, seq) it stands for; per lane a vector clock records which position of every other
 * lane it already waits for, directly or through chains of waits, so a redundant wait is never
 * issued; the host's own waits (a synchronous device-to-host copy, an event or stream
 * synchronization, a barrier) mark positions complete, and complete work is never waited for.
 * Events belong to one lane each (a few per lane, see {@code EventPool}) and are recorded only
 * when a wait needs one, at the lane's tail. Steady-state decisions allocate nothing.
 *
 * <p>Not thread-safe: one scheduler per context, used under its {@link Dispatch}'s lock.
 */
public final class Scheduler {

  /**
   * Streams per context when the option {@code streams} is not given: the driver's default number
   * of hardware queues ({@code CUDA_DEVICE_MAX_CONNECTIONS}, 8). More streams than queues share
   * queues, and a cross-stream wait at the head of a shared queue holds back the other stream's
   * work; measured on the device, 8 streams beat 16 on every workload with cross-stream waits.
   */
  public static final int DEFAULT_STREAMS = 8;

  /**
   * High lanes, and low lanes, per context in the agent: one each. Every stream beyond the driver's
   * hardware queues shares one with another stream, and every lane lengthens the per-lane clocks
   * every cross-lane wait updates; a class's calls mostly form chains.
   */
  public static final int AGENT_CLASS_LANES = 1;

  /** The high and the low lanes each of a context's agent, {@link #AGENT_CLASS_LANES} with priority lanes, else 0. */
  public static int classLanes(boolean priorityLanes) {
    return priorityLanes ? AGENT_CLASS_LANES : 0;
  }

  private final StreamDevice device;
  private final Mutant mutant;
  private final StreamPool pool;
  private final EventPool events;
  private final DependencyTracker tracker;
  private final AppStreams appStreams;
  /** Barriers that every later call on the legacy stream or a blocking stream must follow. */
  private final LanePositions blockingFollow;
  /**
   * Pending calls of the legacy and blocking streams whose effect the host can see (they touch host
   * memory, or memory the agent does not know): a host wait that CUDA makes complete the legacy
   * stream must complete them too, even when the call itself does not depend on them.
   */
  private final LanePositions blockingVisible;
  /** Per lane, the newest call of the legacy or a blocking stream: what a synchronous copy completes for CUDA. */
  private final LanePositions blockingAll;
  /** Joins of application streams, their events, and what CUDA completed for the host. */
  private final StreamJoins joins;
  /** Streams capturing a graph; while any is, every call passes through untouched. */
  private int capturing;
  /** Scratch: what the call being placed must follow, or the users a host wait covers. */
  private final LanePositions needs;

  /**
   * @param device the stream and event operations to issue
   * @param streams the number of pool lanes, at least 1
   * @param mutant {@link Mutant#NONE}, or a deliberately broken variant for the fuzz
   */
  public Scheduler(StreamDevice device, int streams, Mutant mutant) {
    this(device, streams, 0, mutant);
  }

  /**
   * @param device the stream and event operations to issue
   * @param streams the number of normal pool lanes, at least 1
   * @param classLanes the lanes of the high class, and of the low class, beside the normal ones
   *     ({@link #poolLanes}); 0: every call shares the normal lanes, as without priorities
   * @param mutant {@link Mutant#NONE}, or a deliberately broken variant for the fuzz
   */
  public Scheduler(StreamDevice device, int streams, int classLanes, Mutant mutant) {
    if (streams < 1) {
      throw new IllegalArgumentException("streams must be at least 1, was " + streams);
    }
    this.device = device;
    this.mutant = mutant;
    if (classLanes < 0) {
      throw new IllegalArgumentException("class lanes must be at least 0, was " + classLanes);
    }
    this.pool = new StreamPool(streams, classLanes);
    this.events = new EventPool(pool.laneCount);
    this.tracker = new DependencyTracker(pool, mutant);
    this.appStreams = new AppStreams(pool.laneCount, mutant);
    this.blockingFollow = new LanePositions(pool.laneCount);
    this.blockingVisible = new LanePositions(pool.laneCount);
    this.blockingAll = new LanePositions(pool.laneCount);
    this.needs = new LanePositions(pool.laneCount);
    this.joins = new StreamJoins(device, pool, events, appStreams, mutant, blockingFollow, blockingVisible, blockingAll);
  }

  /** Joins of application streams, their events, and what CUDA completed for the host. */
  StreamJoins joins() {
    return joins;
  }

  /** The lane index of the application's legacy default stream: {@link #poolLanes}. */
  public int legacyLane() {
    return pool.legacy;
  }

  /**
   * The pool lanes of every class for {@code streams} normal ones: the index of the legacy lane,
   * and what a {@link StreamDevice} must be sized for. With priority lanes, the high lanes follow
   * the normal ones, then the low lanes.
   */
  public static int poolLanes(int streams, int classLanes) {
    return streams + 2 * classLanes;
  }

  /** The class of a lane's stream: the priority it was created with. */
  public PriorityClass laneClass(int lane) {
    return pool.classOf(lane);
  }

  /** Handle of the legacy default stream ({@code CU_STREAM_LEGACY}, {@code cudaStreamLegacy}). */
  public static final long LEGACY_HANDLE = 0x1;
  /** Handle of the calling thread's default stream ({@code CU_STREAM_PER_THREAD}, {@code cudaStreamPerThread}). */
  public static final long PER_THREAD_HANDLE = 0x2;
  private static final long PER_THREAD_KEY = 1L << 62;

  /**
   * The key of the application stream a handle names for the calling thread: null and {@code 0x1}
   * are the same legacy stream (key 0), {@code 0x2} is the thread's own per-thread default stream.
   */
  public static long streamKey(long handle, long threadId) {
    if (handle == LEGACY_HANDLE) {
      return 0;
    }
    if (handle == PER_THREAD_HANDLE) {
      return PER_THREAD_KEY | threadId;
    }
    return handle;
  }

  /**
   * The application created a stream: with {@code nonBlocking}, CUDA's legacy stream does not
   * synchronize with it. A stream never seen created is taken for a blocking one, which orders more.
   */
  public void streamCreated(long handle, boolean nonBlocking) {
    AppStreams.Stream s = appStreams.of(handle);
    s.nonBlocking = nonBlocking;
    s.clear();
  }

  /** The device this scheduler issues its own stream and event operations on. */
  StreamDevice device() {
    return device;
  }

  /** The deliberate fault this scheduler carries, {@link Mutant#NONE} for the real one. */
  public Mutant mutant() {
    return mutant;
  }

  /** Whether a stream is capturing a graph: every call then passes through untouched. */
  public boolean capturing() {
    return capturing > 0;
  }

  /** Adds what CUDA orders the call after beyond its data: barriers and events on its stream. */
  private void collectStreamOrder(AppStreams.Stream s) {
    s.follow.addPendingTo(needs, pool);
    if (!s.nonBlocking) {
      blockingFollow.addPendingTo(needs, pool);
    }
  }

  /** Adds every lane's pending tail: what a call touching unknown memory must follow. */
  private void collectEverything() {
    for (int lane = 0; lane < pool.laneCount; lane++) {
      long p = pool.tail(lane);
      if (p > 0 && pool.pending(lane, p)) {
        needs.add(lane, p, 0);
      }
    }
  }

  private static boolean hostVisible(CallRecord call) {
    return call.touchesHostMemory || call.touchesUnknownMemory || call.barrier;
  }

  private static boolean blocksHost(CallRecord call) {
    return call.kind == CallKind.COPY_DEVICE_TO_HOST || call.kind == CallKind.COPY_HOST_TO_DEVICE;
  }
  /**
   * Places device work that has a stream parameter: computes its predecessors from the call's
   * accesses, picks a pool lane, issues the waits it needs. A call with
   * {@code touchesUnknownMemory} (or one the interceptor already marked {@code barrier}) becomes a
   * barrier and runs on the legacy lane.
   *
   * <p>A call with no pending predecessor goes to the pool lane chosen longest ago. A call whose
   * predecessor is the newest call on its lane extends that chain on the same lane; the legacy lane
   * counts only for a call the program made on the legacy stream, which keeps a chain the program
   * began with a synchronous copy where the copy back will run. Otherwise (the
   * producer already has a successor on its lane: a fork) it takes the lane chosen longest ago and
   * waits; a {@link CallRecord#brief} call instead queues behind its newest predecessor, since a
   * fork would cost it a wait and its join an event, for work shorter than either.
   *
   * @return the lane to issue the real call on
   */
  public int beforeAsyncWork(CallRecord call) {
    needs.clear();
    boolean barrier = call.touchesUnknownMemory || call.barrier;
    if (barrier && mutant != Mutant.NO_PTX_OPTIMISTIC) {
      // Enqueued, not waited for: the host never blocks where CUDA would not.
      call.barrier = true;
      collectEverything();
    } else {
      tracker.collect(call, needs);
    }
    collectStreamOrder(appStreams.of(call));
    int lane = barrier ? pool.leastRecentlyUsed(call.priority) : chooseLane(call);
    pool.ensureCreated(lane, device);
    pool.touch(lane);
    waitForNeeds(call, lane);
    call.stream = lane;
    return lane;
  }

  /**
   * Prepares device work that runs as written on the legacy default stream and keeps its
   * synchronous meaning: makes the legacy lane wait for the call's predecessors only.
   */
  public void beforeSyncWork(CallRecord call) {
    needs.clear();
    if (call.touchesUnknownMemory || call.barrier) {
      call.barrier = true;
      collectEverything();
    } else {
      tracker.collect(call, needs);
    }
    collectStreamOrder(appStreams.legacy());
    if (blocksHost(call) && mutant != Mutant.NARROW_PAST_HOST_EFFECTS) {
      blockingVisible.addPendingTo(needs, pool);
    }
    if (blocksHost(call)) {
      joins.noteCompletedForHost();
    }
    if (call.kind == CallKind.COPY_DEVICE_TO_HOST) {
      noteHostWaitOfSynchronousRead(call);
    }
    waitForNeeds(call, pool.legacy);
    call.stream = pool.legacy;
  }

  /**
   * Whether a synchronous copy on the legacy stream placed now would wait for nothing: none of its
   * predecessors, nothing on the legacy lane and no host-visible work of the blocking streams is
   * pending.
   */
  boolean syncCopyWaitsForNothing(CallRecord call) {
    collectSyncCopyNeeds(call);
    return needs.count() == 0 && !pool.pending(pool.legacy, pool.tail(pool.legacy));
  }

  /**
   * Collects what a synchronous copy on the legacy stream follows: its predecessors (everything,
   * for one touching unknown memory), the legacy stream's order and the blocking streams' pending
   * host-visible work.
   */
  private void collectSyncCopyNeeds(CallRecord call) {
    needs.clear();
    if (call.touchesUnknownMemory || call.barrier) {
      collectEverything();
    } else {
      tracker.collect(call, needs);
    }
    collectStreamOrder(appStreams.legacy());
    if (mutant != Mutant.NARROW_PAST_HOST_EFFECTS) {
      blockingVisible.addPendingTo(needs, pool);
    }
  }

  /**
   * Before a call that blocks the host: notes in {@code ticket} what the host will wait for outside
   * the context's lock, so that the real call, made under the lock, finds it done and blocks only
   * briefly. For a free ({@link Placement#FREE}), the allocation's pending users; for a synchronous
   * copy ({@link Placement#SYNC}), its predecessors and the pending host-visible work of the legacy
   * and blocking streams, except the legacy lane's, which the real call there waits for anyway;
   * for a staged copy ({@link Placement#STAGED}), only that host-visible work, the copy's own
   * predecessors being waited for device-side.
   *
   * <p>A position that is its lane's tail is waited for by synchronizing the lane, with no event; an
   * event is recorded only for an older position no recording covers yet, so that the host does
   * not wait for the lane's later work.
   */
  void collectHostWaits(CallRecord call, Ticket ticket, Placement placement) {
    needs.clear();
    if (placement == Placement.FREE) {
      if (mutant == Mutant.NO_FREE_WAIT || call.accessCount == 0) {
        return;
      }
      tracker.collectUsers(call.accessSlot[0], needs);
      // A barrier may reach memory that no parameter names, this allocation's included.
      for (int lane = 0; lane < pool.laneCount; lane++) {
        long p = pool.barrierAt(lane);
        if (p > 0 && pool.pending(lane, p)) {
          needs.add(lane, p, 0);
        }
      }
      if (capturing()) {
        // Only work of streams beside the capture can be pending (the capture began with a device
        // synchronization); the agent's lanes never capture, but the legacy lane must not be touched.
        ticket.waitsDuringCapture = true;
      }
    } else if (placement == Placement.STAGED) {
      if (mutant != Mutant.NARROW_PAST_HOST_EFFECTS) {
        blockingVisible.addPendingTo(needs, pool);
      }
      joins.noteCompletedForHost();
    } else if (placement == Placement.ASYNC) {
      // A copy into pageable memory returns once done, in its stream's order: the host waits for
      // the stream's earlier work first, then the copy blocks only for itself.
      tracker.collect(call, needs);
      joins.collectJoin(appStreams.of(call), true, needs);
    } else {
      collectSyncCopyNeeds(call);
    }
    for (int i = 0, n = needs.count(); i < n; i++) {
      int lane = needs.lane(i);
      long p = needs.position(lane);
      if (placement == Placement.SYNC && lane == pool.legacy) {
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

  /** Notes every lane's tail in the ticket: what a device synchronization about to run covers. */
  void snapshotAll(Ticket ticket) {
    for (int lane = 0; lane < pool.laneCount; lane++) {
      if (pool.tail(lane) > 0) {
        ticket.settled.add(lane, pool.tail(lane), 0);
      }
    }
  }

  void beginCapture() {
    device.synchronizeDevice();
    pool.completeAll();
    capturing++;
  }

  void endCapture() {
    if (capturing > 0) {
      capturing--;
    }
  }

  /**
   * A synchronous read makes the host wait for the lanes of its predecessors and for the legacy
   * lane's own earlier work, no more: narrowed when other lanes still have work running.
   */
  private void noteHostWaitOfSynchronousRead(CallRecord call) {
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

  /** Records a placed call in the history once the real call returned; a failed call leaves none. */
  public void afterWork(CallRecord call, boolean succeeded) {
    int lane = call.stream;
    if (succeeded && lane >= 0) {
      long position = record(call, lane);
      if (call.returnsWhenDone) {
        pool.completeThrough(lane, position); // the copy returned once done, in its lane's order
      }
    }
  }

  /**
   * {@link #afterWork} for a call placed by {@link #beforeSyncWork}: a synchronous device-to-host
   * copy returns once it, and everything before it on the legacy lane, is done. (Asynchronous work
   * of the legacy stream also runs there, so the lane alone does not say the copy was synchronous.)
   */
  public void afterSyncWork(CallRecord call, boolean succeeded) {
    int lane = call.stream;
    if (!succeeded || lane < 0) {
      return;
    }
    long position = record(call, lane);
    if (call.kind == CallKind.COPY_DEVICE_TO_HOST && lane == pool.legacy) {
      pool.completeThrough(lane, position);
    }
  }

  /**
   * A {@link Placement#STAGED_READ} copy was queued on its lane: records it as {@link #afterWork}
   * does and notes in {@code ticket} the host's wait for it, which {@link #settleStagedRead} ends.
   */
  void issuedStagedRead(CallRecord call, Ticket ticket) {
    int lane = call.stream;
    long position = record(call, lane);
    ticket.addWait(Ticket.WHOLE_LANE, lane, position); // the copy is the lane's tail
    call.hostWaited = true;
  }

  /** Notes in {@code ticket} the host's wait for everything queued on the call's lane so far, if any is pending. */
  void collectLaneTail(CallRecord call, Ticket ticket) {
    int lane = call.stream;
    long tail = pool.tail(lane);
    if (pool.pending(lane, tail)) {
      ticket.addWait(Ticket.WHOLE_LANE, lane, tail);
      call.hostWaited = true;
    }
  }

  /** The host waited for a staged read: it, and everything before it on its lane, is done. */
  void settleStagedRead(Ticket ticket) {
    for (int i = 0; i < ticket.waitCount; i++) {
      pool.completeThrough(ticket.waitLane[i], ticket.waitPosition[i]);
    }
  }

  /** Gives the work just issued on {@code lane} its position, and what it touched and where it was seen. */
  private long record(CallRecord call, int lane) {
    long position = pool.issue(lane);
    tracker.record(call, lane, position);
    AppStreams.Stream s = lane == pool.legacy ? appStreams.legacy() : appStreams.of(call);
    s.footprint.add(lane, position, call.seq);
    joins.noteStreamWork(s);
    if (!s.nonBlocking) {
      blockingVisible.addPendingTo(s.implied, pool); // CUDA ordered this call after them
      blockingAll.add(lane, position, call.seq);
      if (hostVisible(call)) {
        blockingVisible.add(lane, position, call.seq);
      }
    }
    if (call.barrier) {
      (s.nonBlocking ? s.follow : blockingFollow).add(lane, position, call.seq);
      pool.barrierIssued(lane, position);
    }
    return position;
  }

  /**
   * The host waits for every pending user of the allocation the call frees (its first access), in
   * place: the steps {@link Dispatch} takes for a free, for a caller that holds no lock.
   */
  void beforeFree(CallRecord call) {
    Ticket ticket = new Ticket();
    ticket.reset(Placement.FREE, pool.laneCount);
    collectHostWaits(call, ticket, Placement.FREE);
    awaitHostWaits(ticket);
    settle(ticket);
  }

  /**
   * The host waits for what {@link #collectHostWaits} noted in {@code ticket}: each event, or the
   * whole lane where the position was its tail. Needs no lock: the device calls may be made without it.
   */
  void awaitHostWaits(Ticket ticket) {
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

  /** Forgets the freed allocation's history, so that a new allocation in its slot starts fresh. */
  public void afterFree(CallRecord call) {
    if (call.accessCount > 0) {
      tracker.clear(call.accessSlot[0]);
    }
  }

  /** The host waits for all work, before a call the agent does not understand. */
  public void beforeBarrier(CallRecord call) {
    device.synchronizeDevice();
    pool.completeAll();
    call.barrier = true;
    call.hostWaited = true;
  }

  /** The host waits for whatever the opaque call queued anywhere; all history is complete. */
  public void afterBarrier(CallRecord call) {
    device.synchronizeDevice();
    pool.completeAll();
  }

  /**
   * Whether the host knows position {@code position} of {@code lane} complete (position 0, nothing,
   * always is): what a buffer the device read at that position needs before it is reused.
   */
  public boolean isComplete(int lane, long position) {
    return !pool.pending(lane, position);
  }

  /**
   * The position the next call committed on {@code lane} gets. Under the lock, between a call's
   * placement on that lane and its commit, that call's own position.
   */
  public long nextPosition(int lane) {
    return pool.tail(lane) + 1;
  }

  /** Everything issued so far has completed (the application synchronized the device). */
  public void afterDeviceSynchronize() {
    pool.completeAll();
  }

  /**
   * Picks the pool lane for a call whose predecessors are in {@link #needs}: the lane of a
   * predecessor that is its lane's newest call (a chain goes on), else, for a {@code brief} call,
   * the lane of its newest predecessor or, with none pending, the lane its application stream's
   * last call went to (where, without the agent, it would have queued anyway), else the least
   * recently used lane.
   */
  private int chooseLane(CallRecord call) {
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
        return followsAnyBarrierOn(newest) ? newest : pool.leastRecentlyUsed(priority);
      }
      int streamLane = appStreams.of(call).footprint.lastLane();
      if (streamLane >= 0 && streamLane != pool.legacy && pool.serves(streamLane, priority)
          && followsAnyBarrierOn(streamLane)) {
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
  private boolean followsAnyBarrierOn(int lane) {
    long barrier = pool.barrierAt(lane);
    return !pool.pending(lane, barrier) || needs.position(lane) >= barrier;
  }

  /** Makes {@code lane} wait, device-side, for each need on another lane it does not already follow. */
  private void waitForNeeds(CallRecord call, int lane) {
    for (int i = 0, n = needs.count(); i < n; i++) {
      int from = needs.lane(i);
      long p = needs.position(from);
      if (from == lane || pool.waited(lane, from) >= p || !pool.pending(from, p)) {
        continue;
      }
      if (mutant == Mutant.PRIORITY_SKIPS_DEPENDENCY && call.priority == PriorityClass.HIGH
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
}
