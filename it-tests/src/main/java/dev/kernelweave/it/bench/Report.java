package dev.kernelweave.it.bench;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/** The benchmark's results: the table, the JSON file and the chart. */
public final class Report {
  private final String device;
  private final String timestamp;
  private final String command;
  private final Map<String, Object> settings;
  private final List<WorkloadMeasurement> workloads;

  /**
   * @param device the GPU's name
   * @param timestamp when the benchmark started (ISO 8601)
   * @param command the benchmark's command line
   * @param settings how it ran (rounds, repetitions, agent...), written as they are
   * @param workloads what it measured
   */
  public Report(
      String device, String timestamp, String command, Map<String, Object> settings, List<WorkloadMeasurement> workloads) {
    this.device = device;
    this.timestamp = timestamp;
    this.command = command;
    this.settings = new LinkedHashMap<>(settings);
    this.workloads = List.copyOf(workloads);
  }

  /** The workloads whose speedups the geometric means cover: those that ran cleanly, chain aside. */
  public List<WorkloadMeasurement> speedupWorkloads() {
    return workloads.stream().filter(w -> w.ok() && !w.name().equals(WorkloadRunner.CHAIN)).toList();
  }

  /** The geometric mean over {@link #speedupWorkloads()} of the speedup of {@code way}. */
  public double geometricMeanSpeedup(Way way) {
    return Stats.geometricMean(speedupWorkloads().stream().map(w -> w.speedup(way)).toList());
  }

  /** The agent's overhead on chain in percent, NaN where chain did not run cleanly. */
  public double chainOverheadPercent() {
    return workloads.stream()
        .filter(w -> w.ok() && w.name().equals(WorkloadRunner.CHAIN))
        .mapToDouble(WorkloadMeasurement::agentOverheadPercent)
        .findFirst()
        .orElse(Double.NaN);
  }

  /** The results as a text table, with the summary lines under it. */
  public String table() {
    List<String[]> rows = new ArrayList<>();
    rows.add(new String[] {"workload", "serial ms", "agent ms", "tuned ms", "agent", "tuned", "agent/tuned", "outputs"});
    List<String> failures = new ArrayList<>();
    for (WorkloadMeasurement w : workloads) {
      if (w.failure() != null) {
        rows.add(new String[] {w.name(), "failed", "", "", "", "", "", ""});
        failures.add(w.name() + ": " + w.failure());
        continue;
      }
      rows.add(
          new String[] {
            w.name(),
            time(w.summary(Way.SERIAL)),
            time(w.summary(Way.AGENT)),
            time(w.summary(Way.TUNED)),
            times(w.speedup(Way.AGENT)),
            times(w.speedup(Way.TUNED)),
            percent(w.agentOfTunedPercent()),
            w.outputsEqual() ? "equal" : "DIFFER"
          });
    }
    int[] widths = new int[rows.get(0).length];
    for (String[] row : rows) {
      for (int c = 0; c < row.length; c++) {
        widths[c] = Math.max(widths[c], row[c].length());
      }
    }
    StringBuilder out = new StringBuilder();
    for (String[] row : rows) {
      StringBuilder line = new StringBuilder();
      for (int c = 0; c < row.length; c++) {
        String cell = c == 0 || c == row.length - 1 ? pad(row[c], widths[c]) : padLeft(row[c], widths[c]);
        line.append(cell).append("  ");
      }
      out.append(line.toString().stripTrailing()).append('\n');
    }
    out.append("ms: median [p10-p90] of every timed repetition; speedups: serial median / median\n");
    for (WorkloadMeasurement w : workloads) {
      if (w.failure() == null && !w.outputsEqual()) {
        failures.add(w.name() + ": outputs differ: " + w.outputDifference());
      }
    }
    for (String failure : failures) {
      out.append("failed ").append(failure).append('\n');
    }
    List<WorkloadMeasurement> covered = speedupWorkloads();
    out.append(
        String.format(
            Locale.ROOT,
            "agent speedup, geometric mean of %d workloads (chain excluded): %s (hand-tuned: %s)%n",
            covered.size(),
            times(geometricMeanSpeedup(Way.AGENT)),
            times(geometricMeanSpeedup(Way.TUNED))));
    double overhead = chainOverheadPercent();
    out.append(
        Double.isNaN(overhead)
            ? "chain overhead: not measured\n"
            : String.format(Locale.ROOT, "chain overhead under the agent: %+.1f%%%n", overhead));
    return out.toString();
  }

