package dev.kernelweave.it.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.google.gson.JsonParser;
import dev.kernelweave.it.Demo;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The demo's three paths on the fake workloads and the fake agent (a GPU; no GPU with the stand-in
 * driver; no GPU and no stand-in), and the real demo on the stand-in CUDA driver where it is built.
 */
class DemoTest {

  @TempDir Path dir;
  private String output;

  private int demo(String mainClass, Path sampleJournal, Path standIn) throws Exception {
    Demo.Setup setup = new Demo.Setup(Fakes.jvm(60), Fakes.agentJar(dir), Fakes.testClassPath(), mainClass,
        sampleJournal, dir.resolve("out"), standIn);
    return run(setup);
  }

  private int run(Demo.Setup setup) {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    int status = new Demo(setup, new PrintStream(bytes, true, StandardCharsets.UTF_8)).run();
    output = bytes.toString(StandardCharsets.UTF_8);
    return status;
  }

  private Path standIn() throws Exception {
    Path standIn = Files.createDirectories(dir.resolve("stand-in"));
    Files.writeString(standIn.resolve("libcuda.so.1"), "");
    return standIn;
  }

  @Test
  void withAGpuComparesBothRunsAndWritesATrace() throws Exception {
    assertEquals(0, demo(FakeWorkloadMain.class.getName(), dir, null), output);
    // The fake agent run takes half the time of the serial one: the speedup printed is their ratio.
    double serial = Double.parseDouble(output.replaceAll("(?s).*without the agent: ([0-9.]+) ms.*", "$1"));
    double agent = Double.parseDouble(output.replaceAll("(?s).*with the agent: +([0-9.]+) ms.*", "$1"));
    assertEquals(2.0, serial / agent, 0.02, output);
    assertTrue(output.contains(String.format(java.util.Locale.ROOT, "speedup:           %.2fx", serial / agent)), output);
    assertTrue(output.contains("results equal:     yes"), output);
    String trace = output.lines().filter(l -> l.contains("trace:")).findFirst().orElseThrow();
    assertTrue(trace.contains(dir.resolve("out/rl-sim-trace.json").toString()), trace);
    assertTrue(Files.isRegularFile(dir.resolve("out/rl-sim-trace.json")));
    assertTrue(Files.isDirectory(dir.resolve("out/rl-sim-journal")), "the agent was given the journal folder");
    assertFalse(output.contains("stand-in"), "a GPU run never mentions the stand-in: " + output);
  }

  @Test
  void withoutAGpuRunsOnTheStandInDriverAndShowsThatRunsJournal() throws Exception {
    assertEquals(0, demo(FakeStandInMain.class.getName(), dir.resolve("no-sample"), standIn()), output);
    assertEquals(1, output.lines().filter(l -> l.contains("No GPU")).count(), output);
    assertTrue(output.lines().findFirst().orElseThrow().startsWith("No GPU here"), output);
    assertTrue(output.contains("on the stand-in CUDA driver"), output);
    assertTrue(output.contains("results equal:     yes"), output);
    assertFalse(output.contains("speedup:"), "CPU times give no speedup: " + output);
    assertTrue(Files.isDirectory(dir.resolve("out/rl-sim-journal")), "the agent was given the journal folder");
    assertTrue(output.contains("journal:           " + dir.resolve("out/rl-sim-journal")), output);
    assertTrue(output.contains("inspect stats " + dir.resolve("out/rl-sim-journal")), "that run's journal: " + output);
    assertTrue(output.contains("calls 42"), output);
    assertTrue(output.contains("graph:             " + dir.resolve("out/rl-sim-dag.dot") + ": 4 calls, 4 dependencies"),
        output);
    assertTrue(Files.readString(dir.resolve("out/rl-sim-dag.dot")).startsWith("digraph"), "the graph is written");
    // Kernels only, with the kernels each waited for; the copy is left out.
    assertTrue(output.contains("2 scale on s0"), output);
    assertTrue(output.matches("(?s).*\\n +4 sum on s0 +after 2 \\(RAW #2\\), 3 \\(RAW #3\\)\\n.*"), output);
    assertFalse(output.contains("cuMemcpyHtoD"), output);
    assertTrue(Files.isRegularFile(dir.resolve("out/rl-sim-trace.json")));
    assertTrue(output.contains("trace:             " + dir.resolve("out/rl-sim-trace.json")), output);
  }

