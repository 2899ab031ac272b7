package dev.kernelweave.scheduler;

import dev.kernelweave.call.CallKind;
import dev.kernelweave.call.CallRecord;
import java.util.concurrent.locks.ReentrantLock;

/**
 * One CUDA context's way of taking a call through the scheduler: the protocol that the interceptor
 * follows for every intercepted call, and that the self-test's program runner follows too, so that
 * the fuzz tests the dispatch the agent runs.
 *
 * <p>Per call: {@code lane = enter(call, placement, ticket)}; the real call, on {@code lane} when it
 * is not {@link CallRecord#NO_STREAM}, otherwise as the application wrote it; then {@code
 * exit(call, succeeded, ticket)}, always, also when the real call threw.
 *
 * <p>Thread safety: several application threads may call at once. Decisions and the real calls
 * that enqueue work are made under the context's lock, so that the order in which calls are decided
 * is the order in which they reach the device. The lock is never held while the host blocks in
 * CUDA: a synchronization is decided (device-side joins) under the lock and waited for outside it;
 * a synchronous copy first waits for its predecessors outside the lock, then makes the real call
 * under it; a free waits for the allocation's users outside the lock, forgets its history under
 * it, and is made without it. If {@code enter} throws, it has released everything it took.
 */
public final class Dispatch {

  /**
   * A {@link Placement#STAGED} copy larger than this runs as written ({@link Placement#SYNC}) when it
   * would wait for nothing: staging saves no wait, and CUDA's own copy from pageable memory, which
   * overlaps its host copy with the transfer, is faster (a 1 MiB upload on an H100: 100 us, not 125).
   */
  public static final long STAGED_WHEN_IDLE_BYTES = 256L << 10;

  private final ReentrantLock lock = new ReentrantLock();
  private final Scheduler scheduler;
  /** The scheduler's: what the host waits for outside the lock, and what it then knows complete. */
  private final HostWaits hostWaits;
  /** For the one wait the dispatch makes itself, outside the lock ({@link StreamDevice#synchronizeAppStream}). */
  private final StreamDevice device;
  private final int laneCount;
  /** Held launches and their graphs; null when graphs are off. */
  private final LaunchWindows windows;
  private final LaunchWindows.Listener listener;
  /** Whether threads calling at once cost more than the agent gives back; counted under the lock. */
  private final SharedContextCheck sharing = new SharedContextCheck();
  /**
   * Set for good by {@link #handOverToTheProgram}, under the lock. A launch already on its way in then
   * is placed, not held: it would wait for a window that calls made as written never end.
   */
  private boolean handedOver;
  /** Threads whose per-thread stream must still join ({@link #joinHandOverOntoThisThread}); added to under the lock. */
  private final java.util.Set<Long> perThreadJoinsDue = java.util.concurrent.ConcurrentHashMap.newKeySet();
  /**
   * Whether launches were held when the lock was last let go: read without the lock by calls that
   * need no placement (they issue what is held only when something is) and by the deadline's thread.
   * Written under the lock, only when it changes.
   */
  private volatile boolean holdingHint;
  /**
   * {@link LaunchWindows#lastLaunchNanos} when the lock was last let go with launches held, for
   * {@link #issueIfIdle}. Written before {@link #holdingHint}: a reader who sees it set sees this.
   */
  private volatile long lastLaunchHint;
  /** {@link OrderingRules.Rule#HOST_FUNCTIONS_QUEUE_ON_DEVICE}: false, a barrier first waits on the host. */
  private final boolean hostFunctionsQueueOnDevice;
  /** {@link OrderingRules.Rule#STAGED_READS_JOIN_THEIR_WORK}. */
  private final boolean stagedReadsJoinTheirWork;
  /** {@link OrderingRules.Rule#STREAM_QUERIES_SEE_HOST_COMPLETION}. */
  private final boolean streamQueriesSeeHostCompletion;

