package dev.kernelweave.agent.cli;

import dev.kernelweave.agent.cli.inspect.ChromeTrace;
import dev.kernelweave.agent.cli.inspect.DependencyGraph;
import dev.kernelweave.agent.cli.inspect.GraphvizDot;
import dev.kernelweave.agent.cli.inspect.InspectException;
import dev.kernelweave.agent.cli.inspect.Journal;
import dev.kernelweave.agent.cli.inspect.JournalStats;
import dev.kernelweave.agent.cli.inspect.OutputFile;
import dev.kernelweave.agent.cli.inspect.TailFormat;
import dev.kernelweave.call.CallRecord;
import java.io.BufferedOutputStream;
import java.io.BufferedWriter;
import java.io.IOException;
import java.io.OutputStream;
import java.io.OutputStreamWriter;
import java.io.PrintStream;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileSystems;
import java.nio.file.Path;
import java.nio.file.PathMatcher;
import java.time.Instant;
import java.time.ZoneId;
import java.time.format.DateTimeParseException;
import java.util.ArrayDeque;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.function.Predicate;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code inspect stats|tail|dag|trace DIR}: reads a launch journal directory. Each subcommand
 * checks its arguments, then reads the journal; what it cannot read is said in one line with the
 * exit code of {@link InspectException}.
 */
@Command(
    name = "inspect",
    description = {"Reads a launch journal: statistics, each call, the dependency graph, a timeline.", "",
        InspectCommand.DIRECTORY_NOTE, ""},
    subcommands = {
      InspectCommand.StatsCommand.class,
      InspectCommand.TailCommand.class,
      InspectCommand.DagCommand.class,
      InspectCommand.TraceCommand.class,
      CommandLine.HelpCommand.class
    },
    exitCodeListHeading = InspectCommand.EXIT_CODES_HEADING,
    exitCodeList = {
      InspectCommand.EXIT_READ, InspectCommand.EXIT_OUTPUT, InspectCommand.EXIT_USAGE, InspectCommand.EXIT_DAMAGED
    })
final class InspectCommand implements Callable<Integer>, Main.UsageAfterErrors {

  static final String DIRECTORY_NOTE = "DIR is a run's journal directory (the one the agent printed at start),"
      + " or a directory holding runs (journal=DIR): then the newest run is read and the others are named"
      + " on stderr.";
  static final String EXIT_CODES_HEADING = "%nExit codes:%n";
  static final String EXIT_READ = "0:read (a journal whose writer stopped mid-record is read to that record,"
      + " and one line on stderr says so)";
  static final String EXIT_OUTPUT = "1:the output file cannot be written (the line says why)";
  static final String EXIT_USAGE = "2:usage, unreadable input, or an output that is the journal's own file";
  static final String EXIT_DAMAGED = "3:damaged journal: calls are missing (what was readable is printed,"
      + " then one line names the file and the first missing call)";

  /** Exit code when the output file cannot be written. */
  static final int OUTPUT_FAILED = OutputFile.FAILED;

  @Option(names = {"-h", "--help"}, usageHelp = true, order = Main.LAST, description = "this text")
  private boolean help;

  @Spec private CommandSpec spec;

  /** Without a subcommand: the usage, on stderr, and the usage error's exit code. */
  @Override
  public Integer call() {
    spec.commandLine().usage(spec.commandLine().getErr());
    return Main.USAGE;
  }

  static int run(String[] args, PrintStream out, PrintStream err) {
    return run(args, out, err, ZoneId.systemDefault());
  }

  /** {@code kernelweave inspect ARGS...}, showing times in {@code zone}. */
  static int run(String[] args, PrintStream out, PrintStream err, ZoneId zone) {
    return Main.run("inspect", args, out, err, zone);
  }

  @Command(
      name = "stats",
      description = {"Calls per kind, kernel, thread and priority; bytes; syncs; streams; graph replays.",
        "", DIRECTORY_NOTE, ""},
      exitCodeListHeading = EXIT_CODES_HEADING,
      exitCodeList = {EXIT_READ, EXIT_USAGE, EXIT_DAMAGED})
  static final class StatsCommand extends JournalCommand {
    @Option(names = "--since", paramLabel = "INSTANT", description = "count only calls that began at INSTANT or"
        + " later (ISO-8601 like 2026-11-25T14:30:00.5Z, or epoch nanoseconds)")
    private String sinceText;

    @Option(names = "--format", paramLabel = "F", completionCandidates = Formats.class,
        description = "text (default), json or csv")
    private String format = "text";

    /** Epoch nanoseconds: the calls that began then or later are counted. */
    private long since = Long.MIN_VALUE;

