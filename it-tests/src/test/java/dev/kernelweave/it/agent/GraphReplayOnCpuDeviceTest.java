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
  private static final Pattern ROUTINES_REPLAYED = Pattern.compile("cuBLAS calls in replays\\s+(\\d+)");

  @ParameterizedTest
  @ValueSource(strings = {"branches", "rl-sim", "dynamic", "chain", "heads"})
  void replayedRepetitionsGiveTheProgramsOwnBytes(String workload) throws Exception {
    StandInDriver.assumeBuilt();
    String java = ChildJvm.java(System.getProperty("java.home"));
    // Eight repetitions: on a loaded 2-core machine a host pause over 1 ms cuts a window, and the
    // first repetitions, where the JIT compiles most, may each be cut elsewhere.
    String[] args = {workload, "--size", "check", "--warmup", "4", "--reps", "4"};
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

  /**
   * Known windows issued as their launches in order on one lane ({@code judge=in-order}; {@code
   * judge=on} tries that way at a window shape's 1024th execution, {@code WindowJudgingGpuTest})
   * give the program's own bytes.
   */
  @org.junit.jupiter.api.Test
  void windowsIssuedInOrderGiveTheProgramsOwnBytes() throws Exception {
    StandInDriver.assumeBuilt();
    String java = ChildJvm.java(System.getProperty("java.home"));
    String[] args = {"rl-sim", "--size", "check", "--warmup", "4", "--reps", "12"};
    String plain = StandInDriver.checksum(
        ChildJvm.run(java, null, List.of(), StandInDriver.environment(1), "dev.kernelweave.kernels.WorkloadMain", args));
    ChildJvm.Result inOrder = ChildJvm.run(java, "journal=off,judge=in-order", List.of(), StandInDriver.environment(2),
        "dev.kernelweave.kernels.WorkloadMain", args);
    assertEquals(plain, StandInDriver.checksum(inOrder), "in order: " + inOrder.stderr());
  }

  /**
   * A cuBLAS loop whose host scalar changes between and after its calls, and whose handle changes
   * math, pointer and atomics modes, workspace and stream, and is created again
   * ({@link BlasReplayProgram}): every iteration prints what it printed without the agent, with
   * graphs on and off, and with graphs on its routines ran inside replays.
   */
  @org.junit.jupiter.api.Test
  void replayedCublasRoutinesFollowTheirScalarsAndEveryHandleSetting() throws Exception {
    StandInDriver.assumeBuilt();
    String java = ChildJvm.java(System.getProperty("java.home"));
    String program = BlasReplayProgram.class.getName();
    ChildJvm.Result plain = ChildJvm.run(java, null, List.of(), StandInDriver.environment(1), program, "8");
    assertEquals(0, plain.exitCode(), plain.stdout() + plain.stderr());
    assertEquals(7 * 8, plain.observable().size(), plain.stdout());
    for (int seed = 1; seed <= 2; seed++) {
      Path journal = Files.createTempDirectory("kw-blas-graphs").resolve("journal");
      ChildJvm.Result on = ChildJvm.run(java, "journal=" + journal, List.of(), StandInDriver.environment(seed),
          program, "8");
      assertEquals(0, on.exitCode(), on.stdout() + on.stderr());
      assertEquals(plain.observable(), on.observable(), "graphs on, seed " + seed + ": " + on.stderr());
      ChildJvm.Result stats = ChildJvm.command("inspect", "stats", journal.toString());
      Matcher m = ROUTINES_REPLAYED.matcher(stats.stdout());
      assertTrue(m.find() && Integer.parseInt(m.group(1)) > 0, "cuBLAS calls were replayed:\n" + stats.stdout());
    }
    ChildJvm.Result off = ChildJvm.run(java, "journal=off,graphs=off", List.of(), StandInDriver.environment(3),
        program, "8");
    assertEquals(plain.observable(), off.observable(), "graphs off: " + off.stderr());
  }
}
