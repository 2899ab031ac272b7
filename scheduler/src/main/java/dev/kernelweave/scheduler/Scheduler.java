package dev.kernelweave.scheduler;

import dev.kernelweave.call.CallKind;
import dev.kernelweave.call.CallRecord;

/**
 * Decides, for one CUDA context, on which stream each call runs and what it must wait for, from
 * the device memory the calls touch.
 *
 * <p>The application issues its calls one after another; this class keeps, per allocation slot,
 * the last writer and the readers since, and makes each call follow exactly the calls it depends
 * on: read-after-write, write-after-read and write-after-write. A call with one predecessor whose
 * lane it can extend stays on that lane (chains stay on one stream); independent calls spread over
 * the pool; a predecessor on another lane costs one {@code waitEvent} on the newest needed event of
 * that lane, and an event is recorded only when such a wait needs it. The host never waits on the
 * launch path.
 *
 * <p>Protocol, per call (the interceptor and the simulator's program runner follow it alike):
 * <ul>
 *   <li>device work with a stream parameter: {@code lane = beforeAsyncWork(call)}, issue the real
 *       call on {@code lane}, then {@code afterWork(call, succeeded)};
 *   <li>device work that keeps its synchronous meaning (a synchronous copy, a memset without a
 *       stream): {@code beforeSyncWork(call)}, issue the real call as written on the legacy default
 *       stream, then {@code afterWork(call, succeeded)};
 *   <li>a free: {@code beforeFree(call)} (the host waits for the allocation's pending users), the
 *       real free, then {@code afterFree(call)};
 *   <li>anything not understood: {@code beforeBarrier(call)}, the real call, {@code afterBarrier(call)};
 *   <li>{@code cuCtxSynchronize}, {@code cudaDeviceSynchronize}: the real call, then
 *       {@code afterDeviceSynchronize()};
 *   <li>{@code cuStreamSynchronize(s)}: {@code beforeStreamSynchronize(call)}, then the real call;
 *   <li>{@code cuEventRecord(e, s)}: {@code lane = beforeEventRecord(call)}, the real call on
 *       {@code lane}, then {@code afterWork(call, succeeded)}.
 * </ul>
 * Each {@code before...} fills the call's decision fields ({@code stream}, {@code predecessors},
 * {@code eventRecorded}, {@code hostWaited}, {@code barrier}) for the journal.
 *
 * <p>What it knows, and how it stays cheap: each lane counts the calls issued on it (positions);
 * per allocation slot a {@code DependencyTracker} keeps the last writer and the newest reader per
 * lane as (lane, position, seq); per lane a vector clock records which position of every other
 * lane it already waits for, directly or through chains of waits, so a redundant wait is never
 * issued; the host's own waits (a synchronous device-to-host copy, an event or stream
 * synchronization, a barrier) mark positions complete, and complete work is never waited for.
 * Events belong to one lane each (a few per lane, see {@code EventPool}) and are recorded only
 * when a wait needs one, at the lane's tail. Steady-state decisions allocate nothing.
 *
 * <p>Not thread-safe: one scheduler per context, and its owner holds a lock from {@code before...}
 * until the matching {@code after...}, so that the order in which calls are decided is the order in
 * which they reach the device.
 */
public final class Scheduler {

  /**
   * Streams per context when the option {@code streams} is not given: the driver's default number
   * of hardware queues ({@code CUDA_DEVICE_MAX_CONNECTIONS}, 8). More streams than queues share
   * queues, and a cross-stream wait at the head of a shared queue holds back the other stream's
   * work; measured on the device, 8 streams beat 16 on every workload with cross-stream waits.
   */
  public static final int DEFAULT_STREAMS = 8;

  private final StreamDevice device;
  private final Mutant mutant;
  private final StreamPool pool;
  private final EventPool events;
  private final DependencyTracker tracker;
  private final AppStreamFootprints footprints;
  /** Scratch: what the call being placed must follow, or the users a host wait covers. */
  private final LanePositions needs;

  /**
   * @param device the stream and event operations to issue
   * @param streams the number of pool lanes, at least 1
   * @param mutant {@link Mutant#NONE}, or a deliberately broken variant for the fuzz
   */
  public Scheduler(StreamDevice device, int streams, Mutant mutant) {
    if (streams < 1) {
      throw new IllegalArgumentException("streams must be at least 1, was " + streams);
    }
    this.device = device;
    this.mutant = mutant;
    this.pool = new StreamPool(streams);
    this.events = new EventPool(pool.laneCount);
    this.tracker = new DependencyTracker(pool.laneCount, mutant != Mutant.DROP_RAW, mutant != Mutant.DROP_WAR);
    this.footprints = new AppStreamFootprints(pool.laneCount);
    this.needs = new LanePositions(pool.laneCount);
  }

  /** The lane index of the application's legacy default stream: {@code streams}. */
  public int legacyLane() {
    return pool.legacy;
  }

