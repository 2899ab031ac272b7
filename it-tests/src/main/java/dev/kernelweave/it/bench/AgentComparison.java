package dev.kernelweave.it.bench;

import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Two builds or two settings of the agent side by side: each workload run under agent {@code A}
 * and agent {@code B} in fresh JVMs, alternating which goes first round by round, and the ratio
 * {@code A / B} of their medians per round (above 1: B is faster). One JVM against one JVM says
 * little on a GPU host, where the same program varies by tens of percent from JVM to JVM: the
 * ratio of a round's two runs, made seconds apart, is what this compares, over several rounds.
 *
 * <p>Each run journals, as by default, into a temporary folder left for inspection. Every run's
 * output must be the program's reference and the two sides' checksums equal, otherwise the workload is reported as differing and the command exits 1.
 */
public final class AgentComparison {

  static final String HELP =
      """
      Usage: java -cp 'it-tests/target/classes:it-tests/target/lib/*' dev.kernelweave.it.bench.AgentComparison \\
          --a JAR[=OPTIONS] --b JAR[=OPTIONS] [OPTIONS]

      Runs each workload under agent A and agent B (the jar and its options; the jar alone for the
      defaults; none for no agent at all), alternating which runs first, and prints per workload the medians of both and
      A/B, the ratio of the two runs' medians in each round: median [min-max] over the rounds
      (above 1.00x: B is faster). Outputs must be equal: exit 1 otherwise.

        --a JAR[=OPTIONS]|none, --b JAR[=OPTIONS]|none   the two sides (required)
        --workloads LIST      comma-separated workloads or corpus programs
                              (default: branches,rl-sim,dynamic,heads,pipeline,pipeline-async,chain)
        --rounds N            rounds (default 5)
        --warmup W            warm-ups per JVM (default 30)
        --warmup-ms MS        then more warm-ups until MS ms have passed (default 1500; 0 for short)
        --reps R              timed repetitions per JVM (default 10)
        --size check|bench    problem size (default bench)
        --timeout S           seconds per JVM (default 300)
        --classpath CP        the workloads' class path (default: the build's)
        --main CLASS          the workloads' entry point (default: dev.kernelweave.kernels.WorkloadMain)
      Exit codes: 0 compared, 1 a run failed or the outputs differ, 2 bad arguments, 3 no GPU.
      """;

  /** One side: an agent jar and the options it runs with; a null jar for no agent at all. */
  record Side(Path jar, String options) {
    static Side parse(String flag, String value) {
      if (value.equals("none")) {
        return new Side(null, "");
      }
      int eq = value.indexOf('=');
      Path jar = Path.of(eq < 0 ? value : value.substring(0, eq));
      String options = eq < 0 ? "" : value.substring(eq + 1);
      if (!Files.isRegularFile(jar)) {
        throw new IllegalArgumentException(flag + ": no agent jar at " + jar);
      }
      return new Side(jar, options);
    }

    String label() {
      return jar == null ? "no agent" : jar.getFileName() + (options.isEmpty() ? "" : "=" + options);
    }

    /** The way this side runs a workload: serial under the agent, or serial alone. */
    Way way() {
      return jar == null ? Way.SERIAL : Way.AGENT;
    }
  }

  /** The command line, parsed. */
  record Options(Side a, Side b, List<String> workloads, int rounds, int warmup, int warmupMillis, int reps,
      String size, long timeoutSeconds, String classPath, String mainClass) {

    static Options parse(String[] args) {
      Map<String, String> values = new LinkedHashMap<>();
      for (int i = 0; i < args.length; i++) {
        String flag = args[i];
        if (!List.of("--a", "--b", "--workloads", "--rounds", "--warmup", "--warmup-ms", "--reps", "--size",
            "--timeout", "--classpath", "--main").contains(flag)) {
          throw new IllegalArgumentException("unknown option " + flag);
        }
        if (i + 1 == args.length) {
          throw new IllegalArgumentException(flag + " needs a value");
        }
        values.put(flag, args[++i]);
      }
      if (!values.containsKey("--a") || !values.containsKey("--b")) {
        throw new IllegalArgumentException("--a and --b are required");
      }
      String size = BenchmarkOptions.oneOf("--size", values.getOrDefault("--size", "bench"), "check", "bench");
      List<String> workloads = List.of(
          values.getOrDefault("--workloads", String.join(",", WorkloadRunner.WORKLOADS)).split(","));
      return new Options(Side.parse("--a", values.get("--a")), Side.parse("--b", values.get("--b")), workloads,
          number(values, "--rounds", 5, 1), number(values, "--warmup", 30, 1), number(values, "--warmup-ms", 1500, 0),
          number(values, "--reps", 10, 1), size, number(values, "--timeout", 300, 1),
          values.getOrDefault("--classpath", ProjectLayout.workloadClassPath()),
          values.getOrDefault("--main", WorkloadRunner.MAIN_CLASS));
    }

    /** The value of {@code flag}, at least {@code min}, or {@code otherwise} where it is not given. */
    private static int number(Map<String, String> values, String flag, int otherwise, int min) {
      String text = values.get(flag);
      return text == null ? otherwise : BenchmarkOptions.number(flag, text, min);
    }
  }

