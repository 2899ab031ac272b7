package dev.kernelweave.kernels;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class CpuMathTest {

  @ParameterizedTest
  @ValueSource(ints = {0, 1, 7, 255, 256, 257, 511, 1000, 4096, 10000})
  void blockSumOfWholeNumbersEqualsTheStraightforwardSum(int n) {
    // Whole numbers this small add exactly in any order, so the tree order must not matter.
    SplittableRandom random = new SplittableRandom(n);
    float[] terms = new float[n];
    long expected = 0;
    for (int i = 0; i < n; i++) {
      int v = random.nextInt(-1000, 1001);
      terms[i] = v;
      expected += v;
    }
    assertEquals((float) expected, CpuMath.blockSum(terms));
  }

  @Test
  void blockSumOfFractionsIsCloseToTheExactSum() {
    SplittableRandom random = new SplittableRandom(1);
    float[] terms = new float[4096];
    double exact = 0;
    for (int i = 0; i < terms.length; i++) {
      terms[i] = (float) random.nextDouble(-1, 1);
      exact += terms[i];
    }
    assertEquals(exact, CpuMath.blockSum(terms), 1e-4);
  }

  @Test
  void blockSumAddsInTheKernelsTreeOrderNotLeftToRight() {
    SplittableRandom random = new SplittableRandom(3);
    float[] terms = new float[3000];
    for (int i = 0; i < terms.length; i++) {
      terms[i] = (float) random.nextDouble(-1e4, 1e4) * (i % 7 == 0 ? 1e4f : 1.0f);
    }
    float[] partials = new float[CpuMath.REDUCE_THREADS];
    float leftToRight = 0.0f;
    for (int i = 0; i < terms.length; i++) {
      partials[i % CpuMath.REDUCE_THREADS] += terms[i];
      leftToRight += terms[i];
    }
    float tree = treeSum(partials, 0, 1);
    assertEquals(tree, CpuMath.blockSum(terms));
    assertNotEquals(leftToRight, tree, "a sample that cannot tell the orders apart");
  }

  /**
   * The kernel's reduction written another way: after the step with stride s, slot t holds its own
   * value plus that of slot t + s from the step before.
   */
  private static float treeSum(float[] partials, int slot, int stride) {
    if (stride == partials.length) {
      return partials[slot];
    }
    return treeSum(partials, slot, 2 * stride) + treeSum(partials, slot + stride, 2 * stride);
  }

  @Test
  void logisticStaysInsideTheOpenUnitInterval() {
    SplittableRandom random = new SplittableRandom(2);
    for (int trial = 0; trial < 20_000; trial++) {
      float x = (float) random.nextDouble(1e-6, 1 - 1e-6);
      float y = CpuMath.logistic(x, 1 + random.nextInt(200));
      assertTrue(y > 0.0f && y <= 0.975f, () -> x + " -> " + y);
    }
  }

  @Test
  void blendAndSquashKeepTheUnitIntervalAwayFromItsEnds() {
    assertTrue(CpuMath.squash(0.0f) >= 0.05f && CpuMath.squash(1.0f) <= 0.95f);
    assertTrue(CpuMath.blend(0.0f, 0.0f) >= 0.05f);
    assertTrue(CpuMath.blend(0.975f, 0.95f) < 1.0f);
  }

  @Test
  void stencilWrapsAround() {
    float[] v = {4, 0, 0, 8};
    assertEquals(0.25f * 8 + 0.5f * 4, CpuMath.stencil(v, 0));
    assertEquals(0.25f * 0 + 0.5f * 8 + 0.25f * 4, CpuMath.stencil(v, 3));
  }
}
