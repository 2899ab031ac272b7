package dev.kernelweave.agent;

import dev.kernelweave.interceptor.AgentLog;
import dev.kernelweave.journal.ChronicleLaunchJournal;
import dev.kernelweave.journal.LaunchJournal;
import dev.kernelweave.journal.LaunchJournals;
import dev.kernelweave.journal.RunHeader;
import java.nio.file.Path;

/**
 * Opens the journal the options ask for, at the program's first CUDA call, on its thread; starts
 * Chronicle ahead of it when the program loads JCuda.
 */
final class AgentJournal {

  private AgentJournal() {}

  /**
   * At the first JCuda class: starts Chronicle in the background, a moment later, when the options
   * ask for a journal (the journal's spill file holds the calls until then).
   * On every Java it prints nothing: the jar's Chronicle reaches memory through the agent's
   * {@code ChronicleUnsafe}, not {@code sun.misc.Unsafe}.
   */
  static void prepare(AgentOptions options) {
    if (options.journal() != null) {
      LaunchJournals.startChronicleInBackground();
    }
  }

  static LaunchJournal open(AgentOptions options) {
    if (options.journal() == null) {
      return LaunchJournal.OFF;
    }
    Path parent = options.journal() == AgentOptions.DEFAULT_JOURNAL ? null : options.journal();
    LaunchJournal journal = LaunchJournals.open(parent, options.journalKeep(), options.journalMaxBytes(),
        RunHeader.of(Version.current()), message -> AgentLog.warnOnce("journal", strip(message)));
    if (journal instanceof ChronicleLaunchJournal chronicle) {
      Path run = chronicle.directory().toAbsolutePath();
      AgentLog.info("journal: " + run + " (java -jar kernelweave-agent.jar inspect stats " + run + ")");
    }
    return journal;
  }

  private static String strip(String message) {
    return message.startsWith("kernelweave: ") ? message.substring("kernelweave: ".length()) : message;
  }
}
