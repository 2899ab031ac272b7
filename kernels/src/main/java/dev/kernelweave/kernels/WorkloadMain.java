package dev.kernelweave.kernels;

import dev.kernelweave.corpus.Corpus;
import java.io.PrintStream;
import java.time.Duration;
import java.util.List;
import java.util.Locale;

/**
 * Runs one workload in this JVM and reports it on one line.
 *
 * <pre>
 * java -cp ... dev.kernelweave.kernels.WorkloadMain NAME [--variant serial|tuned|graph]
 *     [--size check|bench] [--warmup W] [--warmup-ms MS] [--reps R]
 * </pre>
 *
 * <p>Prints {@code NAME: SIZES}, then ends with {@code KW-RESULT {json}}. Exit status: 0 done, 1
 * the output differs from the CPU reference or between repetitions, 2 bad arguments, 3 no GPU or no
 * CUDA driver, 4 the run failed (a CUDA call returned an error, for example).
 */
public final class WorkloadMain {

  static final String USAGE =
      "usage: WorkloadMain NAME [--variant serial|tuned|graph] [--size check|bench]"
          + " [--warmup W] [--warmup-ms MS] [--reps R]\n  NAME: "
          + String.join(", ", Workloads.names())
          + "\n  or a corpus program (serial only): "
          + String.join(", ", Corpus.names())
          + "\n  --warmup-ms: after the W warm-ups, more until MS milliseconds of warm-ups have passed"
          + "\n  defaults: --variant serial --size bench --warmup 3 --warmup-ms 0 --reps 10";

  /** The parsed command line. */
  record Options(String name, Variant variant, Size size, int warmup, int warmupMillis, int reps) {

    static Options parse(String... args) {
      String name = null;
      Variant variant = Variant.SERIAL;
      Size size = Size.BENCH;
      int warmup = 3;
      int warmupMillis = 0;
      int reps = 10;
      CommandLine line = new CommandLine(args);
      while (line.hasNext()) {
        String arg = line.next();
        if (!arg.startsWith("--")) {
          if (name != null) {
            throw new IllegalArgumentException(
                "one workload name expected, got '" + name + "' and '" + arg + "'");
          }
          Workloads.problem(arg, Size.CHECK);
          name = arg;
          continue;
        }
        String value = line.valueOf(arg);
        switch (arg) {
          case "--variant":
            variant = Variant.of(value);
            break;
          case "--size":
            size = Size.of(value);
            break;
          case "--warmup":
            warmup = CommandLine.wholeNumber(arg, value, 0);
            break;
          case "--warmup-ms":
            warmupMillis = CommandLine.wholeNumber(arg, value, 0);
            break;
          case "--reps":
            reps = CommandLine.wholeNumber(arg, value, 1);
            break;
          default:
            throw new IllegalArgumentException("unknown option " + arg);
        }
      }
      if (name == null) {
        throw new IllegalArgumentException("no workload name");
      }
      Workloads.requireVariant(name, variant);
      return new Options(name, variant, size, warmup, warmupMillis, reps);
    }
  }

  private WorkloadMain() {}

  public static void main(String[] args) {
    System.exit(run(args, System.out, System.err));
  }

  /** Everything {@link #main} does, returning the exit status. */
  static int run(String[] args, PrintStream out, PrintStream err) {
    if (args.length == 1 && (args[0].equals("--help") || args[0].equals("-h"))) {
      out.println(USAGE);
      return 0;
    }
    Options options;
    try {
      options = Options.parse(args);
    } catch (IllegalArgumentException e) {
      err.println("error: " + e.getMessage());
      err.println(USAGE);
      return 2;
    }
    if (!Gpu.available()) {
      out.println("no GPU: " + Gpu.problem());
      return 3;
    }
    Problem problem = Workloads.problem(options.name(), options.size());
    out.println(problem.name() + ": " + problem.sizes());
    out.flush();
    TimedRepetitions.Result result;
    try {
      result =
          TimedRepetitions.run(
              Workloads.create(options.name(), options.variant(), options.size()),
              options.warmup(),
              Duration.ofMillis(options.warmupMillis()),
              options.reps());
    } catch (RuntimeException | LinkageError e) {
      // jcuda.CudaException for a failed call, UnsatisfiedLinkError for a missing library (JCublas
      // needs libcublas.so.12), anything else as fatal.
      err.println("error: the run failed: " + e);
      e.printStackTrace(err);
      return 4;
    }
    String reference = verdict(problem, options.size(), result);
    out.println("KW-RESULT " + json(options, problem.sizes(), result, reference));
    return reference.startsWith("mismatch") ? 1 : 0;
  }

  /**
   * "ok", "skipped" (bench size) or "mismatch: ..." (against the reference or between repetitions).
   */
  static String verdict(Problem problem, Size size, TimedRepetitions.Result result) {
    if (result.unstable() != null) {
      return "mismatch: " + result.unstable();
    }
    if (size != Size.CHECK) {
      return "skipped";
    }
    String difference = Outputs.difference(result.output(), problem.reference());
    return difference == null ? "ok" : "mismatch: " + difference;
  }

  static String json(
      Options options, String sizes, TimedRepetitions.Result result, String reference) {
    StringBuilder ms = new StringBuilder();
    List<Double> millis = result.millis();
    for (int i = 0; i < millis.size(); i++) {
      ms.append(i == 0 ? "" : ",").append(String.format(Locale.ROOT, "%.3f", millis.get(i)));
    }
    return "{\"name\":"
        + quote(options.name())
        + ",\"variant\":"
        + quote(options.variant().label())
        + ",\"size\":"
        + quote(options.size().label())
        + ",\"sizes\":"
        + quote(sizes)
        + ",\"ms\":["
        + ms
        + "]"
        + ",\"checksum\":"
        + quote(result.checksum())
        + ",\"reference\":"
        + quote(reference)
        + ",\"warmups\":"
        + result.warmups()
        + ",\"timedFrom\":"
        + quote(result.timedFrom().toString())
        + "}";
  }

  static String quote(String s) {
    StringBuilder q = new StringBuilder("\"");
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (c == '"' || c == '\\') {
        q.append('\\').append(c);
      } else if (c < 0x20) {
        q.append(String.format(Locale.ROOT, "\\u%04x", (int) c));
      } else {
        q.append(c);
      }
    }
    return q.append('"').toString();
  }
}
