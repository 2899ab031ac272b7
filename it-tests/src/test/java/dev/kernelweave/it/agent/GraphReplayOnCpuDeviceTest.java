package dev.kernelweave.it.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
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

  private static final Pattern REPLAYED = Pattern.compile("windows replayed\\s+(\\d+)");

  @ParameterizedTest
  @ValueSource(strings = {"branches", "rl-sim", "dynamic", "chain"})
  void replayedRepetitionsGiveTheProgramsOwnBytes(String workload) throws Exception {
    StandInDriver.assumeBuilt();
    String java = ChildJvm.java(System.getProperty("java.home"));
    String[] args = {workload, "--size", "check", "--warmup", "4", "--reps", "2"};
    String plain = StandInDriver.checksum(
        ChildJvm.run(java, null, List.of(), StandInDriver.environment(1), "dev.kernelweave.kernels.WorkloadMain", args));
    for (int seed = 1; seed <= 2; seed++) {
      Path journal = Files.createTempDirectory("kw-graphs").resolve(workload);
      ChildJvm.Result on = ChildJvm.run(java, "journal=" + journal, List.of(), StandInDriver.environment(seed),
          "dev.kernelweave.kernels.WorkloadMain", args);
      assertEquals(plain, StandInDriver.checksum(on), "graphs on, seed " + seed + ": " + on.stderr());
      ChildJvm.Result stats = ChildJvm.command("inspect", "stats", journal.toString());
      Matcher m = REPLAYED.matcher(stats.stdout());
      assertTrue(m.find() && Integer.parseInt(m.group(1)) > 0, "windows were replayed:\n" + stats.stdout());
    }
    ChildJvm.Result off = ChildJvm.run(java, "journal=off,graphs=off", List.of(), StandInDriver.environment(3),
        "dev.kernelweave.kernels.WorkloadMain", args);
    assertEquals(plain, StandInDriver.checksum(off), "graphs off: " + off.stderr());
  }
}
