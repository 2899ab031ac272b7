package dev.kernelweave.kernels;

import java.util.SplittableRandom;

/**
 * Inputs from a seeded generator: the same values on every machine and in every JVM ({@link
 * SplittableRandom}'s algorithm is specified). The workloads and the corpus programs draw their
 * inputs from it. Not thread-safe: each draw advances the generator.
 */
public final class Seeded {

  private final SplittableRandom random;

  public Seeded(long seed) {
    random = new SplittableRandom(seed);
  }

  /** {@code n} floats in [0.05, 0.95): inside the open interval the kernels' maps keep. */
  public float[] unit(int n) {
    float[] values = new float[n];
    for (int i = 0; i < n; i++) {
      values[i] = (float) (0.05 + 0.9 * random.nextDouble());
    }
    return values;
  }

  /** {@code count} arrays of {@link #unit} floats. */
  public float[][] unit(int count, int n) {
    float[][] values = new float[count][];
    for (int i = 0; i < count; i++) {
      values[i] = unit(n);
    }
    return values;
  }

  /** {@code n} floats in (-1, 1). */
  public float[] signed(int n) {
    float[] values = new float[n];
    for (int i = 0; i < n; i++) {
      values[i] = (float) (2.0 * random.nextDouble() - 1.0);
    }
    return values;
  }

  /**
   * {@code n} multiples of 1/8 in [-1, 1], each of the 17 equally likely: products and sums of them
   * are exact in a float.
   */
  public float[] eighths(int n) {
    float[] values = new float[n];
    for (int i = 0; i < n; i++) {
      values[i] = (random.nextInt(17) - 8) * 0.125f;
    }
    return values;
  }
}
