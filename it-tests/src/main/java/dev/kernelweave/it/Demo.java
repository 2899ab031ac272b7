package dev.kernelweave.it;

import dev.kernelweave.it.bench.Jvm;
import dev.kernelweave.it.bench.ProjectLayout;
import dev.kernelweave.it.bench.RepetitionStats;
import dev.kernelweave.it.bench.Way;
import dev.kernelweave.it.bench.WorkloadRunner;
import java.io.File;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The demo: with a GPU, {@code rl-sim} without and with the agent, the speedup, whether the results
 * are equal, and where the journal and a Perfetto trace of the agent run are. Without a GPU, the
 * same two runs (small) over the stand-in CUDA driver that runs the kernels on the CPU, whether
 * their results are equal, and that run's own journal: its statistics, its dependency graph and a
 * Perfetto trace. Where the stand-in was not built either, the scheduler's self-test on a
 * simulated GPU and the statistics of the sample journal.
 */
public final class Demo {

  /** The workload the demo runs. */
  public static final String WORKLOAD = "rl-sim";

  /** Where the kernels module's build puts the stand-in CUDA driver, relative to the checkout. */
  public static final String STAND_IN_DRIVER = "kernels/target/cpu-device";

  /**
   * Warm-ups before the timed repetitions, the same for both runs: enough for the JIT to compile the
   * agent's code, as it is in any program that runs for more than a moment (measured: with 2
   * warm-ups the agent's rl-sim speedup was 1.01x, with 30 it was 1.7x).
   */
  private static final int WARMUP = 30;
  private static final int REPS = 10;
  private static final int TAIL_LINES = 25;
  /** Kernels of the dependency graph the demo prints: the first step of a few environments. */
  private static final int DAG_KERNELS = 9;
  private static final Pattern DOT_NODE = Pattern.compile("^\\s*n(\\d+) \\[label=\"(\\d+) ([^\"\\\\]+)\\\\n([^\"]*)\".*");
  private static final Pattern DOT_EDGE = Pattern.compile("^\\s*n(\\d+) -> n(\\d+) \\[label=\"([^\"]*)\".*");

  /**
   * What the demo needs.
   *
   * @param jvm launches every JVM
   * @param agentJar the agent jar, also the command line ({@code java -jar})
   * @param classPath the workload JVMs' class path
   * @param mainClass the workloads' entry point
   * @param sampleJournal the journal shipped with the project
   * @param out where the agent run's journal and trace go; null for a new temporary folder
   * @param standInDriver the folder of the stand-in {@code libcuda.so.1} and {@code libcublas.so.12}
   *     that run CUDA on the CPU (built by {@code kernels/src/test/cpu-device/build.sh}); null or
   *     missing where there is none
   */
  public record Setup(
      Jvm jvm, Path agentJar, String classPath, String mainClass, Path sampleJournal, Path out, Path standInDriver) {

    /** The setup of a built checkout, run from {@code it-tests/target/classes:it-tests/target/lib/*}. */
    public static Setup discover(Path out) {
      ProjectLayout layout = ProjectLayout.discover();
      return new Setup(
          new Jvm(Jvm.currentJava(), 600),
          layout.agentJar(),
          ProjectLayout.workloadClassPath(),
          WorkloadRunner.MAIN_CLASS,
          layout.sampleJournal(),
          out,
          layout.root().resolve(STAND_IN_DRIVER));
    }
  }

  private final Setup setup;
  private final PrintStream out;

  public Demo(Setup setup, PrintStream out) {
    this.setup = setup;
    this.out = out;
  }

  public static void main(String[] args) {
    Path out = null;
    if (args.length == 2 && args[0].equals("--out")) {
      out = Path.of(args[1]);
    } else if (args.length > 0) {
      System.out.println("Usage: ./demo [--out DIR]   runs " + WORKLOAD + " without and with the agent");
      System.out.println("       (on the GPU, or where there is none on the stand-in CUDA driver that runs on the CPU);");
      System.out.println("       DIR: where the journal, the graph and the trace go (default: a new temporary folder)");
      System.exit(args[0].equals("--help") ? 0 : 2);
    }
    System.exit(new Demo(Setup.discover(out), System.out).run());
  }

