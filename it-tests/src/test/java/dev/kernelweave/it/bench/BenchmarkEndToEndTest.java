package dev.kernelweave.it.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import javax.imageio.ImageIO;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The whole benchmark, JVMs and all, on the fake workloads and the fake agent. */
class BenchmarkEndToEndTest {

  @TempDir static Path shared;
  static Path agentJar;

  private String output;

  @BeforeAll
  static void buildFakeAgent() throws Exception {
    agentJar = Fakes.agentJar(shared);
  }

  private int benchmark(Path out, String... extra) {
    List<String> args =
        new ArrayList<>(
            List.of(
                "--agent", agentJar.toString(), "--classpath", Fakes.testClassPath(),
                "--main", FakeWorkloadMain.class.getName(), "--out", out.toString(), "--device", "Fake GPU 1",
                "--journals", out.resolve("journals").toString(),
                "--rounds", "2", "--warmup", "1", "--reps", "3",
                "--startup-main", FakeCuInitMain.class.getName(), "--startup-runs", "0", "--corpus", "none"));
    args.addAll(List.of(extra));
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    int status = Benchmark.run(args.toArray(String[]::new), new PrintStream(bytes, true, StandardCharsets.UTF_8));
    output = bytes.toString(StandardCharsets.UTF_8);
    return status;
  }

  private static JsonObject workload(Path out, String name) throws Exception {
    JsonObject json = JsonParser.parseString(Files.readString(out.resolve("Fake-GPU-1.json"))).getAsJsonObject();
    for (var w : json.getAsJsonArray("workloads")) {
      if (w.getAsJsonObject().get("name").getAsString().equals(name)) {
        return w.getAsJsonObject();
      }
    }
    throw new AssertionError(name + " not in the results");
  }

  @Test
  void measuresEveryWayAndWritesTheResults(@TempDir Path out) throws Exception {
    assertEquals(0, benchmark(out, "--workloads", "rl-sim,chain", "--startup-runs", "2"), output);

    JsonObject rl = workload(out, "rl-sim");
    assertEquals("ok", rl.get("status").getAsString());
    assertTrue(rl.get("outputs_equal").getAsBoolean());
    // two rounds of three reps each way
    assertEquals(6, rl.getAsJsonArray("serial_reps").size());
    assertEquals(6, rl.getAsJsonArray("agent_reps").size());
    assertEquals(6, rl.getAsJsonArray("tuned_reps").size());
    assertEquals(6, rl.getAsJsonArray("passthrough_reps").size());
    assertEquals(6, rl.getAsJsonArray("graph_reps").size());
    assertEquals(4.0, rl.get("graph_speedup").getAsDouble(), 0.02);
    assertEquals(50.0, rl.get("agent_of_graph_pct").getAsDouble(), 0.5);
    assertEquals(2, rl.getAsJsonArray("agent_jvm_medians").size());
    assertEquals(2.0, rl.get("agent_speedup").getAsDouble(), 0.01);
    assertEquals(2.5, rl.get("tuned_speedup").getAsDouble(), 0.01);
    assertEquals(80.0, rl.get("agent_of_tuned_pct").getAsDouble(), 0.5);
    assertTrue(rl.get("sizes").getAsString().contains("n=4096"), rl.toString());
    assertTrue(rl.get("sizes").getAsString().contains("warmup=1 warmup-ms=1500"), "the default warm-up time: " + rl);

    JsonObject chain = workload(out, "chain");
    assertEquals(5.0, chain.get("agent_overhead_pct").getAsDouble(), 0.2);
    JsonObject summary =
        JsonParser.parseString(Files.readString(out.resolve("Fake-GPU-1.json"))).getAsJsonObject().getAsJsonObject("summary");
    assertEquals(2.0, summary.get("agent_speedup_geomean").getAsDouble(), 0.01);
    assertEquals(JsonParser.parseString("[\"rl-sim\"]"), summary.getAsJsonArray("geomean_workloads"));

    if (Report.canDraw()) {
      assertEquals(SpeedupChart.WIDTH, ImageIO.read(out.resolve("Fake-GPU-1.png").toFile()).getWidth());
    } else {
      assertTrue(output.contains("chart:   not drawn: this Java runtime has no java.desktop module"), output);
    }
    assertTrue(output.contains("geometric mean of 1 workloads"), output);
    // The fake says it ran two more warm-ups than asked, as a run that warms up for a time does.
    assertTrue(output.lines().anyMatch(l -> l.startsWith("rl-sim     round 1/2: ") && l.contains("serial 10.01 ms (3 warm-ups), agent 5.01 ms (3 warm-ups)")),
        output);

    // The fake agent's journals: 7.25 us a launch passing through, 9.0 scheduling.
    JsonObject host = rl.getAsJsonObject("launch_host_time");
    assertEquals(FakeAgent.PASSTHROUGH_MICROS, host.getAsJsonObject("passthrough_us").get("median").getAsDouble(), 1e-9);
    assertEquals(FakeAgent.SCHEDULE_MICROS, host.getAsJsonObject("agent_us").get("median").getAsDouble(), 1e-9);
    assertEquals(2, host.getAsJsonObject("agent_us").get("n").getAsInt(), "one journal a round");
    assertEquals(1.75, host.get("extra_us").getAsDouble(), 1e-9);
    assertTrue(output.lines().anyMatch(l -> l.startsWith("rl-sim") && l.contains("+1.75")), output);

    JsonObject startup =
        JsonParser.parseString(Files.readString(out.resolve("Fake-GPU-1.json"))).getAsJsonObject().getAsJsonObject("startup");
    assertEquals("ok", startup.get("status").getAsString());
    assertEquals(2, startup.get("pairs").getAsInt());
    assertEquals(2, startup.getAsJsonArray("with_runs_ms").size());
    assertTrue(output.contains("start-up (FakeCuInitMain, 2 JVMs each way, interleaved): "), output);
    assertFalse(Files.exists(out.resolve("journals/startup-1")), "start-up journals are removed");
  }

