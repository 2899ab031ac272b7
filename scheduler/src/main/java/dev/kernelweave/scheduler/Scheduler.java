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
 * <p>Per call, as {@link Dispatch} takes it: a {@code before...} step under the lock (the
 * predecessors collected, the lane chosen by {@link LaneChoice}, its device-side waits issued; for a
 * call that blocks the host, {@link #collectHostWaits} and the {@link HostWaits} made outside the
 * lock); the real call; then the {@code after...} step, which records what the call touched at its
 * lane's new position ({@link #afterWork}, {@link #afterSyncWork}, {@link #afterFree}...), or
 * nothing for a call that failed. Its parts: {@link DependencyTracker} (what a call must follow),
 * {@link LaneChoice} (where it goes), {@link StreamJoins} and {@link AppStreams} (the application's
 * streams and events), {@link HostWaits} (the host's waits), over one {@link StreamPool} and {@link
 * EventPool}.
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
  private final OrderingRules rules;
  /** {@link OrderingRules.Rule#BARRIERS_FOLLOW_EVERYTHING}. */
  private final boolean barriersFollowEverything;
  /** {@link OrderingRules.Rule#HOST_WAITS_COVER_VISIBLE_WORK}. */
  private final boolean hostWaitsCoverVisibleWork;
  /** {@link OrderingRules.Rule#FREE_WAITS_FOR_USERS}. */
  private final boolean freeWaitsForUsers;
  private final StreamPool pool;
  private final EventPool events;
  private final DependencyTracker tracker;
  private final AppStreams appStreams;
  /** Barriers that every later call on the legacy stream or a blocking stream must follow. */
  private final LanePositions blockingFollow;
  /**
   * Barriers of blocking streams other than the legacy stream that no call of the legacy stream
   * followed yet: later calls of the legacy stream follow them, other blocking streams do not (CUDA
   * orders two blocking streams only through the legacy stream). Once a call of the legacy stream is
   * issued they join {@link #blockingFollow}, as the blocking streams' later work follows that call.
   */
  private final LanePositions legacyFollow;
  /**
   * Pending calls of the legacy and blocking streams whose effect the host can see (they touch host
   * memory, or memory the agent does not know): a host wait that CUDA makes complete the legacy
   * stream must complete them too, even when the call itself does not depend on them.
   */
  private final LanePositions blockingVisible;
  /**
   * Pending host-visible work of blocking streams other than the legacy stream that no call of the
   * legacy stream followed yet: a host wait that completes the legacy stream covers it, one that
   * completes another blocking stream does not. It joins {@link #blockingVisible} as
   * {@link #legacyFollow} joins {@link #blockingFollow}.
   */
  private final LanePositions legacyVisible;
  /** Per lane, the newest call of the legacy or a blocking stream: what a synchronous copy completes for CUDA. */
  private final LanePositions blockingAll;
  /** Joins of application streams, their events, and what CUDA completed for the host. */
  private final StreamJoins joins;
  /** Where a placed call goes, and the device-side waits for its predecessors. */
  private final LaneChoice lanes;
  /** What the host waits for before a call that blocks it, and what it then knows complete. */
  private final HostWaits hostWaits;
  /** Streams capturing a graph; while any is, every call passes through untouched. */
  private int capturing;
  /** Scratch: what the call being placed must follow, or the users a host wait covers. */
  private final LanePositions needs;

  /**
   * @param device the stream and event operations to issue
   * @param streams the number of pool lanes, at least 1
   * @param rules {@link OrderingRules#CUDA}, or rules the self-test broke on purpose
   */
  public Scheduler(StreamDevice device, int streams, OrderingRules rules) {
    this(device, streams, 0, rules);
  }

  /**
   * @param device the stream and event operations to issue
   * @param streams the number of normal pool lanes, at least 1
   * @param classLanes the lanes of the high class, and of the low class, beside the normal ones
   *     ({@link #poolLanes}); 0: every call shares the normal lanes, as without priorities
   * @param rules {@link OrderingRules#CUDA}, or rules the self-test broke on purpose
   */
  public Scheduler(StreamDevice device, int streams, int classLanes, OrderingRules rules) {
    if (streams < 1) {
      throw new IllegalArgumentException("streams must be at least 1, was " + streams);
    }
    this.device = device;
    this.rules = rules;
    this.barriersFollowEverything = rules.keeps(OrderingRules.Rule.BARRIERS_FOLLOW_EVERYTHING);
    this.hostWaitsCoverVisibleWork = rules.keeps(OrderingRules.Rule.HOST_WAITS_COVER_VISIBLE_WORK);
    this.freeWaitsForUsers = rules.keeps(OrderingRules.Rule.FREE_WAITS_FOR_USERS);
    if (classLanes < 0) {
      throw new IllegalArgumentException("class lanes must be at least 0, was " + classLanes);
    }
    this.pool = new StreamPool(streams, classLanes);
    this.events = new EventPool(pool.laneCount);
    this.tracker = new DependencyTracker(pool, rules);
    this.appStreams = new AppStreams(pool.laneCount, rules);
    this.blockingFollow = new LanePositions(pool.laneCount);
    this.legacyFollow = new LanePositions(pool.laneCount);
    this.blockingVisible = new LanePositions(pool.laneCount);
    this.legacyVisible = new LanePositions(pool.laneCount);
    this.blockingAll = new LanePositions(pool.laneCount);
    this.needs = new LanePositions(pool.laneCount);
    this.joins = new StreamJoins(device, pool, events, appStreams, rules, blockingFollow, legacyFollow, blockingVisible,
        legacyVisible, blockingAll);
    this.lanes = new LaneChoice(device, pool, events, appStreams, rules);
    this.hostWaits = new HostWaits(device, pool, events);
  }

  /** What the host waits for before a call that blocks it, and what it then knows complete. */
  HostWaits hostWaits() {
    return hostWaits;
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

  /** Whether a {@link #streamKey} is a thread's per-thread default stream's. */
  static boolean isPerThreadKey(long key) {
    return (key & PER_THREAD_KEY) != 0;
  }

  /** The thread whose per-thread default stream a key of {@link #isPerThreadKey} names. */
  static long threadOfPerThreadKey(long key) {
    return key & ~PER_THREAD_KEY;
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

  /** The orderings this scheduler keeps: {@link OrderingRules#CUDA} but in the fuzz's broken schedulers. */
  public OrderingRules rules() {
    return rules;
  }

  /** Whether a stream is capturing a graph: every call then passes through untouched. */
  public boolean capturing() {
    return capturing > 0;
  }

  /** Adds what CUDA orders the call after beyond its data: barriers and events on its stream. */
  private void collectStreamOrder(AppStreams.Stream s) {
    s.follow.addPendingTo(needs, pool);
    s.recordFollow.addPendingTo(needs, pool);
    if (!s.nonBlocking) {
      blockingFollow.addPendingTo(needs, pool);
    }
    if (s == appStreams.legacy()) {
      legacyFollow.addPendingTo(needs, pool);
    }
  }

  /** Adds every lane's pending tail: what a call touching unknown memory must follow. */
  private void collectEverything() {
    pool.addPendingTails(needs);
  }


  /**
   * Orders every application stream's later work after all work issued on it so far by calls made
   * as written before the agent engaged, none of which the scheduler knows; device-side, and only as
   * CUDA orders it: the legacy stream's record (after every blocking and per-thread stream's work,
   * by CUDA's implicit synchronization) for the legacy and blocking streams, each non-blocking
   * stream's own record for that stream alone, unless all of its work has completed. A request's
   * stream then never waits for a background stream's kernels, as it would behind a host
   * synchronization of the context.
   *
   * <p>Each join is a lane waiting for the stream, which the stream's later work follows as a
   * barrier's; kept as a timed record's wait is ({@link AppStreams.Stream#recordFollow}): the lane
   * waits for the stream, so no join of the stream itself may wait for the lane.
   */
  public void followWorkIssuedAsWritten() {
    int legacyJoin = laneFollowing(0);
    blockingFollow.add(legacyJoin, pool.tail(legacyJoin), 0);
    appStreams.forEachLiveNonBlocking((stream, handle) -> {
      if (device.appStreamIdle(handle)) {
        return; // nothing left to follow, and nothing recorded on it that a query of it would see running
      }
      int lane = laneFollowing(handle);
      stream.recordFollow.add(lane, pool.tail(lane), 0);
    });
  }

  /** A lane, one not held by another such wait where there is one, made to wait for {@code appStream}'s work so far. */
  private int laneFollowing(long appStream) {
    int lane = pool.leastRecentlyUsed();
    pool.ensureCreated(lane, device);
    device.laneFollowsAppStream(lane, appStream);
    pool.barrierIssued(lane, pool.issue(lane));
    return lane;
  }

  /** The application destroyed a stream: its handle is never used again until a stream reuses it. */
  public void streamDestroyed(long handle) {
    appStreams.of(handle).destroyed = true;
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
    if (barrier && barriersFollowEverything) {
      // Enqueued, not waited for: the host never blocks where CUDA would not.
      call.barrier = true;
      collectEverything();
    } else {
      tracker.collect(call, needs);
    }
    collectStreamOrder(appStreams.of(call));
    int lane = barrier ? pool.leastRecentlyUsed(call.priority) : lanes.choose(call, needs);
    pool.ensureCreated(lane, device);
    pool.touch(lane);
    lanes.waitForNeeds(call, lane, needs);
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
    if (blocksHost(call) && hostWaitsCoverVisibleWork) {
      blockingVisible.addPendingTo(needs, pool);
      legacyVisible.addPendingTo(needs, pool);
    }
    if (blocksHost(call)) {
      joins.noteCompletedForHost();
    }
    if (call.kind == CallKind.COPY_DEVICE_TO_HOST) {
      hostWaits.noteSynchronousRead(call, needs);
    }
    lanes.waitForNeeds(call, pool.legacy, needs);
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
    if (hostWaitsCoverVisibleWork) {
      blockingVisible.addPendingTo(needs, pool);
      legacyVisible.addPendingTo(needs, pool);
    }
  }

  /**
   * Before a call that blocks the host: notes in {@code ticket} what the host will wait for outside
   * the context's lock, so that the real call, made under the lock, finds it done and blocks only
   * briefly. For a free ({@link Placement#FREE}), the allocation's pending users; for a synchronous
   * copy ({@link Placement#SYNC}), its predecessors and the pending host-visible work of the legacy
   * and blocking streams, except the legacy lane's, which the real call there waits for anyway;
   * for a staged copy ({@link Placement#STAGED}), only that host-visible work, the copy's own
   * predecessors being waited for device-side. The waits themselves are {@link HostWaits#addWaits}'s.
   */
  void collectHostWaits(CallRecord call, Ticket ticket, Placement placement) {
    needs.clear();
    if (placement == Placement.FREE) {
      if (!freeWaitsForUsers || call.accessCount == 0) {
        return;
      }
      tracker.collectUsers(call.accessSlot[0], needs);
      hostWaits.addPendingBarriers(needs); // this allocation's included
      if (capturing()) {
        // Only work of streams beside the capture can be pending (the capture began with a device
        // synchronization); the agent's lanes never capture, but the legacy lane must not be touched.
        ticket.waitsDuringCapture = true;
      }
    } else if (placement == Placement.STAGED) {
      if (hostWaitsCoverVisibleWork) {
        blockingVisible.addPendingTo(needs, pool);
        legacyVisible.addPendingTo(needs, pool);
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
    hostWaits.addWaits(call, ticket, needs, placement == Placement.SYNC);
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
   * does and notes in {@code ticket} the host's wait for it, which {@link HostWaits#settleThrough} ends.
   */
  void issuedStagedRead(CallRecord call, Ticket ticket) {
    int lane = call.stream;
    long position = record(call, lane);
    hostWaits.addTailWaitThrough(ticket, lane, position); // the copy is the lane's tail
    call.hostWaited = true;
  }

  /** Gives the work just issued on {@code lane} its position, and what it touched and where it was seen. */
  private long record(CallRecord call, int lane) {
    long position = pool.issue(lane);
    tracker.record(call, lane, position);
    AppStreams.Stream s = lane == pool.legacy ? appStreams.legacy() : appStreams.of(call);
    s.footprint.add(lane, position, call.seq);
    joins.noteStreamWork(s); // for the legacy stream, after the other blocking streams' work so far
    if (!s.nonBlocking) {
      blockingVisible.addPendingTo(s.implied, pool); // CUDA ordered this call after them
      blockingAll.add(lane, position, call.seq);
      if (hostVisible(call)) {
        (s == appStreams.legacy() ? blockingVisible : legacyVisible).add(lane, position, call.seq);
      }
    }
    if (call.barrier) {
      // A barrier of a blocking stream orders its own stream and the legacy stream, not the other
      // blocking streams: one that waits for the host (a host function) must not hold them back.
      if (s == appStreams.legacy()) {
        blockingFollow.add(lane, position, call.seq);
      } else if (s.nonBlocking) {
        s.follow.add(lane, position, call.seq);
      } else {
        s.follow.add(lane, position, call.seq);
        legacyFollow.add(lane, position, call.seq);
      }
      pool.barrierIssued(lane, position);
    }
    if (call.touchesUnknownMemory) {
      pool.hostWaitIssued(lane, position);
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
    hostWaits.await(ticket);
    hostWaits.settle(ticket);
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
}
