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
   * At the first JCuda class: starts Chronicle in the background when the options ask for a journal,
   * unless the JDK would warn about it: then Chronicle starts with the journal, at the first CUDA
   * call, and a program that never makes one prints nothing.
   */
  static void prepare(AgentOptions options) {
    if (options.journal() != null && !unsafeMemoryAccessWarns(Runtime.version().feature(),
        System.getProperty(UNSAFE_MEMORY_ACCESS))) {
      LaunchJournals.startChronicleInBackground();
    }
  }

  /** The system property the JDK sets from {@code --sun-misc-unsafe-memory-access}. */
  static final String UNSAFE_MEMORY_ACCESS = "sun.misc.unsafe.memory.access";

  /**
   * Whether the JDK prints a warning (or refuses) at the first {@code sun.misc.Unsafe} memory access,
   * which Chronicle makes as it starts: Java 24 and later, unless the command line allows it.
   */
  static boolean unsafeMemoryAccessWarns(int javaFeature, String option) {
    return javaFeature >= 24 && !"allow".equals(option);
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