    StatsCommand(CommandIo io) {
      super(io);
    }

    @Override
    void check() {
      if (!List.of("text", "json", "csv").contains(format)) {
        throw usage("--format is text, json or csv, not '" + format + "'");
      }
      if (sinceText != null) {
        since = instant("--since", sinceText);
      }
    }

    @Override
    int read(Path directory) throws InspectException {
      return stats(directory, since, sinceText, format, out, err, zone);
    }

    /** Epoch nanoseconds from an ISO-8601 instant or from epoch nanoseconds. */
    private long instant(String option, String value) {
      try {
        if (value.chars().allMatch(Character::isDigit) && !value.isEmpty()) {
          return Long.parseLong(value);
        }
        Instant t = Instant.parse(value);
        return Math.addExact(Math.multiplyExact(t.getEpochSecond(), 1_000_000_000L), t.getNano());
      } catch (DateTimeParseException | ArithmeticException | NumberFormatException e) {
        throw usage(option + " needs an instant (ISO-8601, like 2026-11-25T14:30:00.5Z, or epoch"
            + " nanoseconds), not '" + value + "'");
      }
    }
  }

  /** The formats of {@code stats --format}, for completion. */
  static final class Formats implements Iterable<String> {
    @Override
    public Iterator<String> iterator() {
      return List.of("text", "json", "csv").iterator();
    }
  }

  @Command(
      name = "tail",
      description = {"One line per call.", "", DIRECTORY_NOTE, ""},
      exitCodeListHeading = EXIT_CODES_HEADING,
      exitCodeList = {EXIT_READ, EXIT_OUTPUT, EXIT_USAGE, EXIT_DAMAGED})
  static final class TailCommand extends JournalCommand {
    @Option(names = {"-f", "--follow"}, description = "follow a live journal to its run's end")
    private boolean follow;

    @Option(names = {"-n", "--lines"}, paramLabel = "N",
        description = "the last N calls only (then, with -f, those that follow)")
    private String lastText;

    @Option(names = "--kernel", paramLabel = "GLOB",
        description = "only launches of kernels whose name matches GLOB (gemm*, *_step)")
    private String kernelGlob;

    /** How many of the last calls to print; -1 for every call. */
    private long last;
    /** Only launches of kernels whose name matches; null for every call. */
    private PathMatcher kernel;

    TailCommand(CommandIo io) {
      super(io);
    }

    @Override
    void check() {
      last = number("-n", lastText, -1, 0, "a number of calls (0 or more)");
      if (kernelGlob != null) {
        try {
          kernel = FileSystems.getDefault().getPathMatcher("glob:" + kernelGlob);
        } catch (IllegalArgumentException e) {
          throw usage("--kernel needs a glob like 'gemm*' or '*_step', not '" + kernelGlob + "': "
              + e.getMessage().lines().findFirst().orElse(""));
        }
      }
    }

    @Override
    int read(Path directory) throws InspectException {
      return tail(directory, follow, last, kernel, out, err, zone);
    }
  }

  @Command(
      name = "dag",
      description = {"The dependency graph of the device calls, in Graphviz DOT or drawn by Graphviz.", "",
        "DOT text by default (or --dot); --svg and --png run Graphviz's dot (on the PATH, or the program"
            + " KERNELWEAVE_DOT names) and draw the first " + InspectCommand.IMAGE_CALLS + " calls unless"
            + " --from and --to say others.",
        "", DIRECTORY_NOTE, ""},
      exitCodeListHeading = EXIT_CODES_HEADING,
      exitCodeList = {EXIT_READ, EXIT_OUTPUT, EXIT_USAGE, EXIT_DAMAGED})
  static final class DagCommand extends JournalCommand {
    @Option(names = "--from", paramLabel = "SEQ", description = "the first call drawn")
    private String fromText;

    @Option(names = "--to", paramLabel = "SEQ", description = "the last call drawn")
    private String toText;

    @Option(names = "--dot", description = "Graphviz DOT text (the default)")
    private boolean dot;

    @Option(names = "--svg", description = "an SVG drawing, written to -o FILE.svg")
    private boolean svg;

    @Option(names = "--png", description = "a PNG drawing, written to -o FILE.png")
    private boolean png;

    @Option(names = {"-o", "--output"}, paramLabel = "FILE", description = "where to write it (default: standard output, DOT only)")
    private Path output;

    private long from;
    private long to;

    DagCommand(CommandIo io) {
      super(io);
    }

