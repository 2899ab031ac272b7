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
 * Workloads whose repetitions the agent replays as CUDA graphs, over the stand-in CUDA driver
 * (which runs a graph's nodes in any order its edges allow, so a missing edge changes the bytes):
 * the bytes are the program's own with graphs on and off, and with graphs on the journal says the
 * launches ran inside replays.
 */
class GraphReplayOnCpuDeviceTest {

  private static final Path CPU_DEVICE = Path.of("../kernels/target/cpu-device");
  private static final Pattern CHECKSUM = Pattern.compile("\"checksum\":\"([0-9a-f]+)\"");
  private static final Pattern REPLAYED = Pattern.compile("windows replayed\\s+(\\d+)");

  @ParameterizedTest
  @ValueSource(strings = {"branches", "rl-sim", "dynamic", "chain"})
  void replayedRepetitionsGiveTheProgramsOwnBytes(String workload) throws Exception {
    assumeTrue(Files.isRegularFile(CPU_DEVICE.resolve("libcuda.so.1")),
        "no stand-in CUDA driver at " + CPU_DEVICE + " (it is built where g++ is present): skipped");
    String java = ChildJvm.java(System.getProperty("java.home"));
    String[] args = {workload, "--size", "check", "--warmup", "2", "--reps", "2"};
    String plain = checksum(ChildJvm.run(java, null, List.of(), environment(1), "dev.kernelweave.kernels.WorkloadMain", args));
    for (int seed = 1; seed <= 2; seed++) {
      Path journal = Files.createTempDirectory("kw-graphs").resolve(workload);
      ChildJvm.Result on = ChildJvm.run(java, "journal=" + journal, List.of(), environment(seed),
          "dev.kernelweave.kernels.WorkloadMain", args);
      assertEquals(plain, checksum(on), "graphs on, seed " + seed + ": " + on.stderr());
      ChildJvm.Result stats = ChildJvm.command("inspect", "stats", journal.toString());
      Matcher m = REPLAYED.matcher(stats.stdout());
      assertTrue(m.find() && Integer.parseInt(m.group(1)) > 0, "windows were replayed:\n" + stats.stdout());
    }
    ChildJvm.Result off = ChildJvm.run(java, "journal=off,graphs=off", List.of(), environment(3),
        "dev.kernelweave.kernels.WorkloadMain", args);
    assertEquals(plain, checksum(off), "graphs off: " + off.stderr());
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
