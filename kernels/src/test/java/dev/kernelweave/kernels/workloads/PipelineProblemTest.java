package dev.kernelweave.kernels.workloads;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kernelweave.kernels.Size;
import org.junit.jupiter.api.Test;

class PipelineProblemTest {

  private final PipelineProblem check = PipelineProblem.of(Size.CHECK);

  @Test
  void benchMovesAMebibyteEachWayPerBatch() {
    PipelineProblem bench = PipelineProblem.of(Size.BENCH);
    assertEquals(16, bench.batches());
    assertEquals(1 << 20, bench.n() * 4);
    assertTrue(
        bench
            .sizes()
            .startsWith("16 batches x (copy in 1048576 bytes, 3 kernels, copy out 1048576 bytes)"));
  }

  @Test
  void eachBatchIsComputedFromItsOwnInputOnly() {
    byte[] reference = check.reference();
    float[][] inputs = check.inputs();
    for (int b = 0; b < check.batches(); b++) {
      float[] alone = PipelineProblem.compute(inputs[b], check.rounds());
      assertArrayEquals(alone, Bytes.floats(reference, b * check.n(), check.n()), "batch " + b);
      Bytes.assertInsideUnitInterval(alone);
    }
    assertEquals(check.batches() * check.n() * 4, reference.length);
  }
}
