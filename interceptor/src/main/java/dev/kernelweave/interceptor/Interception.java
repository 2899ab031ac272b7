package dev.kernelweave.interceptor;

import dev.kernelweave.interceptor.jcuda.JCudaNatives;
import dev.kernelweave.journal.LaunchJournal;
import dev.kernelweave.memory.AllocationTable;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The interceptor's process-wide state: the settings, the allocation table, the kernels, one
 * scheduler per context, and the journal. Advice reaches it through {@link Calls}.
 *
 * <p>Invariant: once scheduling has failed it stays off for the rest of the run; every later call
 * passes through as written.
 */
public final class Interception {

  private static volatile InterceptorSettings settings;
  private static volatile boolean scheduling;
  private static volatile LaunchJournal journal;

  static final AllocationTable ALLOCATIONS = new AllocationTable();
  static final LongMap<KernelInfo> KERNELS = new LongMap<>();
  static final LongMap<ContextScheduling> CONTEXTS = new LongMap<>();
  static final AtomicLong SEQUENCE = new AtomicLong();
  static final CallMilestones MILESTONES = new CallMilestones();
  /** Bumped when a context may have been destroyed and re-created under the same handle. */
  static volatile int contextEpoch;
  private static final List<Runnable> FALLBACKS = new CopyOnWriteArrayList<>();

  private Interception() {}

  /** Activates interception with these settings; calls before this pass through untouched. */
  public static synchronized void activate(InterceptorSettings newSettings) {
    settings = newSettings;
    scheduling = newSettings.mode() == Mode.SCHEDULE;
  }

  /**
   * Writes every call journaled so far and closes the journal, from the agent's exit work (after
   * the application's shutdown hooks where the JDK allows it); calls after this are not journaled,
   * and a journal not opened yet never will be: Chronicle must not start while the JVM exits.
   */
  public static synchronized void shutdown() {
    issueHeldLaunches();
    LaunchJournal j = journal;
    journal = LaunchJournal.OFF;
    if (j != null) {
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
  private static void issueHeldLaunches() {
    if (!scheduling) {
      return;
    }
    CONTEXTS.forEach((context, cs) -> {
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
   * Runs {@code action} once, as the program's call number {@code call} (counted from 1, across
   * threads) begins, on that call's thread; it must not throw, nor make CUDA calls.
   */
  public static void atCall(long call, Runnable action) {
    MILESTONES.at(call, action);
  }

  static boolean active() {
    return settings != null;
  }

  static boolean scheduling() {
    return scheduling;
  }

  static InterceptorSettings settings() {
    return settings;
  }

  /** The allocation table, for tests and the self-test on a GPU. */
  public static AllocationTable allocations() {
    return ALLOCATIONS;
  }

  /**
   * The journal, opened as the first intercepted call begins, on that call's thread: opening starts
   * Chronicle, which must register its shutdown hook before the JVM begins to exit (see {@link
   * #shutdown}). Opening never throws; it says why in one warning and journals nothing.
   */
  static LaunchJournal journal() {
    LaunchJournal j = journal;
    if (j == null) {
      synchronized (Interception.class) {
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

  static ContextScheduling scheduling(long context) {
    ContextScheduling cs = CONTEXTS.get(context);
    if (cs == null) {
      synchronized (CONTEXTS) {
        cs = CONTEXTS.get(context);
        if (cs == null) {
          cs = new ContextScheduling(context, settings.streams(), settings.graphs(), settings.priorities().enabled(),
              settings.merge() && settings.ptx());
          cs.judge(settings.judge());
          CONTEXTS.put(context, cs);
        }
      }
    }
    return cs;
  }

  /** Registers what must be undone when scheduling stops, such as handles pointed at the agent's streams. */
  public static void onFallback(Runnable action) {
    FALLBACKS.add(action);
  }

  /** Primary context handles by device ordinal, as the program retained them. */
  private static final LongMap<Long> PRIMARY_CONTEXTS = new LongMap<>();

  /** The program retained the primary context of {@code device}. */
  public static void primaryRetained(long device, long context) {
    if (context != 0 && !Long.valueOf(context).equals(PRIMARY_CONTEXTS.get(device))) {
      PRIMARY_CONTEXTS.put(device, context);
    }
  }

  /**
   * The primary context of {@code device} was destroyed (reset, or released for the last time): its
   * scheduler, streams, events, graphs and buffers are gone with it, and a context retained again,
   * even under the same handle, starts fresh.
   */
  public static void primaryEnded(long device) {
    Long context = PRIMARY_CONTEXTS.get(device);
    if (context != null) {
      PRIMARY_CONTEXTS.remove(device);
      contextDestroyed(context);
    } else {
      contextEpoch++;
    }
  }

  /** Forgets a destroyed context's scheduler; its streams went with it. */
  public static void contextDestroyed(long context) {
    CONTEXTS.remove(context);
    contextEpoch++;
  }

  /**
   * A device reset ({@code cuDevicePrimaryCtxReset}, {@code cudaDeviceReset}) destroyed the
   * calling thread's context, whose handle may come back for the new one: its streams are gone.
   */
  static void contextReset(long context) {
    if (context != 0) {
      CONTEXTS.remove(context);
    }
    contextEpoch++;
  }

  /**
   * Something inside the agent failed: stop scheduling for the rest of the run, say so once, and
   * let the work already on the agent's streams finish, so that pass-through calls on the default
   * stream cannot overtake it.
   */
  static void fail(Throwable cause) {
    boolean wasScheduling = scheduling;
    scheduling = false;
    if (wasScheduling) {
      AgentLog.warnOnce("scheduling-failed", "scheduling stopped, every call now runs as written: " + cause);
      if (AgentLog.debugEnabled()) {
        cause.printStackTrace();
      }
      for (Runnable action : FALLBACKS) {
        try {
          action.run();
        } catch (Throwable ignored) {
          // Keep undoing the rest.
        }
      }
      try {
        JCudaNatives.synchronizeContext();
      } catch (Throwable ignored) {
        // Nothing more can be done; the application's next call reports any CUDA error.
      }
      // Held launches go to the legacy stream now that every lane is done, in the order made.
      CONTEXTS.forEach((context, cs) -> {
        try {
          cs.dispatch.abandonWindows();
        } catch (Throwable ignored) {
          // The launches are lost with the agent; the application's results will show it.
        }
      });
    }
  }
}
