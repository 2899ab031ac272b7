package dev.kernelweave.selftest;

import dev.kernelweave.scheduler.Mutant;
import dev.kernelweave.scheduler.Scheduler;
import dev.kernelweave.sim.SimDevice;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.function.Consumer;

/**
 * Runs generated programs through dispatches of their own on the simulated device, on a daemon
 * thread, so that the JIT compiles the scheduler's per-call code (placement, dependency tracking,
 * windows, graph signatures) while the application is still starting CUDA. Without it a program
 * that runs for a second makes its first few hundred calls through interpreted code, each tens of
 * microseconds slower than compiled, and the agent makes it slower instead of faster.
 *
 * <p>Touches nothing the application's calls reach: each program gets its own {@code Dispatch},
 * device and allocation table, and the scheduler keeps no state between instances. Bounded by the
 * CPU time of its thread; {@link #stop} ends it at the next program.
 *
 * <p>Thread-safe: {@link #stop} and {@link #programs} may be called from any thread.
 */
public final class HotPathWarmup implements Runnable {

  private final long budgetNanos;
  private final int normalStreams;
  private final int classLanes;
  private final boolean graphs;
  private final Consumer<String> report;
  private volatile boolean stopped;
  private volatile int programs;

  /**
   * @param budgetNanos CPU time the warm-up may take
   * @param normalStreams the application's contexts' normal lanes
   * @param classLanes their high and low lanes each, 0 without priority lanes
   * @param graphs whether their launches may be held and replayed as graphs
   * @param report told, once the warm-up ends, what it ran or why it stopped
   */
  public HotPathWarmup(long budgetNanos, int normalStreams, int classLanes, boolean graphs, Consumer<String> report) {
    this.budgetNanos = budgetNanos;
    this.normalStreams = normalStreams;
    this.classLanes = classLanes;
    this.graphs = graphs;
    this.report = report;
  }

  /** Runs {@code warmup} on a new daemon thread named {@code kernelweave-warmup}; returns it. */
  public static HotPathWarmup start(HotPathWarmup warmup) {
    Thread t = new Thread(warmup, "kernelweave-warmup");
    t.setDaemon(true);
    t.setPriority(Thread.MIN_PRIORITY);
    t.start();
    return warmup;
  }

  /** Ends the warm-up once its current program has run. */
  public void stop() {
    stopped = true;
  }

  /** The programs run so far. */
  public int programs() {
    return programs;
  }

  @Override
  public void run() {
    try {
      ThreadMXBean threads = ManagementFactory.getThreadMXBean();
      boolean cpuTime = threads.isCurrentThreadCpuTimeSupported();
      long start = cpuTime ? threads.getCurrentThreadCpuTime() : System.nanoTime();
      long wallStart = System.nanoTime();
      ProgramGenerator generator = new ProgramGenerator();
      long spent = 0;
      for (long seed = 1; !stopped && spent < budgetNanos; seed++) {
        runOne(generator.generate(seed), seed);
        programs++;
        spent = (cpuTime ? threads.getCurrentThreadCpuTime() : System.nanoTime()) - start;
      }
      report.accept("warm-up: " + programs + " self-test programs in " + spent / 1_000_000 + " ms of CPU, "
          + (System.nanoTime() - wallStart) / 1_000_000 + " ms" + (stopped ? ", stopped at exit" : ""));
    } catch (Throwable t) {
      // Only the JIT's work is lost; the application's calls never reach these objects.
      report.accept("warm-up stopped: " + t);
    }
  }

  private void runOne(Program program, long seed) {
    try (SimDevice device = new SimDevice(Scheduler.poolLanes(normalStreams, classLanes), seed)) {
      if (classLanes > 0) {
        ProgramRunner.runScheduledWithPriorities(program, device, Mutant.NONE, graphs, normalStreams, classLanes);
      } else {
        ProgramRunner.runScheduled(program, device, Mutant.NONE, graphs);
      }
    }
  }
}
