package dev.kernelweave.agent.cli;

import java.io.PrintStream;
import java.util.concurrent.Callable;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/**
 * A command that writes where its {@link CommandIo} says, so that tests read what a user would see;
 * {@link #spec} is picocli's model of it, for usage errors.
 */
abstract class IoCommand implements Callable<Integer> {

  @Spec CommandSpec spec;

  final PrintStream out;
  final PrintStream err;

  IoCommand(CommandIo io) {
    this.out = io.out();
    this.err = io.err();
  }
}
