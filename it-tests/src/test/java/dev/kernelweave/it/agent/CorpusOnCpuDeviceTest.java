package dev.kernelweave.it.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kernelweave.corpus.Corpus;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every corpus program (dev.kernelweave.corpus) on the stand-in driver, in child JVMs: without the
 * agent, with the packaged agent, and with the agent while the stand-in interprets the kernels'
 * PTX (the code a GPU runs) instead of the compiled-in C++. Each run must match the program's CPU
 * reference bit for bit ({@code "reference":"ok"}), every repetition alike, and all three must
 * give the same bytes. The stand-in orders queued work at random within what the calls' semantics
 * allow, with another seed in each run.
 *
 * <p>The {@code runtime-api} program is left out: JCuda's runtime API needs the CUDA runtime
 * library, which has no stand-in (the GPU test, {@code bench.CorpusGpuTest}, runs it).
 */
class CorpusOnCpuDeviceTest {

  static Stream<String> programs() {
    return Corpus.names().stream().filter(name -> !Corpus.usesRuntimeApi(name));
  }

  @ParameterizedTest
  @MethodSource("programs")
  void theAgentKeepsTheReferenceOutput(String program) throws Exception {
    StandInDriver.assumeBuilt();
    String java = ChildJvm.java(System.getProperty("java.home"));
    String[] args = {program, "--size", "check", "--warmup", "1", "--reps", "2"};
    ChildJvm.Result plain =
        ChildJvm.run(java, null, List.of(), StandInDriver.environment(1), "dev.kernelweave.kernels.WorkloadMain", args);
    String expected = StandInDriver.checksum(plain);
    assertTrue(plain.stdout().contains("\"reference\":\"ok\""), plain.stdout());

    ChildJvm.Result agent =
        ChildJvm.run(java, "", List.of(), StandInDriver.environment(2), "dev.kernelweave.kernels.WorkloadMain", args);
    assertEquals(expected, StandInDriver.checksum(agent), "with the agent: " + agent.stderr());
    assertTrue(agent.stdout().contains("\"reference\":\"ok\""), agent.stdout());

    Map<String, String> interpret = new HashMap<>(StandInDriver.environment(3));
    interpret.put("KW_CPU_DEVICE_PTX", "interpret");
    ChildJvm.Result interpreted = ChildJvm.run(java, "", List.of(), interpret, "dev.kernelweave.kernels.WorkloadMain", args);
    assertEquals(expected, StandInDriver.checksum(interpreted), "PTX interpreted, with the agent: " + interpreted.stderr());
    assertTrue(interpreted.stdout().contains("\"reference\":\"ok\""), interpreted.stdout());
  }
}
