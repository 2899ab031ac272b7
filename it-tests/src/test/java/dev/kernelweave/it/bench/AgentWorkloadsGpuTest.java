package dev.kernelweave.it.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The packaged agent on every workload, on a real GPU: each workload at {@code --size check}, in a
 * JVM without and one with {@code -javaagent:agent/target/kernelweave-agent.jar}, must pass its
 * reference check both times and produce the same bytes. Skips itself where there is no GPU or the
 * workloads are not built.
 */
class AgentWorkloadsGpuTest {

  private static final long TIMEOUT_SECONDS = 300;

  @TempDir Path journals;

  static List<String> workloads() {
    return WorkloadRunner.WORKLOADS;
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("workloads")
  void agentKeepsTheOutputOf(String workload) {
    assertAgentKeepsTheOutput(workload, 1, journals);
  }

  /**
   * Runs {@code program} at {@code --size check} for {@code reps} timed repetitions in a JVM
   * without and one with the packaged agent: both must match the CPU reference and give the same
   * bytes. Skips where there is no GPU or the kernels are not built.
   */
  static void assertAgentKeepsTheOutput(String program, int reps, Path journals) {
    String classPath = ProjectLayout.workloadClassPath();
    Assumptions.assumeFalse(classPath.isEmpty(), "skipped: the kernels module is not on the test class path");
    Path agentJar = ProjectLayout.discover().agentJar();
    WorkloadRunner runner =
        new WorkloadRunner(
            new Jvm(Jvm.currentJava(), TIMEOUT_SECONDS), classPath, WorkloadRunner.MAIN_CLASS, agentJar,
            // Engaged from the first call: with the default, engage=auto, a check-size run of most
            // programs would run as written and check nothing of the scheduler.
            "mode=schedule,engage=at-once", List.of());

    WorkloadRunner.Attempt plain = runner.run(program, Way.SERIAL, "check", 1, 0, reps, null);
    Assumptions.assumeFalse(plain.noGpu(), () -> "skipped: no GPU (" + plain.lastLine() + ")");
    Assumptions.assumeFalse(
        plain.mainClassMissing(), () -> "skipped: " + WorkloadRunner.MAIN_CLASS + " is not built (" + plain.lastLine() + ")");
    assertOk("without the agent", plain);

    assertTrue(Files.isRegularFile(agentJar), "no agent jar at " + agentJar + ": run 'mvn -B -DskipTests package' first");
    WorkloadRunner.Attempt agent = runner.run(program, Way.AGENT, "check", 1, 0, reps, journals.resolve(program));
    assertOk("with the agent", agent);

    assertEquals(
        plain.result().checksum(),
        agent.result().checksum(),
        () -> program + ": the agent changed the output\n" + agent.run().describeFailure(40));
  }

  private static void assertOk(String how, WorkloadRunner.Attempt attempt) {
    assertTrue(attempt.ok(), () -> how + ": " + attempt.problem() + "\n" + attempt.run().describeFailure(40));
    assertEquals("ok", attempt.result().reference(), how);
  }
}