  /** One workload's comparison: each round's medians of both sides, and whether outputs matched. */
  static final class Compared {
    final String workload;
    final List<Double> mediansA = new ArrayList<>();
    final List<Double> mediansB = new ArrayList<>();
    String checksum;
    String problem;

    Compared(String workload) {
      this.workload = workload;
    }

    void add(boolean sideA, WorkloadResult result) {
      (sideA ? mediansA : mediansB).add(RepetitionStats.median(result.ms()));
      if (checksum == null) {
        checksum = result.checksum();
      } else if (!checksum.equals(result.checksum()) && problem == null) {
        problem = "OUTPUTS DIFFER: " + checksum + " and " + result.checksum();
      }
    }

    /** A/B of each complete round. */
    List<Double> ratios() {
      List<Double> ratios = new ArrayList<>();
      for (int i = 0; i < Math.min(mediansA.size(), mediansB.size()); i++) {
        ratios.add(mediansA.get(i) / mediansB.get(i));
      }
      return ratios;
    }

    String line() {
      if (problem != null) {
        return String.format(Locale.ROOT, "%-18s %s", workload, problem);
      }
      List<Double> ratios = ratios();
      RepetitionStats.Summary r = RepetitionStats.summarize(ratios);
      return String.format(Locale.ROOT, "%-18s A %s ms  B %s ms  A/B %.3fx [%.3f-%.3f] over %d rounds", workload,
          Report.ms(RepetitionStats.median(mediansA)), Report.ms(RepetitionStats.median(mediansB)), r.median(),
          r.min(), r.max(), ratios.size());
    }
  }

  public static void main(String[] args) {
    System.exit(run(args, System.out));
  }

  static int run(String[] args, PrintStream out) {
    if (args.length == 1 && (args[0].equals("--help") || args[0].equals("-h"))) {
      out.print(HELP);
      return 0;
    }
    Options options;
    try {
      options = Options.parse(args);
    } catch (IllegalArgumentException e) {
      out.println("agent comparison: " + e.getMessage() + " (--help for the options)");
      return 2;
    }
    Jvm jvm = new Jvm(Jvm.currentJava(), options.timeoutSeconds());
    WorkloadRunner a = runner(jvm, options, options.a());
    WorkloadRunner b = runner(jvm, options, options.b());
    Path journals;
    try {
      journals = Files.createTempDirectory("kernelweave-comparison");
    } catch (java.io.IOException e) {
      out.println("agent comparison: cannot make a folder for the journals: " + e);
      return 1;
    }
    out.printf("A %s%nB %s%n%d rounds, %d warm-ups and %d ms, %d reps, size %s%n",
        options.a().label(), options.b().label(), options.rounds(), options.warmup(), options.warmupMillis(),
        options.reps(), options.size());
    int exit = 0;
    List<Double> geomean = new ArrayList<>();
    for (String workload : options.workloads()) {
      Compared c = new Compared(workload);
      for (int round = 0; round < options.rounds() && c.problem == null; round++) {
        boolean aFirst = round % 2 == 0;
        for (boolean sideA : aFirst ? new boolean[] {true, false} : new boolean[] {false, true}) {
          Side side = sideA ? options.a() : options.b();
          WorkloadRunner.Attempt attempt = (sideA ? a : b).run(workload, side.way(), options.size(), options.warmup(),
              options.warmupMillis(), options.reps(), journals.resolve(workload + (sideA ? "-a-" : "-b-") + round));
          if (attempt.noGpu()) {
            out.println("agent comparison: no GPU (" + attempt.lastLine() + ")");
            return 3;
          }
          if (!attempt.ok()) {
            c.problem = (sideA ? "A" : "B") + " failed: " + attempt.problem();
            out.print(attempt.run().describeFailure(20));
            break;
          }
          c.add(sideA, attempt.result());
        }
      }
      out.println(c.line());
      if (c.problem != null) {
        exit = 1;
      } else {
        geomean.add(RepetitionStats.median(c.ratios()));
      }
    }
    if (!geomean.isEmpty()) {
      out.printf(Locale.ROOT, "geometric mean of the medians of A/B: %.3fx%n", RepetitionStats.geometricMean(geomean));
    }
    return exit;
  }

  private static WorkloadRunner runner(Jvm jvm, Options options, Side side) {
    return new WorkloadRunner(jvm, options.classPath(), options.mainClass(),
        side.jar() == null ? Path.of("none") : side.jar(), side.options(), List.of());
  }

  private AgentComparison() {}
}
