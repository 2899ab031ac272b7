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
        name, variant, "bench", "n=1024", List.of(median * 0.9, median, median * 1.2), checksum, "ok");
  }

  static Report report(List<WorkloadMeasurement> workloads) {
    return new Report("NVIDIA H100 80GB HBM3", "2025-01-01T00:00Z", "java Benchmark", Map.of("rounds", 5), workloads);
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
    assertTrue(table.contains("12.00 [11.04-13.92]"), table);
    assertTrue(table.contains("2.00x"), table);
    assertTrue(table.contains("3.00x"), table);
    assertTrue(table.contains("67%"), table);
    assertTrue(table.contains("failed pipeline: serial: exit 1: reference mismatch"), table);
    assertTrue(table.contains("geometric mean of 1 workloads (chain excluded): 2.00x (hand-tuned: 3.00x)"), table);
    assertTrue(table.contains("chain overhead under the agent: +5.0%"), table);
  }

  @Test
  void jsonFileReadsBackWithEveryField(@TempDir Path dir) throws Exception {
    WorkloadMeasurement rl = measured("rl-sim", 12, 6, 4);
    rl.journal(dir.resolve("journal"));
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
  void deviceNamesBecomeFileNames() {
    assertEquals("NVIDIA-H100-80GB-HBM3", DeviceName.toFileName("NVIDIA H100 80GB HBM3"));
    assertEquals("NVIDIA-H200", DeviceName.toFileName("  NVIDIA  H200 \n"));
    assertEquals("a-b-c", DeviceName.toFileName("a/b\\c"));
    assertEquals("unknown", DeviceName.toFileName("../"));
    assertEquals("unknown", DeviceName.toFileName(""));
  }
}
