package dev.kernelweave.it;

import dev.kernelweave.it.bench.Jvm;
import dev.kernelweave.it.bench.ProjectLayout;
import dev.kernelweave.it.bench.Stats;
import dev.kernelweave.it.bench.Way;
import dev.kernelweave.it.bench.WorkloadRunner;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The demo: with a GPU, {@code rl-sim} without and with the agent, the speedup, whether the results
 * are equal, and where the journal and a Perfetto trace of the agent run are. Without a GPU, the
 * scheduler's self-test on a simulated GPU and the statistics of the sample journal.
 */
public final class Demo {

  /** The workload the demo runs. */
  public static final String WORKLOAD = "rl-sim";

  /**
   * Warm-ups before the timed repetitions, the same for both runs: enough for the JIT to compile the
   * agent's code, as it is in any program that runs for more than a moment (measured: with 2
   * warm-ups the agent's rl-sim speedup was 1.01x, with 30 it was 1.7x).
   */
  private static final int WARMUP = 30;
  private static final int REPS = 10;
  private static final int TAIL_LINES = 25;

  /**
   * What the demo needs.
   *
   * @param jvm launches every JVM
   * @param agentJar the agent jar, also the command line ({@code java -jar})
   * @param classPath the workload JVMs' class path
   * @param mainClass the workloads' entry point
   * @param sampleJournal the journal shipped with the project
   * @param out where the agent run's journal and trace go; null for a new temporary folder
   */
  public record Setup(Jvm jvm, Path agentJar, String classPath, String mainClass, Path sampleJournal, Path out) {

    /** The setup of a built checkout, run from {@code it-tests/target/classes:it-tests/target/lib/*}. */
    public static Setup discover(Path out) {
      ProjectLayout layout = ProjectLayout.discover();
      return new Setup(
          new Jvm(Jvm.currentJava(), 600),
          layout.agentJar(),
          ProjectLayout.workloadClassPath(),
          WorkloadRunner.MAIN_CLASS,
          layout.sampleJournal(),
          out);
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
      System.out.println("Usage: ./demo [--out DIR]   runs " + WORKLOAD + " without and with the agent;");
      System.out.println("       DIR: where the journal and the trace go (default: a new temporary folder)");
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
    WorkloadRunner.Attempt serial = runner.run(WORKLOAD, Way.SERIAL, "bench", WARMUP, REPS, null);
    if (serial.noGpu()) {
      out.println("No GPU here (" + serial.lastLine() + "): showing the scheduler on a simulated GPU instead.");
      return simulated();
    }
    if (!serial.ok()) {
      return failed(WORKLOAD + " without the agent", serial.problem(), serial.run());
    }
    out.println(WORKLOAD + ": " + serial.result().sizes());
    out.println("  without the agent: " + median(serial) + " (" + REPS + " reps after " + WARMUP + " warm-ups)");

    Path dir;
    try {
      dir = setup.out() != null ? Files.createDirectories(setup.out()) : Files.createTempDirectory("kernelweave-demo-");
    } catch (IOException e) {
      out.println("demo: cannot create a folder for the journal: " + e);
      return 1;
    }
    Path journal = dir.resolve(WORKLOAD + "-journal");
    WorkloadRunner.Attempt agent = runner.run(WORKLOAD, Way.AGENT, "bench", WARMUP, REPS, journal);
    if (!agent.ok()) {
      return failed(WORKLOAD + " with the agent", agent.problem(), agent.run());
    }
    out.println("  with the agent:    " + median(agent));
    double speedup = Stats.median(serial.result().ms()) / Stats.median(agent.result().ms());
    out.println(String.format(Locale.ROOT, "  speedup:           %.2fx", speedup));
    boolean equal = serial.result().checksum().equals(agent.result().checksum());
    out.println(
        equal
            ? "  results equal:     yes (SHA-256 " + abbreviate(serial.result().checksum()) + ")"
            : "  results equal:     NO (" + serial.result().checksum() + " without, " + agent.result().checksum() + " with)");
    out.println("  journal:           " + journal);

    Path trace = dir.resolve(WORKLOAD + "-trace.json");
    Jvm.Run traced = agentCommand("inspect", "trace", journal.toString(), "-o", trace.toString());
    boolean traceOk = traced.exitCode() == 0 && Files.isRegularFile(trace);
    if (traceOk) {
      out.println("  trace:             " + trace + " (open it in https://ui.perfetto.dev)");
    } else {
      out.println("  trace:             failed");
      out.print(traced.describeFailure(TAIL_LINES));
    }
    return equal && traceOk ? 0 : 1;
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
    return String.format(Locale.ROOT, "%.3f ms", Stats.median(attempt.result().ms()));
  }

  private static String abbreviate(String checksum) {
    return checksum.length() > 16 ? checksum.substring(0, 16) + "..." : checksum;
  }
}
