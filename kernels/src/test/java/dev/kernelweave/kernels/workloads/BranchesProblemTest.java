package dev.kernelweave.kernels.workloads;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kernelweave.kernels.Outputs;
import dev.kernelweave.kernels.Size;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

class BranchesProblemTest {

  private final BranchesProblem check = BranchesProblem.of(Size.CHECK);

  @Test
  void checkHasTheBenchShapeWithLessDataAndFewerRounds() {
    BranchesProblem bench = BranchesProblem.of(Size.BENCH);
    assertEquals(16, bench.chains());
    assertEquals(32, bench.length());
    assertEquals(bench.chains(), check.chains());
    assertEquals(bench.length(), check.length());
    assertTrue(check.n() < bench.n() && check.rounds() < bench.rounds());
    assertEquals(
        "16 chains x 32 kernels, 4096 floats each, 2 blocks of 256 threads, 640 rounds; 1 join"
            + " kernel",
        bench.sizes());
  }

  @Test
  void theJoinIsTheMeanOfTheChainOutputs() {
    float[][] outputs = check.chainOutputs(check.inputs());
    float[] joined = Bytes.floats(check.reference(), 0, check.n());
    for (int i = 0; i < check.n(); i++) {
      double mean = 0;
      for (float[] output : outputs) {
        mean += output[i];
      }
      mean /= outputs.length;
      assertEquals(mean, joined[i], 1e-6, "element " + i);
    }
    assertArrayEquals(Outputs.floats(BranchesProblem.join(outputs)), check.reference());
  }

  @Test
  void chainsStayInsideTheUnitIntervalAndDifferFromEachOther() {
    float[][] outputs = check.chainOutputs(check.inputs());
    for (float[] output : outputs) {
      Bytes.assertInsideUnitInterval(output);
    }
    assertEquals(outputs.length, Arrays.stream(outputs).map(Arrays::toString).distinct().count());
  }

  @Test
  void aSmallChangeInOneChainsInputChangesTheResult() {
    BranchesProblem.Inputs inputs = check.inputs();
    float[] before = BranchesProblem.join(check.chainOutputs(inputs));
    inputs.initial()[7][100] += 1e-4f;
    float[] after = BranchesProblem.join(check.chainOutputs(inputs));
    assertFalse(Arrays.equals(before, after));
  }

  @Test
  void theReferenceIsTheSameEveryTime() {
    assertArrayEquals(check.reference(), check.reference());
  }

  @Test
  void theJoinKernelTakesExactlySixteenChains() {
    assertThrows(IllegalArgumentException.class, () -> new BranchesProblem(8, 32, 1024, 2, 256, 8));
  }

  @Test
  void badSizesAreNamedWithTheArgumentsGiven() {
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> new BranchesProblem(16, 0, 1024, 2, 256, 8));
    assertEquals(
        "bad sizes: BranchesProblem[chains=16, length=0, n=1024, blocks=2, threads=256, rounds=8]",
        e.getMessage());
  }
}
