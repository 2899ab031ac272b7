package dev.kernelweave.scheduler;

import dev.kernelweave.call.CallKind;
import dev.kernelweave.call.CallRecord;
import dev.kernelweave.call.PriorityClass;
import java.util.Arrays;

/**
 * One context's kernel launches between two of the program's other calls (a window), replayed as a
 * CUDA graph when the same window came before: a loop that launches the same kernels with the same
 * arguments between synchronizations pays one graph launch per iteration instead of one launch per
 * kernel, and the graph runs its independent launches as parallel branches.
 *
 * <p>How a window goes: each launch that may be held ({@link #offer}) extends the window's
 * fingerprint. While that fingerprint is the prefix of a window seen before, the launch is held
 * (copied, not issued, and the program told it succeeded); otherwise the held launches are issued
 * one by one through the scheduler, as without windows, and the rest of the window is only
 * recorded. Any other call of the context ends the window first ({@link #end}): a window held whole
 * that equals a known one is replayed from its graph, captured the first time it repeats (the second
 * where threads interleave, {@link #HELD_WHOLE_BEFORE_CAPTURE}); anything
 * else is issued one by one, and the window becomes known.
 *
 * <p>cuBLAS routines are held like launches when the interceptor describes them ({@link
 * CallRecord#function} an id for the routine and its non-pointer arguments, the parameter bytes its
 * pointers and scalars): a layer of small GEMMs and its elementwise kernels become one graph.
 *
 * <p>What the program can observe stays as without the agent. A launch is held only when the same
 * function with the same grid, block and shared memory already succeeded in this context (its
 * synchronous errors are known not to occur), and it touches only device memory the agent knows
 * (no host memory another thread could watch, no memory the agent cannot see). Everything held is
 * issued before any other call of the context is placed, so no call can observe a held launch
 * missing. A graph is replayed only for launches equal, field by field (function, configuration,
 * parameter bytes, the allocations and byte ranges they touch), to those it was captured from, so
 * its edges, which come from those byte ranges, still hold. The replay is one call to the
 * scheduler, touching the union of what the window's launches touch.
 *
 * <p>Safety valves: a run of launches longer than {@link #MAX_WINDOW}, or one the host pauses in
 * for longer than {@link #PAUSE_NANOS}, is split into windows; a window of one launch is never
 * held; a context whose
 * windows keep diverging from what it saw before stops holding; a failure to capture or launch a
 * graph issues the window's launches one by one and stops graphs for the context. Known windows are
 * a bounded cache whose eviction destroys the graph.
 *
 * <p>Not thread-safe: used under the context's {@link Dispatch} lock.
 */
public final class LaunchWindows {

  /** Hears of held launches once issued (to journal them), and of graphs stopping. */
  public interface Listener {
    /** A held launch was issued, alone or in a graph ({@link CallRecord#graphWindow}). */
    void issued(CallRecord call);

    /** Graphs stopped for the context; every launch is issued at once from now on. */
    void stopped(String why);

    /** cuBLAS routines are no longer held in the context; launches still are. */
    default void routinesStopped(String why) {}

    /** The context began to hold launches (none were held): something must issue them by the deadline. */
    default void startedHolding() {}

    /** A sampled execution of a window was timed on the device; {@code time} is reused once this returns. */
    default void windowTimed(WindowTime time) {}
  }

  /**
   * The most launches one window takes: a longer run is split, so that the device starts on a replay
   * while the host still holds the next (a long dependent chain would otherwise idle until its end).
   */
  public static final int MAX_WINDOW = 128;
  /** The fewest launches a remembered window has: one launch is cheaper issued than replayed. */
  static final int MIN_WINDOW = 2;
  /**
   * A pause of the host between two launches longer than this ends the window, as another call
   * would: the host is computing, not launching, and the launches before the pause should run
   * meanwhile. Learned that way, such a window is replayed at its last launch before the pause.
   */
  public static final long PAUSE_NANOS = 1_000_000;
  /** Known windows kept per context. */
  static final int MAX_KNOWN = 512;
  /**
   * Once launches of two threads have cut each other's windows in the context, how many times a
   * known window is held whole before its graph is captured (at the last); one thread's windows are
   * captured at their first repeat. Interleaved threads make windows of chance shapes, and one that
   * never comes back costs its capture (about a millisecond on an H100, under the context's lock)
   * for nothing: in a request thread beside a training thread, the request's 99th percentile.
   */
  static final int HELD_WHOLE_BEFORE_CAPTURE = 2;
  /** Windows that may diverge before the context stops holding, unless replays outnumber them. */
  static final int DIVERGENCE_ALLOWANCE = 64;

