package dev.kernelweave.agent.cli;

import java.io.OutputStreamWriter;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.time.ZoneId;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import picocli.CommandLine;
import picocli.CommandLine.Model.ArgSpec;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.ParameterException;

/**
 * {@code java -jar kernelweave-agent.jar COMMAND ...}: the command line, parsed by picocli.
 *
 * <p>Only this package uses picocli: the agent's start-up never loads it (AgentStartupTest). A
 * usage error prints one line, {@code kernelweave COMMAND: what is wrong}, naming the option and
 * the values it accepts, then (for {@code inspect} and {@code selftest}) the command's usage;
 * exit code {@value #USAGE}. A failure no command foresaw prints one line; exit code {@value
 * #FAILED}.
 */
public final class Main {

  /** Exit code for a usage error or an input that cannot be read. */
  public static final int USAGE = 2;
  /** Exit code when a command failed in a way it did not foresee (said in one line). */
  public static final int FAILED = 1;

  /** The help option's place among a command's options: the last. */
  static final int LAST = 1000;

  /** Columns of the help text. */
  static final int HELP_WIDTH = 100;

  /** A command whose usage errors are followed by its usage. */
  interface UsageAfterErrors {}

  private Main() {}

  public static void main(String[] args) {
    System.exit(run(args, System.out, System.err));
  }

  /** Runs one command and returns its exit code. */
  public static int run(String[] args, PrintStream out, PrintStream err) {
    return run(args, out, err, ZoneId.systemDefault());
  }

  /** Runs one command, showing times in {@code zone}, and returns its exit code. */
  static int run(String[] args, PrintStream out, PrintStream err, ZoneId zone) {
    CommandLine commandLine = commandLine(new CommandIo(out, err, zone));
    try {
      return commandLine.execute(args);
    } catch (LinkageError e) {
      // picocli hands on Errors: a jar missing from the class path surfaces here.
      err.println(prefix(args) + ": a library is missing or does not match: " + firstLine(e));
      return FAILED;
    } catch (RuntimeException | Error e) {
      err.println(prefix(args) + ": failed: " + firstLine(e));
      return FAILED;
    } finally {
      commandLine.getOut().flush();
      commandLine.getErr().flush();
      out.flush();
      err.flush();
    }
  }

  /** Runs {@code kernelweave COMMAND ARGS...}, showing times in {@code zone}, and returns its exit code. */
  static int run(String command, String[] args, PrintStream out, PrintStream err, ZoneId zone) {
    String[] line = new String[args.length + 1];
    line[0] = command;
    System.arraycopy(args, 0, line, 1, args.length);
    return run(line, out, err, zone);
  }

  /** The whole command tree, its commands writing to {@code io}. */
  static CommandLine commandLine(CommandIo io) {
    CommandLine commandLine = new CommandLine(KernelWeaveCommand.class, new CommandFactory(io));
    commandLine.setOut(new PrintWriter(new OutputStreamWriter(io.out(), StandardCharsets.UTF_8), true));
    commandLine.setErr(new PrintWriter(new OutputStreamWriter(io.err(), StandardCharsets.UTF_8), true));
    // As before picocli: a repeated option is no error, the last one counts, and an argument
    // starting with @ is a path, not a file of arguments.
    commandLine.setOverwrittenOptionsAllowed(true);
    commandLine.setExpandAtFiles(false);
    // Wide enough for the agent options' table, the same on every terminal.
    commandLine.setUsageHelpWidth(HELP_WIDTH);
    inDeclaredOrder(commandLine);
    commandLine.setParameterExceptionHandler((e, args) -> usageError(e, io));
    commandLine.setExecutionExceptionHandler((e, command, parsed) -> {
      io.err().println(prefix(command) + ": failed: " + firstLine(e));
      return FAILED;
    });
    SelfTestCommand.listMutants(commandLine.getSubcommands().get("selftest").getCommandSpec());
    return commandLine;
  }

