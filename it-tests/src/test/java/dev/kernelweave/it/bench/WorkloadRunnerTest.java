package dev.kernelweave.it.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

class WorkloadRunnerTest {

  private static final String OK_LINE = WorkloadResultTest.LINE;

  private static WorkloadRunner.Attempt attempt(Way way, int exit, String... lines) {
    return WorkloadRunner.Attempt.of("rl-sim", way, new Jvm.Run(List.of("java"), exit, List.of(lines)));
  }

  /** The command line a run would have, from a launcher that starts {@code true} instead of java. */
  private static List<String> command(String agentOptions, Way way, Path journal) {
    WorkloadRunner runner =
        new WorkloadRunner(new Jvm("true", 10), "cp", "Main", Path.of("/a/agent.jar"), agentOptions, List.of("-Xmx1g"));
    return runner.run("rl-sim", way, "check", 2, 40, 3, journal).run().command();
  }

  @Test
  void aCleanRunWithItsResultCounts() {
    WorkloadRunner.Attempt a = attempt(Way.SERIAL, 0, "sizes: envs=64", OK_LINE);
    assertTrue(a.ok());
    assertNull(a.problem());
    assertEquals("ab12", a.result().checksum());
  }

  @Test
  void exitStatusesSayWhatWentWrong() {
    WorkloadRunner.Attempt noGpu = attempt(Way.SERIAL, 3, "no CUDA device");
    assertTrue(noGpu.noGpu());
    assertEquals("no CUDA device", noGpu.lastLine());
    assertEquals("exit 1: reference mismatch: at 3", attempt(Way.SERIAL, 1, OK_LINE.replace("\"ok\"", "\"mismatch: at 3\"")).problem());
    assertEquals("exit 2: bad arguments", attempt(Way.SERIAL, 2, "usage").problem());
    assertEquals("timed out", attempt(Way.SERIAL, Jvm.TIMED_OUT, "(killed)").problem());
    assertEquals("exit 134", attempt(Way.SERIAL, 134, "# A fatal error has been detected").problem());
    assertTrue(attempt(Way.SERIAL, 0, "no result").problem().startsWith("unreadable result"));
    assertEquals("ran rl-sim/serial, expected rl-sim/tuned", attempt(Way.TUNED, 0, OK_LINE).problem());
  }

  @Test
  void anAgentRunWhoseAgentTurnedItselfOffDoesNotCount() {
    String off = "[kernelweave] option warmupMs=500 is not valid; accepted keys: mode; the agent is off for this run";
    assertEquals("the agent did not run: option warmupMs=500 is not valid; accepted keys: mode; the agent is off for this run",
        attempt(Way.AGENT, 0, off, OK_LINE).problem());
    assertEquals("the agent did not run: the agent could not start and is off for this run: java.lang.Error",
        attempt(Way.PASSTHROUGH, 0, "[kernelweave] the agent could not start and is off for this run: java.lang.Error",
            OK_LINE).problem());
    assertNull(attempt(Way.SERIAL, 0, off, OK_LINE).problem(), "no agent was asked for");
  }

  @Test
  void onlyTheLaunchersOwnMessageMeansTheWorkloadsAreNotBuilt() {
    WorkloadRunner.Attempt missing =
        attempt(
            Way.SERIAL, 1, "Error: Could not find or load main class dev.kernelweave.kernels.WorkloadMain",
            "Caused by: java.lang.ClassNotFoundException: dev.kernelweave.kernels.WorkloadMain");
    assertTrue(missing.mainClassMissing());
    WorkloadRunner.Attempt crashed =
        attempt(Way.AGENT, 1, "Exception in thread \"main\" java.lang.NoClassDefFoundError: x/Y",
            "Caused by: java.lang.ClassNotFoundException: x.Y");
    assertFalse(crashed.mainClassMissing(), "a class missing at run time is a failure, not a reason to skip");
    assertEquals("exit 1", crashed.problem());
  }

  @Test
  void theAgentRunGetsTheAgentWithItsJournalAndTheOthersDoNot() {
    Path journal = Path.of("/j/rl-sim-round1");
    assertEquals(
        List.of(
            "true", "-Xmx1g", "-javaagent:/a/agent.jar=mode=schedule,journal=/j/rl-sim-round1", "-cp", "cp", "Main",
            "rl-sim", "--variant", "serial", "--size", "check", "--warmup", "2", "--warmup-ms", "40", "--reps", "3"),
        command("mode=schedule", Way.AGENT, journal));
    assertEquals(
        List.of("true", "-Xmx1g", "-cp", "cp", "Main", "rl-sim", "--variant", "tuned", "--size", "check", "--warmup",
            "2", "--warmup-ms", "40", "--reps", "3"),
        command("mode=schedule", Way.TUNED, journal));
    assertFalse(String.join(" ", command("mode=schedule", Way.SERIAL, journal)).contains("javaagent"));
  }

  @Test
  void thePassthroughRunGetsTheAgentInPassthroughModeWhateverTheOptionsSay() {
    Path journal = Path.of("/j/rl-sim-passthrough-round1");
    assertEquals(
        "-javaagent:/a/agent.jar=streams=4,mode=passthrough,journal=/j/rl-sim-passthrough-round1",
        command("mode=schedule, streams=4", Way.PASSTHROUGH, journal).get(2));
    assertEquals("-javaagent:/a/agent.jar=mode=passthrough", command("", Way.PASSTHROUGH, null).get(2));
    assertEquals("serial", Way.PASSTHROUGH.variant());
  }

  @Test
  void aProgramRunIsTimedAndGetsTheAgentOnlyWhenAsked() {
    WorkloadRunner runner =
        new WorkloadRunner(new Jvm("true", 10), "cp", "Main", Path.of("/a/agent.jar"), "mode=schedule", List.of());
    WorkloadRunner.Timed with = runner.runProgram("Init", true, Path.of("/j/startup-1"));
    assertEquals(
        List.of("true", "-javaagent:/a/agent.jar=mode=schedule,journal=/j/startup-1", "-cp", "cp", "Init"),
        with.run().command());
    assertEquals(0, with.run().exitCode());
    assertTrue(with.ms() > 0, "a time: " + with.ms());
    assertEquals(List.of("true", "-cp", "cp", "Init"), runner.runProgram("Init", false, null).run().command());
  }

  @Test
  void agentOptionsThatNameAJournalKeepIt() {
    assertEquals("-javaagent:/a/agent.jar=journal=/mine", command("journal=/mine", Way.AGENT, Path.of("/j")).get(2));
    assertEquals("-javaagent:/a/agent.jar=journal=/j", command("", Way.AGENT, Path.of("/j")).get(2));
    assertEquals("-javaagent:/a/agent.jar", command("", Way.AGENT, null).get(2));
  }
}
