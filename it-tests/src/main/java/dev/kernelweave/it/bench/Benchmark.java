package dev.kernelweave.it.bench;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.OffsetDateTime;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Stream;

/**
 * The benchmark: every workload serial without the agent, serial with the agent scheduling,
 * hand-tuned without the agent, serial with the agent passing through, and its graph twin without
 * the agent, and every corpus
 * program serial without and with the agent, each in fresh JVMs, interleaved round by round, in
 * each regime asked for (short, warmed); the host time per launch from the agent ways' journals;
 * and the agent's start-up cost. See {@link BenchmarkOptions#HELP} for the command line.
 */
public final class Benchmark {

  /** Exit status where a workload failed or its outputs differed. */
  public static final int FAILED = 1;

  /** Exit status for bad arguments or nothing to run. */
  public static final int USAGE = 2;

  private static final int TAIL_LINES = 25;

  private final BenchmarkOptions options;
  private final WorkloadRunner runner;
  private final Path journals;
  private final Path agent;
  private final PrintStream out;

  private Benchmark(BenchmarkOptions options, WorkloadRunner runner, Path journals, Path agent, PrintStream out) {
    this.options = options;
    this.runner = runner;
    this.journals = journals;
    this.agent = agent;
    this.out = out;
  }

  public static void main(String[] args) {
    System.exit(run(args, System.out));
  }

  /** Runs the benchmark and returns its exit status. */
  public static int run(String[] args, PrintStream out) {
    BenchmarkOptions options;
    try {
      options = BenchmarkOptions.parse(args);
    } catch (IllegalArgumentException e) {
      out.println("benchmark: " + e.getMessage() + " (see --help)");
      return USAGE;
    }
    if (options.help()) {
      out.print(BenchmarkOptions.HELP);
      return 0;
    }
    ProjectLayout layout = ProjectLayout.discover();
    Path agent = (options.agent() != null ? options.agent() : layout.agentJar()).toAbsolutePath();
    if (!Files.isRegularFile(agent)) {
      out.println("benchmark: no agent jar at " + agent + ": build with 'mvn -q -B -DskipTests package' or pass --agent");
      return USAGE;
    }
    String classPath = options.classPath() != null ? options.classPath() : ProjectLayout.workloadClassPath();
    if (classPath.isEmpty()) {
      out.println(
          "benchmark: the workloads (kernels) are not on this JVM's class path: run it with"
              + " -cp 'it-tests/target/classes:it-tests/target/lib/*' after 'mvn -q -B -DskipTests package',"
              + " or pass --classpath");
      return USAGE;
    }
    String device = options.device() != null ? options.device() : DeviceName.detect();
    Path resultsDir = options.out() != null ? options.out() : layout.resultsDir();
    String timestamp = OffsetDateTime.now().truncatedTo(ChronoUnit.SECONDS).toString();
    Path journals;
    try {
      journals =
          options.journals() != null
              ? Files.createDirectories(options.journals())
              : Files.createTempDirectory("kernelweave-bench-");
    } catch (IOException e) {
      out.println("benchmark: cannot create a folder for the journals: " + e);
      return USAGE;
    }
    WorkloadRunner runner =
        new WorkloadRunner(
            new Jvm(options.java(), options.timeoutSeconds()),
            classPath,
            options.mainClass(),
            agent,
            options.agentOptions(),
            options.jvmArgs());
    Benchmark benchmark = new Benchmark(options, runner, journals, agent, out);

    if (options.workloads().isEmpty() && options.corpus().isEmpty()) {
      out.printf("device %s; start-up only%nagent %s=%s%n%n", device, agent, options.agentOptions());
      StartupCost startup = benchmark.measureStartup();
      out.println();
      out.print(new Report(device, timestamp, commandLine(args), settings(options, agent, classPath, null), List.of(), startup, "")
          .startupLine());
      return startup.failure() == null ? 0 : FAILED;
    }
    Map<BenchmarkOptions.Regime, List<WorkloadMeasurement>> measuredByRegime = new LinkedHashMap<>();
    for (BenchmarkOptions.Regime regime : options.regimes()) {
      out.printf(
          "regime %s; device %s; %d rounds x (%d warm-ups and more for %d ms, then %d reps) per way; size %s%n"
              + "agent %s=%s (and mode=passthrough for the workloads)%nworkload class path %s%n%n",
          regime.name(), device, options.rounds(), regime.warmup(), regime.warmupMillis(), options.reps(), options.size(),
          agent, options.agentOptions(), classPath);
      List<WorkloadMeasurement> toMeasure = new ArrayList<>();
      options.workloads().forEach(workload -> toMeasure.add(new WorkloadMeasurement(workload)));
      options.corpus().forEach(program -> toMeasure.add(new WorkloadMeasurement(program, true)));
      for (WorkloadMeasurement m : toMeasure) {
        if (benchmark.measure(m, regime) == null) {
          return WorkloadRunner.NO_GPU;
        }
      }
      measuredByRegime.put(regime, toMeasure);
    }
    StartupCost startup = options.startupRuns() > 0 ? benchmark.measureStartup() : null;

    int status = 0;
    for (Map.Entry<BenchmarkOptions.Regime, List<WorkloadMeasurement>> entry : measuredByRegime.entrySet()) {
      BenchmarkOptions.Regime regime = entry.getKey();
      List<WorkloadMeasurement> measured = entry.getValue();
      Report report =
          new Report(device, timestamp, commandLine(args), settings(options, agent, classPath, regime), measured, startup,
              regime.fileSuffix());
      out.println();
      if (options.regimes().size() > 1) {
        out.printf("== regime %s (%d warm-ups, %d ms)%n", regime.name(), regime.warmup(), regime.warmupMillis());
      }
      out.print(report.table());
      out.println();
      if (!measured.stream().allMatch(WorkloadMeasurement::ok)) {
        status = FAILED;
      }
      if (measured.stream().noneMatch(WorkloadMeasurement::ok)) {
        // Keep an earlier results file of this device rather than replace it with nothing.
        out.println("no results written: no workload ran cleanly");
      } else {
        try {
          Path json = report.writeJson(resultsDir);
          out.println("results: " + json);
          Path chart = report.writeChart(resultsDir);
          out.println(
              chart != null
                  ? "chart:   " + chart
                  : "chart:   not drawn: this Java runtime has no java.desktop module; draw it where there is one with\n"
                      + "         java -cp it-tests/target/classes dev.kernelweave.it.bench.SpeedupChart " + json);
        } catch (IOException | RuntimeException e) {
          out.println("benchmark: could not write the results to " + resultsDir + ": " + e);
          status = FAILED;
        }
      }
      printJournals(measured, report.baseName(), resultsDir, agent, out);
    }
    return status;
  }

