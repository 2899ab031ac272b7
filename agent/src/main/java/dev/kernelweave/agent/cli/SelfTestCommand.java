package dev.kernelweave.agent.cli;

import dev.kernelweave.scheduler.Mutant;
import dev.kernelweave.scheduler.Scheduler;
import dev.kernelweave.selftest.DifferentialFuzz;
import dev.kernelweave.selftest.ProgramGenerator;
import dev.kernelweave.selftest.Shape;
import dev.kernelweave.sim.SimDevice;
import java.io.PrintStream;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * {@code selftest --sim|--gpu [--seed S] [--programs N] [--graphs on|off] [--mutant M] [--streams K]}:
 * the differential fuzz of the scheduler on the simulated GPU ({@code --sim}), or of the whole agent,
 * interceptor included, on this machine's GPU ({@code --gpu}, {@link InterceptedSelfTest}).
 */
final class SelfTestCommand {

  /** Exit code when the GPU self-test cannot run here (no GPU, no JCuda, not run from the agent jar). */
  static final int UNAVAILABLE = 3;

  private static final String USAGE = """
      usage: selftest --sim [--seed S] [--programs N] [--graphs on|off] [--mutant M] [--streams K]
             selftest --gpu [--seed S] [--programs N] [--graphs on|off] [--mutant M] [--streams K]
                    [--class-path CP]
        --sim        the scheduler alone, on a simulated GPU
        --gpu        the whole agent on this machine's GPU: the programs played by a JCuda
                     application, serially without the agent, then as written with this jar as
                     -javaagent; every observation must be the same. Run it with JCuda and JCublas
                     on the class path: java -cp kernelweave-agent.jar:JCUDA_JARS
                     dev.kernelweave.agent.cli.Main selftest --gpu. Exit code 3: no GPU here
        --class-path CP  (--gpu) the JCuda and JCublas jars, natives included, for the programs
                     (default: this JVM's class path)
        --seed S     the first program's seed (default: a new one, printed)
        --programs N programs to generate and check, at least 1 (default 1000)
        --graphs G   on: repeated windows of launches are held and replayed as CUDA graphs, as the
                     agent's graphs=on does; off: every launch is issued at once (default on)
        --mutant M   check a deliberately broken scheduler instead, to see the fuzz catch it:
      """ + mutants() + """
        --streams K  streams per scheduler, 1..64 (default 8)
      """;

  /** One line per mutant: its option and the bug it carries. */
  private static String mutants() {
    StringBuilder s = new StringBuilder();
    for (Mutant m : Mutant.values()) {
      if (m != Mutant.NONE) {
        s.append(String.format(Locale.ROOT, "               %-25s %s%n", m.option(), m.description()));
      }
    }
    return s.toString();
  }

  private SelfTestCommand() {}

