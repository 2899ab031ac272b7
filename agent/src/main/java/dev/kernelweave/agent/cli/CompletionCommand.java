package dev.kernelweave.agent.cli;

import java.util.concurrent.Callable;
import picocli.AutoComplete;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code completion}: the bash and zsh completion script of every command, option and value. */
@Command(name = "completion", description = "bash and zsh completion: source <(kernelweave completion)")
final class CompletionCommand implements Callable<Integer> {

  @Spec private CommandLine.Model.CommandSpec spec;

  @Option(names = {"-h", "--help"}, usageHelp = true, order = Main.LAST, description = "this text")
  private boolean help;

  @Override
  public Integer call() {
    CommandLine root = spec.root().commandLine();
    spec.commandLine().getOut().print(AutoComplete.bash(root.getCommandName(), root));
    spec.commandLine().getOut().flush();
    return 0;
  }
}