  @Test
  void withoutAGpuOnTheStandInDriverDifferentResultsFailTheDemo() throws Exception {
    Path standIn = standIn();
    Files.writeString(standIn.resolve("differs"), "");
    assertEquals(1, demo(FakeStandInMain.class.getName(), dir, standIn), output);
    assertTrue(output.contains("results equal:     NO"), output);
  }

  @Test
  void withoutAGpuOrAStandInSaysSoOnceAndRunsTheSimulation() throws Exception {
    assertEquals(0, demo(FakeNoGpuMain.class.getName(), dir, dir.resolve("no-stand-in")), output);
    assertEquals(1, output.lines().filter(l -> l.contains("No GPU")).count(), output);
    assertTrue(output.lines().findFirst().orElseThrow().startsWith("No GPU here"), output);
    assertTrue(output.contains("no stand-in CUDA driver at " + dir.resolve("no-stand-in")), output);
    assertTrue(output.contains("selftest: 200 programs, all equal"), output);
    assertTrue(output.contains("calls 42"), output);
  }

  @Test
  void withoutAGpuOrAStandInFailsWhenACommandFails() throws Exception {
    assertEquals(1, demo(FakeNoGpuMain.class.getName(), dir.resolve("missing"), null), output);
    assertTrue(output.contains("that command failed (exit 2)"), output);
  }

  /**
   * The real demo, built agent and workloads, on the stand-in driver: equal results, and a journal
   * whose statistics, graph and trace show the environments on several streams.
   */
  @Test
  void theRealDemoRunsRlSimOnTheStandInDriver() throws Exception {
    Demo.Setup found = Demo.Setup.discover(dir.resolve("out"));
    assumeTrue(Files.isRegularFile(found.standInDriver().resolve("libcuda.so.1")),
        "no stand-in CUDA driver at " + found.standInDriver() + " (it is built where g++ is present): skipped");
    assumeTrue(Files.isRegularFile(found.agentJar()), "no agent jar at " + found.agentJar() + ": skipped");
    assumeTrue(!Files.exists(Path.of("/dev/nvidiactl")), "a GPU is here: the GPU path is AgentWorkloadsGpuTest's");
    assertEquals(0, run(found), output);
    assertTrue(output.contains("on the stand-in CUDA driver"), output);
    assertTrue(output.contains("results equal:     yes"), output);
    assertTrue(stat("streams used") > 1, output);
    assertTrue(stat("cross-stream waits") > 0, output);
    assertTrue(stat("host waits") > 0, output);
    Matcher graph = Pattern.compile("graph: +\\S+: (\\d+) calls, (\\d+) dependencies").matcher(output);
    assertTrue(graph.find(), output);
    assertTrue(Integer.parseInt(graph.group(1)) > 100, output);
    assertTrue(output.contains("rl_policy on s"), output);
    assertTrue(Files.readString(dir.resolve("out/rl-sim-dag.dot")).contains("->"));
    assertTrue(JsonParser.parseString(Files.readString(dir.resolve("out/rl-sim-trace.json"))).getAsJsonObject()
        .getAsJsonArray("traceEvents").size() > 100, "a trace of the run");
  }

  private long stat(String name) {
    Matcher m = Pattern.compile("(?m)^  " + Pattern.quote(name) + " +(\\d+)$").matcher(output);
    assertTrue(m.find(), name + " in " + output);
    return Long.parseLong(m.group(1));
  }

  /** A workload entry point on a machine without a GPU. */
  public static final class FakeNoGpuMain {
    public static void main(String[] args) {
      System.out.println("no CUDA device found");
      System.exit(WorkloadRunner.NO_GPU);
    }
  }
}
