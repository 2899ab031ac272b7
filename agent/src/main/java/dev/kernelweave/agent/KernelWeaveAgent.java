package dev.kernelweave.agent;

import dev.kernelweave.interceptor.AgentLog;
import dev.kernelweave.interceptor.InterceptorInstaller;
import dev.kernelweave.interceptor.InterceptorSettings;
import dev.kernelweave.interceptor.Interception;
import dev.kernelweave.interceptor.Mode;
import dev.kernelweave.journal.LaunchJournal;
import dev.kernelweave.scheduler.Scheduler;
import dev.kernelweave.selftest.HotPathWarmup;
import java.lang.instrument.Instrumentation;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * The agent's entry points. Does as little as possible: parses the options and installs one class
 * file transformer that looks only at JCuda's classes. What a CUDA program alone needs (the JDK
 * internals the journal maps files with and the injection of helper classes uses) is opened when
 * the first JCuda class loads, and Chronicle starts then in the background (the JIT warm-up at the first CUDA call); no CUDA is touched and
 * no file is made until the program makes its first CUDA call. Nothing thrown here reaches the
 * program.
 */
public final class KernelWeaveAgent {

  private KernelWeaveAgent() {}

  public static void premain(String argument, Instrumentation jvm) {
    start(argument, jvm);
  }

  public static void agentmain(String argument, Instrumentation jvm) {
    start(argument, jvm);
  }

  /** The warm-up started when JCuda loaded; null before, or where there is none. */
  private static volatile HotPathWarmup warmup;

  /**
   * Starts the JIT warm-up where the agent schedules, at the program's first CUDA call: beside
   * {@code cuInit} and the context's creation, a few hundred milliseconds in the driver during which
   * the program's thread neither loads classes nor compiles.
   */
  private static void startWarmup(AgentOptions options) {
    if (options.mode() != Mode.SCHEDULE || options.warmupMillis() == 0) {
      return;
    }
    int classLanes = options.priority().enabled() ? Scheduler.AGENT_CLASS_LANES : 0;
    HotPathWarmup w = new HotPathWarmup(options.warmupMillis() * 1_000_000L, options.streams(), classLanes,
        options.graphs(), new Consumer<String>() {
          @Override
          public void accept(String line) {
            AgentLog.debug(line);
          }
        });
    Interception.whenCallsFlow(new Runnable() {
      @Override
      public void run() {
        w.stop("after " + Interception.CALLS_FLOWING + " calls of the program");
      }
    });
    warmup = HotPathWarmup.start(w);
  }

  private static void start(String argument, Instrumentation jvm) {
    long start = System.nanoTime();
    AgentOptions options;
    try {
      options = AgentOptions.parse(argument, System.getProperties(), System.getenv());
    } catch (AgentOptions.InvalidOption e) {
      System.err.println("[kernelweave] " + e.getMessage() + "; the agent is off for this run");
      return;
    }
    try {
      AgentLog.configure(options.log(), System.err);
      // Classes, not lambdas: the first lambda of a JVM costs its invokedynamic bootstrap at start.
      Interception.activate(new InterceptorSettings(options.mode(), options.streams(), options.ptx(), options.graphs(),
          new Supplier<LaunchJournal>() {
            @Override
            public LaunchJournal get() {
              startWarmup(options);
              return Journals.open(options);
            }
          }, options.priority()));
      Runnable exitWork = new Runnable() {
        @Override
        public void run() {
          HotPathWarmup w = warmup;
          if (w != null) {
            w.stop("at exit");
          }
          InterceptorInstaller.shutdown();
        }
      };
      InterceptorInstaller.install(jvm, new Runnable() {
        @Override
        public void run() {
          JdkAccess.openTo(jvm, KernelWeaveAgent.class.getModule());
          // After the application's own hooks: the calls they make are journaled too.
          ExitHook.registerAfterApplicationHooks(exitWork);
          Journals.prepare(options);
        }
      });
      // Where the late slot cannot be had, an ordinary hook, concurrent with the application's.
      Runtime.getRuntime().addShutdownHook(new Thread(new Runnable() {
        @Override
        public void run() {
          if (!ExitHook.registered()) {
            exitWork.run();
          }
        }
      }, "kernelweave-shutdown"));
      if (AgentLog.debugEnabled()) {
        AgentLog.debug("kernelweave " + Version.current() + " installed in " + (System.nanoTime() - start) / 1_000_000 + " ms: " + options);
      }
    } catch (Throwable t) {
      System.err.println("[kernelweave] the agent could not start and is off for this run: " + t);
    }
  }
}