  /** Graphs off, one class of lanes; {@code rules}: {@link OrderingRules#CUDA}, or rules the self-test broke on purpose. */
  public Dispatch(StreamDevice device, int streams, OrderingRules rules) {
    this(device, streams, 0, rules, null, null);
  }

  /**
   * @param streams the normal lanes; the device must serve {@link Scheduler#poolLanes} lanes and the legacy one
   * @param classLanes high lanes, and low lanes, beside the normal ones; 0: all calls share the normal lanes
   * @param rules {@link OrderingRules#CUDA}, or rules the self-test broke on purpose
   * @param graphs how held launches are issued, or null to hold none (graphs off)
   * @param listener hears of held launches once issued; needed with {@code graphs}
   */
  public Dispatch(StreamDevice device, int streams, int classLanes, OrderingRules rules, GraphDevice graphs,
      LaunchWindows.Listener listener) {
    this.scheduler = new Scheduler(device, streams, classLanes, rules);
    this.hostWaits = scheduler.hostWaits();
    this.hostFunctionsQueueOnDevice = rules.keeps(OrderingRules.Rule.HOST_FUNCTIONS_QUEUE_ON_DEVICE);
    this.stagedReadsJoinTheirWork = rules.keeps(OrderingRules.Rule.STAGED_READS_JOIN_THEIR_WORK);
    this.streamQueriesSeeHostCompletion = rules.keeps(OrderingRules.Rule.STREAM_QUERIES_SEE_HOST_COMPLETION);
    this.device = device;
    this.laneCount = scheduler.legacyLane() + 1;
    this.windows = graphs == null ? null : new LaunchWindows(scheduler, graphs, listener);
    this.listener = listener;
  }

  /**
   * {@link #enter} with {@link Placement#ASYNC} for a kernel launch, which the context's windows may
   * hold instead ({@link LaunchWindows}).
   *
   * @return as {@link #enter}; {@link CallRecord#NO_STREAM} when the launch is held, which the
   *     ticket then says ({@link Ticket#heldByWindows}): the real call must be skipped, and {@link
   *     #exit} is not called for it
   */
  public int enterLaunch(CallRecord call, Ticket ticket) {
    if (windows == null) {
      return enter(call, Placement.ASYNC, ticket);
    }
    ticket.reset(Placement.ASYNC, laneCount);
    ticket.locked = null;
    boolean waited = lockForCall();
    ticket.locked = this;
    try {
      sharing.entered(call, waited, windows.windowsReplayed(), windows.launchesReplayed());
      boolean held = !handedOver && !scheduler.capturing() && windows.offer(call);
      noteHolding();
      if (held) {
        ticket.placement = Placement.NONE;
        ticket.heldByWindows = true;
        release(ticket);
        return CallRecord.NO_STREAM;
      }
      return placeLocked(call, Placement.ASYNC, ticket);
    } catch (Throwable e) {
      release(ticket);
      throw e;
    }
  }

  /** Takes the lock for a call to be decided; true when another thread held it then. */
  private boolean lockForCall() {
    if (lock.tryLock()) {
      return false;
    }
    lock.lock();
    return true;
  }

  /**
   * From now on, counts whether threads calling at once cost this context more than the agent gives
   * back ({@link SharedContextCheck}); {@link #handBackAdvice} then says so. Before the first call.
   */
  public void handBackWhereThreadsContend() {
    sharing.enable();
  }

  /**
   * Null while the agent keeps this context; else why the program would run faster as written: the
   * interceptor then hands it back. Read without the lock.
   */
  public String handBackAdvice() {
    return sharing.verdict();
  }

  /** Issues the launches held now, replayed or one by one; for a program about to exit. */
  public void endWindow() {
    withWindows(LaunchWindows::end);
  }

  /**
   * Issues the launches held now one by one on the legacy lane and holds no more: for the agent
   * falling back to pass-through, after it synchronized the context.
   */
  public void abandonWindows() {
    withWindows(w -> w.abandon(scheduler.legacyLane()));
  }

