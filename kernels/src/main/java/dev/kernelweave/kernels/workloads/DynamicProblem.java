package dev.kernelweave.kernels.workloads;

import static dev.kernelweave.kernels.CpuMath.blend;
import static dev.kernelweave.kernels.CpuMath.blockSum;
import static dev.kernelweave.kernels.CpuMath.logistic;

import dev.kernelweave.kernels.CpuMath;
import dev.kernelweave.kernels.Outputs;
import dev.kernelweave.kernels.Problem;
import dev.kernelweave.kernels.Seeded;
import dev.kernelweave.kernels.Size;
import java.util.Arrays;

/**
 * {@code dynamic}: mixture-of-experts routing decided on the host. Per iteration a router kernel
 * scores every expert (one block per expert); the scores are read back synchronously; the host
 * picks the {@value #TOP_K} best; each picked expert runs a chain of {@code length} kernels over
 * its own two buffers, reading the shared input {@code x}; a combine kernel mixes their outputs
 * into {@code x} with gates by rank. The output is the picked experts of every iteration ({@code
 * iterations x 4} ints) followed by the final {@code x} ({@code n} floats).
 *
 * @param iterations routing decisions
 * @param experts experts to pick from
 * @param length kernels per expert chain
 * @param n floats of x and of each expert buffer
 * @param blocks blocks per expert launch
 * @param threads threads per block of those launches (the router: 256 per expert, combine: same as
 *     these)
 * @param rounds logistic rounds per element in an expert kernel
 */
public record DynamicProblem(
    int iterations, int experts, int length, int n, int blocks, int threads, int rounds)
    implements Problem {

  public static final String NAME = "dynamic";

  /** Experts picked per iteration: the combine kernel takes exactly this many. */
  public static final int TOP_K = 4;

  static final String ROUTER = "moe_router";
  static final String EXPERT = "moe_expert_step";
  static final String COMBINE = "moe_combine";

  public DynamicProblem {
    if (iterations < 1
        || experts < TOP_K
        || length < 1
        || n < 2
        || blocks < 1
        || threads < 1
        || rounds < 0) {
      throw Problem.badSizes(
          DynamicProblem.class, iterations, experts, length, n, blocks, threads, rounds);
    }
  }

  public static DynamicProblem of(Size size) {
    return size == Size.CHECK
        ? new DynamicProblem(8, 16, 4, 1024, 2, 256, 8)
        : new DynamicProblem(32, 16, 4, 4096, 2, 256, 640);
  }

  /** The inputs: the initial x, the router's weights (experts x n) and each expert's weights. */
  public record Inputs(float[] x, float[] router, float[][] expertWeights) {}

  public Inputs inputs() {
    Seeded seeded = new Seeded(0x64796e616d6963L);
    return new Inputs(seeded.unit(n), seeded.signed(experts * n), seeded.unit(experts, n));
  }

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public String sizes() {
    return iterations
        + " iterations x (router over "
        + experts
        + " experts, synchronous read-back of "
        + experts
        + " scores, top "
        + TOP_K
        + " experts x "
        + length
        + " kernels, 1 combine), "
        + n
        + " floats, "
        + Problem.launches(blocks, threads, rounds);
  }

  @Override
  public ModuleKernels moduleKernels() {
    return new ModuleKernels("dynamic", ROUTER, EXPERT, COMBINE);
  }

  /** Which of an expert's two buffers holds its output after {@code step} kernels (step >= 1). */
  static int bufferAfter(int step) {
    return (step - 1) % 2;
  }

  /**
   * The gate of the expert of each rank: (k - rank) / (1 + ... + k), largest first; sums to one.
   */
  public static float[] gates() {
    float[] gates = new float[TOP_K];
    float total = TOP_K * (TOP_K + 1) / 2;
    for (int r = 0; r < TOP_K; r++) {
      gates[r] = (TOP_K - r) / total;
    }
    return gates;
  }

  /**
   * The {@code k} experts with the largest scores, best first; of equal scores the lower index
   * first.
   */
  public static int[] topK(float[] scores, int k) {
    Integer[] order = new Integer[scores.length];
    for (int e = 0; e < order.length; e++) {
      order[e] = e;
    }
    Arrays.sort(
        order,
        (a, b) -> {
          int byScore = Float.compare(scores[b], scores[a]);
          return byScore != 0 ? byScore : Integer.compare(a, b);
        });
    int[] picked = new int[k];
    for (int j = 0; j < k; j++) {
      picked[j] = order[j];
    }
    return picked;
  }

  /** The output bytes: the picks of every iteration, then x. */
  byte[] output(int[] routes, float[] x) {
    return Outputs.builder(iterations * TOP_K + n).ints(routes).floats(x).toBytes();
  }

  @Override
  public byte[] reference() {
    Inputs inputs = inputs();
    float[] x = inputs.x().clone();
    int[] routes = new int[iterations * TOP_K];
    float[] gates = gates();
    float[][] outputs = new float[TOP_K][];
    for (int it = 0; it < iterations; it++) {
      int[] picked = topK(scores(x, inputs.router()), TOP_K);
      System.arraycopy(picked, 0, routes, it * TOP_K, TOP_K);
      for (int j = 0; j < TOP_K; j++) {
        outputs[j] = expert(x, inputs.expertWeights()[picked[j]]);
      }
      combine(x, outputs, gates);
    }
    return output(routes, x);
  }

  /** {@code moe_router}: one score per expert. */
  float[] scores(float[] x, float[] router) {
    float[] scores = new float[experts];
    float[] terms = new float[n];
    for (int e = 0; e < experts; e++) {
      for (int i = 0; i < n; i++) {
        terms[i] = (x[i] - 0.5f) * router[e * n + i];
      }
      scores[e] = blockSum(terms);
    }
    return scores;
  }

  /** An expert's chain of {@code moe_expert_step} kernels; the first reads x as its input too. */
  float[] expert(float[] x, float[] weights) {
    float[] in = x;
    for (int k = 0; k < length; k++) {
      float[] out = new float[n];
      for (int i = 0; i < n; i++) {
        int right = i == n - 1 ? 0 : i + 1;
        float y = (0.5f * in[i] + 0.25f * x[i]) + 0.25f * in[right];
        out[i] = logistic(blend(y, weights[i]), rounds);
      }
      in = out;
    }
    return in;
  }

  /** {@code moe_combine}, in place. */
  static void combine(float[] x, float[][] h, float[] g) {
    for (int i = 0; i < x.length; i++) {
      float m = ((g[0] * h[0][i] + g[1] * h[1][i]) + g[2] * h[2][i]) + g[3] * h[3][i];
      x[i] = 0.5f * x[i] + 0.5f * m;
    }
  }

  /** Threads of each router block. */
  static int routerThreads() {
    return CpuMath.REDUCE_THREADS;
  }
}
