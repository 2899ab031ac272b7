package dev.kernelweave.agent;

import dev.kernelweave.interceptor.AgentLog;
import dev.kernelweave.interceptor.InterceptorInstaller;
import dev.kernelweave.interceptor.Mode;
import dev.kernelweave.interceptor.InterceptorSettings;
import dev.kernelweave.interceptor.Interception;
import dev.kernelweave.journal.LaunchJournal;
import java.lang.instrument.Instrumentation;
import java.util.function.Supplier;

/**
 * The agent's entry points. Does as little as possible: parses the options and installs one class
 * file transformer that looks only at JCuda's classes. What a CUDA program alone needs (the JDK
 * internals the journal maps files with and the injection of helper classes uses) is opened when
 * the first JCuda class loads, and Chronicle starts then in the background (the JIT warm-up after {@code cuInit}, {@link JitWarmup}); no CUDA is touched and
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
              return AgentJournal.open(options);
            }
          }, options.priority(), options.judge(), options.merge(), options.handBack(),
          BrokenSchedulerProperty.orderingRules()));
      JitWarmup warmup = JitWarmup.schedule(options);
      deferEngagement(options, warmup != null);
      InterceptorInstaller installer = new InterceptorInstaller();
      ExitHook exitHook = new ExitHook();
      Runnable exitWork = new Runnable() {
        @Override
        public void run() {
          if (warmup != null) {
            warmup.stopAtExit();
          }
          installer.shutdown();
        }
      };
      installer.install(jvm, new Runnable() {
        @Override
        public void run() {
          JdkAccess.openTo(jvm, KernelWeaveAgent.class.getModule());
          // After the application's own hooks: the calls they make are journaled too.
          exitHook.registerAfterApplicationHooks(exitWork);
          AgentJournal.prepare(options);
        }
      });
      // Where the late slot cannot be had, an ordinary hook, concurrent with the application's.
      Runtime.getRuntime().addShutdownHook(new Thread(new Runnable() {
        @Override
        public void run() {
          if (!exitHook.registered()) {
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

  /**
   * Where the program's device work runs as written until the agent engages: with {@code
   * engage=auto} (the default), until a run of launches a graph pays for or a long program; with
   * {@code engage=when-warm}, while a warm-up compiles the interception (where none runs, the agent
   * engages at once); with a number, for that many calls. Why auto: on an H100, short ordinary
   * programs ran at 0.70x of their speed without the agent when it engaged at once, and at 0.91x
   * when it never engaged and no warm-up ran beside them.
   */
  private static void deferEngagement(AgentOptions options, boolean warmupRuns) {
    if (options.mode() != Mode.SCHEDULE) {
      return;
    }
    if (options.engage() > 0) {
      Interception.deferEngagement(options.engage(), false);
    } else if (options.engage() == AgentOptions.ENGAGE_AUTO) {
      Interception.deferEngagementUntilItPays();
    } else if (options.engage() == AgentOptions.ENGAGE_WHEN_WARM && warmupRuns) {
      Interception.deferEngagement(0, true);
    }
  }
}