  /**
   * Issues what is held and forgets every launch the windows know: a module is being unloaded, and
   * its function handles may come back for other kernels.
   */
  public void forgetLaunches() {
    withWindows(LaunchWindows::forgetAll);
  }

  /**
   * Issues what is held and holds nothing more in this context ({@link LaunchWindows#stopHolding}):
   * it saw a sticky error, or it is about to be destroyed.
   */
  public void stopHolding(String why) {
    withWindows(w -> w.stopHolding(why));
  }

  /**
   * Issues what is held once the host has made no launch for {@code idleNanos}
   * ({@link LaunchWindows#issueIfIdle}); for the deadline's thread, with the context current.
   *
   * @return nanoseconds left until the deadline of what is held, or -1 when nothing is held
   */
  public long issueIfIdle(long idleNanos) {
    if (windows == null || !holdingHint) {
      return -1;
    }
    // A later launch only moves the deadline later: while the one seen at the lock's last release
    // is not reached, nothing is due, and the application's thread is not made to wait for the lock.
    long left = windows.idleLeft(lastLaunchHint, idleNanos);
    if (left > 0) {
      return left;
    }
    lock.lock();
    try {
      return windows.issueIfIdle(idleNanos);
    } finally {
      noteHolding();
      lock.unlock();
    }
  }

  /**
   * Whether launches may be held now, read without the lock: false means none was held when the lock
   * was last let go; a caller that must see none held then takes the lock ({@link #endWindow}).
   */
  public boolean holdingHint() {
    return holdingHint;
  }

  /** Runs {@code action} under the lock; for calls rare enough that a lambda costs nothing. */
  private void underLock(Runnable action) {
    lock.lock();
    try {
      action.run();
    } finally {
      lock.unlock();
    }
  }

  /** Runs {@code action} on the windows under the lock; nothing when graphs are off. */
  private void withWindows(java.util.function.Consumer<LaunchWindows> action) {
    if (windows == null) {
      return;
    }
    lock.lock();
    try {
      action.accept(windows);
    } finally {
      noteHolding();
      lock.unlock();
    }
  }

  /** Updates {@link #holdingHint} under the lock; tells the listener when holding begins. */
  private void noteHolding() {
    boolean now = windows.holding();
    if (now) {
      lastLaunchHint = windows.lastLaunchNanos();
    }
    if (now != holdingHint) {
      holdingHint = now;
      if (now) {
        listener.startedHolding();
      }
    }
  }

  /**
   * Hands the context back to the program for good, when the agent stops scheduling: issues what is
   * held, then makes each of the program's streams follow the work the agent moved off it ({@link
   * StreamJoins#handOverEveryStream}; a per-thread default stream at its thread's next call, {@link
   * #joinHandOverOntoThisThread}), so that calls made as written from then on find what CUDA would
   * have completed before them. Called again after a call that was already placed when the agent
   * stopped; each time joins only what is still pending.
   */
  public void handOverToTheProgram() {
    lock.lock();
    try {
      handedOver = true;
      if (windows != null) {
        windows.end();
        noteHolding();
      }
      scheduler.joins().handOverEveryStream();
      scheduler.joins().threadsBehindTheHandOver(perThreadJoinsDue::add);
    } finally {
      lock.unlock();
    }
  }

  /**
   * Called on a thread, with this context current, before each of its calls made as written after
   * the hand-over: where the agent moved work of the thread's per-thread default stream, that stream
   * first waits for it, device-side ({@link StreamJoins#joinHandOverOntoPerThreadStream}), so that a
   * synchronize of it with no later work still waits for that work. Only the thread itself can name
   * its per-thread stream; no host wait, which could wait for a host function the program releases
   * later. Takes the lock only where the thread is due, once per hand-over.
   */
  public void joinHandOverOntoThisThread(long threadId) {
    // Empty, as it is for almost every call: no id boxed.
    if (perThreadJoinsDue.isEmpty() || !perThreadJoinsDue.remove(threadId)) {
      return;
    }
    underLock(() -> scheduler.joins().joinHandOverOntoPerThreadStream(threadId));
  }

