package dev.kernelweave.kernels;

/**
 * The device functions of {@code src/main/cuda/common.cuh} in Java, with the same float operations
 * in the same order. Java never fuses a multiply and an add, and the PTX is built with {@code
 * -fmad=false}, so both round every operation the same way and the results are bit-identical.
 */
public final class CpuMath {

  /** Threads of a block reduction, {@code KW_REDUCE_THREADS}. */
  public static final int REDUCE_THREADS = 256;

  private CpuMath() {}

  /** {@code kw_logistic}: x -> 3.9 x (1 - x), {@code rounds} times. */
  public static float logistic(float x, int rounds) {
    for (int k = 0; k < rounds; k++) {
      x = (3.9f * x) * (1.0f - x);
    }
    return x;
  }

  /** {@code kw_squash}: [0, 1] into [0.05, 0.95]. */
  public static float squash(float x) {
    return 0.9f * x + 0.05f;
  }

  /** {@code kw_blend}. */
  public static float blend(float x, float w) {
    return (0.9f * x + 0.05f * w) + 0.05f;
  }

  /** {@code kw_stencil}: three-point smoothing with periodic ends. */
  public static float stencil(float[] v, int i) {
    int n = v.length;
    int left = i == 0 ? n - 1 : i - 1;
    int right = i == n - 1 ? 0 : i + 1;
    return (0.25f * v[left] + 0.5f * v[i]) + 0.25f * v[right];
  }

  /**
   * The sum of {@code terms} in the order of a kernel's block reduction: thread t of {@link
   * #REDUCE_THREADS} adds terms t, t + 256, ... in turn, then the partial sums are added pairwise
   * with a halving stride ({@code kw_block_sum}).
   */
  public static float blockSum(float[] terms) {
    float[] sums = new float[REDUCE_THREADS];
    for (int t = 0; t < REDUCE_THREADS; t++) {
      float partial = 0.0f;
      for (int i = t; i < terms.length; i += REDUCE_THREADS) {
        partial = partial + terms[i];
      }
      sums[t] = partial;
    }
    for (int stride = REDUCE_THREADS / 2; stride > 0; stride >>= 1) {
      for (int t = 0; t < stride; t++) {
        sums[t] = sums[t] + sums[t + stride];
      }
    }
    return sums[0];
  }
}
