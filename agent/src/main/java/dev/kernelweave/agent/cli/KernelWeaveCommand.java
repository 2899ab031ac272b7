package dev.kernelweave.agent.cli;

import dev.kernelweave.agent.Version;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Spec;

/** {@code kernelweave}: the commands, and how to run the agent (the help's footer). */
@Command(
    name = "kernelweave",
    description = "KernelWeave: runs the independent GPU work of unmodified JCuda programs concurrently.",
    versionProvider = KernelWeaveCommand.BuildVersion.class,
    mixinStandardHelpOptions = true,
    subcommands = {
      InspectCommand.class,
      PtxCommand.class,
      SelfTestCommand.class,
      CompletionCommand.class,
      KernelWeaveCommand.VersionCommand.class,
      CommandLine.HelpCommand.class
    },
    footerHeading = "%nAs an agent:%n",
    footer = {
      "  java -javaagent:kernelweave-agent.jar[=key=value,...] -cp APP MAIN",
      "  options (also -Dkernelweave.KEY=VALUE, then KERNELWEAVE_KEY=VALUE in the environment, then",
      "  KEY=VALUE lines of the properties file named by config=FILE or KERNELWEAVE_CONFIG=FILE):",
      "    mode=schedule|passthrough   schedule: run independent calls on concurrent streams (default)",
      "                                passthrough: change nothing, only journal",
      "    journal=DIR|off             where the launch journal goes: each run in a new run-...",
      "                                directory inside DIR (default: $XDG_STATE_HOME/kernelweave",
      "                                or ~/.local/state/kernelweave); the run's directory is",
      "                                printed. DIR and every directory above it must not be",
      "                                writable by other users (sticky ones such as /tmp excepted)",
      "    journal-keep=N              runs the default journal directory keeps (default 20)",
      "    journal-max-bytes=SIZE      bytes they may hold, as 512m or 1g (default 1g)",
      "    streams=N                   streams per CUDA context, 1..64 (default:",
      "                                CUDA_DEVICE_MAX_CONNECTIONS, else 8)",
      "    ptx=on|off                  read kernels' read/write sets from their PTX (default on)",
      "    graphs=on|off               replay repeated runs of launches as CUDA graphs (default on)",
      "    merge=on|off                in those graphs, merge independent launches of one kernel",
      "                                into one launch (default off: not yet measured on a GPU)",
      "    priority=thread|off|CLASS:GLOB,...",
      "                                each thread's priority class: from its Java priority",
      "                                (default), none, or by thread name (high:request-*,low:batch-*)",
      "    warmup=MS|off               CPU milliseconds a thread of the agent spends, once it",
      "                                engages (at-once, when-warm: once the program is past",
      "                                cuInit), getting the scheduler compiled (default 1000, off",
      "                                below 4 processors; stops at the 2000th call tracked)",
      "    engage=auto|at-once|when-warm|N",
      "                                when the agent starts tracking and journaling the program's",
      "                                device work, which until then runs as written: auto (default)",
      "                                once 16 launches ran in a row, with no copy, memset, event",
      "                                call or wait between them, or after 10000",
      "                                calls (not where threads launch at once);",
      "                                at once; once the warm-up has compiled the agent's",
      "                                code or 16 launches ran in a row; after N calls",
      "    handback=on|off             stop scheduling for good where threads calling one context",
      "                                at once wait for each other in the agent and few launches",
      "                                are replayed; later calls run as written, unjournaled",
      "                                (default on)",
      "    log=quiet|info|debug|system how much the agent prints on stderr (default info); system:",
      "                                every line through System.Logger \"dev.kernelweave\"",
      "",
      "Exit codes: 0 done, 1 failed (an output that cannot be written, a fuzz that found a",
      "difference), 2 usage or an input that cannot be read, 3 a damaged journal (inspect) or no",
      "GPU (selftest --gpu). Each command's --help says more."
    })
final class KernelWeaveCommand implements Callable<Integer> {

  @Spec private CommandLine.Model.CommandSpec spec;

  /** Without a command: the help, and the usage error's exit code. */
  @Override
  public Integer call() {
    spec.commandLine().usage(spec.commandLine().getOut());
    return Main.USAGE;
  }

  /**
   * The jar's {@code Implementation-Version}; on a class path of directories (tests, an IDE), the
   * version the build wrote beside the classes, which is the same.
   */
  static final class BuildVersion implements CommandLine.IVersionProvider {
    @Override
    public String[] getVersion() {
      String version = KernelWeaveCommand.class.getPackage().getImplementationVersion();
      return new String[] {"kernelweave " + (version == null ? Version.current() : version)};
    }
  }

  @Command(name = "version", description = "the version of this build (as --version)")
  static final class VersionCommand implements Callable<Integer> {
    @Spec private CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() {
      spec.root().commandLine().printVersionHelp(spec.commandLine().getOut());
      return 0;
    }
  }
}
