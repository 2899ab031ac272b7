package dev.kernelweave.it.bench;

import dev.kernelweave.corpus.Corpus;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The benchmark's command line, parsed. Null for {@code agent}, {@code classPath}, {@code out},
 * {@code journals} and {@code device} means: find it (or make it).
 */
public record BenchmarkOptions(
    List<String> workloads,
    List<String> corpus,
    List<Regime> regimes,
    int rounds,
    int warmup,
    int warmupMillis,
    int reps,
    String size,
    Path agent,
    String agentOptions,
    String classPath,
    String java,
    String mainClass,
    List<String> jvmArgs,
    Path out,
    Path journals,
    String device,
    long timeoutSeconds,
    int startupRuns,
    String startupMain,
    boolean help) {

  public static final String HELP =
      """
      Usage: java -cp 'it-tests/target/classes:it-tests/target/lib/*' dev.kernelweave.it.bench.Benchmark [OPTIONS]

      Runs each workload five ways: serial without the agent, serial with the agent, the
      hand-tuned multi-stream twin without the agent, serial with the agent in mode=passthrough,
      and the graph twin (the tuned twin captured into CUDA graphs by hand and replayed) without
      the agent; then each program of the corpus (ordinary serial JCuda programs, no hand-tuned
      twin) two ways: without and with the agent. Each round runs the ways in a rotating
      order, each in a fresh JVM that does the warm-ups and then the timed repetitions. Reads the
      host time per kernel launch from the agent ways' journals, then times a program that only
      calls cuInit in fresh JVMs without and with the agent. Prints medians and spreads, writes
      RESULTS/<device>.json and RESULTS/<device>.png (for the short regime: <device>-short.*).

        --workloads a,b,...   which workloads, or none (default: all: %s)
        --corpus a,b,...      which corpus programs: names, all or none (default all: %s)
        --regimes r,...       warmed: --warmup and --warmup-ms as given (30 and 1500 ms by default),
                              what a program that runs for minutes sees; short: 5 warm-ups and no
                              time, what a program that runs for a second sees. Both (short,warmed)
                              run every program in both, one regime after the other, and report
                              each (default: warmed, as before)
        --rounds N            rounds of the five ways (default 5)
        --warmup W            warm-ups in each JVM, at least (default 30)
        --warmup-ms MS        then more warm-ups until MS milliseconds of them have passed (default
                              1500): the JIT compiles a method fully only after some thousands
                              of calls, which 30 runs of a program of 80 calls do not make, so
                              the timed runs would measure the agent's code, and the program's,
                              partly compiled; 0 for the count alone
        --reps R              timed repetitions in each JVM (default 5)
        --size check|bench    problem size (default bench)
        --agent PATH          the agent jar (default: agent/target/kernelweave-agent.jar in the checkout)
        --agent-options OPTS  agent options; a journal=DIR per run is added (default mode=schedule)
        --classpath CP        class path of the workload JVMs (default: the kernels jar and the JCuda
                              jars on this JVM's class path, that is it-tests/target/lib)
        --java PATH           java for the workload JVMs (default: this JVM's)
        --jvm-arg ARG         one more JVM option for every workload JVM (repeatable)
        --main CLASS          the workloads' entry point (default %s)
        --out DIR             where results go (default: it-tests/results in the checkout); the
                              'inspect stats' of each workload's last agent journal goes there too
        --journals DIR        where the agent journals go (default: a new temporary folder)
        --device NAME         the device name (default: from nvidia-smi, else 'unknown')
        --timeout SECONDS     time limit of one workload JVM (default 300)
        --startup-runs N      JVMs each way for the start-up cost (default 7; 0: not measured)
        --startup-main CLASS  the program that only calls cuInit (default %s)
        --startup-only        only the start-up cost: no workload, no results file
        --help                this text

      Exit status: 0 all workloads and programs ran with equal outputs, 1 some failed or differed,
      2 bad arguments or nothing to run, 3 no GPU.
      """
          .formatted(
              String.join(",", WorkloadRunner.WORKLOADS), String.join(",", Corpus.names()), WorkloadRunner.MAIN_CLASS,
              WorkloadRunner.CU_INIT_CLASS);

  /**
   * How long each JVM warms up before its timed repetitions.
   *
   * @param name {@code short} or {@code warmed}
   * @param warmup warm-ups at least
   * @param warmupMillis then more until this many milliseconds of them have passed
   */
  public record Regime(String name, int warmup, int warmupMillis) {

    /** The short regime's warm-ups: those of a program that runs for a second. */
    public static final int SHORT_WARMUP = 5;

    /** What the results files of this regime add to the device's name: nothing for warmed. */
    public String fileSuffix() {
      return name.equals("warmed") ? "" : "-" + name;
    }
  }

  public BenchmarkOptions {
    workloads = List.copyOf(workloads);
    corpus = List.copyOf(corpus);
    regimes = List.copyOf(regimes);
    jvmArgs = List.copyOf(jvmArgs);
  }

  /**
   * Reads the command line ({@code --key value} or {@code --key=value}).
   *
   * @throws IllegalArgumentException for an unknown option, a missing or bad value
   */
  public static BenchmarkOptions parse(String... args) {
    List<String> workloads = WorkloadRunner.WORKLOADS;
    List<String> corpus = Corpus.names();
    List<String> regimeNames = List.of("warmed");
    int rounds = 5;
    int warmup = 30;
    int warmupMillis = 1500;
    int reps = 5;
    String size = "bench";
    Path agent = null;
    String agentOptions = "mode=schedule";
    String classPath = null;
    String java = Jvm.currentJava();
    String mainClass = WorkloadRunner.MAIN_CLASS;
    List<String> jvmArgs = new ArrayList<>();
    Path out = null;
    Path journals = null;
    String device = null;
    long timeout = 300;
    int startupRuns = 7;
    String startupMain = WorkloadRunner.CU_INIT_CLASS;
    boolean help = false;
    for (int i = 0; i < args.length; i++) {
      String key = args[i];
      String value = null;
      int eq = key.indexOf('=');
      if (key.startsWith("--") && eq > 0) {
        value = key.substring(eq + 1);
        key = key.substring(0, eq);
      }
      if (key.equals("--help") || key.equals("-h")) {
        help = true;
        continue;
      }
      if (key.equals("--startup-only")) {
        workloads = List.of();
        corpus = List.of();
        continue;
      }
      if (value == null) {
        if (i + 1 >= args.length) {
          throw new IllegalArgumentException(key + " needs a value");
        }
        value = args[++i];
      }
      switch (key) {
        case "--workloads" -> workloads = names(value);
        case "--corpus" -> corpus = corpus(value);
        case "--regimes" -> regimeNames = regimes(value);
        case "--rounds" -> rounds = number(key, value, 1);
        case "--warmup" -> warmup = number(key, value, 0);
        case "--warmup-ms" -> warmupMillis = number(key, value, 0);
        case "--reps" -> reps = number(key, value, 1);
        case "--size" -> size = oneOf(key, value, "check", "bench");
        case "--agent" -> agent = Path.of(value);
        case "--agent-options" -> agentOptions = value;
        case "--classpath", "--cp" -> classPath = value;
        case "--java" -> java = value;
        case "--jvm-arg" -> jvmArgs.add(value);
        case "--main" -> mainClass = value;
        case "--out" -> out = Path.of(value);
        case "--journals" -> journals = Path.of(value);
        case "--device" -> device = value;
        case "--timeout" -> timeout = number(key, value, 1);
        case "--startup-runs" -> startupRuns = number(key, value, 0);
        case "--startup-main" -> startupMain = value;
        default -> throw new IllegalArgumentException("unknown option " + key);
      }
    }
    if (workloads.isEmpty() && corpus.isEmpty() && startupRuns == 0) {
      throw new IllegalArgumentException("--startup-only with --startup-runs 0 measures nothing");
    }
    List<Regime> regimes = new ArrayList<>();
    for (String name : regimeNames) {
      regimes.add(
          name.equals("short") ? new Regime(name, Regime.SHORT_WARMUP, 0) : new Regime(name, warmup, warmupMillis));
    }
    return new BenchmarkOptions(
        workloads, corpus, regimes, rounds, warmup, warmupMillis, reps, size, agent, agentOptions, classPath, java, mainClass, jvmArgs, out,
        journals, device, timeout, startupRuns, startupMain, help);
  }

  private static List<String> names(String value) {
    if (value.strip().equals("none")) {
      return List.of();
    }
    List<String> names = Arrays.stream(value.split(",")).map(String::strip).filter(s -> !s.isEmpty()).toList();
    if (names.isEmpty()) {
      throw new IllegalArgumentException("--workloads names none");
    }
    return names;
  }

  /** Corpus program names, {@code all} or {@code none}. */
  private static List<String> corpus(String value) {
    if (value.strip().equals("all")) {
      return Corpus.names();
    }
    if (value.strip().equals("none")) {
      return List.of();
    }
    List<String> names = Arrays.stream(value.split(",")).map(String::strip).filter(s -> !s.isEmpty()).toList();
    if (names.isEmpty()) {
      throw new IllegalArgumentException("--corpus names none (say 'none' for no corpus program)");
    }
    for (String name : names) {
      if (!Corpus.contains(name)) {
        throw new IllegalArgumentException(
            "--corpus: no program '" + name + "' (all, none or of " + String.join(",", Corpus.names()) + ")");
      }
    }
    return names;
  }

  /** {@code short}, {@code warmed} or both, in the order given, each once. */
  private static List<String> regimes(String value) {
    List<String> names = Arrays.stream(value.split(",")).map(String::strip).filter(s -> !s.isEmpty()).distinct().toList();
    if (names.isEmpty()) {
      throw new IllegalArgumentException("--regimes names none (short, warmed or both)");
    }
    for (String name : names) {
      oneOf("--regimes", name, "short", "warmed");
    }
    return names;
  }

  /** {@code value} as a whole number of at least {@code min}; the message names {@code key}. */
  static int number(String key, String value, int min) {
    try {
      int n = Integer.parseInt(value.strip());
      if (n < min) {
        throw new IllegalArgumentException(key + " must be at least " + min + ", not " + n);
      }
      return n;
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(key + " needs a whole number, not '" + value + "'");
    }
  }

  /** {@code value}, one of {@code allowed}; the message names {@code key} and them. */
  static String oneOf(String key, String value, String... allowed) {
    if (!Arrays.asList(allowed).contains(value)) {
      throw new IllegalArgumentException(key + " must be one of " + String.join(", ", allowed) + ", not '" + value + "'");
    }
    return value;
  }
}