  /** The results as JSON values (maps, lists, strings, numbers). */
  public Map<String, Object> toJson() {
    Map<String, Object> json = new LinkedHashMap<>();
    json.put("device", device);
    json.put("timestamp", timestamp);
    json.put("command", command);
    json.put("settings", settings);
    List<Object> rows = new ArrayList<>();
    for (WorkloadMeasurement w : workloads) {
      rows.add(workloadJson(w));
    }
    json.put("workloads", rows);
    Map<String, Object> summary = new LinkedHashMap<>();
    summary.put("geomean_workloads", speedupWorkloads().stream().map(WorkloadMeasurement::name).toList());
    summary.put("agent_speedup_geomean", round(geometricMeanSpeedup(Way.AGENT)));
    summary.put("tuned_speedup_geomean", round(geometricMeanSpeedup(Way.TUNED)));
    summary.put("chain_overhead_pct", round(chainOverheadPercent()));
    summary.put("all_ok", workloads.stream().allMatch(WorkloadMeasurement::ok));
    json.put("summary", summary);
    return json;
  }

  private static Map<String, Object> workloadJson(WorkloadMeasurement w) {
    Map<String, Object> row = new LinkedHashMap<>();
    row.put("name", w.name());
    row.put(
        "status",
        w.failure() != null ? "failed: " + w.failure() : w.outputsEqual() ? "ok" : "outputs differ: " + w.outputDifference());
    row.put("sizes", w.sizes());
    for (Way way : Way.values()) {
      Stats.Summary s = w.summary(way);
      row.put(way.label() + "_ms", s == null ? null : round(s.median()));
    }
    row.put("outputs_equal", w.outputsEqual());
    row.put("agent_speedup", round(w.speedup(Way.AGENT)));
    row.put("tuned_speedup", round(w.speedup(Way.TUNED)));
    row.put("agent_of_tuned_pct", round(w.agentOfTunedPercent()));
    row.put("agent_overhead_pct", round(w.agentOverheadPercent()));
    for (Way way : Way.values()) {
      Stats.Summary s = w.summary(way);
      Map<String, Object> spread = new LinkedHashMap<>();
      if (s != null) {
        spread.put("p10", round(s.p10()));
        spread.put("p90", round(s.p90()));
        spread.put("mad", round(s.mad()));
        spread.put("n", s.n());
      }
      row.put(way.label() + "_spread", spread);
    }
    for (Way way : Way.values()) {
      row.put(way.label() + "_reps", w.times(way));
    }
    Map<String, Object> checksums = new LinkedHashMap<>();
    for (Way way : Way.values()) {
      checksums.put(way.label(), List.copyOf(w.checksums(way)));
    }
    row.put("checksums", checksums);
    row.put("journal", w.journal() == null ? null : w.journal().toString());
    return row;
  }

  /** The file name both outputs share: the device name made safe. */
  public String baseName() {
    return DeviceName.toFileName(device);
  }

  /** Writes {@code <device>.json} into {@code dir} and returns its path. */
  public Path writeJson(Path dir) throws IOException {
    Files.createDirectories(dir);
    Path file = dir.resolve(baseName() + ".json");
    Files.writeString(file, Json.write(toJson()), StandardCharsets.UTF_8);
    return file;
  }

  /**
   * Writes {@code <device>.png} into {@code dir} and returns its path; null where this Java runtime
   * cannot draw (no {@code java.desktop} module), after saying how to draw it from the JSON file.
   */
  public Path writeChart(Path dir) throws IOException {
    Path file = dir.resolve(baseName() + ".png");
    if (!canDraw()) {
      return null;
    }
    if (!SpeedupChart.write(toJson(), file)) {
      System.err.println("chart: this Java runtime has no fonts; the chart has bars but no labels");
    }
    return file;
  }

  /**
   * Whether this Java runtime can draw: it has the {@code java.desktop} module (a runtime made with
   * jlink may not). Asked here, not in {@link SpeedupChart}, which cannot even load without it.
   */
  public static boolean canDraw() {
    return ModuleLayer.boot().findModule("java.desktop").isPresent();
  }

  static String time(Stats.Summary s) {
    return s == null ? "-" : ms(s.median()) + " [" + ms(s.p10()) + "-" + ms(s.p90()) + "]";
  }

  static String ms(double v) {
    return String.format(Locale.ROOT, v < 1 ? "%.3f" : v < 100 ? "%.2f" : "%.1f", v);
  }

  static String times(double v) {
    return Double.isFinite(v) ? String.format(Locale.ROOT, "%.2fx", v) : "-";
  }

  static String percent(double v) {
    return Double.isFinite(v) ? String.format(Locale.ROOT, "%.0f%%", v) : "-";
  }

  private static Object round(double v) {
    return Double.isFinite(v) ? Math.round(v * 1e4) / 1e4 : null;
  }

  private static String pad(String s, int width) {
    return s + " ".repeat(width - s.length());
  }

  private static String padLeft(String s, int width) {
    return " ".repeat(width - s.length()) + s;
  }
}