  /** Runs the demo and returns its exit status: 0 where every step worked. */
  public int run() {
    if (!Files.isRegularFile(setup.agentJar())) {
      out.println("demo: no agent jar at " + setup.agentJar() + ": build with 'mvn -q -B -DskipTests package'");
      return 1;
    }
    if (setup.classPath().isEmpty()) {
      out.println("demo: the workloads (kernels) are not on the class path: build with 'mvn -q -B -DskipTests package'");
      return 1;
    }
    WorkloadRunner runner =
        new WorkloadRunner(setup.jvm(), setup.classPath(), setup.mainClass(), setup.agentJar(), "mode=schedule", List.of());
    WorkloadRunner.Attempt serial = runner.run(WORKLOAD, Way.SERIAL, "bench", WARMUP, 0, REPS, null);
    if (serial.noGpu()) {
      return withoutGpu(serial.lastLine());
    }
    if (!serial.ok()) {
      return failed(WORKLOAD + " without the agent", serial.problem(), serial.run());
    }
    out.println(WORKLOAD + ": " + serial.result().sizes());
    out.println("  without the agent: " + median(serial) + " (" + REPS + " reps after " + WARMUP + " warm-ups)");

    Path dir = outputFolder();
    if (dir == null) {
      return 1;
    }
    Path journal = dir.resolve(WORKLOAD + "-journal");
    WorkloadRunner.Attempt agent = runner.run(WORKLOAD, Way.AGENT, "bench", WARMUP, 0, REPS, journal);
    if (!agent.ok()) {
      return failed(WORKLOAD + " with the agent", agent.problem(), agent.run());
    }
    out.println("  with the agent:    " + median(agent));
    double speedup = RepetitionStats.median(serial.result().ms()) / RepetitionStats.median(agent.result().ms());
    out.println(String.format(Locale.ROOT, "  speedup:           %.2fx", speedup));
    boolean equal = resultsEqual(serial, agent);
    out.println("  journal:           " + journal);
    boolean traceOk = trace(journal, dir.resolve(WORKLOAD + "-trace.json"));
    return equal && traceOk ? 0 : 1;
  }

  /**
   * Without a GPU: both runs over the stand-in CUDA driver, then that run's journal. The stand-in
   * runs queued work in a shuffled order that keeps only what CUDA promises (stream order, event
   * waits, the legacy stream), so equal results mean the agent kept every dependency.
   */
  private int withoutGpu(String why) {
    Path standIn = setup.standInDriver();
    if (standIn == null || !Files.isRegularFile(standIn.resolve("libcuda.so.1"))) {
      out.println("No GPU here (" + why + ") and no stand-in CUDA driver at " + standIn
          + " (kernels/src/test/cpu-device/build.sh builds it where g++ is present):"
          + " showing the scheduler on a simulated GPU instead.");
      return simulated();
    }
    out.println("No GPU here (" + why + "): running " + WORKLOAD + " on the stand-in CUDA driver instead,"
        + " which runs the kernels on the CPU (" + standIn + ").");
    out.println("It runs queued work in a shuffled order that keeps only what CUDA guarantees, so a dependency"
        + " the agent missed would change the result. CPU times say nothing about a GPU: no speedup here.");
    String libraries = standIn.toAbsolutePath().toString();
    String inherited = System.getenv("LD_LIBRARY_PATH");
    if (inherited != null && !inherited.isEmpty()) {
      libraries += File.pathSeparator + inherited;
    }
    WorkloadRunner runner = new WorkloadRunner(setup.jvm().withEnvironment(Map.of("LD_LIBRARY_PATH", libraries)),
        setup.classPath(), setup.mainClass(), setup.agentJar(), "mode=schedule", List.of());
    WorkloadRunner.Attempt serial = runner.run(WORKLOAD, Way.SERIAL, "check", 0, 0, 1, null);
    if (!serial.ok()) {
      return failed(WORKLOAD + " without the agent on the stand-in driver", serial.problem(), serial.run());
    }
    out.println();
    out.println(WORKLOAD + ": " + serial.result().sizes());
    Path dir = outputFolder();
    if (dir == null) {
      return 1;
    }
    Path journal = dir.resolve(WORKLOAD + "-journal");
    WorkloadRunner.Attempt agent = runner.run(WORKLOAD, Way.AGENT, "check", 0, 0, 1, journal);
    if (!agent.ok()) {
      return failed(WORKLOAD + " with the agent on the stand-in driver", agent.problem(), agent.run());
    }
    boolean equal = resultsEqual(serial, agent);
    out.println("  journal:           " + journal);
    boolean stats = show(agentCommand("inspect", "stats", journal.toString()));
    out.println();
    boolean dag = dag(journal, dir.resolve(WORKLOAD + "-dag.dot"));
    boolean trace = trace(journal, dir.resolve(WORKLOAD + "-trace.json"));
    return equal && stats && dag && trace ? 0 : 1;
  }

  /** The folder for the journal, the graph and the trace; null (and said why) where it cannot be made. */
  private Path outputFolder() {
    try {
      return setup.out() != null ? Files.createDirectories(setup.out()) : Files.createTempDirectory("kernelweave-demo-");
    } catch (IOException e) {
      out.println("demo: cannot create a folder for the journal: " + e);
      return null;
    }
  }

  private boolean resultsEqual(WorkloadRunner.Attempt serial, WorkloadRunner.Attempt agent) {
    boolean equal = serial.result().checksum().equals(agent.result().checksum());
    out.println(
        equal
            ? "  results equal:     yes (SHA-256 " + abbreviate(serial.result().checksum()) + ")"
            : "  results equal:     NO (" + serial.result().checksum() + " without, " + agent.result().checksum() + " with)");
    return equal;
  }

