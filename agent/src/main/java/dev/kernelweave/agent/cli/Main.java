package dev.kernelweave.agent.cli;

import dev.kernelweave.agent.Version;
import java.io.PrintStream;
import java.util.Arrays;

/** {@code java -jar kernelweave-agent.jar COMMAND ...}: the command line. */
public final class Main {

  /** Exit code for a usage error or an input that cannot be read. */
  public static final int USAGE = 2;
  /** Exit code when a command failed in a way it did not foresee (said in one line). */
  public static final int FAILED = 1;

  static final String HELP = """
      KernelWeave: runs the independent GPU work of unmodified JCuda programs concurrently.

      As an agent:
        java -javaagent:kernelweave-agent.jar[=key=value,...] -cp APP MAIN
        options (also -Dkernelweave.KEY=VALUE, then KERNELWEAVE_KEY=VALUE in the environment, then
        KEY=VALUE lines of the properties file named by config=FILE or KERNELWEAVE_CONFIG=FILE):
          mode=schedule|passthrough   schedule: run independent calls on concurrent streams (default)
                                      passthrough: change nothing, only journal
          journal=DIR|off             where the launch journal goes: each run in a new run-...
                                      directory inside DIR (default: $XDG_STATE_HOME/kernelweave
                                      or ~/.local/state/kernelweave); the run's directory is
                                      printed. DIR and every directory above it must not be
                                      writable by other users (sticky ones such as /tmp excepted)
          journal-keep=N              runs the default journal directory keeps (default 20)
          journal-max-bytes=SIZE      bytes they may hold, as 512m or 1g (default 1g)
          streams=N                   streams per CUDA context, 1..64 (default: CUDA_DEVICE_MAX_CONNECTIONS, else 8)
          ptx=on|off                  read kernels' read/write sets from their PTX (default on)
          graphs=on|off               replay repeated runs of launches as CUDA graphs (default on)
          priority=thread|off|CLASS:GLOB,...
                                      each thread's priority class: from its Java priority
                                      (default), none, or by thread name (high:request-*,low:batch-*)
          warmup=MS|off               CPU milliseconds a thread of the agent spends, once the
                                      program is past cuInit, getting the scheduler compiled
                                      (default 1000, off below 4 processors; stops at the program's 2000th call)
          log=quiet|info|debug|system how much the agent prints on stderr (default info); system:
                                      every line through System.Logger "dev.kernelweave"

      Commands:
        inspect stats DIR [--since INSTANT]    calls per kind, kernel, thread, priority; bytes; syncs; streams
                                               (--since: only calls begun then or later)
        inspect tail DIR [-f] [-n N] [--kernel GLOB]  one line per call; -f follows a live journal
        inspect dag DIR [--from SEQ] [--to SEQ] --dot
                                               the dependency graph in Graphviz DOT
        inspect trace DIR -o FILE.json         a timeline for Perfetto (Chrome Trace Event Format)
        ptx FILE.ptx                           each kernel's parameters: R, W, RW or V (and OTHER)
        selftest --sim [--seed S] [--programs N] [--mutant M] [--streams K]
                                               differential fuzz of the scheduler on a simulated GPU
                                               (selftest --help lists the mutants)
        selftest --gpu [--seed S] [--programs N] [--mutant M] [--class-path CP]
                                               generated programs played by a JCuda application,
                                               serially without the agent and with it, on this
                                               machine's GPU: the whole agent checked (JCuda on
                                               the class path or in --class-path)
        completion                             bash completion: source <(kernelweave completion)
        --version, version                     the version of this build
        --help                                 this text
      """;

  private Main() {}

  public static void main(String[] args) {
    System.exit(run(args, System.out, System.err));
  }

  /** Runs one command and returns its exit code. */
  public static int run(String[] args, PrintStream out, PrintStream err) {
    if (args.length == 0 || args[0].equals("--help") || args[0].equals("-h") || args[0].equals("help")) {
      out.print(HELP);
      return args.length == 0 ? USAGE : 0;
    }
    if (args[0].equals("--version") || args[0].equals("version")) {
      out.println("kernelweave " + Version.current());
      return 0;
    }
    if (args[0].equals("completion")) {
      return printCompletion(out, err);
    }
    String[] rest = Arrays.copyOfRange(args, 1, args.length);
    try {
      switch (args[0]) {
        case "inspect":
          return InspectCommand.run(rest, out, err);
        case "ptx":
          return PtxCommand.run(rest, out, err);
        case "selftest":
          return SelfTestCommand.run(rest, out, err);
        default:
          err.println("kernelweave: unknown command '" + args[0]
              + "': expected inspect, ptx, selftest, completion, version or --help");
          return USAGE;
      }
    } catch (LinkageError e) {
      err.println("kernelweave " + args[0] + ": a library is missing or does not match: " + firstLine(e));
      return FAILED;
    } catch (RuntimeException | Error e) {
      err.println("kernelweave " + args[0] + ": failed: " + firstLine(e));
      return FAILED;
    }
  }

  /** Prints the bash completion script: {@code source <(kernelweave completion)}. */
  private static int printCompletion(PrintStream out, PrintStream err) {
    try (java.io.InputStream script = Main.class.getResourceAsStream("completion.bash")) {
      if (script == null) {
        err.println("kernelweave completion: the script is missing from this jar");
        return FAILED;
      }
      out.print(new String(script.readAllBytes(), java.nio.charset.StandardCharsets.UTF_8));
      return 0;
    } catch (java.io.IOException e) {
      err.println("kernelweave completion: " + firstLine(e));
      return FAILED;
    }
  }

  /** The exception's name and the first line of its message: the one line a user reads. */
  static String firstLine(Throwable t) {
    String message = t.getMessage();
    String first = message == null ? "" : message.strip().lines().findFirst().orElse("");
    return first.isEmpty() ? t.getClass().getName() : t.getClass().getSimpleName() + ": " + first;
  }
}
