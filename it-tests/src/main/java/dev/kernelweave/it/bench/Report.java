package dev.kernelweave.it.bench;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Function;

/**
 * The benchmark's results: the table, the JSON file and the chart. Immutable.
 *
 * @param device the GPU's name
 * @param timestamp when the benchmark started (ISO 8601)
 * @param command the benchmark's command line
 * @param settings how it ran (rounds, repetitions, agent...), written as they are, in their order
 * @param workloads what it measured: workloads and corpus programs
 * @param startup the agent's start-up cost, null where it was not measured
 * @param fileSuffix what the results files add to the device's name: empty, or {@code -short} for
 *     the short regime
 */
public record Report(
    String device,
    String timestamp,
    String command,
    Map<String, Object> settings,
    List<WorkloadMeasurement> workloads,
    StartupCost startup,
    String fileSuffix) {

  public Report {
    settings = Collections.unmodifiableMap(new LinkedHashMap<>(settings));
    workloads = List.copyOf(workloads);
  }

  /** The workloads whose speedups the geometric means cover: those that ran cleanly, chain aside. */
  public List<WorkloadMeasurement> speedupWorkloads() {
    return workloads.stream().filter(w -> !w.corpus() && w.ok() && !w.name().equals(WorkloadRunner.CHAIN)).toList();
  }

  /** The corpus programs that ran cleanly: the corpus geometric mean covers them. */
  public List<WorkloadMeasurement> speedupCorpus() {
    return workloads.stream().filter(w -> w.corpus() && w.ok()).toList();
  }

  /** The geometric mean of the agent's speedup over {@link #speedupCorpus()}. */
  public double corpusGeometricMeanSpeedup() {
    return RepetitionStats.geometricMean(speedupCorpus().stream().map(w -> w.speedup(Way.AGENT)).toList());
  }

  private List<WorkloadMeasurement> corpus() {
    return workloads.stream().filter(WorkloadMeasurement::corpus).toList();
  }

  /**
   * The geometric mean over {@link #speedupWorkloads()} of the speedup of {@code way}; NaN where one
   * of them has no time of that way (a way not required of a clean run, such as {@link Way#GRAPH}),
   * so that the mean always covers the same workloads as the agent's.
   */
  public double geometricMeanSpeedup(Way way) {
    List<Double> speedups = speedupWorkloads().stream().map(w -> w.speedup(way)).toList();
    return speedups.stream().allMatch(Double::isFinite) ? RepetitionStats.geometricMean(speedups) : Double.NaN;
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
    StringBuilder out = new StringBuilder();
    List<WorkloadMeasurement> measured = workloads.stream().filter(w -> !w.corpus()).toList();
    appendMeasured(
        out,
        new String[] {
          "workload", "serial ms", "agent ms", "tuned ms", "graph ms", "agent", "tuned", "graph", "agent/tuned",
          "agent/graph", "outputs"
        },
        measured,
        w -> new String[] {
          w.name(),
          time(w.summary(Way.SERIAL)),
          time(w.summary(Way.AGENT)),
          time(w.summary(Way.TUNED)),
          time(w.summary(Way.GRAPH)),
          times(w.speedup(Way.AGENT)),
          times(w.speedup(Way.TUNED)),
          times(w.speedup(Way.GRAPH)),
          percent(w.agentOfTunedPercent()),
          percent(w.agentOfGraphPercent()),
          outputs(w)
        });
    out.append("ms: median [min-max] of every timed repetition; speedups: serial median / median\n");
    appendFailures(out, measured);
    List<WorkloadMeasurement> covered = speedupWorkloads();
    out.append(
        String.format(
            Locale.ROOT,
            "agent speedup, geometric mean of %d workloads (chain excluded): %s (hand-tuned: %s, graph by hand: %s)%n",
            covered.size(),
            times(geometricMeanSpeedup(Way.AGENT)),
            times(geometricMeanSpeedup(Way.TUNED)),
            times(geometricMeanSpeedup(Way.GRAPH))));
    double overhead = chainOverheadPercent();
    out.append(
        Double.isNaN(overhead)
            ? "chain overhead: not measured\n"
            : String.format(Locale.ROOT, "chain overhead under the agent: %+.1f%%%n", overhead));
    if (!corpus().isEmpty()) {
      out.append('\n').append(corpusTable());
    }
    out.append('\n').append(hostTimeTable());
    out.append('\n').append(startupLine());
    return out.toString();
  }

  /** The corpus programs (serial and agent only: no hand-tuned twin), with their geometric mean. */
  public String corpusTable() {
    StringBuilder out = new StringBuilder();
    appendMeasured(
        out,
        new String[] {"corpus", "serial ms", "agent ms", "agent", "outputs"},
        corpus(),
        w -> new String[] {
          w.name(), time(w.summary(Way.SERIAL)), time(w.summary(Way.AGENT)), times(w.speedup(Way.AGENT)), outputs(w)
        });
    appendFailures(out, corpus());
    out.append(
        String.format(
            Locale.ROOT,
            "corpus: agent speedup, geometric mean of %d programs: %s%n",
            speedupCorpus().size(),
            times(corpusGeometricMeanSpeedup())));
    return out.toString();
  }

  /**
   * Host time per kernel launch with the agent scheduling and passing through, read from the
   * journals of the same benchmark run.
   */
  public String hostTimeTable() {
    List<String[]> rows = new ArrayList<>();
    rows.add(new String[] {
      "workload", "launches", "passthrough us", "agent us", "extra us", "in replays", "replayed us", "passthrough ms"});
    for (WorkloadMeasurement w : workloads) {
      List<LaunchHostTime> agent = w.launchHostTimes(Way.AGENT);
      List<LaunchHostTime> replayed = agent.stream().filter(t -> t.replayedLaunches() > 0).toList();
      LaunchHostTime last = agent.isEmpty() ? null : agent.get(agent.size() - 1);
      rows.add(
          new String[] {
            w.name(),
            last == null ? "-" : Long.toString(last.launches()),
            micros(w.launchHostTimes(Way.PASSTHROUGH)),
            micros(agent),
            Double.isFinite(w.launchHostExtraMicros())
                ? String.format(Locale.ROOT, "%+.2f", w.launchHostExtraMicros())
                : "-",
            last == null || last.launches() == 0
                ? "-"
                : String.format(Locale.ROOT, "%.0f%%", 100.0 * last.replayedLaunches() / last.launches()),
            replayed.isEmpty()
                ? "-"
                : micros(RepetitionStats.summarize(replayed.stream().map(LaunchHostTime::replayedMeanMicros).toList())),
            time(w.summary(Way.PASSTHROUGH))
          });
    }
    StringBuilder out = new StringBuilder();
    out.append("host time per kernel launch, from the journals (each run's mean over the launches of its\n");
    out.append("timed repetitions, as the times; median [min-max] over runs); passthrough: the agent only journals, each\n");
    out.append("launch made by JCuda at once; in replays: the share of the agent's launches held and\n");
    out.append("replayed as CUDA graphs (last run), replayed us: their host time alone, leaving out the\n");
    out.append("windows that captured their graph (once per window shape; agent us counts them)\n");
    appendRows(out, rows, false);
    return out.toString();
  }

  /** The start-up cost in one line (two where it failed). */
  public String startupLine() {
    if (startup == null) {
      return "start-up: not measured\n";
    }
    StringBuilder out = new StringBuilder();
    if (startup.pairs() > 0) {
      RepetitionStats.Summary extra = startup.pairedExtra();
      out.append(
          String.format(
              Locale.ROOT,
              "start-up (%s, %d JVMs each way, interleaved): %s ms without the agent, %s ms with it:"
                  + " %+.0f ms [pairs %+.0f to %+.0f]%n",
              startup.program().substring(startup.program().lastIndexOf('.') + 1),
              startup.pairs(),
              wholeMs(startup.without()),
              wholeMs(startup.with()),
              startup.extraMs(),
              extra.min(),
              extra.max()));
    }
    if (startup.failure() != null) {
      out.append("start-up: ").append(startup.failure()).append('\n');
    }
    return out.toString();
  }

  /**
   * Appends the table of {@code measured}: {@code header}, then a row a workload, {@code cells} of
   * it, or where it failed its name and {@code failed} with the other cells empty.
   */
  private static void appendMeasured(
      StringBuilder out,
      String[] header,
      List<WorkloadMeasurement> measured,
      Function<WorkloadMeasurement, String[]> cells) {
    List<String[]> rows = new ArrayList<>();
    rows.add(header);
    for (WorkloadMeasurement w : measured) {
      if (w.failure() == null) {
        rows.add(cells.apply(w));
      } else {
        String[] failed = new String[header.length];
        Arrays.fill(failed, "");
        failed[0] = w.name();
        failed[1] = "failed";
        rows.add(failed);
      }
    }
    appendRows(out, rows, true);
  }

  /** Appends a line {@code failed NAME: why} for each of {@code measured} that failed or whose outputs differ. */
  private static void appendFailures(StringBuilder out, List<WorkloadMeasurement> measured) {
    for (WorkloadMeasurement w : measured) {
      if (w.failure() != null) {
        out.append("failed ").append(w.name()).append(": ").append(w.failure()).append('\n');
      } else if (!w.outputsEqual()) {
        out.append("failed ").append(w.name()).append(": outputs differ: ").append(w.outputDifference()).append('\n');
      }
    }
  }

  private static String outputs(WorkloadMeasurement w) {
    return w.outputsEqual() ? "equal" : "DIFFER";
  }

  /**
   * Appends {@code rows} as aligned columns: text (the first column, and the last where {@code
   * lastIsText}) aligned left, numbers right.
   */
  private static void appendRows(StringBuilder out, List<String[]> rows, boolean lastIsText) {
    int[] widths = new int[rows.get(0).length];
    for (String[] row : rows) {
      for (int c = 0; c < row.length; c++) {
        widths[c] = Math.max(widths[c], row[c].length());
      }
    }
    for (String[] row : rows) {
      StringBuilder line = new StringBuilder();
      for (int c = 0; c < row.length; c++) {
        boolean left = c == 0 || (lastIsText && c == row.length - 1);
        line.append(left ? pad(row[c], widths[c]) : padLeft(row[c], widths[c])).append("  ");
      }
      out.append(line.toString().stripTrailing()).append('\n');
    }
  }

  /** The results as JSON values (maps, lists, strings, numbers). */
  public Map<String, Object> toJson() {
    Map<String, Object> json = new LinkedHashMap<>();
    json.put("device", device);
    json.put("timestamp", timestamp);
    json.put("command", command);
    json.put("settings", settings);
    List<Object> rows = new ArrayList<>();
    List<Object> corpusRows = new ArrayList<>();
    for (WorkloadMeasurement w : workloads) {
      (w.corpus() ? corpusRows : rows).add(workloadJson(w));
    }
    json.put("workloads", rows);
    json.put("corpus", corpusRows);
    Map<String, Object> summary = new LinkedHashMap<>();
    summary.put("geomean_workloads", speedupWorkloads().stream().map(WorkloadMeasurement::name).toList());
    summary.put("agent_speedup_geomean", round(geometricMeanSpeedup(Way.AGENT)));
    summary.put("tuned_speedup_geomean", round(geometricMeanSpeedup(Way.TUNED)));
    summary.put("graph_speedup_geomean", round(geometricMeanSpeedup(Way.GRAPH)));
    summary.put("chain_overhead_pct", round(chainOverheadPercent()));
    summary.put("geomean_corpus", speedupCorpus().stream().map(WorkloadMeasurement::name).toList());
    summary.put("corpus_agent_speedup_geomean", round(corpusGeometricMeanSpeedup()));
    summary.put(
        "launch_host_extra_us_max",
        round(
            workloads.stream()
                .mapToDouble(WorkloadMeasurement::launchHostExtraMicros)
                .filter(Double::isFinite)
                .max()
                .orElse(Double.NaN)));
    summary.put("startup_extra_ms", startup == null ? null : round(startup.extraMs()));
    summary.put("all_ok", workloads.stream().allMatch(WorkloadMeasurement::ok));
    json.put("summary", summary);
    json.put("startup", startupJson());
    return json;
  }

  private Map<String, Object> startupJson() {
    Map<String, Object> json = new LinkedHashMap<>();
    if (startup == null) {
      json.put("status", "not measured");
      return json;
    }
    json.put("status", startup.failure() == null ? "ok" : "failed: " + startup.failure());
    json.put("program", startup.program());
    json.put("pairs", startup.pairs());
    json.put("without_ms", spread(startup.without()));
    json.put("with_ms", spread(startup.with()));
    json.put("extra_ms", round(startup.extraMs()));
    json.put("paired_extra_ms", spread(startup.pairedExtra()));
    json.put("without_runs_ms", startup.withoutMs().stream().map(Report::round).toList());
    json.put("with_runs_ms", startup.withMs().stream().map(Report::round).toList());
    return json;
  }

  /** Median and extremes, with the sample size; empty for no sample. */
  private static Map<String, Object> spread(RepetitionStats.Summary s) {
    Map<String, Object> spread = new LinkedHashMap<>();
    if (s != null) {
      spread.put("min", round(s.min()));
      spread.put("median", round(s.median()));
      spread.put("max", round(s.max()));
      spread.put("n", s.n());
    }
    return spread;
  }

  private static Map<String, Object> launchHostJson(WorkloadMeasurement w) {
    Map<String, Object> json = new LinkedHashMap<>();
    for (Way way : List.of(Way.PASSTHROUGH, Way.AGENT)) {
      List<LaunchHostTime> runs = w.launchHostTimes(way);
      Map<String, Object> row =
          spread(runs.isEmpty() ? null : RepetitionStats.summarize(runs.stream().map(LaunchHostTime::meanMicros).toList()));
      row.put("launches", runs.stream().map(LaunchHostTime::launches).toList());
      json.put(way.label() + "_us", row);
    }
    List<LaunchHostTime> replayed =
        w.launchHostTimes(Way.AGENT).stream().filter(t -> t.replayedLaunches() > 0).toList();
    Map<String, Object> replay =
        spread(replayed.isEmpty() ? null : RepetitionStats.summarize(replayed.stream().map(LaunchHostTime::replayedMeanMicros).toList()));
    replay.put("launches", replayed.stream().map(LaunchHostTime::replayedLaunches).toList());
    json.put("agent_in_replay_us", replay);
    json.put("extra_us", round(w.launchHostExtraMicros()));
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
      RepetitionStats.Summary s = w.summary(way);
      row.put(way.label() + "_ms", s == null ? null : round(s.median()));
    }
    row.put("outputs_equal", w.outputsEqual());
    row.put("agent_speedup", round(w.speedup(Way.AGENT)));
    row.put("tuned_speedup", round(w.speedup(Way.TUNED)));
    row.put("agent_of_tuned_pct", round(w.agentOfTunedPercent()));
    row.put("graph_speedup", round(w.speedup(Way.GRAPH)));
    row.put("agent_of_graph_pct", round(w.agentOfGraphPercent()));
    row.put("agent_overhead_pct", round(w.agentOverheadPercent()));
    for (Way way : Way.values()) {
      RepetitionStats.Summary s = w.summary(way);
      Map<String, Object> spread = new LinkedHashMap<>();
      if (s != null) {
        spread.put("min", round(s.min()));
        spread.put("p10", round(s.p10()));
        spread.put("median", round(s.median()));
        spread.put("p90", round(s.p90()));
        spread.put("max", round(s.max()));
        spread.put("mad", round(s.mad()));
        spread.put("n", s.n());
      }
      row.put(way.label() + "_spread", spread);
    }
    for (Way way : Way.values()) {
      row.put(way.label() + "_reps", w.times(way));
    }
    for (Way way : Way.values()) {
      row.put(way.label() + "_jvm_medians", w.runMedians(way).stream().map(Report::round).toList());
    }
    row.put("launch_host_time", launchHostJson(w));
    Map<String, Object> checksums = new LinkedHashMap<>();
    for (Way way : Way.values()) {
      checksums.put(way.label(), List.copyOf(w.checksums(way)));
    }
    row.put("checksums", checksums);
    row.put("journal", w.journal(Way.AGENT) == null ? null : w.journal(Way.AGENT).toString());
    row.put(
        "passthrough_journal",
        w.journal(Way.PASSTHROUGH) == null ? null : w.journal(Way.PASSTHROUGH).toString());
    return row;
  }

  /** The file name both outputs share: the device name made safe. */
  public String baseName() {
    return DeviceName.toFileName(device) + fileSuffix;
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

  static String time(RepetitionStats.Summary s) {
    return s == null ? "-" : ms(s.median()) + " [" + ms(s.min()) + "-" + ms(s.max()) + "]";
  }

  /** Microseconds per launch over runs: median [min-max]. */
  static String micros(List<LaunchHostTime> runs) {
    if (runs.isEmpty()) {
      return "-";
    }
    return micros(RepetitionStats.summarize(runs.stream().map(LaunchHostTime::meanMicros).toList()));
  }

  static String micros(RepetitionStats.Summary s) {
    return String.format(Locale.ROOT, "%.2f [%.2f-%.2f]", s.median(), s.min(), s.max());
  }

  /** Whole milliseconds: median [min-max]. */
  static String wholeMs(RepetitionStats.Summary s) {
    return String.format(Locale.ROOT, "%.0f [%.0f-%.0f]", s.median(), s.min(), s.max());
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