  /** Writes the journal's Perfetto trace to {@code trace} and says where it is; true where it worked. */
  private boolean trace(Path journal, Path trace) {
    Jvm.Run traced = agentCommand("inspect", "trace", journal.toString(), "-o", trace.toString());
    boolean ok = traced.exitCode() == 0 && Files.isRegularFile(trace);
    if (ok) {
      out.println("  trace:             " + trace + " (open it in https://ui.perfetto.dev)");
    } else {
      out.println("  trace:             failed");
      out.print(traced.describeFailure(TAIL_LINES));
    }
    return ok;
  }

  /**
   * Writes the journal's dependency graph (Graphviz DOT) to {@code file}, says how big it is, and
   * shows its first few kernels: the stream each ran on and the kernels it had to wait for.
   */
  private boolean dag(Path journal, Path file) {
    Jvm.Run run = agentCommand("inspect", "dag", journal.toString());
    if (run.exitCode() != 0) {
      out.println("  graph:             failed");
      out.print(run.describeFailure(TAIL_LINES));
      return false;
    }
    try {
      Files.write(file, run.lines());
    } catch (IOException e) {
      out.println("  graph:             cannot write " + file + ": " + e.getMessage());
      return false;
    }
    Map<Long, String> kernels = new LinkedHashMap<>();
    Map<Long, List<String>> waits = new HashMap<>();
    int nodes = 0;
    int edges = 0;
    for (String line : run.lines()) {
      Matcher node = DOT_NODE.matcher(line);
      Matcher edge = DOT_EDGE.matcher(line);
      if (node.matches()) {
        nodes++;
        if (!node.group(3).startsWith("cu") && kernels.size() < DAG_KERNELS) {
          kernels.put(Long.parseLong(node.group(1)), node.group(3) + " on " + node.group(4));
        }
      } else if (edge.matches()) {
        edges++;
        waits.computeIfAbsent(Long.parseLong(edge.group(2)), k -> new ArrayList<>())
            .add(edge.group(1) + " (" + edge.group(3) + ")");
      }
    }
    out.println("  graph:             " + file + ": " + nodes + " calls, " + edges + " dependencies"
        + " (draw it with: dot -Tsvg " + file + " -o dag.svg)");
    if (!kernels.isEmpty()) {
      out.println("  its first " + kernels.size() + " kernels, the stream each ran on, and the kernels it waited for:");
      for (Map.Entry<Long, String> k : kernels.entrySet()) {
        List<String> after = new ArrayList<>();
        for (String w : waits.getOrDefault(k.getKey(), List.of())) {
          if (kernels.containsKey(Long.parseLong(w.substring(0, w.indexOf(' '))))) {
            after.add(w);
          }
        }
        out.println(String.format(Locale.ROOT, "    %6d %-28s %s", k.getKey(), k.getValue(),
            after.isEmpty() ? "" : "after " + String.join(", ", after)).stripTrailing());
      }
    }
    return true;
  }

  /** Without a GPU: the self-test on a simulated GPU, then the sample journal's statistics. */
  private int simulated() {
    boolean selftest = show(agentCommand("selftest", "--sim", "--seed", "1", "--programs", "200"));
    boolean stats = show(agentCommand("inspect", "stats", setup.sampleJournal().toString()));
    return selftest && stats ? 0 : 1;
  }

  private Jvm.Run agentCommand(String... args) {
    List<String> command = new ArrayList<>(List.of("-jar", setup.agentJar().toString()));
    command.addAll(List.of(args));
    return setup.jvm().run(command);
  }

  /** Prints a command and (the end of) its output; true where it succeeded. */
  private boolean show(Jvm.Run run) {
    List<String> shown = new ArrayList<>(run.command());
    shown.set(0, "java");
    out.println();
    out.println("$ " + String.join(" ", shown));
    int hidden = run.lines().size() - run.tail(40).size();
    if (hidden > 0) {
      out.println("  (" + hidden + " lines before these)");
    }
    run.tail(40).forEach(out::println);
    if (run.exitCode() != 0) {
      out.println("demo: that command failed (exit " + run.exitCode() + ")");
      return false;
    }
    return true;
  }

  private int failed(String what, String problem, Jvm.Run run) {
    out.println("demo: " + what + " failed: " + problem);
    out.print(run.describeFailure(TAIL_LINES));
    return 1;
  }

  private static String median(WorkloadRunner.Attempt attempt) {
    return String.format(Locale.ROOT, "%.3f ms", RepetitionStats.median(attempt.result().ms()));
  }

  private static String abbreviate(String checksum) {
    return checksum.length() > 16 ? checksum.substring(0, 16) + "..." : checksum;
  }
}
