package dev.kernelweave.agent.cli;

import dev.kernelweave.agent.cli.inspect.ChromeTrace;
import dev.kernelweave.agent.cli.inspect.DependencyGraph;
import dev.kernelweave.agent.cli.inspect.GraphvizDot;
import dev.kernelweave.agent.cli.inspect.InspectException;
import dev.kernelweave.agent.cli.inspect.Journal;
import dev.kernelweave.agent.cli.inspect.OutputFile;
import dev.kernelweave.agent.cli.inspect.Stats;
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
import java.nio.file.Path;
import java.time.Instant;
import java.time.ZoneId;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.List;

/** {@code inspect}: reads a launch journal directory. */
final class InspectCommand {

  static final String USAGE = """
      usage: kernelweave inspect COMMAND DIR [options]
        stats DIR [--since INSTANT] [--format F] calls per kind, kernel, thread and priority; bytes;
                                                 syncs; streams; --since counts only calls that began at
                                                 INSTANT or later
                                                 (ISO-8601 like 2026-11-25T14:30:00.5Z, or epoch nanoseconds);
                                                 --format text (default), json or csv
        tail DIR [-f] [-n N] [--kernel GLOB]     one line per call; -f follows a live journal to its run's
                                                 end; -n the last N calls only (then, with -f, those that
                                                 follow); --kernel only launches of kernels whose name
                                                 matches GLOB (gemm*, *_step)
        dag DIR [--from SEQ] [--to SEQ] [--dot] [-o FILE.dot]
                                                 the dependency graph in Graphviz DOT
        dag DIR --svg|--png -o FILE [--from SEQ] [--to SEQ]
                                                 the same drawn by Graphviz's dot (on the PATH, or the
                                                 program KERNELWEAVE_DOT names); without a range, the
                                                 first 200 calls
        trace DIR -o FILE.json                   a timeline for Perfetto (Chrome Trace Event Format);
                                                 -o - writes it to standard output
      DIR is a run's journal directory (the one the agent printed at start), or a directory holding
      runs (journal=DIR): then the newest run is read and the others are named on stderr.
      Exit codes: 0 read (a journal whose writer stopped mid-record is read to that record, and
      one line on stderr says so), 1 the output file cannot be written, 2 usage, unreadable input
      or an output that is the journal's own file, 3 damaged journal: calls are missing (what was
      readable is printed, then one line names the file and the first missing call).
      """;

  /** Exit code when the output file cannot be written. */
  static final int OUTPUT_FAILED = OutputFile.FAILED;

  private InspectCommand() {}

  static int run(String[] args, PrintStream out, PrintStream err) {
    return run(args, out, err, ZoneId.systemDefault());
  }

  static int run(String[] args, PrintStream out, PrintStream err, ZoneId zone) {
    if (args.length == 0) {
      err.print(USAGE);
      return Main.USAGE;
    }
    if (args[0].equals("help") || List.of(args).contains("--help") || List.of(args).contains("-h")) {
      // Also after a command: "inspect stats --help" asks for that command's help, not for a journal.
      out.print(args[0].equals("help") || args[0].startsWith("-") ? USAGE : usageOf(args[0]));
      return 0;
    }
    try {
      Options o = Options.parse(args);
      return switch (o.command) {
        case "stats" -> stats(o, out, err, zone);
        case "tail" -> tail(o, out, err, zone);
        case "dag" -> dag(o, out, err);
        case "trace" -> trace(o, out, err);
        default -> throw new IllegalStateException(o.command);
      };
    } catch (UsageException e) {
      err.println("kernelweave inspect: " + e.getMessage());
      err.print(USAGE);
      return Main.USAGE;
    } catch (InspectException e) {
      err.println("kernelweave inspect: " + e.getMessage());
      return e.exitCode();
    }
  }

  private static int stats(Options o, PrintStream out, PrintStream err, ZoneId zone) throws InspectException {
    Stats stats = new Stats();
    try (Journal journal = Journal.open(o.directory, err)) {
      journal.forEach(r -> {
        if (r.startNanos >= o.since) {
          stats.add(r);
        }
      });
      if (stats.calls() > 0 || journal.damage() == null) {
        // A damaged file with no readable call is said to be damaged, not to hold "no calls".
        String since = o.since == Long.MIN_VALUE ? "" : ", calls since " + o.sinceText;
        switch (o.format) {
          case "json" -> stats.printJson(out, journal.directory() + since);
          case "csv" -> stats.printCsv(out, journal.directory() + since);
          default -> stats.print(out, journal.directory() + since, zone);
        }
      }
      return finish(journal, err);
    }
  }

