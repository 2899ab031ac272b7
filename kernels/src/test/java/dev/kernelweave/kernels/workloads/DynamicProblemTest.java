package dev.kernelweave.kernels.workloads;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kernelweave.kernels.Size;
import java.util.Arrays;
import java.util.HashSet;
import java.util.Set;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class DynamicProblemTest {

  private final DynamicProblem check = DynamicProblem.of(Size.CHECK);

  @Test
  void theFirstPickIsTheArgmax() {
    SplittableRandom random = new SplittableRandom(5);
    for (int trial = 0; trial < 1000; trial++) {
      float[] scores = new float[16];
      int argmax = 0;
      for (int e = 0; e < scores.length; e++) {
        scores[e] = (float) random.nextDouble(-10, 10);
        if (scores[e] > scores[argmax]) {
          argmax = e;
        }
      }
      assertEquals(argmax, DynamicProblem.topK(scores, DynamicProblem.TOP_K)[0]);
    }
  }

  @Test
  void picksAreTheLargestScoresBestFirstAndTiesGoToTheLowerIndex() {
    float[] scores = {0.5f, 3f, -1f, 3f, 2f, 0.5f, 7f};
    assertArrayEquals(new int[] {6, 1, 3, 4}, DynamicProblem.topK(scores, 4));
    assertArrayEquals(new int[] {6, 1, 3, 4, 0, 5, 2}, DynamicProblem.topK(scores, 7));
  }

  @Test
  void gatesDecreaseByRankAndSumToOne() {
    float[] gates = DynamicProblem.gates();
    assertArrayEquals(new float[] {0.4f, 0.3f, 0.2f, 0.1f}, gates);
    double sum = 0;
    for (float g : gates) {
      sum += g;
    }
    assertEquals(1.0, sum, 1e-6);
  }

  @Test
  void routingChangesBetweenIterations() {
    int[] routes = Bytes.ints(check.reference(), 0, check.iterations() * DynamicProblem.TOP_K);
    Set<String> decisions = new HashSet<>();
    Set<Integer> used = new HashSet<>();
    for (int it = 0; it < check.iterations(); it++) {
      int[] picked =
          Arrays.copyOfRange(routes, it * DynamicProblem.TOP_K, (it + 1) * DynamicProblem.TOP_K);
      assertEquals(
          DynamicProblem.TOP_K, Arrays.stream(picked).distinct().count(), "iteration " + it);
      for (int e : picked) {
        assertTrue(e >= 0 && e < check.experts());
        used.add(e);
      }
      decisions.add(Arrays.toString(picked));
    }
    assertTrue(decisions.size() > check.iterations() / 2, "routing hardly changes: " + decisions);
    assertTrue(used.size() > 2 * DynamicProblem.TOP_K, "few experts ever run: " + used);
  }

  @Test
  void routerScoresAreCloseToTheStraightforwardDotProduct() {
    DynamicProblem.Inputs inputs = check.inputs();
    float[] scores = check.scores(inputs.x(), inputs.router());
    for (int e = 0; e < check.experts(); e++) {
      double dot = 0;
      for (int i = 0; i < check.n(); i++) {
        dot += (inputs.x()[i] - 0.5) * inputs.router()[e * check.n() + i];
      }
      assertEquals(dot, scores[e], 1e-4, "expert " + e);
    }
  }

  @Test
  void finalInputStaysInsideTheUnitInterval() {
    byte[] reference = check.reference();
    assertEquals((check.iterations() * DynamicProblem.TOP_K + check.n()) * 4, reference.length);
    Bytes.assertInsideUnitInterval(
        Bytes.floats(reference, check.iterations() * DynamicProblem.TOP_K, check.n()));
  }

  @Test
  void checkHasTheBenchRoutingShape() {
    DynamicProblem bench = DynamicProblem.of(Size.BENCH);
    assertEquals(bench.experts(), check.experts());
    assertEquals(bench.length(), check.length());
    assertTrue(check.iterations() < bench.iterations() && check.n() < bench.n());
  }
}