  /** A known window starts with the launches so far. */
  private static final int PREFIX = 1;
  /** A known window goes on from the launches so far: a window ending there may still grow. */
  private static final int INTERIOR = 2;
  /** A known window ends with the launches so far. */
  private static final int COMPLETE = 4;

  private static final int IDLE = 0;
  private static final int RECORDING = 1;
  private static final int HOLDING = 2;

  private final Scheduler scheduler;
  private final GraphDevice device;
  private final Listener listener;
  /** The sampled device times that decide, per window shape, between its graph and its launches in order. */
  private final WindowSamples samples;
  private WindowJudging judging = WindowJudging.ON;
  private final LaunchConfigurations succeeded = new LaunchConfigurations();
  /**
   * The prefixes of known windows ({@link #windowPrefixes}), flagged {@link #INTERIOR} where some
   * known window goes on from it and {@link #COMPLETE} where one ends: one lookup per launch.
   */
  private final LongFlags prefixes = new LongFlags();
  /**
   * Known windows by key; making room destroys the graph of one not used lately. A map of the
   * agent's own rather than a Caffeine cache: evictions must run at once, on this thread, under the
   * lock and with the context current, and the map costs the program's first launch no class loading.
   */
  private final BoundedLongMap<KnownWindow> known = new BoundedLongMap<>(MAX_KNOWN, this::evict);

  /** Whether launches of two threads have cut each other's windows here ({@link #HELD_WHOLE_BEFORE_CAPTURE}). */
  private boolean threadsInterleave;

  private int state = IDLE;
  private long appStream;
  private long threadId;
  /**
   * The class of the window's launches: one window is one class, so that its replay, on a lane of
   * that class, never makes a high-priority launch wait for lower-priority ones.
   */
  private PriorityClass priority = PriorityClass.NORMAL;
  private long prefix;
  private int length;
  /** The fingerprint of the window's first 1, 2, ... launches. */
  private long[] windowPrefixes = new long[64];
  /** The window's launches, word by word: what its graph, if it has one, must have been captured from. */
  private final LaunchSignature signature;
  private CallRecord[] held = new CallRecord[16];
  private int heldCount;
  /**
   * Held launches already on the device ({@code held[0 .. issued)}): should the agent fail midway,
   * {@link #abandon} issues only the rest, never a launch twice.
   */
  private int issued;
  /** The graph launch standing for a replayed window, as the scheduler places it. */
  private final CallRecord replay = new CallRecord();
  private boolean stopped;
  /** Set when a window with routines could not be captured: routines are no longer held. */
  private boolean routinesStopped;
  private long windowNumber;
  private long previousLaunchNanos;
  private java.util.function.LongSupplier clock = System::nanoTime;
  /**
   * The held launch whose call ends the window (it completed a known one), and when its hold ended:
   * the host time until the real call standing for it returns (graph launch, capture, or launches
   * one by one) is its call's, as an eager launch's runs to JCuda's return; journaling is not.
   */
  private CallRecord ending;
  private long endingSince;

  private long captured;
  private long replayed;
  private long evicted;
  private long launchesReplayed;
  private long diverged;
  private long mergedLaunches;
  private long launchesMerged;
  private boolean merge;

  public LaunchWindows(Scheduler scheduler, GraphDevice device, Listener listener) {
    this.scheduler = scheduler;
    this.device = device;
    this.listener = listener;
    this.signature = new LaunchSignature(scheduler.rules());
    this.samples = new WindowSamples(scheduler.device(), listener::windowTimed);
  }

  /** How known windows are issued from now on ({@code judge=}); {@link WindowJudging#ON} by default. */
  public void judge(WindowJudging mode) {
    judging = mode;
  }

  /**
   * Takes a launch about to be placed: returns true when it is held (the caller skips the real call
   * and reports success); false when it must be placed as usual, after any window it cannot join
   * has ended.
   */
  public boolean offer(CallRecord call) {
    long start = clock.getAsLong();
    long sincePrevious = start - previousLaunchNanos;
    try {
      return offer(call, start, sincePrevious);
    } finally {
      // From the end of this launch's own work (a replay or a capture may be long) to the next.
      previousLaunchNanos = clock.getAsLong();
    }
  }

