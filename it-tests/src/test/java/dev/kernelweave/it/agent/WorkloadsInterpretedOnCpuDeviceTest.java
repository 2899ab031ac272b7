package dev.kernelweave.it.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The project's workloads with their kernels run from PTX by the stand-in's PTX interpreter
 * ({@code KW_CPU_DEVICE_PTX=interpret}), cross-checked with the kernels compiled into the stand-in:
 * the same bytes, without the agent and with it.
 */
class WorkloadsInterpretedOnCpuDeviceTest {

  private static final Pattern INSTRUCTIONS = Pattern.compile("PTX interpreter: (\\d+) instructions");

  @ParameterizedTest
  @ValueSource(strings = {"branches", "rl-sim", "dynamic", "heads", "pipeline", "chain"})
  void interpretedKernelsGiveTheCompiledInKernelsBytes(String workload) throws Exception {
    StandInDriver.assumeBuilt();
    String java = ChildJvm.java(System.getProperty("java.home"));
    String[] args = {workload, "--size", "check", "--warmup", "0", "--reps", "1"};
    Map<String, String> compiledEnv = new HashMap<>(StandInDriver.environment(1));
    compiledEnv.put("KW_CPU_DEVICE_PTX_STATS", "1");
    ChildJvm.Result compiled = ChildJvm.run(java, null, List.of(), compiledEnv, "dev.kernelweave.kernels.WorkloadMain", args);
    String expected = StandInDriver.checksum(compiled);
    assertFalse(INSTRUCTIONS.matcher(compiled.stderr()).find(), "compiled in, nothing interpreted: " + compiled.stderr());

    Map<String, String> interpretEnv = new HashMap<>(compiledEnv);
    interpretEnv.put("KW_CPU_DEVICE_PTX", "interpret");
    for (String agent : new String[] {null, ""}) {
      ChildJvm.Result interpreted = ChildJvm.run(java, agent, List.of(), interpretEnv, "dev.kernelweave.kernels.WorkloadMain", args);
      String how = agent == null ? "without the agent" : "with the agent";
      assertEquals(expected, StandInDriver.checksum(interpreted), how + ": " + interpreted.stderr());
      assertTrue(interpreted.stdout().contains("\"reference\":\"ok\""), interpreted.stdout());
      Matcher m = INSTRUCTIONS.matcher(interpreted.stderr());
      assertTrue(m.find() && Long.parseLong(m.group(1)) > 0, how + ", the interpreter ran: " + interpreted.stderr());
    }
  }
}