  private static int tail(Options o, PrintStream out, PrintStream err, ZoneId zone) throws InspectException {
    TailFormat format = new TailFormat(zone);
    try (Journal journal = Journal.open(o.directory, err)) {
      CallRecord r = new CallRecord();
      if (o.last >= 0) {
        // The last N calls written so far; with -f, then every call that follows.
        java.util.ArrayDeque<String> last = new java.util.ArrayDeque<>();
        while (journal.next(r)) {
          if (o.shows(r)) {
            last.addLast(format.format(r));
            if (last.size() > o.last) {
              last.removeFirst();
            }
          }
        }
        last.forEach(out::println);
        out.flush();
        if (!o.follow) {
          return finish(journal, err);
        }
      } else if (!o.follow) {
        // A line per call, for millions of calls: one builder and one char buffer, flushed at the end.
        Writer w = new BufferedWriter(new OutputStreamWriter(out, StandardCharsets.UTF_8), 1 << 16);
        StringBuilder line = new StringBuilder(256);
        char[] chars = new char[256];
        try {
          while (journal.next(r)) {
            if (!o.shows(r)) {
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
        if (o.shows(r)) {
          out.println(format.format(r));
          out.flush();
        }
      }
      return finish(journal, err);
    }
  }

  private static int dag(Options o, PrintStream out, PrintStream err) throws InspectException {
    try (Journal journal = Journal.open(o.directory, err)) {
      if (o.output != null) {
        refuseJournalFiles(o, journal);
      }
      if (o.image != null) {
        GraphvizDot.check();
      }
      CallRecord r = new CallRecord();
      boolean any = journal.next(r);
      long from = o.from;
      long to = o.to;
      if (o.image != null && from == Long.MIN_VALUE && to == Long.MAX_VALUE && any) {
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
      if (o.output == null) {
        PrintStream buffered = buffered(out);
        graph.printDot(buffered);
        buffered.flush();
      } else {
        OutputFile.write(o.output, stream -> {
          if (o.image != null) {
            GraphvizDot.render(graph::printDot, o.image, stream);
            return;
          }
          PrintStream dot = new PrintStream(stream, false, StandardCharsets.UTF_8);
          graph.printDot(dot);
          dot.flush();
          if (dot.checkError()) {
            throw new IOException("the write failed");
          }
        });
        out.println("wrote " + graph.held() + " calls to " + o.output);
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

  private static int trace(Options o, PrintStream out, PrintStream err) throws InspectException {
    boolean toStdout = o.output.toString().equals("-");
    long[] origin = {Long.MAX_VALUE};
    try (Journal journal = Journal.open(o.directory, err)) {
      if (!toStdout) {
        refuseJournalFiles(o, journal);
      }
      journal.forEach(r -> origin[0] = Math.min(origin[0], r.startNanos));
    }
    long[] calls = {0};
    ChromeTrace[] trace = {null};
    try (Journal journal = Journal.open(o.directory, new PrintStream(OutputStream.nullOutputStream()))) {
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
        OutputFile.write(o.output, contents);
      }
      // On standard output the trace is all there is: the summary goes to standard error.
      (toStdout ? err : out).println("wrote " + calls[0] + " calls"
          + (trace[0].replays() > 0 ? ", " + trace[0].replays() + " graph replays" : "")
          + " and " + trace[0].flows() + " wait arrows to " + (toStdout ? "standard output" : o.output)
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
  private static void refuseJournalFiles(Options o, Journal journal) throws InspectException {
    OutputFile.refuseJournalFiles(o.output, o.directory);
    OutputFile.refuseJournalFiles(o.output, journal.directory());
  }

  private static final class UsageException extends Exception {
    private static final long serialVersionUID = 1L;

    UsageException(String message) {
      super(message);
    }
  }

  /**
   * The usage text of one command: the first line, that command's lines and the closing notes;
   * all of it for a command there is none of.
   */
  static String usageOf(String command) {
    StringBuilder b = new StringBuilder();
    boolean inCommand = false;
    boolean found = false;
    for (String line : USAGE.split("\n")) {
      boolean commandLine = line.startsWith("  ") && !line.startsWith("   ");
      if (commandLine) {
        inCommand = line.startsWith("  " + command + " ");
        found |= inCommand;
      }
      boolean continuation = line.startsWith("   ");
      if (!commandLine && !continuation || inCommand) {
        b.append(line).append('\n');
      }
    }
    return found ? b.toString() : USAGE;
  }

  /** The parsed command line of one subcommand. */
  private static final class Options {
    String command;
    Path directory;
    boolean follow;
    long from = Long.MIN_VALUE;
    long to = Long.MAX_VALUE;
    /** Epoch nanoseconds: stats counts the calls that began then or later. */
    long since = Long.MIN_VALUE;
    String sinceText;
    Path output;
    /** dag: svg or png, drawn by Graphviz; null for DOT text. */
    String image;
    /** stats: text, json or csv. */
    String format = "text";
    /** tail: how many of the last calls to print; -1 for every call. */
    long last = -1;
    /** tail: only launches of kernels whose name matches; null for every call. */
    java.nio.file.PathMatcher kernel;

    /** Whether tail prints the call. */
    boolean shows(CallRecord r) {
      return kernel == null || !r.kernel.isEmpty() && kernel.matches(Path.of(r.kernel));
    }

    static Options parse(String[] args) throws UsageException {
      Options o = new Options();
      o.command = args[0];
      if (!List.of("stats", "tail", "dag", "trace").contains(o.command)) {
        throw new UsageException("unknown command '" + o.command + "': expected stats, tail, dag or trace");
      }
      List<String> positional = new ArrayList<>();
      for (int i = 1; i < args.length; i++) {
        String a = args[i];
        switch (o.command + " " + a) {
          case "tail -f", "tail --follow" -> o.follow = true;
          case "tail -n", "tail --lines" -> o.last = count(a, value(args, ++i, a));
          case "tail --kernel" -> o.kernel = kernelGlob(a, value(args, ++i, a));
          case "dag --dot" -> { }
          case "dag --svg" -> o.image = "svg";
          case "dag --png" -> o.image = "png";
          case "dag --from" -> o.from = seq(a, value(args, ++i, a));
          case "dag --to" -> o.to = seq(a, value(args, ++i, a));
          case "stats --format" -> {
            o.format = value(args, ++i, a);
            if (!List.of("text", "json", "csv").contains(o.format)) {
              throw new UsageException("--format is text, json or csv, not '" + o.format + "'");
            }
          }
          case "stats --since" -> {
            o.sinceText = value(args, ++i, a);
            o.since = instant(a, o.sinceText);
          }
          case "trace -o", "trace --output", "dag -o", "dag --output" -> o.output = Path.of(value(args, ++i, a));
          default -> {
            if (a.startsWith("-") && a.length() > 1) {
              throw new UsageException("unknown option '" + a + "' for " + o.command);
            }
            positional.add(a);
          }
        }
      }
      if (positional.isEmpty()) {
        throw new UsageException(o.command + " needs a journal directory");
      }
      if (positional.size() > 1) {
        throw new UsageException(o.command + " takes one journal directory, not " + positional);
      }
      o.directory = Path.of(positional.get(0));
      if (o.command.equals("trace") && o.output == null) {
        throw new UsageException("trace needs -o FILE.json");
      }
      if (o.image != null && (o.output == null || o.output.toString().equals("-"))) {
        throw new UsageException("dag --" + o.image + " needs -o FILE." + o.image);
      }
      if (o.from > o.to) {
        throw new UsageException("--from " + o.from + " is after --to " + o.to);
      }
      return o;
    }

    private static String value(String[] args, int i, String option) throws UsageException {
      if (i >= args.length) {
        throw new UsageException(option + " needs a value");
      }
      return args[i];
    }

    /** Epoch nanoseconds from an ISO-8601 instant or from epoch nanoseconds. */
    private static long instant(String option, String value) throws UsageException {
      try {
        if (value.chars().allMatch(Character::isDigit) && !value.isEmpty()) {
          return Long.parseLong(value);
        }
        Instant t = Instant.parse(value);
        return Math.addExact(Math.multiplyExact(t.getEpochSecond(), 1_000_000_000L), t.getNano());
      } catch (DateTimeParseException | ArithmeticException | NumberFormatException e) {
        throw new UsageException(option + " needs an instant (ISO-8601, like 2026-11-25T14:30:00.5Z, or epoch"
            + " nanoseconds), not '" + value + "'");
      }
    }

    private static long seq(String option, String value) throws UsageException {
      try {
        return Long.parseLong(value);
      } catch (NumberFormatException e) {
        throw new UsageException(option + " needs a sequence number, not '" + value + "'");
      }
    }

    private static long count(String option, String value) throws UsageException {
      try {
        long n = Long.parseLong(value);
        if (n >= 0) {
          return n;
        }
      } catch (NumberFormatException e) {
        // Said below.
      }
      throw new UsageException(option + " needs a number of calls (0 or more), not '" + value + "'");
    }

    private static java.nio.file.PathMatcher kernelGlob(String option, String value) throws UsageException {
      try {
        return java.nio.file.FileSystems.getDefault().getPathMatcher("glob:" + value);
      } catch (IllegalArgumentException e) {
        throw new UsageException(option + " needs a glob like 'gemm*' or '*_step', not '" + value + "': "
            + e.getMessage().lines().findFirst().orElse(""));
      }
    }
  }
}