  /** Where the agent engages after calls made as written: {@link Scheduler#followWorkIssuedAsWritten}, under the lock. */
  public void followWorkIssuedAsWritten() {
    underLock(scheduler::followWorkIssuedAsWritten);
  }

  /** Whether a stream of this context captures a graph now; takes the lock briefly. */
  public boolean capturing() {
    lock.lock();
    try {
      return scheduler.capturing();
    } finally {
      lock.unlock();
    }
  }

  /** Whether launches are held now; takes the lock. */
  public boolean holding() {
    if (windows == null) {
      return false;
    }
    lock.lock();
    try {
      return windows.holding();
    } finally {
      lock.unlock();
    }
  }

  /** The context's windows, or null when graphs are off. */
  public LaunchWindows windows() {
    return windows;
  }

  /** The scheduler, for tests and for calls that tell it about streams. */
  public Scheduler scheduler() {
    return scheduler;
  }

  /** Tells the scheduler that the application destroyed a stream, under the lock. */
  public void streamDestroyed(long handle) {
    underLock(() -> scheduler.streamDestroyed(handle));
  }

  /** Tells the scheduler about a stream the application created, under the lock. */
  public void streamCreated(long handle, boolean nonBlocking) {
    underLock(() -> scheduler.streamCreated(handle, nonBlocking));
  }

  /** Tells the scheduler about an event the application created (perhaps at a reused handle), under the lock. */
  public void eventCreated(long handle) {
    underLock(() -> scheduler.joins().eventCreated(handle));
  }

  /**
   * Decides where the call runs and issues the waits it needs.
   *
   * @return the lane to issue the real call on (for {@link Placement#SYNC}, the legacy lane, which is
   *     the application's default stream), or {@link CallRecord#NO_STREAM} to make it as written
   */
  public int enter(CallRecord call, Placement placement, Ticket ticket) {
    ticket.reset(placement, laneCount);
    ticket.locked = null;
    if (placement == Placement.NONE) {
      return CallRecord.NO_STREAM;
    }
    boolean waited = lockForCall();
    ticket.locked = this;
    try {
      if (windows != null) {
        sharing.entered(call, waited, windows.windowsReplayed(), windows.launchesReplayed());
        windows.end(); // nothing held may be missing when this call runs
        noteHolding();
      } else {
        sharing.entered(call, waited, 0, 0);
      }
      return placeLocked(call, placement, ticket);
    } catch (Throwable e) {
      release(ticket);
      throw e;
    }
  }

