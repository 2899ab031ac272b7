package dev.kernelweave.kernels.workloads;

import dev.kernelweave.kernels.Outputs;
import dev.kernelweave.kernels.Problem;
import dev.kernelweave.kernels.Seeded;
import dev.kernelweave.kernels.Size;

/**
 * {@code heads}: {@code layers} layers of {@code heads} independent {@code dim x dim x dim} sgemm
 * calls (one per head, each on its own slices of the shared activation, weight and product
 * tensors), with one elementwise kernel between layers that mixes every head with the next. The
 * output is the final activations ({@code heads x dim x dim} floats, head after head, each matrix
 * column-major).
 *
 * <p>Exact by construction: activations and weights are multiples of 1/8 in [-1, 1], so every
 * product is a multiple of 1/64 of magnitude at most 1 and every partial sum of a dot product of
 * length 64 is a multiple of 1/64 below 64 in magnitude, which a float holds exactly. cuBLAS may
 * sum in any order and pick any kernel (it may choose differently when streams run concurrently,
 * and TF32 would represent these inputs exactly too), and the result is still bit-identical to this
 * reference. The mix kernel rounds back onto the grid: x = clamp(rint(2 y[h] + y[h + 1]), -8, 8) /
 * 8.
 *
 * @param layers layers
 * @param heads heads per layer
 * @param dim the side of each head's matrices (at most 64 keeps the sums exact)
 * @param mixBlocks blocks of the mix kernel
 * @param threads threads per block of the mix kernel
 */
public record HeadsProblem(int layers, int heads, int dim, int mixBlocks, int threads)
    implements Problem {

  public static final String NAME = "heads";
  static final String MIX = "heads_mix";

  public HeadsProblem {
    if (layers < 1 || heads < 1 || dim < 1 || dim > 64 || mixBlocks < 1 || threads < 1) {
      throw Problem.badSizes(HeadsProblem.class, layers, heads, dim, mixBlocks, threads);
    }
  }

  public static HeadsProblem of(Size size) {
    return size == Size.CHECK
        ? new HeadsProblem(3, 16, 64, 64, 256)
        : new HeadsProblem(8, 16, 64, 64, 256);
  }

  /** The inputs: the first layer's activations and every layer's weights, layer after layer. */
  public record Inputs(float[] x, float[] weights) {}

  public Inputs inputs() {
    Seeded seeded = new Seeded(0x6865616473L);
    return new Inputs(
        seeded.eighths(heads * headSize()), seeded.eighths(layers * heads * headSize()));
  }

  /** Floats of one head's matrix. */
  public int headSize() {
    return dim * dim;
  }

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public String sizes() {
    return layers
        + " layers x "
        + heads
        + " heads, sgemm "
        + dim
        + "x"
        + dim
        + "x"
        + dim
        + " each; 1 mix kernel per layer over "
        + heads * headSize()
        + " floats, "
        + Problem.grid(mixBlocks, threads);
  }

  @Override
  public ModuleKernels moduleKernels() {
    return new ModuleKernels("heads", MIX);
  }

  @Override
  public byte[] reference() {
    Inputs inputs = inputs();
    float[] x = inputs.x().clone();
    float[] y = new float[x.length];
    for (int l = 0; l < layers; l++) {
      for (int h = 0; h < heads; h++) {
        gemm(
            dim,
            x,
            h * headSize(),
            inputs.weights(),
            (l * heads + h) * headSize(),
            y,
            h * headSize());
      }
      mix(y, x, headSize(), heads);
    }
    return Outputs.floats(x);
  }

  /**
   * C = A B for column-major d x d matrices at the given offsets, summing k in increasing order
   * (cuBLAS may use another order; see the class comment for why it cannot matter here).
   */
  static void gemm(int d, float[] a, int aAt, float[] b, int bAt, float[] c, int cAt) {
    for (int j = 0; j < d; j++) {
      for (int i = 0; i < d; i++) {
        float sum = 0.0f;
        for (int k = 0; k < d; k++) {
          sum = sum + a[aAt + i + k * d] * b[bAt + k + j * d];
        }
        c[cAt + i + j * d] = sum;
      }
    }
  }

  /** {@code heads_mix}. */
  static void mix(float[] y, float[] x, int headSize, int heads) {
    for (int idx = 0; idx < heads * headSize; idx++) {
      int h = idx / headSize;
      int i = idx - h * headSize;
      int next = h == heads - 1 ? 0 : h + 1;
      float v = (float) Math.rint(2.0f * y[idx] + y[next * headSize + i]);
      v = v < -8.0f ? -8.0f : (v > 8.0f ? 8.0f : v);
      x[idx] = v * 0.125f;
    }
  }
}
