package dev.kernelweave.interceptor;

import dev.kernelweave.call.CallRecord;
import dev.kernelweave.interceptor.jcuda.JCudaNatives;
import dev.kernelweave.interceptor.observe.CallEvents;
import dev.kernelweave.journal.LaunchJournal;
import dev.kernelweave.journal.RunEnd;
import dev.kernelweave.memory.AllocationTable;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Everything the interceptor keeps for one class loader that holds JCuda: the settings, the
 * allocation table, the kernels and modules, one scheduler per context, the journal, each
 * application thread's reused record, and the libraries registered with it ({@link
 * InterceptedLibraries}). Each class loader that holds JCuda has its own copy of the interceptor's
 * classes ({@code install.HelperInjection}), hence its own {@code AgentState}.
 *
 * <p>The one holder of mutable state: {@link #current} is the only static field of the interceptor
 * that changes (as the OpenTelemetry agent keeps one singleton holder per module); everything else
 * is an instance field of this object or of an object reachable from it, so that a test starts from
 * a fresh state ({@link #replaceForTesting}) instead of resetting fields one by one. Advice reaches
 * it through {@link Calls}, which reads {@link #current} once per call and then only fields; the
 * record a call carries names its thread ({@link CallScope#thread}), and that thread its state, so
 * the rest of a call reads no static field at all.
 *
 * <p>Protocol: {@link #activate} once (calls before it pass through untouched); then, per call,
 * {@link Calls#begin} .. {@link Calls#end}; {@link #fail} at most once to stop scheduling; {@link
 * #shutdown} at the JVM's exit.
 *
 * <p>Invariant: once scheduling has failed it stays off for the rest of the run; every later call
 * passes through as written. Thread-safe: the maps are concurrent or confined as their javadoc says.
 */
public final class AgentState {

  /** The state of this class loader's interceptor; replaced only by tests. */
  private static volatile AgentState current = new AgentState();

  volatile InterceptorSettings settings;
  volatile boolean scheduling;
  private volatile LaunchJournal journal;

  final AllocationTable allocations = new AllocationTable();
  /** Kernels by function handle, as {@code cuModuleGetFunction} found them. */
  final LongMap<KernelInfo> kernels = new LongMap<>();
  /** The kernels of each module loaded from PTX, by module handle. */
  final LongMap<Map<String, KernelInfo>> kernelsByModule = new LongMap<>();
  /** Where launches are merged ({@link InterceptorSettings#merge}): each PTX module's text, and each function's. */
  final LongMap<String> ptxByModule = new LongMap<>();
  final LongMap<String> ptxByFunction = new LongMap<>();
  final LongMap<ContextScheduling> contexts = new LongMap<>();
  /** The context each live stream the program created belongs to, by stream handle. */
  final LongMap<Long> streamContexts = new LongMap<>();
  /** Primary context handles by device ordinal, as the program retained them. */
  private final LongMap<Long> primaryContexts = new LongMap<>();
  final AtomicLong sequence = new AtomicLong();
  final CallMilestones milestones = new CallMilestones();
  /** Bumped when a context may have been destroyed and re-created under the same handle. */
  volatile int contextEpoch;
  /** The base of each live padded allocation, to the size the program asked for ({@link AllocationPadding}). */
  final Map<Long, Long> paddedAllocations = new ConcurrentHashMap<>();
  /** The application's events created without timing, by handle ({@link UntimedEvents}). */
  final Set<Long> untimedEvents = ConcurrentHashMap.newKeySet();
  final CallThreads threads = new CallThreads(this);
  /** When tracked calls begin: at once unless deferred at activation. */
  final Engagement engagement = new Engagement();
  final HeldLaunchDeadline deadline = new HeldLaunchDeadline(this);
  final InterceptedLibraries libraries = new InterceptedLibraries();
  final CallEvents events = new CallEvents();

  AgentState() {}

  /** The state of this class loader's interceptor. */
  public static AgentState current() {
    return current;
  }

  /**
   * Replaces the state with a fresh, inactive one, for tests: every table, thread record and
   * registered library of the previous state is dropped with it.
   */
  public static AgentState replaceForTesting() {
    AgentState fresh = new AgentState();
    current = fresh;
    return fresh;
  }

  /** The libraries registered with this state, which JCuda's other libraries' advice registers with. */
  public InterceptedLibraries libraries() {
    return libraries;
  }

  /** Activates interception with these settings; calls before this pass through untouched. */
  synchronized void activate(InterceptorSettings newSettings) {
    settings = newSettings;
    scheduling = newSettings.mode() == Mode.SCHEDULE;
  }

  boolean active() {
    return settings != null;
  }

  /** See {@link Interception#shutdown}. */
  synchronized void shutdown() {
    issueHeldLaunches();
    LaunchJournal j = journal;
    journal = LaunchJournal.OFF;
    if (j != null) {
      if (j != LaunchJournal.OFF || AgentLog.debugEnabled()) {
        // Built only here: a program without a journal loads no class for its run's end.
        RunEnd end = engagement.runEnd();
        // Said where a journal was written: its reader would otherwise look in vain for the launches.
        // A hand-back before engagement said its own line, and its later calls were not counted.
        if (end.neverEngaged() && end.handedBack().isEmpty()) {
          String threads = engagement.notEngagedBecause();
          AgentLog.info("the agent did not engage" + (threads == null ? "" : " (" + threads + ")") + ": the program's "
              + end.callsAsWritten() + " launches, copies and waits ran as written and are not in the journal"
              + " (engage=at-once schedules and journals every call)");
        }
        j.endOfRun(end);
      }
      long start = System.nanoTime();
      j.close();
      if (AgentLog.debugEnabled()) {
        // What the agent adds to the program's exit: the writer finishing its start and its calls.
        AgentLog.debug("journal closed in " + (System.nanoTime() - start) / 1_000_000 + " ms at exit");
      }
    }
  }

  /**
   * Issues the launches a context still holds when the JVM exits, as the program made them: a
   * program may end without synchronizing, and its launches must still run and be journaled.
   */
  private void issueHeldLaunches() {
    if (!scheduling) {
      return;
    }
    contexts.forEach((context, cs) -> {
      try {
        if (AgentLog.debugEnabled() && cs.dispatch.windows() != null) {
          long[] c = cs.dispatch.windows().counters();
          AgentLog.debug("graphs of context 0x" + Long.toHexString(context) + ": " + c[0] + " captured, " + c[1]
              + " replayed, " + c[2] + " evicted, " + c[3] + " launches replayed, " + c[4] + " windows diverged, "
              + c[5] + " merged launches replayed for " + c[6] + " launches");
        }
        if (cs.dispatch.holding()) {
          JCudaNatives.makeCurrent(context);
          cs.dispatch.endWindow();
        }
      } catch (Throwable e) {
        AgentLog.warnOnce("exit-window", "launches held at exit could not be issued: " + e);
      }
    });
  }

  /**
   * The journal, opened as the first intercepted call begins, on that call's thread: opening starts
   * Chronicle, which must register its shutdown hook before the JVM begins to exit (see {@link
   * #shutdown}). Opening never throws; it says why in one warning and journals nothing.
   */
  LaunchJournal journal() {
    LaunchJournal j = journal;
    if (j == null) {
      synchronized (this) {
        j = journal;
        if (j == null) {
          InterceptorSettings s = settings;
          long start = System.nanoTime();
          try {
            j = s == null ? LaunchJournal.OFF : s.journal().get();
            if (AgentLog.debugEnabled()) {
              AgentLog.debug("journal opened in " + (System.nanoTime() - start) / 1_000_000 + " ms on the first call's thread");
            }
          } catch (Throwable t) {
            AgentLog.warnOnce("journal", "journal off: " + t);
            j = LaunchJournal.OFF;
          }
          journal = j;
        }
      }
    }
    return j;
  }

  /** Counts a finished call, commits its JFR events and journals it. Never throws. */
  void callFinished(CallRecord r) {
    events.emit(r);
    append(r);
  }

  /** Journals {@code r}; says once, and journals no more, when the journal fails. Never throws. */
  void append(CallRecord r) {
    try {
      journal().append(r);
    } catch (Throwable e) {
      AgentLog.warnOnce("journal-append", "journaling stopped: " + e);
    }
  }

  /** The scheduling of {@code context}, made at its first placed call. */
  ContextScheduling scheduling(long context) {
    ContextScheduling cs = contexts.get(context);
    if (cs == null) {
      synchronized (contexts) {
        cs = contexts.get(context);
        if (cs == null) {
          InterceptorSettings s = settings;
          cs = new ContextScheduling(this, context, s.streams(), s.graphs(), s.priorities().enabled(), s.rules(),
              s.merge() && s.ptx());
          cs.judge(s.judge());
          if (s.handBack()) {
            cs.dispatch.handBackWhereThreadsContend();
          }
          contexts.put(context, cs);
        }
      }
    }
    return cs;
  }

  /** See {@link Interception#primaryRetained}. */
  void primaryRetained(long device, long context) {
    if (context != 0 && !Long.valueOf(context).equals(primaryContexts.get(device))) {
      primaryContexts.put(device, context);
    }
  }

  /** See {@link Interception#primaryEnded}. */
  void primaryEnded(long device) {
    Long context = primaryContexts.get(device);
    if (context != null) {
      primaryContexts.remove(device);
      contextDestroyed(context);
    } else {
      contextEpoch++;
    }
  }

  /** Forgets a destroyed context's scheduler; its streams went with it. */
  void contextDestroyed(long context) {
    contexts.remove(context);
    contextEpoch++;
  }

  /**
   * A device reset ({@code cuDevicePrimaryCtxReset}, {@code cudaDeviceReset}) destroyed the
   * calling thread's context, whose handle may come back for the new one: its streams are gone.
   */
  void contextReset(long context) {
    if (context != 0) {
      contexts.remove(context);
    }
    contextEpoch++;
  }

  /**
   * Something inside the agent failed: stop scheduling for the rest of the run, say so once, undo
   * what the registered libraries pointed at the agent's streams, and let the work already on the
   * agent's streams finish, so that pass-through calls on the default stream cannot overtake it.
   */
  void fail(Throwable cause) {
    boolean wasScheduling = scheduling;
    scheduling = false;
    if (wasScheduling) {
      AgentLog.warnOnce("scheduling-failed", "scheduling stopped, every call now runs as written: " + cause);
      if (AgentLog.debugEnabled()) {
        cause.printStackTrace();
      }
      libraries.fallBack();
      try {
        JCudaNatives.synchronizeContext();
      } catch (Throwable ignored) {
        // Nothing more can be done; the application's next call reports any CUDA error.
      }
      // Held launches go to the legacy stream now that every lane is done, in the order made.
      contexts.forEach((context, cs) -> {
        try {
          cs.dispatch.abandonWindows();
        } catch (Throwable ignored) {
          // The launches are lost with the agent; the application's results will show it.
        }
      });
    }
  }
}
