package dev.kernelweave.agent;

import dev.kernelweave.interceptor.AgentLog;
import dev.kernelweave.interceptor.Interception;
import dev.kernelweave.interceptor.InterceptionWarmup;
import dev.kernelweave.interceptor.Mode;
import dev.kernelweave.interceptor.jcuda.JCudaNatives;
import dev.kernelweave.scheduler.Scheduler;
import dev.kernelweave.selftest.HotPathWarmup;
import java.util.function.Consumer;

/**
 * When the JIT warm-up ({@link HotPathWarmup}) runs: where the agent engages at once or when warm,
 * from the program's second CUDA call, once {@code cuInit} has returned, beside the context's
 * creation and the first module loads (a hundred milliseconds and more in the driver, while the
 * program's thread neither loads classes nor compiles); where engagement waits for the program
 * ({@code engage=auto} or a count), from the engagement, since a program that never engages runs
 * as written and only loses by a thread compiling beside it (there only a short priming runs, from
 * the {@link #PRIMES_AT_CALL}th call made as written, {@link #prime}, which loads and links what
 * the engagement would otherwise find cold); until the program's {@link
 * #STOPS_AT_CALL}th tracked call, from which on its own calls keep the JIT busy and the warm-up
 * would only compete with them for compilations; never past exit.
 *
 * <p>A JVM exits only once the compilations in flight end, so a program that only calls {@code
 * cuInit} starts none. Nothing is started where the agent does not schedule.
 *
 * <p>Thread-safe: the milestones run on the program's calls, {@link #stopAtExit} on the exit hook.
 */
final class JitWarmup {

  /** The call that starts the warm-up: the first after {@code cuInit}. */
  static final long STARTS_AT_CALL = 2;
  /**
   * The call made as written that starts the priming ({@link #prime}) where engagement waits for
   * the program: a fifth of the way to the call at which a long program engages (10,000), so that
   * a short program never has the priming's thread beside it, and a long one has it done well
   * before it engages.
   */
  static final long PRIMES_AT_CALL = 2000;
  /** The call that stops it: a program making thousands of calls compiles its own path within a few of its repetitions. */
  static final long STOPS_AT_CALL = 2000;

  /**
   * The warm-up's time per intercepted call at which the agent engages ({@code
   * interceptor/Engagement}): compiled code, where an interpreted call takes tens of microseconds.
   */
  static final long ENGAGES_AT_NANOS_PER_CALL = 2_000;

  private final HotPathWarmup warmup;

  private JitWarmup(HotPathWarmup warmup) {
    this.warmup = warmup;
  }

  /** Registers the warm-up's start and stop with the program's calls; null where there is none. */
  static JitWarmup schedule(AgentOptions options) {
    if (options.mode() != Mode.SCHEDULE || options.warmupMillis() == 0) {
      return null;
    }
    int classLanes = Scheduler.classLanes(options.priority().enabled());
    InterceptionWarmup interception = new InterceptionWarmup();
    JitWarmup w = new JitWarmup(new HotPathWarmup(options.warmupMillis() * 1_000_000L,
        HotPathWarmup.programsFor(options.warmupMillis()), options.streams(), classLanes,
        options.graphs(), new Consumer<String>() {
          @Override
          public void accept(String line) {
            AgentLog.debug(line);
            if (options.engage() == AgentOptions.ENGAGE_WHEN_WARM) {
              Interception.engage("the warm-up ended");
            }
          }
        }, new Runnable() {
          @Override
          public void run() {
            interception.run();
            long nanos = interception.nanosPerCall();
            if (nanos <= ENGAGES_AT_NANOS_PER_CALL && options.engage() == AgentOptions.ENGAGE_WHEN_WARM) {
              Interception.engage("the interception is compiled: " + nanos + " ns a call in the warm-up");
            }
          }
        }));
    // Classes, not lambdas, as in the agent's premain.
    Runnable start = new Runnable() {
      @Override
      public void run() {
        try {
          HotPathWarmup.start(w.warmup);
        } catch (Throwable t) {
          // Runs inside the program's call: a thread that cannot be had must not turn the agent off.
          AgentLog.debug("warm-up not started: " + t);
          return;
        }
        if (AgentLog.debugEnabled()) {
          AgentLog.debug("warm-up started: self-test programs on a thread of the agent for up to "
              + options.warmupMillis() + " ms of CPU, so that the JIT compiles the scheduler and the interception early (warmup=off: none)");
        }
      }
    };
    if (options.engagementWaitsForTheProgram()) {
      Interception.atCallMadeAsWritten(PRIMES_AT_CALL, new Runnable() {
        @Override
        public void run() {
          prime(options, classLanes);
        }
      });
      Interception.whenEngaged(start);
    } else {
      Interception.atCall(STARTS_AT_CALL, start);
    }
    Interception.atCall(STOPS_AT_CALL, new Runnable() {
      @Override
      public void run() {
        w.warmup.stop("after " + STOPS_AT_CALL + " calls of the program");
      }
    });
    Interception.whenHandedBack(new Runnable() {
      @Override
      public void run() {
        w.warmup.stop("the agent stopped scheduling");
      }
    });
    return w;
  }

  /**
   * Where engagement waits for the program: runs each of the warm-up's programs once, and the
   * interception's own round after each, on a thread of the agent, from the program's {@link
   * #PRIMES_AT_CALL}th call made as written.
   * That loads and initializes the classes of the scheduled path and links its call sites
   * (lambdas, string concatenations) long before a program engages; compiling is left to the
   * warm-up that starts at the engagement, or to the program's own calls. Without it the first
   * scheduled calls ran cold: on an H200, {@code tenants-priority} engaged after 10000 calls and its
   * first scheduled launches took 1.5 ms each, its requests then 7 to 12 ms.
   */
  private static void prime(AgentOptions options, int classLanes) {
    InterceptionWarmup interception = new InterceptionWarmup();
    try {
      HotPathWarmup.start(new HotPathWarmup(PRIMING_MILLIS * 1_000_000L, HotPathWarmup.LOOPS, options.streams(),
          classLanes, options.graphs(), new Consumer<String>() {
            @Override
            public void accept(String line) {
              AgentLog.debug("priming the scheduled path: " + line.replaceFirst("^warm-up: ", ""));
            }
          }, new Runnable() {
            private boolean handlesLookedUp;

            @Override
            public void run() {
              if (!handlesLookedUp) {
                handlesLookedUp = true;
                try {
                  JCudaNatives.lookUpHandles();
                } catch (Throwable t) {
                  // JCuda in another class loader than this copy of the agent's: its own copy looks them up.
                  AgentLog.debug("driver handles not looked up ahead: " + t);
                }
              }
              interception.run();
            }
          }));
    } catch (Throwable t) {
      AgentLog.debug("scheduled path not primed: " + t);
    }
  }

  /** CPU time the priming may take at most: cold, its first program took 105 to 141 ms on an H200's host. */
  static final long PRIMING_MILLIS = 400;

  void stopAtExit() {
    warmup.stop("at exit");
  }
}
