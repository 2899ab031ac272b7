package dev.kernelweave.selftest;

import dev.kernelweave.scheduler.Scheduler;
import dev.kernelweave.sim.SimDevice;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

/**
 * Runs self-test programs through dispatches of their own on the simulated device, on a daemon
 * thread, so that the JIT compiles the scheduler's per-call code (placement, dependency tracking,
 * windows, graph replay), and after each program a round of {@code alongside} (the interception's
 * own per-call code, which the simulated device does not run), while the application is still
 * starting CUDA. Without it a program that
 * runs for a second makes its first few hundred calls through interpreted code, each tens of
 * microseconds slower than compiled, and the agent makes it slower instead of faster.
 *
 * <p>The programs are shaped as applications run: the same loop of launches and copies, many
 * times over, so that most of the time goes to the path that most of an application's calls take
 * (a window replayed as a graph), and little to compiling the generator and the simulator.
 *
 * <p>Touches nothing the application's calls reach: each program gets its own {@code Dispatch},
 * device and allocation table, and the scheduler keeps no state between instances. Bounded by the
 * CPU time of its thread and by a number of programs; {@link #stop} ends it at the next program.
 *
 * <p>Thread-safe: {@link #stop} and {@link #programs} may be called from any thread.
 */
public final class HotPathWarmup implements Runnable {

  private final long budgetNanos;
  private final int maxPrograms;
  private final int normalStreams;
  private final int classLanes;
  private final boolean graphs;
  private final Consumer<String> report;
  private final Runnable alongside;
  /** Why the warm-up was stopped early; null while it may run. */
  private volatile String stopped;
  private volatile int programs;

  /**
   * @param budgetNanos CPU time the warm-up may take
   * @param maxPrograms programs it may run, whatever time is left ({@link #programsFor})
   * @param normalStreams the application's contexts' normal lanes
   * @param classLanes their high and low lanes each, 0 without priority lanes
   * @param graphs whether their launches may be held and replayed as graphs
   * @param report told, once the warm-up ends, what it ran or why it stopped
   * @param alongside run after each program, on the warm-up's thread; must touch nothing the
   *     application's calls reach
   */
  public HotPathWarmup(long budgetNanos, int maxPrograms, int normalStreams, int classLanes, boolean graphs, Consumer<String> report,
      Runnable alongside) {
    this.budgetNanos = budgetNanos;
    this.maxPrograms = maxPrograms;
    this.normalStreams = normalStreams;
    this.classLanes = classLanes;
    this.graphs = graphs;
    this.report = report;
    this.alongside = alongside;
  }

  /**
   * Runs {@code warmup} on a new daemon thread named {@code kernelweave-warmup}; returns it. The
   * thread is started from a program's call: it inherits none of that thread's inheritable thread
   * locals, and holds the agent's class loader as its context loader rather than the program's.
   */
  public static HotPathWarmup start(HotPathWarmup warmup) {
    Thread t = new Thread(null, warmup, "kernelweave-warmup", 0, false);
    t.setContextClassLoader(HotPathWarmup.class.getClassLoader());
    t.setDaemon(true);
    t.setPriority(Thread.MIN_PRIORITY);
    t.start();
    return warmup;
  }

  /**
   * Ends the warm-up once its current program has run: at exit, or once the program's own calls
   * are many enough to get the JIT's attention, when the warm-up would only take compilations and
   * profile space from them.
   *
   * @param why said in the warm-up's report
   */
  public void stop(String why) {
    if (stopped == null) {
      stopped = why;
    }
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
      long spent = 0;
      for (long seed = 1; stopped == null && spent < budgetNanos && programs < maxPrograms; seed++) {
        runOne(Loops.ALL.get((int) (seed % Loops.ALL.size())), seed);
        alongside.run();
        programs++;
        spent = (cpuTime ? threads.getCurrentThreadCpuTime() : System.nanoTime()) - start;
      }
      report.accept("warm-up: " + programs + " self-test programs in " + spent / 1_000_000 + " ms of CPU, "
          + (System.nanoTime() - wallStart) / 1_000_000 + " ms" + (stopped == null ? "" : ", stopped " + stopped));
    } catch (Throwable t) {
      // Only the JIT's work is lost; the application's calls never reach these objects.
      report.accept("warm-up stopped: " + t);
    }
  }

  /**
   * Loops an application runs: on the legacy stream, read back each time, and on a stream of its
   * own. Built on the warm-up's thread, at its first use, not where the agent starts.
   */
  static final class Loops {
    static final List<Program> ALL = List.of(loop(0L, false), loop(0x10L, true));

    private Loops() {}
  }

  /**
   * Four independent branches of two launches each, a launch joining them, then a synchronous
   * read, {@code ITERATIONS} times: a window repeated, which the dispatch replays.
   */
  /** The number of loops: a warm-up of this many programs runs each once. */
  public static final int LOOPS = 2;

  static Program loop(long stream, boolean createStream) {
    List<Op> ops = new ArrayList<>();
    int branches = 4;
    int n = 64;
    for (int b = 0; b < 2 * branches; b++) {
      ops.add(new Op.Alloc(0, b, n, b + 1));
    }
    if (createStream) {
      ops.add(new Op.CreateStream(0, stream, true));
    }
    for (int i = 0; i < ITERATIONS; i++) {
      ops.add(new Op.Write(0, new Op.At(branches, 0), n, i));
      for (int b = 0; b < branches; b++) {
        ops.add(new Op.Launch(0, stream, SelfTestKernel.SCALE, new Op.At(b, 0), new Op.At(branches + b, 0), null, n, b,
            Op.LaunchMode.PRECISE));
        ops.add(new Op.Launch(0, stream, SelfTestKernel.UPDATE, new Op.At(branches + b, 0), new Op.At(b, 0), null, n, b,
            Op.LaunchMode.PRECISE));
      }
      ops.add(new Op.Launch(0, stream, SelfTestKernel.MIX, new Op.At(0, 0), new Op.At(1, 0), new Op.At(2, 0), n, 7,
          Op.LaunchMode.PRECISE));
      if (createStream) {
        ops.add(new Op.StreamSync(0, stream));
      }
      ops.add(new Op.Read(0, new Op.At(0, 0), n));
    }
    for (int b = 0; b < 2 * branches; b++) {
      ops.add(new Op.Free(0, b));
    }
    return new Program(stream, Program.wellFormed(ops));
  }

  /**
   * Programs a second of the warm-up's budget buys: what a second of CPU ran on the H100's and
   * H200's hosts when the warm-up's gains were measured. What the JIT compiles follows from how
   * often the code ran, not from how long; a faster host (or simulator) running more programs in the
   * same time would only make more garbage, whose collections pause the program's threads.
   */
  static final int PROGRAMS_PER_CPU_SECOND = 160;

  /** The programs a budget of {@code budgetMillis} CPU milliseconds buys; at least one. */
  public static int programsFor(long budgetMillis) {
    return (int) Math.max(1, Math.min(Integer.MAX_VALUE, budgetMillis * PROGRAMS_PER_CPU_SECOND / 1000));
  }

  /** Repetitions of each loop: enough that replays, not captures, take most of its time. */
  static final int ITERATIONS = 32;

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
