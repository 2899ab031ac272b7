package dev.kernelweave.it.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The packaged agent, scheduling for real, on every workload over the stand-in CUDA driver that
 * {@code kernels} builds where g++ is present ({@code kernels/target/cpu-device}): it runs the
 * kernels on the CPU and executes queued work in a random order that keeps only stream order,
 * event waits and the legacy stream's ordering, so a missing dependency changes the bytes. Without
 * a GPU this is the agent's whole path (advice, scheduler, journal) on real JCuda calls.
 */
class AgentOnCpuDeviceTest {

  @ParameterizedTest
  @ValueSource(strings = {"branches", "rl-sim", "dynamic", "heads", "pipeline", "chain"})
  void scheduledWorkloadGivesTheReferenceBytes(String workload) throws Exception {
    StandInDriver.assumeBuilt();
    String java = ChildJvm.java(System.getProperty("java.home"));
    String plain = StandInDriver.checksum(ChildJvm.run(java, null, List.of(), StandInDriver.environment(1),
        "dev.kernelweave.kernels.WorkloadMain", workload, "--size", "check", "--warmup", "0", "--reps", "1"));
    for (int seed = 1; seed <= 3; seed++) {
      Path journal = Files.createTempDirectory("kw-cpu").resolve(workload);
      ChildJvm.Result agent = ChildJvm.run(java, "journal=" + journal, List.of(), StandInDriver.environment(seed),
          "dev.kernelweave.kernels.WorkloadMain", workload, "--size", "check", "--warmup", "0", "--reps", "1");
      assertEquals(plain, StandInDriver.checksum(agent), "seed " + seed + ": " + agent.stderr());
      assertTrue(agent.stdout().contains("\"reference\":\"ok\""), agent.stdout());
      assertTrue(Files.isDirectory(journal), "journal written");
    }
  }
}
