package dev.kernelweave.it.fuzz;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.kernelweave.interceptor.selftest.ScriptedPrograms;
import dev.kernelweave.it.agent.ChildJvm;
import dev.kernelweave.it.agent.StandInDriver;
import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code selftest --gpu} as a user runs it, {@code java -cp kernelweave-agent.jar:JCUDA_JARS
 * dev.kernelweave.agent.cli.Main selftest --gpu}, here over the stand-in driver (which its child
 * JVMs find through the environment they inherit): it passes with the real agent, fails with a
 * mutant naming the program that observed otherwise, and says so where there is no GPU or no JCuda.
 */
class SelfTestGpuCommandOnCpuDeviceTest {

  /** Exit code of {@code selftest --gpu} where it cannot run (SelfTestCommand.UNAVAILABLE). */
  private static final int UNAVAILABLE = 3;
  private static final Pattern KEPT = Pattern.compile("kept in (\\S+)");

  @TempDir
  Path temp;

  @Test
  void realAgentPassesOverTheStandIn() throws Exception {
    StandInDriver.assumeBuilt();
    ChildJvm.Result r = selftestGpu(jcudaJars(), ScriptedRuns.standIn(1), "--programs", "10", "--seed", "20261127");
    assertEquals(0, r.exitCode(), () -> r.stdout() + r.stderr());
    int together = ScriptedPrograms.TOGETHER; // one group for 10 programs
    assertTrue(r.stdout().contains("seed 20261127, 10 programs and " + together + " played beside others, agent graphs=on, "
        + "the real scheduler"), r.stdout());
    assertTrue(r.stdout().matches("(?s).*without the agent, serially: [1-9]\\d* observations.*"), r.stdout());
    assertTrue(r.stdout().contains("OK: all " + (10 + together) + " programs observed the same with the agent as without it"),
        r.stdout());
  }

  @Test
  void mutantInTheAgentFailsNamingTheProgramAndWhatItObserved() throws Exception {
    StandInDriver.assumeBuilt();
    ChildJvm.Result r = selftestGpu(jcudaJars(), ScriptedRuns.standIn(1), "--programs", "12", "--seed", "7",
        "--mutant", "drop-raw", "--graphs", "off", "--streams", "4");
    try {
      assertEquals(1, r.exitCode(), () -> r.stdout() + r.stderr());
      assertTrue(r.stdout().contains("agent graphs=off,streams=4, mutant drop-raw (it should be caught)"), r.stdout());
      assertTrue(r.stdout().matches("(?s).*program [pc][0-9a-f]+ observes otherwise:\n    expected only: \\[.+\\]\n"
          + "    observed only: \\[.+\\]\n    #0 .*"), r.stdout());
      assertTrue(r.stdout().contains("FAILED: with the agent, a program observed what it does not observe serially"),
          r.stdout());
    } finally {
      deleteKept(r.stdout());
    }
  }

  @Test
  void withoutAGpuItSaysSoAndSuggestsTheSimulation() throws Exception {
    // No stand-in on the library path: only a machine's own CUDA driver could answer.
    ChildJvm.Result r = selftestGpu(jcudaJars(), Map.of("LD_LIBRARY_PATH", temp.toString()), "--programs", "2");
    assumeTrue(r.exitCode() != 0, "this machine has a GPU");
    assertEquals(UNAVAILABLE, r.exitCode(), () -> r.stdout() + r.stderr());
    assertEquals(1, r.stderr().lines().count(), r.stderr());
    assertTrue(r.stderr().startsWith("kernelweave selftest --gpu: no GPU here (") && r.stderr().strip().endsWith("; use --sim"),
        r.stderr());
  }

  @Test
  void withoutJCudaItSaysHowToRunIt() throws Exception {
    ChildJvm.Result r = selftestGpu(List.of(), Map.of(), "--programs", "2");
    assertEquals(UNAVAILABLE, r.exitCode(), () -> r.stdout() + r.stderr());
    assertTrue(r.stderr().startsWith("kernelweave selftest --gpu: JCuda (jcuda.driver.JCudaDriver) is not on the class path "
        + "(run java -cp kernelweave-agent.jar:jcuda-12.6.0.jar:"), r.stderr());
  }

  /** {@code java -cp AGENT_JAR:jars dev.kernelweave.agent.cli.Main selftest --gpu ARGS}. */
  private static ChildJvm.Result selftestGpu(List<String> jars, Map<String, String> env, String... args)
      throws Exception {
    List<String> command = new ArrayList<>(List.of(ChildJvm.java(System.getProperty("java.home")), "-cp",
        ChildJvm.agentJar() + (jars.isEmpty() ? "" : File.pathSeparator + String.join(File.pathSeparator, jars)),
        "dev.kernelweave.agent.cli.Main", "selftest", "--gpu"));
    command.addAll(List.of(args));
    return ChildJvm.start(command, env);
  }

  /** JCuda's and JCublas' jars from this JVM's class path, as a user lists them. */
  private static List<String> jcudaJars() {
    return Stream.of(System.getProperty("java.class.path").split(File.pathSeparator))
        .filter(e -> e.endsWith(".jar") && (e.contains("jcuda") || e.contains("jcublas"))).toList();
  }

  /** Removes the directory a failed run kept for the user. */
  private static void deleteKept(String stdout) throws IOException {
    Matcher m = KEPT.matcher(stdout);
    if (m.find()) {
      try (Stream<Path> files = Files.walk(Path.of(m.group(1)))) {
        files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
      }
    }
  }
}