  /** Options in the help as the commands declare them (help last), not alphabetically. */
  private static void inDeclaredOrder(CommandLine command) {
    command.getCommandSpec().usageMessage().sortOptions(false);
    command.getSubcommands().values().forEach(Main::inDeclaredOrder);
  }

  private static int usageError(ParameterException e, CommandIo io) {
    CommandLine command = e.getCommandLine();
    io.err().println(prefix(command) + ": " + describe(e));
    io.err().flush();
    if (command.getCommand() instanceof UsageAfterErrors) {
      command.usage(command.getErr());
    }
    return USAGE;
  }

  /** What is wrong, in the command's words: the option or command, and what is accepted. */
  static String describe(ParameterException e) {
    CommandSpec spec = e.getCommandLine().getCommandSpec();
    String nested = spec.parent() != null && spec.parent().parent() != null ? " for " + spec.name() : "";
    if (e instanceof CommandLine.UnmatchedArgumentException unmatched && !unmatched.getUnmatched().isEmpty()) {
      String argument = unmatched.getUnmatched().get(0);
      if (argument.startsWith("-") && argument.length() > 1) {
        return "unknown option '" + argument + "'" + nested + "; accepted: " + optionNames(spec);
      }
      Map<String, CommandLine> commands = spec.subcommands();
      if (!commands.isEmpty()) {
        List<String> suggestions = unmatched.getSuggestions();
        return "unknown command '" + argument + "': expected " + oneOf(List.copyOf(commands.keySet()))
            + (suggestions.isEmpty() ? "" : " (did you mean " + suggestions.get(0) + "?)");
      }
      String takes = spec.positionalParameters().stream().map(ArgSpec::paramLabel).collect(Collectors.joining(" "));
      return "unexpected argument '" + argument + "'" + nested + ": it takes "
          + (takes.isEmpty() ? "no arguments" : takes);
    }
    if (e instanceof CommandLine.MissingParameterException missing && !missing.getMissing().isEmpty()) {
      ArgSpec arg = missing.getMissing().get(0);
      if (arg instanceof OptionSpec option) {
        return String.join("/", option.names()) + " needs a value (" + option.paramLabel() + ")";
      }
    }
    return e.getMessage();
  }

  /** Every option of the command, as a user would type it. */
  private static String optionNames(CommandSpec spec) {
    return spec.options().stream().filter(o -> !o.hidden()).sorted(Comparator.comparingInt(OptionSpec::order))
        .map(o -> String.join("/", o.names()))
        .collect(Collectors.joining(", "));
  }

  /** "a, b or c". */
  static String oneOf(List<String> names) {
    return names.size() < 2 ? String.join("", names)
        : String.join(", ", names.subList(0, names.size() - 1)) + " or " + names.get(names.size() - 1);
  }

  /** {@code kernelweave COMMAND}: the first two words of the command's name, which errors start with. */
  static String prefix(CommandLine command) {
    CommandSpec spec = command.getCommandSpec();
    while (spec.parent() != null && spec.parent().parent() != null) {
      spec = spec.parent();
    }
    return spec.qualifiedName();
  }

  private static String prefix(String[] args) {
    return args.length == 0 || args[0].startsWith("-") ? "kernelweave" : "kernelweave " + args[0];
  }

  /** The exception's name and the first line of its message: the one line a user reads. */
  static String firstLine(Throwable t) {
    String message = t.getMessage();
    String first = message == null ? "" : message.strip().lines().findFirst().orElse("");
    return first.isEmpty() ? t.getClass().getName() : t.getClass().getSimpleName() + ": " + first;
  }

  /** Builds commands that take a {@link CommandIo} with it, others as picocli would. */
  private record CommandFactory(CommandIo io) implements CommandLine.IFactory {
    @Override
    public <K> K create(Class<K> type) throws Exception {
      try {
        return type.getDeclaredConstructor(CommandIo.class).newInstance(io);
      } catch (NoSuchMethodException e) {
        return CommandLine.defaultFactory().create(type);
      }
    }
  }
}
