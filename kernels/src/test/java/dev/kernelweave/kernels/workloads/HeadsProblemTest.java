package dev.kernelweave.kernels.workloads;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kernelweave.kernels.Size;
import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

class HeadsProblemTest {

  private final HeadsProblem check = HeadsProblem.of(Size.CHECK);

  @Test
  void gemmIsColumnMajor() {
    // A = [1 2; 3 4], B = [5 6; 7 8], stored by columns.
    float[] a = {1, 3, 2, 4};
    float[] b = {5, 7, 6, 8};
    float[] c = new float[4];
    HeadsProblem.gemm(2, a, 0, b, 0, c, 0);
    assertArrayEquals(new float[] {19, 43, 22, 50}, c);
  }

  @Test
  void everyProductIsExactSoTheSummationOrderCannotMatter() {
    HeadsProblem.Inputs inputs = check.inputs();
    float[] x = inputs.x().clone();
    float[] y = new float[x.length];
    int d = check.dim();
    for (int l = 0; l < check.layers(); l++) {
      for (int h = 0; h < check.heads(); h++) {
        int at = h * check.headSize();
        int w = (l * check.heads() + h) * check.headSize();
        HeadsProblem.gemm(d, x, at, inputs.weights(), w, y, at);
        for (int j = 0; j < d; j++) {
          for (int i = 0; i < d; i++) {
            double exact = 0;
            double reversed = 0;
            for (int k = 0; k < d; k++) {
              exact += (double) x[at + i + k * d] * inputs.weights()[w + k + j * d];
              int r = d - 1 - k;
              reversed += (double) x[at + i + r * d] * inputs.weights()[w + r + j * d];
            }
            assertEquals(exact, y[at + i + j * d], 0.0);
            assertEquals(reversed, y[at + i + j * d], 0.0);
          }
        }
      }
      HeadsProblem.mix(y, x, check.headSize(), check.heads());
    }
  }

  @Test
  void activationsStayOnTheGridOfEighthsAndDoNotCollapse() {
    float[] x = Bytes.floats(check.reference(), 0, check.heads() * check.headSize());
    Set<Float> distinct = new HashSet<>();
    int zeros = 0;
    int clamped = 0;
    for (float v : x) {
      assertTrue(v >= -1.0f && v <= 1.0f && v * 8.0f == Math.rint(v * 8.0f), "off the grid: " + v);
      distinct.add(v);
      zeros += v == 0.0f ? 1 : 0;
      clamped += Math.abs(v) == 1.0f ? 1 : 0;
    }
    assertTrue(distinct.size() >= 15, "values: " + distinct);
    assertTrue(zeros < x.length / 5, zeros + " zeros");
    assertTrue(clamped < x.length / 2, clamped + " at +-1");
  }

  @Test
  void theMixAddsTwiceTheHeadToTheNextHeadAndRoundsOntoTheGrid() {
    float[] y = {0.3f, 5.0f, 1.0f, -4.0f};
    float[] x = new float[4];
    HeadsProblem.mix(y, x, 2, 2);
    // head 0: 2 * 0.3 + 1 = 1.6 -> 2; 2 * 5 - 4 = 6; head 1 wraps to head 0: 2 + 0.3 -> 2; -8 + 5 =
    // -3.
    assertArrayEquals(new float[] {0.25f, 0.75f, 0.25f, -0.375f}, x);
    float[] big = {100f, -100f};
    HeadsProblem.mix(big, x, 1, 2);
    assertEquals(1.0f, x[0]);
    assertEquals(-1.0f, x[1]);
  }

  @Test
  void headsAreAttentionSized() {
    HeadsProblem bench = HeadsProblem.of(Size.BENCH);
    assertEquals(16, bench.heads());
    assertEquals(64, bench.dim());
    assertEquals(bench.heads(), check.heads());
    assertEquals(bench.dim(), check.dim());
  }
}