  private boolean offer(CallRecord call, long start, long sincePrevious) {
    threadsInterleave |= state != IDLE && call.threadId != threadId;
    if (!holdable(call)) {
      end();
      return false;
    }
    if (state != IDLE && (call.appStream != appStream || call.threadId != threadId
        || call.priority != priority || sincePrevious > PAUSE_NANOS)) {
      end();
    }
    if (length == MAX_WINDOW && state != IDLE) {
      end();
    }
    if (state == IDLE) {
      state = RECORDING;
      appStream = call.appStream;
      threadId = call.threadId;
      priority = call.priority;
      prefix = 0x9E3779B97F4A7C15L;
      length = 0;
      heldCount = 0;
      signature.clear();
    }
    prefix = Mix64.of(prefix, signature.append(call));
    if (length == windowPrefixes.length) {
      windowPrefixes = Arrays.copyOf(windowPrefixes, length * 2);
    }
    windowPrefixes[length++] = prefix;
    int flags = prefixes.flags(prefix);
    if (length == 1 && !stopped && flags != 0) {
      state = HOLDING;
    }
    if (state == HOLDING) {
      if (flags != 0) {
        CallRecord copy = hold(call);
        long held = clock.getAsLong();
        copy.durationNanos += held - start;
        if ((flags & (COMPLETE | INTERIOR)) == COMPLETE) {
          // A known window no other goes on from: replay it now rather than at the next call, so
          // the device starts while the host goes on (it may compute before it synchronizes).
          // This launch's call pays for the replay, and its journaled host time says so.
          ending = copy;
          endingSince = held;
          try {
            end();
          } finally {
            ending = null;
          }
        }
        return true;
      }
      diverged++;
      issueHeldOneByOne();
      state = RECORDING;
      if (diverged > DIVERGENCE_ALLOWANCE && diverged > 4 * replayed) {
        stop("windows keep changing: " + diverged + " diverged, " + replayed + " replayed");
      }
    }
    return false;
  }

  /** Ends the window, if one is open: replays it, or issues what it held; remembers its shape. */
  public void end() {
    int s = state;
    state = IDLE;
    if (s == IDLE) {
      return;
    }
    long key = key();
    if (s == RECORDING) {
      remember(key);
      return;
    }
    KnownWindow window = known.get(key);
    if (window == null || window.length != heldCount) {
      issueHeldOneByOne();
      remember(key);
      return;
    }
    if (window.graph != 0 && !signature.matches(window.signature)) {
      // Equal fingerprints, different launches: capture this one instead.
      KnownWindow.destroy(known.remove(key), device);
      window = new KnownWindow(heldCount);
      known.put(key, window);
    }
    boolean capturedNow = false;
    if (window.graph == 0 && threadsInterleave && ++window.heldWhole < HELD_WHOLE_BEFORE_CAPTURE) {
      // Not yet: a capture costs as much as hundreds of launches, and where threads cut each
      // other's windows, one that came back once may never come again. Issued as learned.
      issueHeldOneByOne();
      return;
    }
    if (window.graph == 0) {
      try {
        window.capture(held, heldCount, device, merge, scheduler.rules());
        window.signature = signature.copy();
        captured++;
        capturedNow = true;
      } catch (RuntimeException e) {
        boolean withRoutines = holdsRoutines();
        issueHeldOneByOne();
        if (withRoutines && !routinesStopped) {
          // A routine cuBLAS cannot capture: launches go on being replayed, routines are issued at once.
          routinesStopped = true;
          KnownWindow.destroy(known.remove(key), device);
          listener.routinesStopped("could not capture a graph with cuBLAS calls: " + e.getMessage());
        } else {
          stop("could not capture a graph: " + e.getMessage());
        }
        return;
      }
    }
    replay(window, key, capturedNow);
  }

  /**
   * Issues whatever is held one launch at a time, without graphs, and holds nothing more: what a
   * failure of the agent leaves to do before it lets every call through as written. The scheduler's
   * lanes must be complete (the caller synchronized the context), since the launches go to {@code
   * lane} with no event.
   */
  public void abandon(int lane) {
    state = IDLE;
    stopped = true;
    while (issued < heldCount) {
      CallRecord call = held[issued++];
      call.result = device.launch(call, lane);
      chargeIfEnding(call);
      call.stream = lane;
      listener.issued(call);
    }
    heldCount = 0;
    issued = 0;
  }