  /**
   * Places device work that has a stream parameter: computes its predecessors from the call's
   * accesses, picks a pool lane, issues the waits it needs. A call with
   * {@code touchesUnknownMemory} (or one the interceptor already marked {@code barrier}) becomes a
   * barrier and runs on the legacy lane.
   *
   * <p>A call with no pending predecessor goes to the pool lane chosen longest ago. A call whose
   * predecessor is the newest call on its lane extends that chain on the same lane. Otherwise (the
   * producer already has a successor on its lane: a fork) it takes the lane chosen longest ago and
   * waits.
   *
   * @return the lane to issue the real call on
   */
  public int beforeAsyncWork(CallRecord call) {
    if (call.touchesUnknownMemory || call.barrier) {
      return placeBarrier(call);
    }
    needs.clear();
    tracker.collect(call, pool, needs);
    int lane = chooseLane();
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
    if (call.touchesUnknownMemory || call.barrier) {
      placeBarrier(call);
      return;
    }
    needs.clear();
    tracker.collect(call, pool, needs);
    if (call.kind == CallKind.COPY_DEVICE_TO_HOST) {
      noteHostWaitOfSynchronousRead(call);
    }
    waitForNeeds(call, pool.legacy);
    call.stream = pool.legacy;
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
    if (call.barrier) {
      if (succeeded) {
        pool.issue(lane);
      }
      device.synchronizeDevice();
      pool.completeAll();
      return;
    }
    if (!succeeded || lane < 0) {
      return;
    }
    long position = pool.issue(lane);
    tracker.record(call, lane, position);
    LanePositions footprint = footprints.of(call.appStream);
    if (call.kind == CallKind.EVENT) {
      // The record waited for every other lane of the stream: its position now stands for all of it.
      footprint.clear();
    }
    footprint.add(lane, position, call.seq);
    if (call.kind == CallKind.COPY_DEVICE_TO_HOST && lane == pool.legacy) {
      // A synchronous device-to-host copy returns once it, and everything before it there, is done.
      pool.completeThrough(lane, position);
    }
  }

  /** The host waits for every pending user of the allocation the call frees (its first access). */
  public void beforeFree(CallRecord call) {
    if (mutant == Mutant.NO_FREE_WAIT || call.accessCount == 0) {
      return;
    }
    needs.clear();
    tracker.collectUsers(call.accessSlot[0], pool, needs);
    hostWait(call, needs, -1);
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

  /** Everything issued so far has completed (the application synchronized the device). */
  public void afterDeviceSynchronize() {
    pool.completeAll();
  }

  /**
   * The host waits for every call the application issued on {@code call.appStream}, wherever that
   * work went, and for nothing else.
   */
  public void beforeStreamSynchronize(CallRecord call) {
    LanePositions footprint = footprints.of(call.appStream);
    hostWait(call, footprint, footprint.lastLane());
    footprint.clear();
  }

  /**
   * Chooses the lane on which the application's event for {@code call.appStream} is recorded, after
   * making it wait for every call the application issued on that stream: the lane that holds the
   * stream's newest call, or the legacy lane when the stream has none.
   */
  public int beforeEventRecord(CallRecord call) {
    LanePositions footprint = footprints.of(call.appStream);
    int lane = footprint.lastLane();
    if (lane < 0) {
      lane = pool.legacy;
    }
    needs.clear();
    for (int i = 0, n = footprint.count(); i < n; i++) {
      int l = footprint.lane(i);
      long p = footprint.position(l);
      if (pool.pending(l, p)) {
        needs.add(l, p, footprint.seq(l));
      }
    }
    pool.ensureCreated(lane, device);
    waitForNeeds(call, lane);
    call.stream = lane;
    return lane;
  }

  private int placeBarrier(CallRecord call) {
    device.synchronizeDevice();
    pool.completeAll();
    call.barrier = true;
    call.hostWaited = true;
    call.stream = pool.legacy;
    return pool.legacy;
  }

  /** Picks the pool lane for a call whose predecessors are in {@link #needs}. */
  private int chooseLane() {
    int chain = -1;
    long chainSeq = Long.MIN_VALUE;
    for (int i = 0, n = needs.count(); i < n; i++) {
      int lane = needs.lane(i);
      if (lane != pool.legacy && needs.position(lane) == pool.tail(lane) && needs.seq(lane) > chainSeq) {
        chain = lane;
        chainSeq = needs.seq(lane);
      }
    }
    return chain >= 0 ? chain : pool.leastRecentlyUsed();
  }

  /** Makes {@code lane} wait, device-side, for each need on another lane it does not already follow. */
  private void waitForNeeds(CallRecord call, int lane) {
    for (int i = 0, n = needs.count(); i < n; i++) {
      int from = needs.lane(i);
      long p = needs.position(from);
      if (from == lane || pool.waited(lane, from) >= p || !pool.pending(from, p)) {
        continue;
      }
      int event = events.cover(from, p, pool, device);
      call.eventRecorded |= events.recorded;
      device.waitEvent(lane, event);
      pool.mergeWait(lane, from, events.recordedAt(event), events.clocks(), events.clockOffset(event));
      call.addPredecessor(needs.seq(from));
    }
  }

  /**
   * The host waits for each pending position in {@code positions}, {@code first} (a lane, or -1)
   * before the others, since its wait often covers theirs.
   */
  private void hostWait(CallRecord call, LanePositions positions, int first) {
    int active = pool.activeLanes();
    int waitedLanes = 0;
    if (first >= 0 && hostWaitOne(call, positions, first)) {
      waitedLanes++;
    }
    for (int i = 0, n = positions.count(); i < n; i++) {
      int lane = positions.lane(i);
      if (lane != first && hostWaitOne(call, positions, lane)) {
        waitedLanes++;
      }
    }
    if (waitedLanes > 0) {
      call.hostWaited = true;
      call.hostWaitNarrowed = waitedLanes < active;
    }
  }

  private boolean hostWaitOne(CallRecord call, LanePositions positions, int lane) {
    long p = positions.position(lane);
    if (!pool.pending(lane, p)) {
      return false;
    }
    int event = events.cover(lane, p, pool, device);
    call.eventRecorded |= events.recorded;
    device.synchronizeEvent(event);
    pool.complete(lane, events.recordedAt(event), events.clocks(), events.clockOffset(event));
    call.addPredecessor(positions.seq(lane));
    return true;
  }
}
