package dev.kernelweave.kernels.workloads;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kernelweave.kernels.Size;
import dev.kernelweave.kernels.Variant;
import java.util.List;
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

  @Test
  void asyncComputesTheSameBatchesToTheSameBytes() {
    for (Size size : Size.values()) {
      PipelineProblem plain = PipelineProblem.of(size);
      PipelineProblem async = PipelineProblem.async(size);
      assertEquals("pipeline-async", async.name());
      assertTrue(async.isAsync() && !plain.isAsync());
      assertEquals(
          List.of(plain.batches(), plain.n(), plain.blocks(), plain.threads(), plain.rounds()),
          List.of(async.batches(), async.n(), async.blocks(), async.threads(), async.rounds()));
      assertTrue(async.sizes().startsWith(plain.sizes()), async.sizes());
      assertTrue(async.sizes().endsWith("pinned memory, asynchronous copies, one stream"));
    }
    assertArrayEquals(check.reference(), PipelineProblem.async(Size.CHECK).reference());
  }

  @Test
  void asyncSerialIsTheOneStreamProgramAndBothShareTheTunedTwin() {
    PipelineProblem async = PipelineProblem.async(Size.CHECK);
    assertInstanceOf(Pipeline.Serial.class, Pipeline.create(check, Variant.SERIAL));
    assertInstanceOf(Pipeline.OneStream.class, Pipeline.create(async, Variant.SERIAL));
    assertInstanceOf(Pipeline.Tuned.class, Pipeline.create(check, Variant.TUNED));
    assertInstanceOf(Pipeline.Tuned.class, Pipeline.create(async, Variant.TUNED));
  }

  @Test
  void onlyThePipelineNamesAreAccepted() {
    assertThrows(
        IllegalArgumentException.class, () -> new PipelineProblem("pipes", 4, 16, 1, 32, 1));
  }
}