  @Test
  void runsTheCorpusSerialAndAgentOnlyInBothRegimes(@TempDir Path out) throws Exception {
    assertEquals(
        0, benchmark(out, "--workloads", "rl-sim", "--corpus", "mlp,jacobi", "--regimes", "short,warmed"), output);

    for (String file : List.of("Fake-GPU-1.json", "Fake-GPU-1-short.json")) {
      JsonObject json = JsonParser.parseString(Files.readString(out.resolve(file))).getAsJsonObject();
      boolean isShort = file.contains("short");
      assertEquals(isShort ? "short" : "warmed", json.getAsJsonObject("settings").get("regime").getAsString());
      assertEquals(1, json.getAsJsonArray("workloads").size(), "the corpus is not among the workloads: " + file);
      JsonObject mlp = json.getAsJsonArray("corpus").get(0).getAsJsonObject();
      assertEquals("mlp", mlp.get("name").getAsString());
      assertEquals("ok", mlp.get("status").getAsString());
      assertEquals(6, mlp.getAsJsonArray("serial_reps").size());
      assertEquals(6, mlp.getAsJsonArray("agent_reps").size());
      assertEquals(0, mlp.getAsJsonArray("tuned_reps").size(), "no hand-tuned twin");
      assertEquals(0, mlp.getAsJsonArray("passthrough_reps").size());
      assertTrue(
          mlp.get("sizes").getAsString().contains(isShort ? "warmup=5 warmup-ms=0" : "warmup=1 warmup-ms=1500"),
          file + ": " + mlp);
      JsonObject summary = json.getAsJsonObject("summary");
      assertEquals(2.0, summary.get("corpus_agent_speedup_geomean").getAsDouble(), 0.01);
      assertEquals(JsonParser.parseString("[\"mlp\",\"jacobi\"]"), summary.getAsJsonArray("geomean_corpus"));
      assertEquals(JsonParser.parseString("[\"rl-sim\"]"), summary.getAsJsonArray("geomean_workloads"));
    }
    assertTrue(output.contains("== regime short (5 warm-ups, 0 ms)"), output);
    assertTrue(output.contains("== regime warmed (1 warm-ups, 1500 ms)"), output);
    assertEquals(2, output.lines().filter(l -> l.startsWith("corpus: agent speedup, geometric mean of 2 programs: 2.00x")).count(),
        output);
    assertTrue(output.lines().anyMatch(l -> l.startsWith("mlp ") && l.endsWith("2.00x  equal")), output);
    assertTrue(output.lines().anyMatch(l -> l.startsWith("jacobi     round 2/2: ") && l.contains("agent") && !l.contains("tuned")),
        output);
  }

