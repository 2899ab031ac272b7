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
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.List;

/** {@code inspect}: reads a launch journal directory. */
final class InspectCommand {

  static final String USAGE = """
      usage: kernelweave inspect COMMAND DIR [options]
        stats DIR                                calls per kind, kernel and thread; bytes; syncs; streams
        tail DIR [-f]                            one line per call; -f follows a live journal
        dag DIR [--from SEQ] [--to SEQ] [--dot]  the dependency graph in Graphviz DOT
        trace DIR -o FILE.json                   a timeline for Perfetto (Chrome Trace Event Format)
      DIR is a journal directory (journal=DIR, or the one the agent printed at start).
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
    if (args[0].equals("--help") || args[0].equals("-h") || args[0].equals("help")) {
      out.print(USAGE);
      return 0;
    }
    try {
      Options o = Options.parse(args);
      return switch (o.command) {
        case "stats" -> stats(o, out, zone);
        case "tail" -> tail(o, out, zone);
        case "dag" -> dag(o, out);
        case "trace" -> trace(o, out);
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

  private static int stats(Options o, PrintStream out, ZoneId zone) throws InspectException {
    Stats stats = new Stats();
    try (Journal journal = Journal.open(o.directory)) {
      journal.forEach(stats::add);
    }
    stats.print(out, o.directory.toString(), zone);
    return 0;
  }

  private static int tail(Options o, PrintStream out, ZoneId zone) throws InspectException {
    TailFormat format = new TailFormat(zone);
    try (Journal journal = Journal.open(o.directory)) {
      CallRecord r = new CallRecord();
      if (!o.follow) {
        while (journal.next(r)) {
          out.println(format.format(r));
        }
        return 0;
      }
      while (journal.follow(r)) {
        out.println(format.format(r));
        out.flush();
      }
      return 0;
    }
  }

  private static int dag(Options o, PrintStream out) throws InspectException {
    DependencyGraph graph = new DependencyGraph(o.from, o.to);
    try (Journal journal = Journal.open(o.directory)) {
      journal.forEach(graph::add);
    }
    graph.printDot(out);
    return 0;
  }

  private static int trace(Options o, PrintStream out) throws InspectException {
    long[] origin = {Long.MAX_VALUE};
    try (Journal journal = Journal.open(o.directory)) {
      journal.forEach(r -> origin[0] = Math.min(origin[0], r.startNanos));
    }
    long calls = 0;
    try (Journal journal = Journal.open(o.directory)) {
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
      out.println("wrote " + calls + " calls and " + trace.flows() + " wait arrows to " + o.output
          + " (open it in https://ui.perfetto.dev)");
    }
    return 0;
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

    private static long seq(String option, String value) throws UsageException {
      try {
        return Long.parseLong(value);
      } catch (NumberFormatException e) {
        throw new UsageException(option + " needs a sequence number, not '" + value + "'");
      }
    }
  }
}
