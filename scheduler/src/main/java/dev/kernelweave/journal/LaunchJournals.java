package dev.kernelweave.journal;

import java.nio.file.Path;
import java.util.function.Consumer;

/** Opens the agent's launch journal. */
public final class LaunchJournals {

  private LaunchJournals() {}

  /**
   * Starts Chronicle in the background ahead of {@link #open}, so that the first CUDA call finds it
   * (nearly) started; call it when the program loads its first JCuda class. Makes no file; never
   * throws.
   */
  public static void startChronicleInBackground() {
    try {
      Journals.startChronicleInBackground();
    } catch (Throwable ignored) {
      // The journal starts Chronicle itself at the first CUDA call.
    }
  }

  /**
   * Opens a Chronicle journal in a new run directory of its own (see {@link JournalDirectories}):
   * under {@code parent} when given, else under a new owner-only directory in
   * {@code java.io.tmpdir}. Call it on the application's thread at its first CUDA call: it starts
   * Chronicle there (see {@link ChronicleLaunchJournal.Builder#open}).
   *
   * <p>Never throws: when the parent cannot be used (another owner, writable by others, not a
   * directory), the run directory cannot be created, or Chronicle cannot start in this JVM, it
   * passes one line naming the directory and the cause to {@code warn} and returns
   * {@link LaunchJournal#OFF}. Later write failures also warn once and stop journaling. The caller
   * closes the journal (the agent does so from its shutdown hook).
   *
   * @param parent the directory the user named, or null for the default
   */
  public static LaunchJournal open(Path parent, Consumer<String> warn) {
    Path where = parent;
    try {
      Path base = parent == null ? JournalDirectories.createDefaultParent()
          : JournalDirectories.preparePrivateParent(parent);
      where = base;
      Path run = JournalDirectories.createRun(base);
      where = run;
      return ChronicleLaunchJournal.builder(run).warn(warn).open();
    } catch (Throwable t) {
      try {
        warn.accept("kernelweave: journal off, cannot use "
            + (where == null ? "a directory under " + System.getProperty("java.io.tmpdir") : where)
            + ": " + ChronicleLaunchJournal.describe(t));
      } catch (Throwable ignored) {
        // Nothing more to say.
      }
      return LaunchJournal.OFF;
    }
  }
}
