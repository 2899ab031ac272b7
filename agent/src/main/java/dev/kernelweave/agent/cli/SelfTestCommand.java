package dev.kernelweave.agent.cli;

import dev.kernelweave.selftest.Mutant;
import dev.kernelweave.scheduler.Scheduler;
import dev.kernelweave.selftest.DifferentialFuzz;
import dev.kernelweave.selftest.ProgramGenerator;
import dev.kernelweave.selftest.Shape;
import dev.kernelweave.sim.SimDevice;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;

/**
 * {@code selftest --sim|--gpu [--seed S] [--programs N] [--graphs on|off] [--mutant M] [--streams K]}:
 * the differential fuzz of the scheduler on the simulated GPU ({@code --sim}), or of the whole agent,
 * interceptor included, on this machine's GPU ({@code --gpu}, {@link InterceptedSelfTest}).
 */
@Command(
    name = "selftest",
    description = {
      "Checks the agent against CUDA's semantics with generated programs (a differential fuzz).",
      "",
      "--sim checks the scheduler alone, on a simulated GPU. --gpu checks the whole agent on this"
          + " machine's GPU: the programs are played by a JCuda application serially without the agent,"
          + " then as written with this jar as -javaagent, and every observation must be the same. Run"
          + " --gpu with JCuda and JCublas on the class path: java -cp kernelweave-agent.jar:JCUDA_JARS"
          + " dev.kernelweave.agent.cli.Main selftest --gpu (or name them with --class-path).",
      ""
    },
    exitCodeListHeading = "%nExit codes:%n",
    exitCodeList = {
      "0:every program observed the same",
      "1:one did not (the first is printed, shrunk)",
      "2:usage",
      "3:--gpu cannot run here (no GPU or no CUDA driver, no JCuda, not run from the agent jar)"
    })
final class SelfTestCommand extends IoCommand implements Main.UsageAfterErrors {

  /** Exit code when the GPU self-test cannot run here (no GPU, no JCuda, not run from the agent jar). */
  static final int UNAVAILABLE = 3;

  @Option(names = "--sim", description = "the scheduler alone, on a simulated GPU")
  private boolean sim;

  @Option(names = "--gpu", description = "the whole agent on this machine's GPU")
  private boolean gpu;

  @Option(names = "--seed", paramLabel = "S", description = "the first program's seed (default: a new one, printed)")
  private String seed;

  @Option(names = "--programs", paramLabel = "N", description = "programs to generate and check, at least 1 (default 1000)")
  private String programs;

  @Option(names = "--graphs", paramLabel = "G", completionCandidates = OnOff.class, description = "on: repeated"
      + " windows of launches are held and replayed as CUDA graphs, as the agent's graphs=on does; off: every"
      + " launch is issued at once (default on)")
  private String graphs;

  @Option(names = "--mutant", paramLabel = "M", completionCandidates = MutantNames.class, description =
      "check a deliberately broken scheduler instead, to see the fuzz catch it (the mutants are listed below)")
  private String mutant;

  @Option(names = "--streams", paramLabel = "K", description = "streams per scheduler, 1..64 (default 8)")
  private String streams;

  @Option(names = "--class-path", paramLabel = "CP", description = "(--gpu) the JCuda and JCublas jars, natives"
      + " included, for the programs (default: this JVM's class path)")
  private String classPath;

  @Option(names = {"-h", "--help"}, usageHelp = true, order = Main.LAST, description = "this text")
  private boolean help;

  SelfTestCommand(CommandIo io) {
    super(io);
  }

  /** The mutants, one line each with the bug it carries, after the exit codes in the help. */
  static void listMutants(CommandSpec spec) {
    Map<String, String> mutants = new LinkedHashMap<>();
    for (Mutant m : Mutant.values()) {
      if (m != Mutant.NONE) {
        mutants.put(m.option(), m.description());
      }
    }
    List<String> sections = new ArrayList<>(spec.usageMessage().sectionKeys());
    sections.add("mutantsHeading");
    sections.add("mutants");
    spec.usageMessage().sectionKeys(sections);
    spec.usageMessage().sectionMap().put("mutantsHeading", help -> help.createHeading("%nMutants (--mutant M):%n"));
    spec.usageMessage().sectionMap().put("mutants", help -> help.createTextTable(mutants).toString());
  }

  /** The mutants' options, for completion. */
  static final class MutantNames implements Iterable<String> {
    @Override
    public Iterator<String> iterator() {
      return Arrays.stream(Mutant.values()).filter(m -> m != Mutant.NONE).map(Mutant::option).iterator();
    }
  }

  /** on and off, for completion. */
  static final class OnOff implements Iterable<String> {
    @Override
    public Iterator<String> iterator() {
      return List.of("on", "off").iterator();
    }
  }

  @Override
  public Integer call() {
    if (sim && gpu) {
      throw usage("choose one of --sim and --gpu, not both");
    }
    if (!sim && !gpu) {
      throw usage("choose --sim (the simulated GPU) or --gpu (this machine's GPU)");
    }
    if (graphs != null && !graphs.equals("on") && !graphs.equals("off")) {
      throw usage("--graphs: expected on or off, got '" + graphs + "'");
    }
    long firstSeed = seed == null ? System.nanoTime() & 0xFFFF_FFFFL : number("--seed", "an integer", seed, Long::decode);
    int count = programs == null ? 1000 : number("--programs", "a whole number", programs, Integer::parseInt);
    Integer streamCount = streams == null ? null : number("--streams", "a whole number", streams, Integer::parseInt);
    Mutant broken = Mutant.NONE;
    if (mutant != null) {
      try {
        broken = Mutant.ofOption(mutant);
      } catch (IllegalArgumentException e) {
        throw usage("--mutant: unknown mutant '" + mutant + "': expected one of " + Mutant.names());
      }
    }
    if (count < 1) {
      throw usage("--programs: expected at least 1, got " + count);
    }
    if (streamCount != null && (streamCount < 1 || streamCount > 64)) {
      throw usage("--streams: expected 1..64, got " + streamCount);
    }
    boolean graphsOn = graphs == null || graphs.equals("on");
    if (gpu) {
      return InterceptedSelfTest.run(new InterceptedSelfTest.Settings(firstSeed, count, graphsOn, streamCount,
          broken, classPath), out, err);
    }
    if (classPath != null) {
      throw usage("--class-path applies to --gpu only");
    }
    return runSim(firstSeed, count, broken, streamCount == null ? Scheduler.DEFAULT_STREAMS : streamCount, graphsOn,
        out);
  }

  private <T> T number(String option, String expected, String value, java.util.function.Function<String, T> parse) {
    try {
      return parse.apply(value);
    } catch (NumberFormatException e) {
      throw usage(option + ": expected " + expected + ", got '" + value + "'");
    }
  }

  private ParameterException usage(String message) {
    return new ParameterException(spec.commandLine(), message);
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
}