    @Override
    void check() {
      from = number("--from", fromText, Long.MIN_VALUE, Long.MIN_VALUE, "a sequence number");
      to = number("--to", toText, Long.MAX_VALUE, Long.MIN_VALUE, "a sequence number");
      if (svg && png) {
        throw usage("choose one of --svg and --png");
      }
      String image = image();
      if (image != null && (output == null || output.toString().equals("-"))) {
        throw usage("dag --" + image + " needs -o FILE." + image);
      }
      if (from > to) {
        throw usage("--from " + from + " is after --to " + to);
      }
    }

    /** svg or png, drawn by Graphviz; null for DOT text. */
    private String image() {
      return svg ? "svg" : png ? "png" : null;
    }

    @Override
    int read(Path directory) throws InspectException {
      return dag(directory, from, to, image(), output, out, err);
    }
  }

  @Command(
      name = "trace",
      description = {"A timeline for Perfetto (Chrome Trace Event Format).", "",
        "A track per thread and one per agent stream, both showing when the host made each call: host"
            + " time, not GPU time.",
        "", DIRECTORY_NOTE, ""},
      exitCodeListHeading = EXIT_CODES_HEADING,
      exitCodeList = {EXIT_READ, EXIT_OUTPUT, EXIT_USAGE, EXIT_DAMAGED})
  static final class TraceCommand extends JournalCommand {
    @Option(names = {"-o", "--output"}, paramLabel = "FILE.json", description = "where to write it; - for standard output")
    private Path output;

    TraceCommand(CommandIo io) {
      super(io);
    }

    @Override
    void check() {
      if (output == null) {
        throw usage("trace needs -o FILE.json");
      }
    }

    @Override
    int read(Path directory) throws InspectException {
      return trace(directory, output, out, err);
    }
  }

  private static int stats(Path directory, long since, String sinceText, String format, PrintStream out,
      PrintStream err, ZoneId zone) throws InspectException {
    JournalStats stats = new JournalStats();
    try (Journal journal = Journal.open(directory, err)) {
      journal.forEach(r -> {
        if (r.startNanos >= since) {
          stats.add(r);
        }
      });
      stats.writer(journal.writer());
      stats.runEnd(journal.runEnd());
      if (stats.calls() > 0 || journal.damage() == null) {
        // A damaged file with no readable call is said to be damaged, not to hold "no calls".
        String title = journal.directory() + (since == Long.MIN_VALUE ? "" : ", calls since " + sinceText);
        switch (format) {
          case "json" -> stats.printJson(out, title);
          case "csv" -> stats.printCsv(out, title);
          default -> stats.print(out, title, zone);
        }
      }
      return finish(journal, err);
    }
  }

  private static int tail(Path directory, boolean follow, long last, PathMatcher kernel, PrintStream out,
      PrintStream err, ZoneId zone) throws InspectException {
    TailFormat format = new TailFormat(zone);
    Predicate<CallRecord> shows = r -> kernel == null || !r.kernel.isEmpty() && kernel.matches(Path.of(r.kernel));
    try (Journal journal = Journal.open(directory, err)) {
      CallRecord r = new CallRecord();
      if (last >= 0) {
        // The last N calls written so far; with -f, then every call that follows.
        ArrayDeque<String> lines = new ArrayDeque<>();
        while (journal.next(r)) {
          if (shows.test(r)) {
            lines.addLast(format.format(r));
            if (lines.size() > last) {
              lines.removeFirst();
            }
          }
        }
        lines.forEach(out::println);
        out.flush();
        if (!follow) {
          return finish(journal, err);
        }
      } else if (!follow) {
        // A line per call, for millions of calls: one builder and one char buffer, flushed at the end.
        Writer w = new BufferedWriter(new OutputStreamWriter(out, StandardCharsets.UTF_8), 1 << 16);
        StringBuilder line = new StringBuilder(256);
        char[] chars = new char[256];
        try {
          while (journal.next(r)) {
            if (!shows.test(r)) {
              continue;
            }
            line.setLength(0);
            format.formatTo(r, line);
            line.append(System.lineSeparator());
            if (chars.length < line.length()) {
              chars = new char[line.length() * 2];
            }
            line.getChars(0, line.length(), chars, 0);
            w.write(chars, 0, line.length());
          }
          w.flush();
        } catch (IOException e) {
          throw new InspectException("cannot write the output: " + OutputFile.reason(e), OUTPUT_FAILED);
        }
        return finish(journal, err);
      }
      while (journal.follow(r)) {
        if (shows.test(r)) {
          out.println(format.format(r));
          out.flush();
        }
      }
      return finish(journal, err);
    }
  }

