package dev.kernelweave.kernels;

import java.io.PrintStream;
import jcuda.driver.JCudaDriver;

/**
 * A program that only initialises CUDA: the benchmark starts it in fresh JVMs with and without the
 * agent to measure what the agent adds to a program's start.
 *
 * <pre>
 * java -cp ... dev.kernelweave.kernels.CuInitMain
 * </pre>
 *
 * <p>Prints {@code cuInit ok}. Exit status: 0 done, 3 no GPU or no CUDA driver (the reason on one
 * line).
 */
public final class CuInitMain {

  private CuInitMain() {}

  public static void main(String[] args) {
    System.exit(run(System.out));
  }

  /** Everything {@link #main} does, returning the exit status. */
  static int run(PrintStream out) {
    try {
      JCudaDriver.setExceptionsEnabled(true);
      JCudaDriver.cuInit(0);
    } catch (RuntimeException | LinkageError e) {
      out.println("no GPU: " + Gpu.summary(e));
      return 3;
    }
    out.println("cuInit ok");
    return 0;
  }
}
