package dev.kernelweave.kernels;

import java.lang.reflect.RecordComponent;
import java.util.List;
import java.util.StringJoiner;

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

  /**
   * What a problem record's constructor throws for sizes it cannot run: the record's components,
   * named as {@code toString} names them, with the arguments it was given (in a compact constructor
   * the fields are not yet assigned, so {@code this} would print none of them).
   *
   * @param problem the record
   * @param arguments the constructor's arguments, in the order of the record's components
   */
  static IllegalArgumentException badSizes(Class<? extends Record> problem, Object... arguments) {
    RecordComponent[] components = problem.getRecordComponents();
    StringJoiner named = new StringJoiner(", ", problem.getSimpleName() + "[", "]");
    for (int i = 0; i < components.length; i++) {
      named.add(components[i].getName() + "=" + arguments[i]);
    }
    return new IllegalArgumentException("bad sizes: " + named);
  }

  /**
   * A PTX module and the kernel entry points a workload launches from it: named together, since
   * each name means something only in its module.
   *
   * @param ptx the module, {@code ptx/NAME.ptx} on the class path
   * @param kernels the entry points
   */
  record ModuleKernels(String ptx, List<String> kernels) {

    public ModuleKernels(String ptx, String... kernels) {
      this(ptx, List.of(kernels));
    }
  }

  /** The module the workload loads and the kernels it launches from it. */
  ModuleKernels moduleKernels();

  /** The PTX module the workload loads, {@code ptx/NAME.ptx} on the class path. */
  default String ptx() {
    return moduleKernels().ptx();
  }

  /** The kernel entry points the workload launches from {@link #ptx()}. */
  default List<String> kernels() {
    return moduleKernels().kernels();
  }

  /**
   * The output bytes that every correct run must produce, computed on the CPU with the same float
   * operations in the same order as the kernels.
   */
  byte[] reference();
}
