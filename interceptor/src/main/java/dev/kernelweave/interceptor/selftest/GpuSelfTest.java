package dev.kernelweave.interceptor.selftest;

import dev.kernelweave.scheduler.Mutant;
import dev.kernelweave.scheduler.Scheduler;
import dev.kernelweave.selftest.DifferentialFuzz;
import dev.kernelweave.selftest.ProgramGenerator;
import java.io.PrintStream;
import java.util.Locale;

/**
 * {@code selftest --gpu}: the scheduler's differential fuzz on this machine's GPU. Each random
 * program runs as written on the default stream and through the scheduler on real streams and
 * events (and, with graphs on, held launches replayed as real CUDA graphs), and every byte the
 * program can observe must be equal.
 */
public final class GpuSelfTest {

  private GpuSelfTest() {}

  /** Runs the fuzz with graphs on. */
  public static int run(long seed, int programs, PrintStream out, PrintStream err) {
    return run(seed, programs, true, out, err);
  }

  /**
   * Runs the fuzz; returns the command's exit code (1 when a program failed, 3 when there is no GPU).
   *
   * @param graphs whether the scheduled runs hold launches and replay repeated windows as graphs
   */
  public static int run(long seed, int programs, boolean graphs, PrintStream out, PrintStream err) {
    GpuSession session;
    try {
      session = new GpuSession();
    } catch (Throwable t) {
      err.println("kernelweave selftest --gpu: no usable GPU here: " + t);
      return 3;
    }
    out.printf(Locale.ROOT, "selftest --gpu: seed %d, %d programs, %d streams, graphs %s%n", seed, programs,
        Scheduler.DEFAULT_STREAMS, graphs ? "on" : "off");
    DifferentialFuzz fuzz =
        new DifferentialFuzz((streams, s) -> new JCudaProgramTarget(session, streams), Scheduler.DEFAULT_STREAMS,
            Mutant.NONE, new ProgramGenerator(), graphs);
    long start = System.nanoTime();
    DifferentialFuzz.Report report = fuzz.run(seed, programs, 0, out);
    out.printf(Locale.ROOT, "scheduler: %s%n", report.stats());
    out.printf(Locale.ROOT, "%.1f s%n", (System.nanoTime() - start) / 1e9);
    if (report.failed() > 0) {
      out.println();
      out.println("first failing program, shrunk:");
      out.print(fuzz.shrink(report.failures().get(0)).describe().indent(2));
      out.println();
    }
    out.println(report.summary());
    return report.failed() > 0 ? 1 : 0;
  }
}
