package dev.kernelweave.kernels.workloads;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kernelweave.kernels.Size;
import java.util.Arrays;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class RlSimProblemTest {

  private final RlSimProblem check = RlSimProblem.of(Size.CHECK);

  @Test
  void checkHasTheBenchEnvironmentsWithFewerStepsAndLessData() {
    RlSimProblem bench = RlSimProblem.of(Size.BENCH);
    assertEquals(16, bench.envs());
    assertEquals(bench.envs(), check.envs());
    assertTrue(check.steps() < bench.steps() && check.n() < bench.n());
  }

  @Test
  void outputIsTheStatisticsOfEveryStepThenEveryFinalState() {
    byte[] reference = check.reference();
    assertEquals(
        (check.steps() * RlSimProblem.STATS + check.envs() * check.n()) * 4, reference.length);
    float[] states =
        Bytes.floats(reference, check.steps() * RlSimProblem.STATS, check.envs() * check.n());
    Bytes.assertInsideUnitInterval(states);
  }

  @Test
  void eachStepsStatisticsAreTheSumAndTheLargestOfTheRewards() {
    // Replays the environments independently of the reference's own loop and sums each reward in
    // double precision, straightforwardly.
    RlSimProblem.Inputs inputs = check.inputs();
    float[][] states = inputs.states();
    float[] stats = Bytes.floats(check.reference(), 0, check.steps() * RlSimProblem.STATS);
    float[] action = new float[check.n()];
    for (int s = 0; s < check.steps(); s++) {
      double sum = 0;
      double best = Double.NEGATIVE_INFINITY;
      for (int e = 0; e < check.envs(); e++) {
        float[] next = new float[check.n()];
        RlSimProblem.policy(states[e], inputs.params(), action, check.rounds());
        RlSimProblem.dynamics(states[e], action, next, check.rounds());
        double reward = 0;
        for (int i = 0; i < check.n(); i++) {
          reward += next[i] - 0.25 * action[i] * action[i];
        }
        sum += reward;
        best = Math.max(best, reward);
        states[e] = next;
      }
      assertEquals(sum, stats[2 * s], 1e-3 * Math.abs(sum), "sum of step " + s);
      assertEquals(best, stats[2 * s + 1], 1e-4 * Math.abs(best), "largest of step " + s);
    }
  }

  @Test
  void statisticsChangeFromStepToStep() {
    float[] stats = Bytes.floats(check.reference(), 0, check.steps() * RlSimProblem.STATS);
    float[] sums = new float[check.steps()];
    for (int s = 0; s < check.steps(); s++) {
      sums[s] = stats[2 * s];
    }
    assertEquals(
        check.steps(), Arrays.stream(toDoubles(sums)).distinct().count(), Arrays.toString(sums));
  }

  @Test
  void totalOfWholeNumbersIsExact() {
    SplittableRandom random = new SplittableRandom(4);
    float[] rewards = new float[16];
    long sum = 0;
    float best = Float.NEGATIVE_INFINITY;
    for (int e = 0; e < rewards.length; e++) {
      rewards[e] = random.nextInt(-500, 500);
      sum += (long) rewards[e];
      best = Math.max(best, rewards[e]);
    }
    assertArrayEquals(new float[] {sum, best}, RlSimProblem.total(rewards));
  }

  @Test
  void actionsStayBetweenMinusOneAndOne() {
    RlSimProblem.Inputs inputs = check.inputs();
    float[] action = new float[check.n()];
    RlSimProblem.policy(inputs.states()[0], inputs.params(), action, check.rounds());
    for (float a : action) {
      assertTrue(a > -1.0f && a < 1.0f, "action " + a);
    }
  }

  private static double[] toDoubles(float[] values) {
    double[] d = new double[values.length];
    for (int i = 0; i < values.length; i++) {
      d[i] = values[i];
    }
    return d;
  }
}