  private static int dag(Path directory, long from, long to, String image, Path output, PrintStream out,
      PrintStream err) throws InspectException {
    try (Journal journal = Journal.open(directory, err)) {
      if (output != null) {
        refuseJournalFiles(output, directory, journal);
      }
      if (image != null) {
        GraphvizDot.check();
      }
      CallRecord r = new CallRecord();
      boolean any = journal.next(r);
      if (image != null && from == Long.MIN_VALUE && to == Long.MAX_VALUE && any) {
        // A picture of thousands of calls is unreadable: the first calls, and how to see others.
        from = r.seq;
        to = r.seq + IMAGE_CALLS - 1;
        err.println("dag: drew calls " + from + " to " + to + "; --from SEQ --to SEQ draws others");
      }
      DependencyGraph graph = new DependencyGraph(from, to);
      for (boolean more = any; more; more = journal.next(r)) {
        graph.add(r);
        if (to != Long.MAX_VALUE && journal.readAll(from, to)) {
          break; // every call of the range is read: the rest of the journal cannot add to it
        }
      }
      if (graph.tooLarge()) {
        throw new InspectException(graph.tooLargeMessage(), Main.USAGE);
      }
      if (output == null) {
        PrintStream buffered = buffered(out);
        graph.printDot(buffered);
        buffered.flush();
      } else {
        OutputFile.write(output, stream -> {
          if (image != null) {
            GraphvizDot.render(graph::printDot, image, stream);
            return;
          }
          PrintStream dot = new PrintStream(stream, false, StandardCharsets.UTF_8);
          graph.printDot(dot);
          dot.flush();
          if (dot.checkError()) {
            throw new IOException("the write failed");
          }
        });
        out.println("wrote " + graph.held() + " calls to " + output);
      }
      return finish(journal, err);
    }
  }

  /** The calls {@code dag --svg/--png} draws when no range is given. */
  static final int IMAGE_CALLS = 200;

  /** {@code out} behind a large buffer: a line per call, flushed once at the end, not per line. */
  private static PrintStream buffered(PrintStream out) {
    return new PrintStream(new BufferedOutputStream(out, 1 << 16), false, StandardCharsets.UTF_8);
  }

  private static int trace(Path directory, Path output, PrintStream out, PrintStream err) throws InspectException {
    boolean toStdout = output.toString().equals("-");
    long[] origin = {Long.MAX_VALUE};
    try (Journal journal = Journal.open(directory, err)) {
      if (!toStdout) {
        refuseJournalFiles(output, directory, journal);
      }
      journal.forEach(r -> origin[0] = Math.min(origin[0], r.startNanos));
    }
    long[] calls = {0};
    ChromeTrace[] trace = {null};
    try (Journal journal = Journal.open(directory, new PrintStream(OutputStream.nullOutputStream()))) {
      OutputFile.Contents contents = stream -> {
        Writer w = new OutputStreamWriter(stream, StandardCharsets.UTF_8);
        trace[0] = new ChromeTrace(w, origin[0] == Long.MAX_VALUE ? 0 : origin[0]);
        CallRecord r = new CallRecord();
        while (journal.next(r)) {
          trace[0].add(r);
          calls[0]++;
        }
        trace[0].close();
      };
      if (toStdout) {
        try {
          contents.writeTo(out); // the trace flushes its writer and closes nothing
          out.flush();
        } catch (IOException e) {
          throw new InspectException("cannot write the output: " + OutputFile.reason(e), OUTPUT_FAILED);
        }
      } else {
        OutputFile.write(output, contents);
      }
      // On standard output the trace is all there is: the summary goes to standard error.
      (toStdout ? err : out).println("wrote " + calls[0] + " calls"
          + (trace[0].replays() > 0 ? ", " + trace[0].replays() + " graph replays" : "")
          + " and " + trace[0].flows() + " wait arrows to " + (toStdout ? "standard output" : output)
          + " (open it in https://ui.perfetto.dev)");
      return finish(journal, err);
    }
  }

  /** 0, or the damage the command met, said after its output; a partial last record is said on err. */
  private static int finish(Journal journal, PrintStream err) throws InspectException {
    InspectException damage = journal.damage();
    if (damage != null) {
      throw damage;
    }
    String end = journal.partialEnd();
    if (end != null) {
      err.println("kernelweave inspect: " + end);
    }
    return 0;
  }

  /** The output may not be, link to, or lie beside a file of the journal read (named or resolved). */
  private static void refuseJournalFiles(Path output, Path directory, Journal journal) throws InspectException {
    OutputFile.refuseJournalFiles(output, directory);
    OutputFile.refuseJournalFiles(output, journal.directory());
  }
}
