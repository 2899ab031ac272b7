package dev.kernelweave.agent.cli;

import java.io.PrintStream;

final class InspectCommand {
  private InspectCommand() {}

  static int run(String[] args, PrintStream out, PrintStream err) {
    err.println("kernelweave: not built yet");
    return 3;
  }
}
