package dev.kernelweave.kernels.workloads;

import static dev.kernelweave.kernels.CpuMath.blend;
import static dev.kernelweave.kernels.CpuMath.logistic;
import static dev.kernelweave.kernels.CpuMath.stencil;

import dev.kernelweave.kernels.Outputs;
import dev.kernelweave.kernels.Problem;
import dev.kernelweave.kernels.Seeded;
import dev.kernelweave.kernels.Size;

/**
 * {@code branches}: {@code chains} independent chains of {@code length} stencil kernels, each over
 * its own pair of buffers and reading one shared weight buffer, joined at the end by one kernel
 * that reads every chain's output. The output is the join ({@code n} floats).
 *
 * @param chains independent chains; the join kernel takes exactly {@value #JOIN_WIDTH}
 * @param length kernels per chain
 * @param n floats per buffer
 * @param blocks blocks per launch
 * @param threads threads per block
 * @param rounds logistic rounds per element, which set a kernel's duration
 */
public record BranchesProblem(int chains, int length, int n, int blocks, int threads, int rounds)
    implements Problem {

  public static final String NAME = "branches";

  /** Buffers the {@code branch_join} kernel reads. */
  public static final int JOIN_WIDTH = 16;

  static final String STEP = "branch_step";
  static final String JOIN = "branch_join";

  public BranchesProblem {
    if (chains != JOIN_WIDTH) {
      throw new IllegalArgumentException("branch_join joins exactly " + JOIN_WIDTH + " chains");
    }
    if (length < 1 || n < 3 || blocks < 1 || threads < 1 || rounds < 0) {
      throw Problem.badSizes(BranchesProblem.class, chains, length, n, blocks, threads, rounds);
    }
  }

  public static BranchesProblem of(Size size) {
    return size == Size.CHECK
        ? new BranchesProblem(16, 32, 1024, 2, 256, 8)
        : new BranchesProblem(16, 32, 4096, 2, 256, 640);
  }

  /** The inputs: the shared weights and each chain's initial buffer. */
  public record Inputs(float[] weights, float[][] initial) {}

  public Inputs inputs() {
    Seeded seeded = new Seeded(0x6272616e63686573L);
    return new Inputs(seeded.unit(n), seeded.unit(chains, n));
  }

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public String sizes() {
    return chains
        + " chains x "
        + length
        + " kernels, "
        + n
        + " floats each, "
        + Problem.launches(blocks, threads, rounds)
        + "; 1 join kernel";
  }

  @Override
  public ModuleKernels moduleKernels() {
    return new ModuleKernels("branches", STEP, JOIN);
  }

  /** Which of a chain's two buffers holds its result after {@code step} kernels. */
  static int bufferAfter(int step) {
    return step % 2;
  }

  @Override
  public byte[] reference() {
    return Outputs.floats(join(chainOutputs(inputs())));
  }

  /** Each chain's final buffer. */
  float[][] chainOutputs(Inputs inputs) {
    float[][] outputs = new float[chains][];
    for (int c = 0; c < chains; c++) {
      float[] in = inputs.initial()[c].clone();
      float[] out = new float[n];
      for (int k = 0; k < length; k++) {
        for (int i = 0; i < n; i++) {
          out[i] = logistic(blend(stencil(in, i), inputs.weights()[(i + k) % n]), rounds);
        }
        float[] swap = in;
        in = out;
        out = swap;
      }
      outputs[c] = in;
    }
    return outputs;
  }

  /** {@code branch_join}: the mean of the chain outputs, summed in chain order. */
  static float[] join(float[][] outputs) {
    int n = outputs[0].length;
    float[] joined = new float[n];
    for (int i = 0; i < n; i++) {
      float s = outputs[0][i];
      for (int c = 1; c < outputs.length; c++) {
        s = s + outputs[c][i];
      }
      joined[i] = s * 0.0625f;
    }
    return joined;
  }
}
