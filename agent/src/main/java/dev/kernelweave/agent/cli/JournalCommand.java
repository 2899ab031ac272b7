package dev.kernelweave.agent.cli;

import dev.kernelweave.agent.cli.inspect.InspectException;
import java.nio.file.Path;
import java.time.ZoneId;
import java.util.List;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;

/**
 * What every {@code inspect} subcommand shares: the journal directory, help, and how it reports.
 * Per call: picocli fills the options, {@link #call} checks the directory, then {@link #check}, then
 * {@link #read}. Not thread-safe: one command line runs it once.
 */
abstract class JournalCommand extends IoCommand implements Main.UsageAfterErrors {

  @Parameters(paramLabel = "DIR", arity = "0..*", hideParamSyntax = true,
      description = "a run's journal directory, or a directory of runs (the newest is read)")
  private List<Path> directories = List.of();

  @Option(names = {"-h", "--help"}, usageHelp = true, order = Main.LAST, description = "this text")
  private boolean help;

  final ZoneId zone;

  JournalCommand(CommandIo io) {
    super(io);
    this.zone = io.zone();
  }

  @Override
  public Integer call() {
    if (directories.isEmpty()) {
      throw usage(spec.name() + " needs a journal directory");
    }
    if (directories.size() > 1) {
      throw usage(spec.name() + " takes one journal directory, not " + directories);
    }
    check();
    try {
      return read(directories.get(0));
    } catch (InspectException e) {
      err.println("kernelweave inspect: " + e.getMessage());
      return e.exitCode();
    }
  }

  /** Checks the options together, before anything is read. */
  void check() {}

  abstract int read(Path directory) throws InspectException;

  ParameterException usage(String message) {
    return new ParameterException(spec.commandLine(), message);
  }

  /**
   * {@code value} of {@code option} as a whole number of at least {@code min}, or {@code absent}
   * where the option was not given; a usage error saying that it needs {@code what} otherwise.
   */
  long number(String option, String value, long absent, long min, String what) {
    if (value == null) {
      return absent;
    }
    try {
      long n = Long.parseLong(value);
      if (n >= min) {
        return n;
      }
    } catch (NumberFormatException e) {
      // Said below.
    }
    throw usage(option + " needs " + what + ", not '" + value + "'");
  }
}