  /** Where each workload's last agent journal is, and its {@code inspect stats} saved beside the results. */
  private static void printJournals(
      List<WorkloadMeasurement> measured, String baseName, Path resultsDir, Path agent, PrintStream out) {
    out.println("last agent journal of each workload (java -jar " + agent + " inspect stats DIR):");
    for (WorkloadMeasurement m : measured) {
      out.println("  " + m.name() + ": " + (m.journal(Way.AGENT) == null ? "none" : m.journal(Way.AGENT)));
    }
    writeJournalStats(measured, resultsDir.resolve(baseName + "-journal-stats.txt"), out);
  }

  /**
   * Saves {@code inspect stats} of each workload's last journal of each agent way next to the
   * results, since the journals themselves stay in a temporary folder (on the GPU machine, one that
   * does not outlive the session).
   */
  private static void writeJournalStats(List<WorkloadMeasurement> measured, Path file, PrintStream out) {
    StringBuilder text = new StringBuilder();
    for (WorkloadMeasurement m : measured) {
      for (Way way : List.of(Way.AGENT, Way.PASSTHROUGH)) {
        if (m.journalStats(way).isEmpty()) {
          continue;
        }
        text.append("== ").append(m.name()).append(way == Way.AGENT ? "" : " " + way.label());
        text.append(": ").append(m.journal(way)).append('\n');
        m.journalStats(way).forEach(line -> text.append(line).append('\n'));
        text.append('\n');
      }
    }
    if (text.length() == 0) {
      return;
    }
    try {
      Files.createDirectories(file.toAbsolutePath().getParent());
      Files.writeString(file, text);
      out.println("journal stats: " + file);
    } catch (IOException e) {
      out.println("benchmark: could not write " + file + ": " + e);
    }
  }

  /**
   * Runs one workload or corpus program every way it runs ({@link WorkloadMeasurement#ways}),
   * round after round, each JVM warming up as {@code regime} says, into {@code m}. Returns null
   * where there is no GPU (after saying so), and {@code m} failed at the first run that does not
   * count.
   */
  private WorkloadMeasurement measure(WorkloadMeasurement m, BenchmarkOptions.Regime regime) {
    String workload = m.name();
    for (int round = 0; round < options.rounds(); round++) {
      String heading = String.format("%-10s round %d/%d: ", workload, round + 1, options.rounds());
      List<String> medians = new ArrayList<>();
      for (Way way : rotation(round, m.ways())) {
        Path journal = null;
        if (way.withAgent()) {
          journal = journals.resolve(
              workload + regime.fileSuffix() + (way.passthrough() ? "-passthrough" : "") + "-round" + (round + 1));
          deleteTree(m.journal(way));
          m.journal(way, journal);
        }
        WorkloadRunner.Attempt attempt =
            runner.run(workload, way, options.size(), regime.warmup(), regime.warmupMillis(), options.reps(), journal);
        if (attempt.noGpu()) {
          out.println("benchmark: no GPU (" + attempt.lastLine() + ")");
          return null;
        }
        if (!attempt.ok()) {
          if (!medians.isEmpty()) {
            out.println(heading + String.join(", ", medians));
          }
          out.println(workload + " " + way.label() + " failed: " + attempt.problem());
          out.print(attempt.run().describeFailure(TAIL_LINES));
          m.fail(way.label() + ": " + attempt.problem());
          return m;
        }
        m.add(way, attempt.result());
        int warmups = attempt.result().warmups();
        medians.add(way.label() + " " + Report.ms(RepetitionStats.median(attempt.result().ms())) + " ms"
            + (warmups >= 0 ? " (" + warmups + " warm-ups)" : ""));
        if (way.withAgent()) {
          readJournal(m, way, journal, attempt.result().timedFrom());
        }
      }
      out.println(heading + String.join(", ", medians));
    }
    out.println(workload + ": " + m.sizes() + (m.outputsEqual() ? "" : "; OUTPUTS DIFFER: " + m.outputDifference()));
    return m;
  }

