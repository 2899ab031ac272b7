package dev.kernelweave.it.semantics;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.kernelweave.it.agent.ChildJvm;
import dev.kernelweave.it.agent.SmokePrograms;
import java.util.Map;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The ten sequences of issue 8 on a GPU, each without the agent and with the packaged agent
 * scheduling: without it every observation is the one CUDA documents, with it the same lines. The
 * kernels spin for {@value #CYCLES} clock cycles (milliseconds), so a wait the agent drops shows as a
 * stale value. Skips itself where there is no GPU (and the cubin and fatbin cases where the GPU is
 * not sm_90).
 */
class SemanticsGpuTest {

  static final String CYCLES = "20000000";
  static final String REPS = "3";

  @ParameterizedTest
  @EnumSource(SemanticsCase.class)
  void agentPrintsWhatTheProgramPrintsWithoutIt(SemanticsCase c) throws Exception {
    ChildJvm.Result plain = c.run(false, Map.of(), "--reps", REPS, "--cycles", CYCLES);
    assumeTrue(plain.exitCode() != SmokePrograms.NO_GPU, "no GPU on this machine: " + plain.stdout().strip());
    assumeTrue(plain.exitCode() != Sequence.NO_BINARY_FOR_GPU, plain.stdout().strip());
    assertEquals(0, plain.exitCode(), SemanticsCase.describe("without the agent", plain));
    assertFalse(plain.stdout().contains("WRONG"), SemanticsCase.describe("without the agent", plain));
    ChildJvm.Result agent = c.run(true, Map.of(), "--reps", REPS, "--cycles", CYCLES);
    assertEquals(SemanticsCase.observed(plain), SemanticsCase.observed(agent), SemanticsCase.describe("with the agent", agent));
    assertEquals(0, agent.exitCode(), SemanticsCase.describe("with the agent", agent));
  }
}
