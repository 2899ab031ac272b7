package dev.kernelweave.journal;

import java.nio.file.Path;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.function.Consumer;

/** Opens the agent's launch journal. */
public final class LaunchJournals {

  private static final DateTimeFormatter STAMP = DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss");

  private LaunchJournals() {}

  /**
   * Opens a Chronicle journal in {@code directory}, creating it (rwx------ where POSIX) if missing.
   * Never throws: when the directory cannot be created or written, or Chronicle cannot start in
   * this JVM, it passes one line naming the directory and the cause to {@code warn} and returns
   * {@link LaunchJournal#OFF}. Later write failures also warn once and stop journaling. The caller
   * closes the journal (the agent does so from its shutdown hook).
   */
  public static LaunchJournal open(Path directory, Consumer<String> warn) {
    try {
      return ChronicleLaunchJournal.builder(directory).warn(warn).open();
    } catch (Throwable t) {
      try {
        warn.accept("kernelweave: journal off, cannot write to " + directory + ": "
            + ChronicleLaunchJournal.describe(t));
      } catch (Throwable ignored) {
        // Nothing more to say.
      }
      return LaunchJournal.OFF;
    }
  }

  /**
   * A new directory name under {@code java.io.tmpdir} for this process's journal:
   * {@code kernelweave-<pid>-<yyyyMMdd-HHmmss>}. Not created until {@link #open}.
   */
  public static Path defaultDirectory() {
    return defaultDirectory(
        Path.of(System.getProperty("java.io.tmpdir")), ProcessHandle.current().pid(), LocalDateTime.now());
  }

  static Path defaultDirectory(Path parent, long pid, LocalDateTime now) {
    return parent.resolve("kernelweave-" + pid + "-" + STAMP.format(now));
  }
}
