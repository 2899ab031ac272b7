package dev.kernelweave.it.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
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

  private static final Path CPU_DEVICE = Path.of("../kernels/target/cpu-device");
  private static final Pattern CHECKSUM = Pattern.compile("\"checksum\":\"([0-9a-f]+)\"");

  @ParameterizedTest
  @ValueSource(strings = {"branches", "rl-sim", "dynamic", "heads", "pipeline", "chain"})
  void scheduledWorkloadGivesTheReferenceBytes(String workload) throws Exception {
    assumeTrue(Files.isRegularFile(CPU_DEVICE.resolve("libcuda.so.1")),
        "no stand-in CUDA driver at " + CPU_DEVICE + " (it is built where g++ is present): skipped");
    String java = ChildJvm.java(System.getProperty("java.home"));
    String plain = checksum(ChildJvm.run(java, null, List.of(), environment(1), "dev.kernelweave.kernels.WorkloadMain",
        workload, "--size", "check", "--warmup", "0", "--reps", "1"));
    for (int seed = 1; seed <= 3; seed++) {
      Path journal = Files.createTempDirectory("kw-cpu").resolve(workload);
      ChildJvm.Result agent = ChildJvm.run(java, "journal=" + journal, List.of(), environment(seed),
          "dev.kernelweave.kernels.WorkloadMain", workload, "--size", "check", "--warmup", "0", "--reps", "1");
      assertEquals(plain, checksum(agent), "seed " + seed + ": " + agent.stderr());
      assertTrue(agent.stdout().contains("\"reference\":\"ok\""), agent.stdout());
      assertTrue(Files.isDirectory(journal), "journal written");
    }
  }

  private static Map<String, String> environment(int seed) {
    return Map.of("LD_LIBRARY_PATH", CPU_DEVICE.toAbsolutePath().toString(), "KW_CPU_DEVICE_SEED", Integer.toString(seed));
  }

  private static String checksum(ChildJvm.Result r) {
    assertEquals(0, r.exitCode(), () -> "stdout:\n" + r.stdout() + "\nstderr:\n" + r.stderr());
    Matcher m = CHECKSUM.matcher(r.stdout());
    assertTrue(m.find(), r.stdout());
    return m.group(1);
  }
}