  /**
   * Reads one run's journal with {@code inspect stats}, from {@code timedFrom} on where the run said
   * when its timed repetitions began (the host times then cover the repetitions the times do, not
   * the warm-ups): the text is kept for the results folder, the launches' host time for the table.
   * A journal that cannot be read is said so in the kept text, and its run has no host time.
   */
  private void readJournal(WorkloadMeasurement m, Way way, Path journal, String timedFrom) {
    if (!Files.isDirectory(journal)) {
      return;
    }
    List<String> command = new ArrayList<>(List.of("-jar", agent.toString(), "inspect", "stats", journal.toString()));
    if (timedFrom != null) {
      command.addAll(List.of("--since", timedFrom));
    }
    Jvm.Run stats = new Jvm(options.java(), options.timeoutSeconds()).run(command);
    List<String> lines = new ArrayList<>();
    if (stats.exitCode() != 0) {
      lines.add("(inspect stats: exit " + stats.exitCode() + ")");
    }
    lines.addAll(stats.lines());
    m.journalStats(way, lines, stats.exitCode() == 0 ? LaunchHostTime.parse(stats.lines()) : null);
  }

  /**
   * Starts the program that only calls {@code cuInit} without and with the agent, in pairs whose
   * order alternates, and returns the times. Stops at the first run that fails.
   */
  private StartupCost measureStartup() {
    StartupCost cost = new StartupCost(options.startupMain());
    for (int i = 0; i < options.startupRuns(); i++) {
      Path journal = journals.resolve("startup-" + (i + 1));
      double[] ms = new double[2];
      // Even pairs start without the agent, odd ones with it: neither always runs first.
      for (int k = 0; k < 2; k++) {
        boolean withAgent = (i + k) % 2 == 1;
        WorkloadRunner.Timed t = runner.runProgram(options.startupMain(), withAgent, withAgent ? journal : null);
        if (t.run().exitCode() != 0) {
          String why =
              (withAgent ? "with" : "without") + " the agent, exit " + t.run().exitCode() + ": " + t.run().lastLine();
          out.println("start-up run failed " + why);
          out.print(t.run().describeFailure(TAIL_LINES));
          cost.fail(why);
          deleteTree(journal);
          return cost;
        }
        ms[withAgent ? 1 : 0] = t.ms();
      }
      deleteTree(journal);
      cost.add(ms[0], ms[1]);
      out.printf(
          Locale.ROOT, "start-up %d/%d: %.0f ms without the agent, %.0f ms with it%n",
          i + 1, options.startupRuns(), ms[0], ms[1]);
    }
    return cost;
  }

  /** The ways, starting one further along each round, so that no way always goes first. */
  static List<Way> rotation(int round) {
    return rotation(round, List.of(Way.values()));
  }

  /** {@code ways}, starting one further along each round. */
  static List<Way> rotation(int round, List<Way> ways) {
    List<Way> order = new ArrayList<>();
    for (int i = 0; i < ways.size(); i++) {
      order.add(ways.get((round + i) % ways.size()));
    }
    return order;
  }

  /** How the benchmark ran; {@code regime} null for the start-up cost alone. */
  private static Map<String, Object> settings(
      BenchmarkOptions options, Path agent, String classPath, BenchmarkOptions.Regime regime) {
    Map<String, Object> settings = new LinkedHashMap<>();
    settings.put("rounds", options.rounds());
    settings.put("regime", regime == null ? null : regime.name());
    settings.put("warmup", regime == null ? options.warmup() : regime.warmup());
    settings.put("warmup_ms", regime == null ? options.warmupMillis() : regime.warmupMillis());
    settings.put("corpus", options.corpus());
    settings.put("reps", options.reps());
    settings.put("size", options.size());
    settings.put("agent", agent.toString());
    settings.put("agent_options", options.agentOptions());
    settings.put("java", options.java());
    settings.put("jvm_args", options.jvmArgs());
    settings.put("main_class", options.mainClass());
    settings.put("startup_runs", options.startupRuns());
    settings.put("startup_main", options.startupMain());
    settings.put("classpath", classPath);
    settings.put("java_version", System.getProperty("java.version"));
    return settings;
  }

  private static String commandLine(String[] args) {
    return ProcessHandle.current()
        .info()
        .commandLine()
        .orElse("java " + Benchmark.class.getName() + " " + String.join(" ", args));
  }

  private static void deleteTree(Path dir) {
    if (dir == null || !Files.exists(dir)) {
      return;
    }
    try (Stream<Path> files = Files.walk(dir)) {
      for (Path p : files.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(p);
      }
    } catch (IOException e) {
      // An old journal left in the temporary folder is harmless.
    }
  }
}