  @Test
  void aStartupProgramThatFailsIsSaidOnceAndTheResultsStillWritten(@TempDir Path out) throws Exception {
    assertEquals(
        0,
        benchmark(out, "--workloads", "rl-sim", "--startup-runs", "3", "--startup-main", FakeWorkloadMain.class.getName()),
        output);
    assertTrue(output.contains("start-up: without the agent, exit 2: usage: FakeWorkloadMain"), output);
    JsonObject startup =
        JsonParser.parseString(Files.readString(out.resolve("Fake-GPU-1.json"))).getAsJsonObject().getAsJsonObject("startup");
    assertTrue(startup.get("status").getAsString().startsWith("failed: without the agent, exit 2"), startup.toString());
    assertEquals(0, startup.get("pairs").getAsInt());
  }

  @Test
  void keepsOnlyTheLastAgentJournalOfEachWorkloadAndItsStats(@TempDir Path out) throws Exception {
    assertEquals(0, benchmark(out, "--workloads", "rl-sim"), output);
    Path journal = Path.of(workload(out, "rl-sim").get("journal").getAsString());
    assertEquals(out.resolve("journals/rl-sim-round2"), journal);
    String stats = Files.readString(out.resolve("Fake-GPU-1-journal-stats.txt"));
    assertTrue(stats.contains("== rl-sim: " + journal + "\ncalls 42"), stats);
    Path passthrough = out.resolve("journals/rl-sim-passthrough-round2");
    assertTrue(stats.contains("== rl-sim passthrough: " + passthrough + "\ncalls 42"), stats);
    assertFalse(Files.exists(out.resolve("journals/rl-sim-passthrough-round1")), "the first round's is gone");
    assertTrue(Files.isRegularFile(journal.resolve("fake.cq4")), "the agent was given " + journal);
    assertTrue(journal.getFileName().toString().endsWith("round2"), journal.toString());
    assertFalse(Files.exists(journal.resolveSibling("rl-sim-round1")), "the first round's journal is gone");
    assertTrue(output.contains("rl-sim: " + journal), output);
  }

  @Test
  void aFailingWorkloadIsReportedAndTheOthersStillRun(@TempDir Path out) throws Exception {
    assertEquals(Benchmark.FAILED, benchmark(out, "--workloads", "broken,rl-sim"), output);
    assertTrue(output.contains("broken serial failed: exit 1: reference mismatch"), output);
    assertTrue(output.contains("command: "), output);
    assertTrue(output.contains(FakeWorkloadMain.class.getName() + " broken --variant serial"), output);
    assertTrue(output.contains("| step 39"), "the last lines of its output: " + output);
    assertEquals("ok", workload(out, "rl-sim").get("status").getAsString());
    assertTrue(workload(out, "broken").get("status").getAsString().startsWith("failed: serial: exit 1"));
  }

  @Test
  void differentOutputsFailTheBenchmark(@TempDir Path out) throws Exception {
    assertEquals(Benchmark.FAILED, benchmark(out, "--workloads", "differs,rl-sim"), output);
    JsonObject differs = workload(out, "differs");
    assertFalse(differs.get("outputs_equal").getAsBoolean());
    assertEquals("outputs differ: tuned differs from serial", differs.get("status").getAsString());
    JsonObject checksums = differs.getAsJsonObject("checksums");
    assertEquals(checksums.get("serial"), checksums.get("agent"));
    assertEquals(1, checksums.getAsJsonArray("tuned").size());
    assertFalse(checksums.get("serial").equals(checksums.get("tuned")));
    assertTrue(output.contains("failed differs: outputs differ: tuned differs from serial"), output);
  }

  @Test
  void aHungWorkloadIsKilledAtTheTimeLimit(@TempDir Path out) throws Exception {
    assertEquals(Benchmark.FAILED, benchmark(out, "--workloads", "hang", "--timeout", "2"), output);
    assertTrue(output.contains("hang serial failed: timed out"), output);
    assertTrue(output.contains("no results written"), output);
    assertFalse(Files.exists(out.resolve("Fake-GPU-1.json")), "an earlier results file would survive");
  }

  @Test
  void noGpuStopsAtOnceWithOneLine(@TempDir Path out) {
    assertEquals(WorkloadRunner.NO_GPU, benchmark(out, "--workloads", "nogpu,rl-sim"), output);
    assertTrue(output.contains("benchmark: no GPU (no GPU: the fake found no CUDA device)"), output);
    assertFalse(output.contains("rl-sim"), output);
  }

  @Test
  void badArgumentsAndAMissingAgentAreUsageErrors(@TempDir Path out) {
    assertEquals(Benchmark.USAGE, benchmark(out, "--rounds", "zero"), output);
    assertEquals(Benchmark.USAGE, benchmark(out, "--agent", out.resolve("none.jar").toString()), output);
    assertTrue(output.contains("no agent jar"), output);
  }
}
