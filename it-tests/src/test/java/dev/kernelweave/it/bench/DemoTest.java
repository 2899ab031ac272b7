package dev.kernelweave.it.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kernelweave.it.Demo;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The demo's two paths, on the fake workloads and the fake agent. */
class DemoTest {

  @TempDir Path dir;
  private String output;

  private int demo(String mainClass, Path sampleJournal) throws Exception {
    Demo.Setup setup =
        new Demo.Setup(
            Fakes.jvm(60), Fakes.agentJar(dir), Fakes.testClassPath(), mainClass, sampleJournal, dir.resolve("out"));
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    int status = new Demo(setup, new PrintStream(bytes, true, StandardCharsets.UTF_8)).run();
    output = bytes.toString(StandardCharsets.UTF_8);
    return status;
  }

  @Test
  void withAGpuComparesBothRunsAndWritesATrace() throws Exception {
    assertEquals(0, demo(FakeWorkloadMain.class.getName(), dir), output);
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
  }

  @Test
  void withoutAGpuSaysSoOnceAndRunsTheSimulation() throws Exception {
    assertEquals(0, demo(FakeNoGpuMain.class.getName(), dir), output);
    assertEquals(1, output.lines().filter(l -> l.contains("No GPU")).count(), output);
    assertTrue(output.lines().findFirst().orElseThrow().startsWith("No GPU here"), output);
    assertTrue(output.contains("selftest: 200 programs, all equal"), output);
    assertTrue(output.contains("calls 42"), output);
  }

  @Test
  void withoutAGpuFailsWhenACommandFails() throws Exception {
    assertEquals(1, demo(FakeNoGpuMain.class.getName(), dir.resolve("missing")), output);
    assertTrue(output.contains("that command failed (exit 2)"), output);
  }

  /** A workload entry point on a machine without a GPU. */
  public static final class FakeNoGpuMain {
    public static void main(String[] args) {
      System.out.println("no CUDA device found");
      System.exit(WorkloadRunner.NO_GPU);
    }
  }
}
