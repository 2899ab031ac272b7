package dev.kernelweave.agent.cli;

import dev.kernelweave.agent.cli.inspect.ChromeTrace;
import dev.kernelweave.agent.cli.inspect.DependencyGraph;
import dev.kernelweave.agent.cli.inspect.InspectException;
import dev.kernelweave.agent.cli.inspect.Journal;
import dev.kernelweave.agent.cli.inspect.Stats;
import dev.kernelweave.agent.cli.inspect.TailFormat;
import dev.kernelweave.call.CallRecord;
import java.io.BufferedWriter;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
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
        stats DIR [--since INSTANT]              calls per kind, kernel and thread; bytes; syncs; streams;
                                                 --since counts only calls that began at INSTANT or later
                                                 (ISO-8601 like 2026-11-25T14:30:00.5Z, or epoch nanoseconds)
        tail DIR [-f]                            one line per call; -f follows a live journal
        dag DIR [--from SEQ] [--to SEQ] [--dot]  the dependency graph in Graphviz DOT
        trace DIR -o FILE.json                   a timeline for Perfetto (Chrome Trace Event Format)
      DIR is a run's journal directory (the one the agent printed at start), or a directory holding
      runs (journal=DIR): then the newest run is read and the others are named on stderr.
      Exit codes: 0 read, 2 usage or unreadable input, 3 damaged journal (what was before the
      damage is printed, then one line names the file and where its readable part ends).
      """;

  /** Exit code when the output file cannot be written. */
  static final int OUTPUT_FAILED = 1;

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
      out.print(USAGE); // also after a command: "inspect stats --help" asks for help, not for a journal
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
        stats.print(out, journal.directory() + since, zone);
      }
      return finish(journal);
    }
  }

  private static int tail(Options o, PrintStream out, PrintStream err, ZoneId zone) throws InspectException {
    TailFormat format = new TailFormat(zone);
    try (Journal journal = Journal.open(o.directory, err)) {
      CallRecord r = new CallRecord();
      if (!o.follow) {
        while (journal.next(r)) {
          out.println(format.format(r));
        }
        return finish(journal);
      }
      while (journal.follow(r)) {
        out.println(format.format(r));
        out.flush();
      }
      return finish(journal);
    }
  }

  private static int dag(Options o, PrintStream out, PrintStream err) throws InspectException {
    DependencyGraph graph = new DependencyGraph(o.from, o.to);
    try (Journal journal = Journal.open(o.directory, err)) {
      journal.forEach(graph::add);
      if (graph.tooLarge()) {
        throw new InspectException(graph.tooLargeMessage(), Main.USAGE);
      }
      graph.printDot(out);
      return finish(journal);
    }
  }

  private static int trace(Options o, PrintStream out, PrintStream err) throws InspectException {
    refuseToWriteInside(o.directory, o.output);
    long[] origin = {Long.MAX_VALUE};
    try (Journal journal = Journal.open(o.directory, err)) {
      journal.forEach(r -> origin[0] = Math.min(origin[0], r.startNanos));
    }
    long calls = 0;
    try (Journal journal = Journal.open(o.directory, new PrintStream(OutputStream.nullOutputStream()))) {
      ChromeTrace trace;
      try (BufferedWriter w = Files.newBufferedWriter(o.output, StandardCharsets.UTF_8)) {
        trace = new ChromeTrace(w, origin[0] == Long.MAX_VALUE ? 0 : origin[0]);
        CallRecord r = new CallRecord();
        while (journal.next(r)) {
          trace.add(r);
          calls++;
        }
        trace.close();
      } catch (IOException | UncheckedIOException e) {
        throw new InspectException("cannot write " + o.output + ": " + e.getMessage(), OUTPUT_FAILED);
      }
      out.println("wrote " + calls + " calls" + (trace.replays() > 0 ? ", " + trace.replays() + " graph replays" : "")
          + " and " + trace.flows() + " wait arrows to " + o.output
          + " (open it in https://ui.perfetto.dev)");
      return finish(journal);
    }
  }

  /** 0, or the damage the command met, said after its output. */
  private static int finish(Journal journal) throws InspectException {
    InspectException damage = journal.damage();
    if (damage != null) {
      throw damage;
    }
    return 0;
  }

  /** An output file inside the journal read could replace the journal's own files: refused. */
  static void refuseToWriteInside(Path journal, Path output) throws InspectException {
    Path parent = output.toAbsolutePath().normalize().getParent();
    if (parent == null || !Files.isDirectory(parent) || !Files.isDirectory(journal)) {
      return;
    }
    try {
      Path realParent = parent.toRealPath();
      Path realJournal = journal.toRealPath();
      if (realParent.startsWith(realJournal)) {
        throw new InspectException("will not write " + output + " inside the journal directory " + journal
            + " that it reads; choose a file elsewhere", Main.USAGE);
      }
    } catch (IOException e) {
      // The write itself says what is wrong.
    }
  }

  private static final class UsageException extends Exception {
    private static final long serialVersionUID = 1L;

    UsageException(String message) {
      super(message);
    }
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
          case "dag --dot" -> { }
          case "dag --from" -> o.from = seq(a, value(args, ++i, a));
          case "dag --to" -> o.to = seq(a, value(args, ++i, a));
          case "stats --since" -> {
            o.sinceText = value(args, ++i, a);
            o.since = instant(a, o.sinceText);
          }
          case "trace -o", "trace --output" -> o.output = Path.of(value(args, ++i, a));
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
  }
}