  /**
   * Issues what is held, then forgets every launch configuration and window, destroying their
   * graphs: after a module unload, a function handle may come back for another kernel.
   */
  public void forgetAll() {
    end();
    known.forEach(w -> KnownWindow.destroy(w, device));
    known.clear();
    prefixes.clear();
    succeeded.clear();
  }

  /**
   * Replaces the clock of the host's pauses between launches ({@code System::nanoTime}): the
   * self-test's stands still, so that its windows do not depend on how fast the host runs.
   */
  public void useClock(java.util.function.LongSupplier nanos) {
    clock = nanos;
  }

  /**
   * Issues what is held and holds nothing more in this context: it saw a sticky error (each later
   * launch is made at once and returns the error as CUDA would), or it is about to be destroyed.
   */
  public void stopHolding(String why) {
    end();
    stop(why);
  }

  /**
   * The deadline of held launches: issues what is held once the host made no launch for longer than
   * {@code idleNanos} (no other call came either: any would have ended the window), so that a held
   * launch never waits for a call that may not come.
   *
   * @return nanoseconds left until what is held reaches the deadline, or -1 when nothing is held now
   */
  public long issueIfIdle(long idleNanos) {
    if (heldCount == 0) {
      return -1;
    }
    long left = idleLeft(previousLaunchNanos, idleNanos);
    if (left > 0) {
      return left;
    }
    end();
    return heldCount == 0 ? -1 : idleNanos;
  }

  /** Nanoseconds until {@code idleNanos} passed since {@code lastLaunchNanos}: reads the clock alone, needs no lock. */
  public long idleLeft(long lastLaunchNanos, long idleNanos) {
    return idleNanos - (clock.getAsLong() - lastLaunchNanos);
  }

  /** When the latest launch offered to the windows ended, on this windows' clock. */
  public long lastLaunchNanos() {
    return previousLaunchNanos;
  }

  /** Whether launches are held now. */
  public boolean holding() {
    return heldCount > 0;
  }

  /** A launch placed on its own succeeded: the same function and configuration may be held from now on. */
  public void succeeded(CallRecord call) {
    if (mayHold(call)) {
      succeeded.add(call);
    }
  }

  /** Makes captures merge independent launches of one kernel ({@link LaunchMerging}); off by default. */
  public void mergeLaunches(boolean on) {
    merge = on;
  }

  /** Windows replayed as graphs so far; under the dispatch's lock. */
  long windowsReplayed() {
    return replayed;
  }

  /** Launches issued in replayed graphs so far; under the dispatch's lock. */
  long launchesReplayed() {
    return launchesReplayed;
  }

  /**
   * Windows captured, replayed, graphs evicted for room (not forgotten at a module unload), launches
   * in replays, windows diverged, merged launches in replays and the launches they stood for.
   */
  public long[] counters() {
    return new long[] {captured, replayed, evicted, launchesReplayed, diverged, mergedLaunches, launchesMerged};
  }

  // ---------------------------------------------------------------- internals

  private boolean holdable(CallRecord call) {
    return mayHold(call) && (call.kind != CallKind.BLAS || !routinesStopped) && !call.touchesUnknownMemory
        && !call.touchesHostMemory && !call.barrier && succeeded.contains(call);
  }

  private boolean holdsRoutines() {
    for (int i = 0; i < heldCount; i++) {
      if (held[i].kind == CallKind.BLAS) {
        return true;
      }
    }
    return false;
  }

  /**
   * Kernel launches, and cuBLAS routines the interceptor described ({@link CallRecord#function} is
   * then an id standing for the routine, its handle's settings and every argument but its
   * pointers, which are its parameter bytes).
   */
  private static boolean mayHold(CallRecord call) {
    return (call.kind == CallKind.LAUNCH || call.kind == CallKind.BLAS) && call.function != 0;
  }

  private CallRecord hold(CallRecord call) {
    if (heldCount == held.length) {
      held = Arrays.copyOf(held, heldCount * 2);
    }
    CallRecord copy = held[heldCount];
    if (copy == null) {
      copy = new CallRecord();
      held[heldCount] = copy;
    }
    copy.copyFrom(call);
    heldCount++;
    return copy;
  }

  private void issueHeldOneByOne() {
    while (issued < heldCount) {
      CallRecord call = held[issued];
      int lane = scheduler.beforeAsyncWork(call);
      call.result = device.launch(call, lane);
      chargeIfEnding(call);
      issued++;
      scheduler.afterWork(call, call.result == 0);
      listener.issued(call);
    }
    heldCount = 0;
    issued = 0;
  }