  static int run(String[] args, PrintStream out, PrintStream err) {
    String mode = null;
    Long seed = null;
    int programs = 1000;
    Mutant mutant = null;
    Integer streams = null;
    boolean graphs = true;
    String classPath = null;
    for (int i = 0; i < args.length; i++) {
      String arg = args[i];
      switch (arg) {
        case "--help", "-h" -> {
          out.print(USAGE);
          return 0;
        }
        case "--sim", "--gpu" -> {
          if (mode != null && !mode.equals(arg)) {
            return usage(err, "choose one of --sim and --gpu, not both");
          }
          mode = arg;
        }
        case "--graphs" -> {
          if (i + 1 >= args.length) {
            return usage(err, arg + " needs a value");
          }
          String value = args[++i];
          if (!value.equals("on") && !value.equals("off")) {
            return usage(err, "--graphs: expected on or off, got '" + value + "'");
          }
          graphs = value.equals("on");
        }
        case "--class-path" -> {
          if (i + 1 >= args.length) {
            return usage(err, arg + " needs a value");
          }
          classPath = args[++i];
        }
        case "--seed", "--programs", "--mutant", "--streams" -> {
          if (i + 1 >= args.length) {
            return usage(err, arg + " needs a value");
          }
          String value = args[++i];
          try {
            switch (arg) {
              case "--seed" -> seed = Long.decode(value);
              case "--programs" -> programs = Integer.parseInt(value);
              case "--mutant" -> mutant = Mutant.ofOption(value);
              default -> streams = Integer.parseInt(value);
            }
          } catch (NumberFormatException e) {
            return usage(err, arg + ": expected " + (arg.equals("--seed") ? "an integer" : "a whole number") + ", got '"
                + value + "'");
          } catch (IllegalArgumentException e) {
            return usage(err, "--mutant: unknown mutant '" + value + "': expected one of " + Mutant.names());
          }
        }
        default -> {
          return usage(err, "unknown option '" + arg + "': expected --sim, --gpu, --seed S, --programs N, "
              + "--graphs on|off, --mutant M, --streams K or --class-path CP");
        }
      }
    }
    if (mode == null) {
      return usage(err, "choose --sim (the simulated GPU) or --gpu (this machine's GPU)");
    }
    if (programs < 1) {
      return usage(err, "--programs: expected at least 1, got " + programs);
    }
    if (streams != null && (streams < 1 || streams > 64)) {
      return usage(err, "--streams: expected 1..64, got " + streams);
    }
    if (seed == null) {
      seed = System.nanoTime() & 0xFFFF_FFFFL;
    }
    if (mode.equals("--gpu")) {
      return InterceptedSelfTest.run(new InterceptedSelfTest.Settings(seed, programs, graphs, streams,
          mutant == null ? Mutant.NONE : mutant, classPath), out, err);
    }
    if (classPath != null) {
      return usage(err, "--class-path applies to --gpu only");
    }
    return runSim(seed, programs, mutant == null ? Mutant.NONE : mutant,
        streams == null ? Scheduler.DEFAULT_STREAMS : streams, graphs, out);
  }

  private static int runSim(long seed, int programs, Mutant mutant, int streams, boolean graphs, PrintStream out) {
    out.printf(Locale.ROOT, "selftest --sim: seed %d, %d programs, %d streams, graphs %s, %s%n", seed, programs,
        streams, graphs ? "on" : "off",
        mutant == Mutant.NONE ? "the real scheduler" : "mutant " + mutant.option() + " (it should be caught)");
    DifferentialFuzz fuzz =
        new DifferentialFuzz(SimDevice.FACTORY, streams, mutant, new ProgramGenerator(), graphs);
    long start = System.nanoTime();
    DifferentialFuzz.Report report = fuzz.run(seed, programs, 0, out);
    printShapes(report, out);
    out.printf(Locale.ROOT, "scheduler: %s%n", report.stats());
    out.printf(Locale.ROOT, "%.1f s%n", (System.nanoTime() - start) / 1e9);
    if (report.failed() > 0) {
      DifferentialFuzz.Failure first = report.failures().get(0);
      out.println();
      out.println("first failing program, shrunk:");
      out.print(fuzz.shrink(first).describe().indent(2));
      out.println();
    }
    out.println(report.summary());
    return report.failed() > 0 ? 1 : 0;
  }

  /** How many of each shape the programs were generated with. */
  static void printShapes(DifferentialFuzz.Report report, PrintStream out) {
    out.println("shapes generated:");
    for (Shape shape : Shape.values()) {
      out.printf(Locale.ROOT, "  %7d  %s%n", report.shapes().getOrDefault(shape, 0), shape.description());
    }
  }

  private static final Pattern MISSING_LIBRARY =
      Pattern.compile("([^/\\s:]+\\.so[.0-9]*): cannot open shared object file");

  /** The library that could not be loaded, when the error names one; else its first line. */
  static String driverProblem(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      Matcher m = MISSING_LIBRARY.matcher(String.valueOf(t.getMessage()));
      if (m.find()) {
        return m.group(1) + " not found";
      }
    }
    return Main.firstLine(e);
  }

  /** The library that could not be loaded, when the text names one; else the text. */
  static String driverProblem(String text) {
    Matcher m = MISSING_LIBRARY.matcher(text);
    return m.find() ? m.group(1) + " not found" : text.strip();
  }

  private static int usage(PrintStream err, String message) {
    err.println("kernelweave selftest: " + message);
    err.print(USAGE);
    return Main.USAGE;
  }
}