  private int placeLocked(CallRecord call, Placement placement, Ticket ticket) {
    if (scheduler.capturing() && placement != Placement.CAPTURE_END && !scheduler.joins().outsideCapture(call, placement)) {
      // A capturing stream's calls become graph nodes; the agent must neither move nor wait on them.
      ticket.placement = Placement.NONE;
      release(ticket);
      return CallRecord.NO_STREAM;
    }
    switch (placement) {
      case ASYNC:
        if (call.barrier && !hostFunctionsQueueOnDevice) {
          scheduler.beforeBarrier(call);
        }
        if (call.returnsWhenDone) {
          waitOutsideLock(call, ticket); // its stream's earlier work, so that the copy blocks only for itself
        }
        return scheduler.beforeAsyncWork(call);
      case STAGED:
        if (call.bytes > STAGED_WHEN_IDLE_BYTES && scheduler.syncCopyWaitsForNothing(call)) {
          // Staging would save no wait, and CUDA's own copy of a large pageable source is faster.
          ticket.placement = Placement.SYNC;
          scheduler.beforeSyncWork(call);
          return call.stream;
        }
        waitOutsideLock(call, ticket);
        return scheduler.beforeAsyncWork(call);
      case STAGED_READ:
        if (!stagedReadsJoinTheirWork) {
          call.stream = scheduler.legacyLane();
          return call.stream;
        }
        scheduler.beforeSyncWork(call);
        return call.stream;
      case SYNC:
        if (call.kind == CallKind.COPY_DEVICE_TO_HOST || call.kind == CallKind.COPY_HOST_TO_DEVICE) {
          waitOutsideLock(call, ticket);
        }
        scheduler.beforeSyncWork(call);
        return call.stream; // the legacy lane: the application's own default stream
      case FREE:
        // Its users are done, so its history can go now; the real free may block (it often
        // synchronizes the device) and runs without the lock.
        waitOutsideLock(call, ticket);
        scheduler.afterFree(call);
        release(ticket);
        return CallRecord.NO_STREAM;
      case BARRIER:
        scheduler.beforeBarrier(call);
        return CallRecord.NO_STREAM;
      case DEVICE_SYNC:
        hostWaits.snapshotAll(ticket);
        release(ticket);
        return CallRecord.NO_STREAM;
      case STREAM_SYNC:
        scheduler.joins().joinOntoAppStream(call, ticket, false);
        scheduler.joins().noteLegacySynchronize(call);
        release(ticket);
        return CallRecord.NO_STREAM;
      case STREAM_QUERY:
        // What CUDA completed for the host at an earlier synchronous call must answer complete.
        boolean answerAsCuda = streamQueriesSeeHostCompletion;
        if (answerAsCuda) {
          scheduler.joins().collectCompletedForHost(call, ticket);
        }
        awaitOutsideLock(ticket, false);
        scheduler.joins().joinOntoAppStream(call, ticket, false);
        // Never while a stream captures: a synchronize could invalidate the program's capture.
        boolean completed = answerAsCuda && !scheduler.capturing() && scheduler.joins().appStreamCompletedForHost(call);
        release(ticket);
        if (completed) {
          // What is left on the stream itself (records, waits for lanes) follows only work done.
          device.synchronizeAppStream(call.appStream);
        }
        return CallRecord.NO_STREAM;
      case EVENT_RECORD:
        scheduler.joins().joinOntoAppStream(call, ticket, true);
        return CallRecord.NO_STREAM;
      case STREAM_WAIT_EVENT:
        scheduler.joins().streamWaitsForEvent(call);
        return CallRecord.NO_STREAM;
      case CAPTURE_BEGIN:
        scheduler.beginCapture();
        return CallRecord.NO_STREAM;
      case CAPTURE_END:
      default:
        return CallRecord.NO_STREAM;
    }
  }

  /**
   * Whether a query of the application event must wait for it first: CUDA had completed its record
   * for the host at an earlier synchronous call ({@link StreamJoins#eventCompletedForHost}). Takes
   * the lock briefly; the caller waits, without it.
   */
  public boolean eventCompletedForHost(long appEvent) {
    lock.lock();
    try {
      return scheduler.joins().eventCompletedForHost(appEvent);
    } finally {
      lock.unlock();
    }
  }

  /** Commits the decision once the real call returned, and releases the lock if held. */
  public void exit(CallRecord call, boolean succeeded, Ticket ticket) {
    Placement placement = ticket.placement;
    if (placement == Placement.NONE || placement == Placement.FREE) {
      release(ticket);
      return;
    }
    if (ticket.locked == null) {
      lock.lock();
      ticket.locked = this;
    }
    try {
      switch (placement) {
        // A staged read still placed at exit fell back to JCuda's synchronous copy.
        case SYNC, STAGED_READ -> scheduler.afterSyncWork(call, succeeded);
        case EVENT_RECORD -> scheduler.joins().afterAppEventRecord(call, succeeded);
        case STREAM_WAIT_EVENT -> scheduler.joins().afterAppStreamWait(call, succeeded);
        case ASYNC, STAGED -> {
          scheduler.afterWork(call, succeeded);
          if (succeeded && windows != null && placement == Placement.ASYNC) {
            windows.succeeded(call);
          }
        }
        case BARRIER -> scheduler.afterBarrier(call);
        case DEVICE_SYNC, STREAM_SYNC, STREAM_QUERY -> {
          if (succeeded) {
            hostWaits.settle(ticket);
          }
        }
        case CAPTURE_END -> scheduler.endCapture();
        case CAPTURE_BEGIN -> {
          if (!succeeded) {
            scheduler.endCapture();
          }
        }
        default -> { }
      }
    } finally {
      release(ticket);
    }
  }