  /** Adds to the window-ending launch, once the real call standing for it returned, the time its call spent issuing. */
  private void chargeIfEnding(CallRecord call) {
    if (call == ending) {
      call.durationNanos += clock.getAsLong() - endingSince;
      ending = null;
    }
  }

  /**
   * Issues a known window: its graph, or (where its verdict says the device runs them faster so)
   * its launches one after another on the graph's lane. Either way the lane waits for what the
   * window depends on first, and what depends on the window waits for all of it.
   */
  private void replay(KnownWindow window, long shape, boolean capturedNow) {
    if (!scheduler.capturing()) {
      samples.poll(); // a query during a capture could invalidate it
    }
    int way = judging == WindowJudging.IN_ORDER ? WindowVerdict.SERIAL
        : judging == WindowJudging.ON && !capturedNow ? window.verdict.next() : WindowVerdict.GRAPH;
    boolean serial = (way & WindowVerdict.SERIAL) != 0;
    CallRecord r = replay;
    CallRecord last = held[heldCount - 1];
    window.describeExecution(r, last, serial);
    r.threadId = threadId;
    r.priority = priority;
    r.appStream = appStream;
    int lane = scheduler.beforeAsyncWork(r);
    int sample = (way & WindowVerdict.SAMPLE) != 0 ? samples.start(window, shape, way & WindowVerdict.SERIAL, lane) : -1;
    long issueStart = clock.getAsLong();
    int result = serial ? issueInOrder(lane) : device.launchGraph(window.graph, lane);
    if (result != 0) {
      // Nothing was enqueued: the lane's wait for the window's predecessors stays, harmless.
      if (sample >= 0) {
        samples.cancel(sample);
      }
      issueHeldOneByOne();
      stop("could not launch a graph: CUDA error " + result);
      return;
    }
    long number = ++windowNumber;
    if (sample >= 0) {
      samples.end(sample, issueStart, clock.getAsLong() - issueStart, number);
    }
    chargeIfEnding(last);
    issued = heldCount;
    scheduler.afterWork(r, true);
    if (!serial) {
      replayed++;
      launchesReplayed += heldCount;
      mergedLaunches += window.mergedLaunches;
      launchesMerged += window.launchesMerged;
    }
    for (int i = 0; i < heldCount; i++) {
      CallRecord call = held[i];
      call.stream = lane;
      call.graphWindow = serial ? 0 : number;
      call.graphCaptured = capturedNow;
      window.flagMerged(call, i, serial);
      call.eventRecorded = r.eventRecorded && i == 0;
      call.predecessorCount = 0;
      if (i == 0) {
        for (int p = 0; p < r.predecessorCount; p++) {
          call.addPredecessor(r.predecessors[p]);
        }
      }
      listener.issued(call);
    }
    heldCount = 0;
    issued = 0;
  }

  /**
   * The window's launches in program order on {@code lane}, which orders them at least as their
   * graph does. A launch's own error is its result, journaled, as for launches issued one by one.
   */
  private int issueInOrder(int lane) {
    for (int i = issued; i < heldCount; i++) {
      held[i].result = device.launch(held[i], lane);
      issued = i + 1;
    }
    return 0;
  }

  private void remember(long key) {
    if (stopped || length < MIN_WINDOW || known.get(key) != null) {
      return;
    }
    known.put(key, new KnownWindow(length));
    if (prefixes.size() + length > LongFlags.MAX_SIZE) {
      // Windows are learned again; a stale prefix would only hold launches in vain.
      prefixes.clear();
    }
    for (int i = 0; i < length - 1; i++) {
      prefixes.add(windowPrefixes[i], PREFIX | INTERIOR);
    }
    // Keyed by the prefix alone: it stands for every launch so far, so it implies the length
    // but for a collision, which the lookup by key and length then finds no window for.
    prefixes.add(windowPrefixes[length - 1], PREFIX | COMPLETE);
  }

  /** The window's key so far: its prefix and length. */
  private long key() {
    return Mix64.of(prefix, length);
  }

  private void stop(String why) {
    if (!stopped) {
      stopped = true;
      listener.stopped(why);
    }
  }

  private void evict(KnownWindow window) {
    if (window.graph != 0) {
      evicted++;
    }
    KnownWindow.destroy(window, device);
  }
}
