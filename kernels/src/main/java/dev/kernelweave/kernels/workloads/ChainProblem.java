package dev.kernelweave.kernels.workloads;

import static dev.kernelweave.kernels.CpuMath.blend;
import static dev.kernelweave.kernels.CpuMath.logistic;

import dev.kernelweave.kernels.Outputs;
import dev.kernelweave.kernels.Problem;
import dev.kernelweave.kernels.Seeded;
import dev.kernelweave.kernels.Size;

/**
 * {@code chain}: one long chain of {@code length} dependent in-place kernels on one buffer; nothing
 * can overlap. The output is the buffer ({@code n} floats).
 *
 * @param length kernels
 * @param n floats in the buffer
 * @param blocks blocks per launch
 * @param threads threads per block
 * @param rounds logistic rounds per element, which set a kernel's duration
 */
public record ChainProblem(int length, int n, int blocks, int threads, int rounds)
    implements Problem {

  public static final String NAME = "chain";
  static final String STEP = "chain_step";

  public ChainProblem {
    if (length < 1 || n < 1 || blocks < 1 || threads < 1 || rounds < 0) {
      throw Problem.badSizes(ChainProblem.class, length, n, blocks, threads, rounds);
    }
  }

  public static ChainProblem of(Size size) {
    return size == Size.CHECK
        ? new ChainProblem(512, 1024, 2, 256, 8)
        : new ChainProblem(512, 4096, 2, 256, 640);
  }

  public float[] input() {
    return new Seeded(0x636861696eL).unit(n);
  }

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public String sizes() {
    return "1 chain x "
        + length
        + " kernels in place, "
        + n
        + " floats, "
        + Problem.launches(blocks, threads, rounds);
  }

  @Override
  public ModuleKernels moduleKernels() {
    return new ModuleKernels("chain", STEP);
  }

  /** The weight kernel {@code step} blends in, as {@code chain_step} computes it. */
  static float weight(int step) {
    return (float) ((step * 7) & 15) * 0.0625f;
  }

  @Override
  public byte[] reference() {
    float[] x = input();
    for (int k = 0; k < length; k++) {
      float w = weight(k);
      for (int i = 0; i < n; i++) {
        x[i] = logistic(blend(x[i], w), rounds);
      }
    }
    return Outputs.floats(x);
  }
}