  /**
   * A {@link Placement#STAGED} copy could not be issued from the agent's buffer after all: it will
   * run as the application wrote it, a synchronous copy on the legacy stream. Makes the legacy lane
   * wait, device-side, for what the copy must follow there, and returns that lane. Called between
   * {@link #enter} and {@link #exit}, with the lock held.
   */
  public int stagingFailed(CallRecord call, Ticket ticket) {
    if (ticket.locked != this || ticket.placement != Placement.STAGED) {
      throw new IllegalStateException("only a staged copy in progress can fall back");
    }
    scheduler.beforeSyncWork(call);
    return call.stream;
  }

  /**
   * A {@link Placement#STAGED_READ} copy was queued on the lane {@link #enter} returned: records it
   * and waits, with the lock released, until it is done. On return the lock is held again, the copy
   * and everything before it on its lane are known complete, and {@link #exit} only releases the
   * lock. If the wait throws, the lock is not held.
   */
  public void awaitStagedRead(CallRecord call, Ticket ticket) {
    if (ticket.locked != this || ticket.placement != Placement.STAGED_READ) {
      throw new IllegalStateException("only a staged read in progress can be awaited");
    }
    scheduler.issuedStagedRead(call, ticket);
    ticket.placement = Placement.NONE;
    awaitOutsideLock(ticket, true);
  }

  /**
   * A {@link Placement#STAGED_READ} copy could not be queued after all: JCuda's synchronous copy
   * will run on the lane {@link #enter} returned, which already waits for what it must follow. The
   * host first waits, with the lock released, for what that lane holds, so that the copy then blocks
   * under the lock only for itself; {@link #exit} records it as a synchronous copy.
   */
  public void stagedReadFailed(CallRecord call, Ticket ticket) {
    if (ticket.locked != this || ticket.placement != Placement.STAGED_READ) {
      throw new IllegalStateException("only a staged read in progress can fall back");
    }
    hostWaits.collectLaneTail(call, ticket);
    awaitOutsideLock(ticket, true);
  }

  /** Releases the lock if the ticket holds it; safe to call more than once. */
  public void release(Ticket ticket) {
    if (ticket.locked == this) {
      ticket.locked = null;
      lock.unlock();
    }
  }

  /**
   * The host waits, with the lock released, for the events standing for the call's predecessors;
   * on return the lock is held again and those positions are known complete.
   */
  private void waitOutsideLock(CallRecord call, Ticket ticket) {
    scheduler.collectHostWaits(call, ticket, ticket.placement);
    awaitOutsideLock(ticket, false);
  }

  /**
   * The host waits, with the lock released, for what the ticket notes; on return the lock is held
   * again and those positions are known complete ({@code throughWaits}: with everything their
   * lanes waited for).
   */
  private void awaitOutsideLock(Ticket ticket, boolean throughWaits) {
    if (ticket.waitCount == 0) {
      return;
    }
    release(ticket);
    hostWaits.await(ticket);
    lock.lock();
    ticket.locked = this;
    if (throughWaits) {
      hostWaits.settleThrough(ticket);
    } else {
      hostWaits.settle(ticket);
    }
    ticket.waitCount = 0;
  }
}
