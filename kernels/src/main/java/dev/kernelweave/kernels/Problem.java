package dev.kernelweave.kernels;

import java.util.List;

/**
 * The CPU side of a workload at one size: its dimensions, which kernels it uses, and the reference
 * result. Implementations touch no JCuda class, so they run and are tested anywhere.
 */
public interface Problem {

  /** The workload's name on the command line, for example {@code branches}. */
  String name();

  /** The dimensions in words, for example {@code 16 chains x 32 kernels, 4096 floats each, ...}. */
  String sizes();

  /** How a kernel is launched, in the words of {@link #sizes()}: {@code 2 blocks of 256 threads}. */
  static String grid(int blocks, int threads) {
    return blocks + " blocks of " + threads + " threads";
  }

  /**
   * How a kernel is launched and how long it runs, in the words of {@link #sizes()}: {@code 2 blocks
   * of 256 threads, 640 rounds}.
   */
  static String launches(int blocks, int threads, int rounds) {
    return grid(blocks, threads) + ", " + rounds + " rounds";
  }

  /** The PTX module the workload loads, {@code ptx/NAME.ptx} on the class path. */
  String ptx();

  /** The kernel entry points the workload launches from {@link #ptx()}. */
  List<String> kernels();

  /**
   * The output bytes that every correct run must produce, computed on the CPU with the same float
   * operations in the same order as the kernels.
   */
  byte[] reference();
}
