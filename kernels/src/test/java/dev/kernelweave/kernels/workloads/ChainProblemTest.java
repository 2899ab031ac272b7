package dev.kernelweave.kernels.workloads;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import dev.kernelweave.kernels.Size;
import java.util.Arrays;
import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

class ChainProblemTest {

  private final ChainProblem check = ChainProblem.of(Size.CHECK);

  @Test
  void checkHasTheBenchLengthAndAsManyKernelsAsBranches() {
    ChainProblem bench = ChainProblem.of(Size.BENCH);
    assertEquals(bench.length(), check.length());
    BranchesProblem branches = BranchesProblem.of(Size.BENCH);
    assertEquals(branches.chains() * branches.length(), bench.length());
    assertEquals(branches.n(), bench.n());
    assertEquals(branches.rounds(), bench.rounds());
  }

  @Test
  void stepWeightsCycleThroughSixteenExactSixteenths() {
    Set<Float> weights = new HashSet<>();
    for (int k = 0; k < 16; k++) {
      float w = ChainProblem.weight(k);
      assertEquals(w * 16.0f, Math.rint(w * 16.0f));
      weights.add(w);
    }
    assertEquals(16, weights.size());
    assertEquals(ChainProblem.weight(3), ChainProblem.weight(19));
  }

  @Test
  void outputIsInsideTheUnitIntervalAndTheSameEveryTime() {
    byte[] reference = check.reference();
    assertEquals(check.n() * 4, reference.length);
    Bytes.assertInsideUnitInterval(Bytes.floats(reference, 0, check.n()));
    assertArrayEquals(reference, check.reference());
  }

  @Test
  void aShorterChainGivesAnotherResult() {
    ChainProblem shorter =
        new ChainProblem(
            check.length() - 1, check.n(), check.blocks(), check.threads(), check.rounds());
    assertFalse(Arrays.equals(check.reference(), shorter.reference()));
  }
}
