package dev.kernelweave.agent;

import dev.kernelweave.interceptor.AgentLog;
import dev.kernelweave.journal.LaunchJournal;
import dev.kernelweave.journal.LaunchJournals;
import java.nio.file.Path;

/** Opens the journal the options ask for, at the program's first CUDA call. */
final class Journals {

  private Journals() {}

  static LaunchJournal open(AgentOptions options) {
    if (options.journal() == null) {
      return LaunchJournal.OFF;
    }
    Path directory = options.journal() == AgentOptions.DEFAULT_JOURNAL
        ? LaunchJournals.defaultDirectory() : options.journal();
    LaunchJournal journal = LaunchJournals.open(directory, message -> AgentLog.warnOnce("journal", strip(message)));
    if (journal != LaunchJournal.OFF) {
      AgentLog.info("journal: " + directory.toAbsolutePath()
          + " (java -jar kernelweave-agent.jar inspect stats " + directory.toAbsolutePath() + ")");
    }
    return journal;
  }

  private static String strip(String message) {
    return message.startsWith("kernelweave: ") ? message.substring("kernelweave: ".length()) : message;
  }
}
