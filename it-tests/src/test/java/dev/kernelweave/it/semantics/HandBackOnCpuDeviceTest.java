package dev.kernelweave.it.semantics;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.kernelweave.it.agent.ChildJvm;
import java.nio.file.Files;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@code handback}: threads of a pool calling one context at once, each iteration a launch between
 * two copies, hand the program back; with {@code handback=off} they do not; a single-threaded
 * program with many launches never does. Over the stand-in driver with launches that take 10 ms of
 * their thread's time, as a slow driver's would: without the agent the four threads overlap them,
 * under the agent they wait for each other, which is what the agent must notice. Every run prints
 * the lines of the run without the agent.
 */
class HandBackOnCpuDeviceTest {

  static final String HANDED_BACK = "the agent stops scheduling, and every later call runs as the program wrote it";
  static final Map<String, String> ENV = Map.of("LD_LIBRARY_PATH",
      SemanticsOnCpuDeviceTest.CPU_DEVICE.toAbsolutePath().toString(), "KW_CPU_DEVICE_SEED", "1",
      "KW_CPU_DEVICE_STALE_STREAMS", "abort");
  /** Launches of 10 ms: the agent's lock, not the stand-in's own, is where the threads meet. */
  static final Map<String, String> SLOW_LAUNCHES = Map.of("LD_LIBRARY_PATH",
      SemanticsOnCpuDeviceTest.CPU_DEVICE.toAbsolutePath().toString(), "KW_CPU_DEVICE_SEED", "1",
      "KW_CPU_DEVICE_STALE_STREAMS", "abort", "KW_CPU_DEVICE_LAUNCH_US", "10000");

  private static ChildJvm.Result run(Map<String, String> env, String agentOptions, String main, String... args)
      throws Exception {
    return ChildJvm.run(ChildJvm.java(System.getProperty("java.home")), agentOptions, List.of(), env, main, args);
  }

  /**
   * Each worker's round trips on the legacy stream, on its per-thread default stream or on a
   * blocking stream of its own, the last two ending in a {@code cuStreamSynchronize} of that
   * stream: the agent hands the program back while some worker's copy back is on one of its
   * streams, and every result, the synchronized ones too, must be CUDA's.
   */
  @ParameterizedTest
  @ValueSource(strings = {"contending", "contending-per-thread", "contending-blocking"})
  void threadsWaitingForEachOtherInTheAgentGetTheirProgramBackWithItsResults(String variant) throws Exception {
    ChildJvm.Result handedBack = runBesideThePlainRun(variant, "journal=off,handback=on");
    assertTrue(handedBack.stderr().contains(HANDED_BACK) && handedBack.stderr().contains("waited for each other"),
        SemanticsCase.describe("with the agent", handedBack));
  }

  @Test
  void withHandbackOffTheAgentKeepsSchedulingThem() throws Exception {
    ChildJvm.Result kept = runBesideThePlainRun("contending", "journal=off,handback=off");
    assertFalse(kept.stderr().contains(HANDED_BACK), SemanticsCase.describe("with handback=off", kept));
  }

  /**
   * Runs {@link ContendingThreadsProgram}'s {@code variant} without the agent, then with it and
   * {@code agentOptions}: both exit 0 and observe the same, CUDA's; returns the run with the agent.
   */
  private static ChildJvm.Result runBesideThePlainRun(String variant, String agentOptions) throws Exception {
    assumeTrue(Files.isRegularFile(SemanticsOnCpuDeviceTest.CPU_DEVICE.resolve("libcuda.so.1")),
        "no stand-in CUDA driver at " + SemanticsOnCpuDeviceTest.CPU_DEVICE + " (it is built where g++ is present): skipped");
    String main = ContendingThreadsProgram.class.getName();
    // Four repetitions: periods enough for two in a row to show the contention on a loaded 2-core machine.
    String[] args = {"--variant", variant, "--reps", "4", "--timeout-ms", "3000", "--calls-never-block", "true"};
    ChildJvm.Result plain = run(SLOW_LAUNCHES, null, main, args);
    assertEquals(0, plain.exitCode(), SemanticsCase.describe("without the agent", plain));
    assertFalse(plain.stdout().contains("WRONG"), SemanticsCase.describe("without the agent", plain));
    ChildJvm.Result agent = run(SLOW_LAUNCHES, agentOptions, main, args);
    assertEquals(0, agent.exitCode(), SemanticsCase.describe("with " + agentOptions, agent));
    assertEquals(SemanticsCase.observed(plain), SemanticsCase.observed(agent), SemanticsCase.describe("with " + agentOptions, agent));
    return agent;
  }

  @Test
  void aSingleThreadedProgramIsNeverHandedBack() throws Exception {
    assumeTrue(Files.isRegularFile(SemanticsOnCpuDeviceTest.CPU_DEVICE.resolve("libcuda.so.1")),
        "no stand-in CUDA driver at " + SemanticsOnCpuDeviceTest.CPU_DEVICE + " (it is built where g++ is present): skipped");
    // About 3500 calls, several periods of the check.
    ChildJvm.Result r = run(ENV, "journal=off", "dev.kernelweave.kernels.WorkloadMain", "rl-sim", "--size", "check",
        "--warmup", "5", "--reps", "3");
    assertEquals(0, r.exitCode(), SemanticsCase.describe("rl-sim with the agent", r));
    assertFalse(r.stderr().contains(HANDED_BACK), SemanticsCase.describe("rl-sim with the agent", r));
  }
}
