package dev.kernelweave.it.bench;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Runs one workload in a fresh JVM, with or without the agent, and reads its result: the one place
 * that knows the workload protocol.
 *
 * <p>The protocol: {@code java -cp CP dev.kernelweave.kernels.WorkloadMain NAME [--variant
 * serial|tuned|graph] [--size check|bench] [--warmup W] [--warmup-ms MS] [--reps R]} prints a sizes line,
 * runs at least W warm-ups and more until MS milliseconds of them have passed, then R timed
 * repetitions, and ends with one {@code KW-RESULT {json}} line. Exit 0: ok, 1: reference
 * mismatch, 2: bad arguments, 3: no GPU.
 */
public final class WorkloadRunner {

  /** The entry point of every workload. */
  public static final String MAIN_CLASS = "dev.kernelweave.kernels.WorkloadMain";

  /** Every workload, in the order the benchmark runs them. */
  public static final List<String> WORKLOADS =
      List.of("branches", "rl-sim", "dynamic", "heads", "pipeline", "pipeline-async", "chain");

  /** The workload that only chains dependent kernels: it measures the agent's overhead. */
  public static final String CHAIN = "chain";

  /** The program that only initialises CUDA, for the start-up cost. */
  public static final String CU_INIT_CLASS = "dev.kernelweave.kernels.CuInitMain";

  /** Exit status of a workload JVM that found no GPU. */
  public static final int NO_GPU = 3;

  private final Jvm jvm;
  private final String classPath;
  private final String mainClass;
  private final Path agentJar;
  private final String agentOptions;
  private final List<String> jvmArgs;

  /**
   * @param jvm launches the workload JVMs
   * @param classPath the workload JVMs' class path (the workloads and JCuda, not the agent)
   * @param mainClass the workloads' entry point, normally {@link #MAIN_CLASS}
   * @param agentJar the agent jar, for {@link Way#AGENT}
   * @param agentOptions the agent's options, without {@code journal=}, for example {@code
   *     mode=schedule}
   * @param jvmArgs extra JVM options for every way alike
   */
  public WorkloadRunner(
      Jvm jvm, String classPath, String mainClass, Path agentJar, String agentOptions, List<String> jvmArgs) {
    this.jvm = jvm;
    this.classPath = classPath;
    this.mainClass = mainClass;
    this.agentJar = agentJar;
    this.agentOptions = agentOptions;
    this.jvmArgs = List.copyOf(jvmArgs);
  }

  /**
   * Runs {@code workload} one way: at least {@code warmup} warm-ups, more until {@code warmupMillis}
   * have passed, then {@code reps} timed repetitions.
   *
   * @param journal where the agent writes its journal (only for the ways with the agent; null for
   *     the agent's default)
   */
  public Attempt run(String workload, Way way, String size, int warmup, int warmupMillis, int reps, Path journal) {
    List<String> args = new ArrayList<>(jvmArgs);
    if (way.withAgent()) {
      args.add(agentFlag(way.passthrough(), journal));
    }
    args.addAll(List.of("-cp", classPath, mainClass, workload));
    args.addAll(List.of("--variant", way.variant(), "--size", size));
    args.addAll(List.of("--warmup", Integer.toString(warmup), "--warmup-ms", Integer.toString(warmupMillis)));
    args.addAll(List.of("--reps", Integer.toString(reps)));
    return Attempt.of(workload, way, jvm.run(args));
  }

  /**
   * Runs {@code mainClass} (with no arguments) once, with the agent or without, and returns the
   * finished JVM and its wall-clock milliseconds from start to exit.
   */
  public Timed runProgram(String mainClass, boolean withAgent, Path journal) {
    List<String> args = new ArrayList<>(jvmArgs);
    if (withAgent) {
      args.add(agentFlag(false, journal));
    }
    args.addAll(List.of("-cp", classPath, mainClass));
    long start = System.nanoTime();
    Jvm.Run run = jvm.run(args);
    return new Timed(run, (System.nanoTime() - start) / 1e6);
  }

