package dev.kernelweave.it.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.gson.JsonArray;
import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ReportTest {

  /** A workload measured three reps a way, around the given medians, all with the same output. */
  static WorkloadMeasurement measured(String name, double serial, double agent, double tuned) {
    WorkloadMeasurement m = new WorkloadMeasurement(name);
    m.add(Way.SERIAL, result(name, "serial", serial, "same"));
    m.add(Way.AGENT, result(name, "serial", agent, "same"));
    m.add(Way.TUNED, result(name, "tuned", tuned, "same"));
    return m;
  }

  static WorkloadResult result(String name, String variant, double median, String checksum) {
    return new WorkloadResult(
        name, variant, "bench", "n=1024", List.of(median * 0.9, median, median * 1.2), checksum, "ok", null, -1);
  }

  static Report report(List<WorkloadMeasurement> workloads) {
    return report(workloads, null);
  }

  static Report report(List<WorkloadMeasurement> workloads, StartupCost startup) {
    return new Report(
        "NVIDIA H100 80GB HBM3", "2025-01-01T00:00Z", "java Benchmark", Map.of("rounds", 5), workloads, startup, "");
  }

  /** {@link #measured} with two passthrough and agent journals' launch host times. */
  static WorkloadMeasurement withHostTimes(String name) {
    WorkloadMeasurement m = measured(name, 12, 6, 4);
    m.add(Way.PASSTHROUGH, result(name, "serial", 12.5, "same"));
    m.journalStats(Way.PASSTHROUGH, List.of("pt round 1"), new LaunchHostTime(100, 7.0));
    m.journalStats(Way.PASSTHROUGH, List.of("pt round 2"), new LaunchHostTime(100, 7.5));
    m.journalStats(Way.AGENT, List.of("agent round 1"), new LaunchHostTime(100, 9.5));
    m.journalStats(Way.AGENT, List.of("agent round 2"), null);
    m.journalStats(Way.AGENT, List.of("agent round 3"), new LaunchHostTime(120, 8.5));
    return m;
  }

  /** Three pairs: 300/1000, 320/1100, 310/1050 ms: medians 310 and 1050, pairs +700, +780, +740. */
  static StartupCost startup() {
    StartupCost cost = new StartupCost("dev.kernelweave.kernels.CuInitMain");
    cost.add(300, 1000);
    cost.add(320, 1100);
    cost.add(310, 1050);
    return cost;
  }

  @Test
  void speedupsAreSerialMedianOverMedian() {
    WorkloadMeasurement m = measured("rl-sim", 12, 6, 4);
    assertEquals(2.0, m.speedup(Way.AGENT), 1e-12);
    assertEquals(3.0, m.speedup(Way.TUNED), 1e-12);
    assertEquals(200.0 / 3, m.agentOfTunedPercent(), 1e-9);
    assertTrue(m.outputsEqual());
  }

  @Test
  void theGeometricMeanLeavesOutChainAndFailures() {
    WorkloadMeasurement broken = measured("heads", 10, 1, 1);
    broken.fail("agent: exit 1");
    Report report =
        report(List.of(measured("branches", 10, 5, 4), measured("rl-sim", 16, 2, 2), measured("chain", 10, 10.5, 10), broken));
    assertEquals(List.of("branches", "rl-sim"), report.speedupWorkloads().stream().map(WorkloadMeasurement::name).toList());
    assertEquals(4.0, report.geometricMeanSpeedup(Way.AGENT), 1e-12);
    assertEquals(5.0, report.chainOverheadPercent(), 1e-9);
  }

  @Test
  void workloadsWithDifferentOutputsDoNotCount() {
    WorkloadMeasurement m = measured("dynamic", 10, 5, 5);
    m.add(Way.TUNED, result("dynamic", "tuned", 5, "other"));
    assertFalse(m.outputsEqual());
    assertFalse(m.ok());
    assertEquals("tuned varies between runs", m.outputDifference());
    assertTrue(report(List.of(m)).table().contains("DIFFER"));
  }

  @Test
  void tableShowsEveryWorkloadAndTheSummary() {
    WorkloadMeasurement broken = new WorkloadMeasurement("pipeline");
    broken.fail("serial: exit 1: reference mismatch");
    String table = report(List.of(measured("rl-sim", 12, 6, 4), measured("chain", 10, 10.5, 10), broken)).table();
    assertTrue(table.contains("rl-sim"), table);
    assertTrue(table.contains("12.00 [10.80-14.40]"), table);
    assertTrue(table.contains("2.00x"), table);
    assertTrue(table.contains("3.00x"), table);
    assertTrue(table.contains("67%"), table);
    assertTrue(table.contains("failed pipeline: serial: exit 1: reference mismatch"), table);
    assertTrue(
        table.contains("geometric mean of 1 workloads (chain excluded): 2.00x (hand-tuned: 3.00x, graph by hand: -)"),
        table);
    assertTrue(table.contains("chain overhead under the agent: +5.0%"), table);
  }

  @Test
  void theGraphTwinHasItsColumnsTheAgentsShareOfItAndItsGeometricMean(@TempDir Path dir) throws Exception {
    WorkloadMeasurement rl = measured("rl-sim", 12, 6, 4);
    rl.add(Way.GRAPH, result("rl-sim", "graph", 3, "same"));
    WorkloadMeasurement branches = measured("branches", 10, 5, 4);
    branches.add(Way.GRAPH, result("branches", "graph", 2.5, "same"));
    assertEquals(50.0, rl.agentOfGraphPercent(), 1e-9);
    Report report = report(List.of(rl, branches));
    String table = report.table();
    assertTrue(table.contains("graph ms") && table.contains("agent/graph"), table);
    String rlRow = table.lines().filter(l -> l.startsWith("rl-sim")).findFirst().orElseThrow();
    assertTrue(rlRow.contains("3.00 [2.70-3.60]") && rlRow.contains("4.00x") && rlRow.contains("50%"), rlRow);
    assertTrue(table.contains("(hand-tuned: 2.74x, graph by hand: 4.00x)"), table);

    JsonObject json = JsonParser.parseString(Files.readString(report.writeJson(dir))).getAsJsonObject();
    JsonObject first = json.getAsJsonArray("workloads").get(0).getAsJsonObject();
    assertEquals(3.0, first.get("graph_ms").getAsDouble(), 1e-9);
    assertEquals(4.0, first.get("graph_speedup").getAsDouble(), 1e-9);
    assertEquals(50.0, first.get("agent_of_graph_pct").getAsDouble(), 1e-9);
    assertEquals(4.0, json.getAsJsonObject("summary").get("graph_speedup_geomean").getAsDouble(), 1e-9);
  }

  @Test
  void aWorkloadWithoutAGraphTimeShowsADashAndLeavesNoGraphMean() {
    WorkloadMeasurement rl = measured("rl-sim", 12, 6, 4);
    rl.add(Way.GRAPH, result("rl-sim", "graph", 3, "same"));
    Report report = report(List.of(rl, measured("branches", 10, 5, 4)));
    assertTrue(Double.isNaN(report.geometricMeanSpeedup(Way.GRAPH)));
    String branchesRow = report.table().lines().filter(l -> l.startsWith("branches")).findFirst().orElseThrow();
    assertTrue(branchesRow.matches(".* - +2\\.00x +2\\.50x +- +80% +- +equal *"), branchesRow);
  }

  @Test
  void jsonFileReadsBackWithEveryField(@TempDir Path dir) throws Exception {
    WorkloadMeasurement rl = measured("rl-sim", 12, 6, 4);
    rl.journal(Way.AGENT, dir.resolve("journal"));
    WorkloadMeasurement broken = new WorkloadMeasurement("pipeline");
    broken.fail("serial: timed out");
    Path file = report(List.of(rl, measured("chain", 10, 10.5, 10), broken)).writeJson(dir);

    assertEquals(dir.resolve("NVIDIA-H100-80GB-HBM3.json"), file);
    JsonObject json = JsonParser.parseString(Files.readString(file)).getAsJsonObject();
    assertEquals("NVIDIA H100 80GB HBM3", json.get("device").getAsString());
    assertEquals("java Benchmark", json.get("command").getAsString());
    assertEquals("2025-01-01T00:00Z", json.get("timestamp").getAsString());
    assertEquals(5, json.getAsJsonObject("settings").get("rounds").getAsInt());
    JsonArray workloads = json.getAsJsonArray("workloads");
    assertEquals(3, workloads.size());

    JsonObject first = workloads.get(0).getAsJsonObject();
    assertEquals("rl-sim", first.get("name").getAsString());
    assertEquals("ok", first.get("status").getAsString());
    assertEquals("n=1024", first.get("sizes").getAsString());
    assertEquals(12.0, first.get("serial_ms").getAsDouble(), 1e-9);
    assertEquals(6.0, first.get("agent_ms").getAsDouble(), 1e-9);
    assertEquals(4.0, first.get("tuned_ms").getAsDouble(), 1e-9);
    assertTrue(first.get("outputs_equal").getAsBoolean());
    assertEquals(2.0, first.get("agent_speedup").getAsDouble(), 1e-9);
    assertEquals(3.0, first.get("tuned_speedup").getAsDouble(), 1e-9);
    assertEquals(66.6667, first.get("agent_of_tuned_pct").getAsDouble(), 1e-9);
    assertEquals(3, first.getAsJsonObject("serial_spread").get("n").getAsInt());
    assertEquals(11.04, first.getAsJsonObject("serial_spread").get("p10").getAsDouble(), 1e-9);
    assertEquals(10.8, first.getAsJsonObject("serial_spread").get("min").getAsDouble(), 1e-9);
    assertEquals(14.4, first.getAsJsonObject("serial_spread").get("max").getAsDouble(), 1e-9);
    assertEquals(List.of(12.0), gsonNumbers(first.getAsJsonArray("serial_jvm_medians")));
    assertEquals(3, first.getAsJsonArray("agent_reps").size());
    assertEquals(dir.resolve("journal").toString(), first.get("journal").getAsString());

    JsonObject failed = workloads.get(2).getAsJsonObject();
    assertEquals("failed: serial: timed out", failed.get("status").getAsString());
    assertTrue(failed.get("serial_ms").isJsonNull());
    assertFalse(failed.get("outputs_equal").getAsBoolean());

    JsonObject summary = json.getAsJsonObject("summary");
    assertEquals(2.0, summary.get("agent_speedup_geomean").getAsDouble(), 1e-9);
    assertEquals(5.0, summary.get("chain_overhead_pct").getAsDouble(), 1e-9);
    assertFalse(summary.get("all_ok").getAsBoolean());
  }

  @Test
  void hostTimePerLaunchIsTheMedianOverRunsAndTheExtraIsAgentLessPassthrough() {
    WorkloadMeasurement m = withHostTimes("rl-sim");
    assertEquals(7.25, m.launchHostMicros(Way.PASSTHROUGH), 1e-12);
    assertEquals(9.0, m.launchHostMicros(Way.AGENT), 1e-12);
    assertEquals(1.75, m.launchHostExtraMicros(), 1e-12);
    assertEquals(List.of("agent round 3"), m.journalStats(Way.AGENT), "the latest run's text is kept");
    assertTrue(Double.isNaN(measured("chain", 1, 1, 1).launchHostExtraMicros()));

    String table = report(List.of(m, measured("chain", 10, 10.5, 10))).hostTimeTable();
    String row = table.lines().filter(l -> l.startsWith("rl-sim")).findFirst().orElseThrow();
    assertEquals(
        List.of("rl-sim", "120", "7.25", "[7.00-7.50]", "9.00", "[8.50-9.50]", "+1.75", "0%", "-", "12.50", "[11.25-15.00]"),
        List.of(row.split("\\s+")));
    String chain = table.lines().filter(l -> l.startsWith("chain")).findFirst().orElseThrow();
    assertEquals(List.of("chain", "-", "-", "-", "-", "-", "-", "-"), List.of(chain.split("\\s+")));

    m.journalStats(Way.AGENT, List.of("agent round 4"), new LaunchHostTime(200, 3.0, 150, 1.5));
    row = report(List.of(m)).hostTimeTable().lines().filter(l -> l.startsWith("rl-sim")).findFirst().orElseThrow();
    assertEquals(List.of("75%", "1.50", "[1.50-1.50]"), List.of(row.split("\\s+")).subList(7, 10),
        "the share of the last run's launches replayed, and the replayed launches' host time");
  }

  @Test
  void startupLineGivesBothMediansAndThePairedSpreadOfTheExtra() {
    StartupCost cost = startup();
    assertEquals(740.0, cost.extraMs(), 1e-12);
    assertEquals(700.0, cost.pairedExtra().min(), 1e-12);
    assertEquals(780.0, cost.pairedExtra().max(), 1e-12);
    String line = report(List.of(), cost).startupLine();
    assertEquals(
        "start-up (CuInitMain, 3 JVMs each way, interleaved): 310 [300-320] ms without the agent,"
            + " 1050 [1000-1100] ms with it: +740 ms [pairs +700 to +780]\n",
        line);
    assertEquals("start-up: not measured\n", report(List.of()).startupLine());
    StartupCost failed = new StartupCost("X");
    failed.fail("with the agent, exit 3: no GPU");
    assertEquals("start-up: with the agent, exit 3: no GPU\n", report(List.of(), failed).startupLine());
  }

  @Test
  void jsonHasTheHostTimesAndTheStartupCost(@TempDir Path dir) throws Exception {
    Path file = report(List.of(withHostTimes("rl-sim")), startup()).writeJson(dir);
    JsonObject json = JsonParser.parseString(Files.readString(file)).getAsJsonObject();
    JsonObject host = json.getAsJsonArray("workloads").get(0).getAsJsonObject().getAsJsonObject("launch_host_time");
    assertEquals(7.25, host.getAsJsonObject("passthrough_us").get("median").getAsDouble(), 1e-9);
    assertEquals(7.0, host.getAsJsonObject("passthrough_us").get("min").getAsDouble(), 1e-9);
    assertEquals(9.5, host.getAsJsonObject("agent_us").get("max").getAsDouble(), 1e-9);
    assertEquals(List.of(100.0, 120.0), gsonNumbers(host.getAsJsonObject("agent_us").getAsJsonArray("launches")));
    assertEquals(1.75, host.get("extra_us").getAsDouble(), 1e-9);

    JsonObject startup = json.getAsJsonObject("startup");
    assertEquals("ok", startup.get("status").getAsString());
    assertEquals(3, startup.get("pairs").getAsInt());
    assertEquals(310.0, startup.getAsJsonObject("without_ms").get("median").getAsDouble(), 1e-9);
    assertEquals(1100.0, startup.getAsJsonObject("with_ms").get("max").getAsDouble(), 1e-9);
    assertEquals(740.0, startup.get("extra_ms").getAsDouble(), 1e-9);
    assertEquals(700.0, startup.getAsJsonObject("paired_extra_ms").get("min").getAsDouble(), 1e-9);
    assertEquals(List.of(300.0, 320.0, 310.0), gsonNumbers(startup.getAsJsonArray("without_runs_ms")));

    JsonObject summary = json.getAsJsonObject("summary");
    assertEquals(740.0, summary.get("startup_extra_ms").getAsDouble(), 1e-9);
    assertEquals(1.75, summary.get("launch_host_extra_us_max").getAsDouble(), 1e-9);
  }

  private static List<Double> gsonNumbers(JsonArray array) {
    List<Double> values = new java.util.ArrayList<>();
    array.forEach(e -> values.add(e.getAsDouble()));
    return values;
  }

  @Test
  void deviceNamesBecomeFileNames() {
    assertEquals("NVIDIA-H100-80GB-HBM3", DeviceName.toFileName("NVIDIA H100 80GB HBM3"));
    assertEquals("NVIDIA-H200", DeviceName.toFileName("  NVIDIA  H200 \n"));
    assertEquals("a-b-c", DeviceName.toFileName("a/b\\c"));
    assertEquals("unknown", DeviceName.toFileName("../"));
    assertEquals("unknown", DeviceName.toFileName(""));
  }
}