  /**
   * A program's run and its wall-clock time.
   *
   * @param run the finished JVM
   * @param ms milliseconds from starting it to its exit
   */
  public record Timed(Jvm.Run run, double ms) {}

  /**
   * {@code -javaagent:JAR=OPTIONS}: the agent options as given, {@code mode=passthrough} in place
   * of any mode where asked, and {@code journal} unless the options name one.
   */
  String agentFlag(boolean passthrough, Path journal) {
    List<String> options = new ArrayList<>();
    for (String option : agentOptions.split(",")) {
      String o = option.strip();
      if (!o.isEmpty() && !(passthrough && o.startsWith("mode="))) {
        options.add(o);
      }
    }
    if (passthrough) {
      options.add("mode=passthrough");
    }
    if (journal != null && !agentOptions.contains("journal=")) {
      options.add("journal=" + journal.toAbsolutePath());
    }
    return "-javaagent:" + agentJar.toAbsolutePath() + (options.isEmpty() ? "" : "=" + String.join(",", options));
  }

  /**
   * One workload JVM: what ran, what it reported, and what went wrong if anything did.
   *
   * @param run the JVM
   * @param result what it reported, null where it reported nothing readable
   * @param problem why this run does not count, null where it does
   */
  public record Attempt(Jvm.Run run, WorkloadResult result, String problem) {

    static Attempt of(String workload, Way way, Jvm.Run run) {
      WorkloadResult result = null;
      String unreadable = null;
      try {
        result = WorkloadResult.parse(run.lines());
      } catch (IllegalArgumentException e) {
        unreadable = e.getMessage();
      }
      return new Attempt(run, result, problem(workload, way, run, result, unreadable));
    }

    private static String problem(
        String workload, Way way, Jvm.Run run, WorkloadResult result, String unreadable) {
      int exit = run.exitCode();
      String agentOff = way.withAgent() ? agentOff(run) : null;
      if (mainClassMissing(run)) {
        return "the workloads' main class is not on the class path (" + run.lastLine() + ")";
      } else if (exit == NO_GPU) {
        return "no GPU";
      } else if (agentOff != null) {
        // Timed without the agent, the run would pass for the agent's: a bad option turns it off.
        return "the agent did not run: " + agentOff;
      } else if (exit == 1 && result != null) {
        return "exit 1: reference " + result.reference();
      } else if (exit == 2) {
        return "exit 2: bad arguments";
      } else if (exit == Jvm.TIMED_OUT) {
        return "timed out";
      } else if (exit != 0) {
        return "exit " + exit;
      } else if (result == null) {
        return "unreadable result: " + unreadable;
      } else if (!result.referenceOk()) {
        return "reference: " + result.reference();
      } else if (!result.name().equals(workload) || !result.variant().equals(way.variant())) {
        return "ran " + result.name() + "/" + result.variant() + ", expected " + workload + "/" + way.variant();
      } else if (result.ms().isEmpty()) {
        return "no timed repetitions";
      }
      return null;
    }

    /** The agent's line saying it is off for this run (a bad option, a failed start), or null. */
    private static String agentOff(Jvm.Run run) {
      for (String line : run.lines()) {
        if (line.startsWith("[kernelweave] ")
            && (line.contains("the agent is off for this run") || line.contains("the agent could not start"))) {
          return line.substring("[kernelweave] ".length());
        }
      }
      return null;
    }

    /** Whether the run finished cleanly and its result counts. */
    public boolean ok() {
      return problem == null;
    }

    /** Whether the workload found no GPU. */
    public boolean noGpu() {
      return run.exitCode() == NO_GPU;
    }

    /** Whether the JVM could not find the workloads' main class (the workloads are not built). */
    public boolean mainClassMissing() {
      return mainClassMissing(run);
    }

    private static boolean mainClassMissing(Jvm.Run run) {
      // The launcher's own message only: a ClassNotFoundException from a running workload is a failure.
      return run.exitCode() != 0
          && run.lines().stream().anyMatch(l -> l.startsWith("Error: Could not find or load main class "));
    }

    /** The last line of output that is not blank (where a workload says it found no GPU). */
    public String lastLine() {
      return run.lastLine();
    }
  }
}
