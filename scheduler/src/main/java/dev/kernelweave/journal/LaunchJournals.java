package dev.kernelweave.journal;

import java.nio.file.Path;
import java.util.function.Consumer;

/** Opens the agent's launch journal. */
public final class LaunchJournals {

  private LaunchJournals() {}

  /**
   * Registers Chronicle's shutdown hook and starts Chronicle in the background, a moment later
   * ({@link JournalStorage#startQueueInBackground}); call it when the program loads its first JCuda
   * class. The journal writes to its spill file until then. Makes no file; never throws.
   */
  public static void startChronicleInBackground() {
    try {
      JournalStorage.startChronicleInBackground();
    } catch (Throwable ignored) {
      // The journal starts Chronicle itself at the first CUDA call.
    }
  }

  /** {@link #open(Path, int, long, RunHeader, Consumer)} with the default retention and no header. */
  public static LaunchJournal open(Path parent, Consumer<String> warn) {
    return open(parent, JournalRetention.DEFAULT_KEEP_RUNS, JournalRetention.DEFAULT_MAX_BYTES, null, warn);
  }

  /**
   * Opens a Chronicle journal in a new run directory of its own (see {@link JournalDirectories}):
   * under {@code parent} when given, else under the user's default journal directory ({@link
   * JournalDirectories#defaultParent}), where the writer thread then removes the oldest runs
   * beyond the newest {@code keepRuns} or {@code maxBytes} ({@link JournalRetention}). Call it on
   * the application's thread at its first CUDA call: it starts Chronicle there (see {@link
   * ChronicleLaunchJournal.Builder#open}).
   *
   * <p>Never throws: when the parent cannot be used (another owner, writable by others, a shared
   * directory above it, not a directory), the run directory cannot be created, or Chronicle cannot
   * start in this JVM, it passes one line naming the directory and the cause to {@code warn} and
   * returns {@link LaunchJournal#OFF}. Later write failures also warn once and stop journaling. The
   * caller closes the journal (the agent does so after the application's shutdown hooks).
   *
   * @param parent the directory the user named, or null for the default
   * @param header the journal's first document (which agent writes it), or null for none
   */
  public static LaunchJournal open(Path parent, int keepRuns, long maxBytes, RunHeader header,
      Consumer<String> warn) {
    Path where = parent;
    try {
      Path base = parent == null ? JournalDirectories.defaultParent()
          : JournalDirectories.preparePrivateParent(parent);
      where = base;
      Path run = JournalDirectories.createRun(base);
      where = run;
      ChronicleLaunchJournal.Builder journal = ChronicleLaunchJournal.builder(run).warn(warn);
      if (header != null) {
        journal.header(header);
      }
      if (parent == null) {
        journal.housekeeping(new Pruning(base, run, keepRuns, maxBytes, warn));
      }
      return journal.open();
    } catch (Throwable t) {
      try {
        warn.accept("kernelweave: journal off, cannot use "
            + (where == null ? "the default journal directory" : where)
            + ": " + JournalFailures.describe(t));
      } catch (Throwable ignored) {
        // Nothing more to say.
      }
      return LaunchJournal.OFF;
    }
  }

  /** Removes old runs of the default directory; says once why not when it cannot. */
  private record Pruning(Path parent, Path current, int keepRuns, long maxBytes, Consumer<String> warn)
      implements Runnable {
    @Override
    public void run() {
      try {
        JournalRetention.prune(parent, current, keepRuns, maxBytes);
      } catch (Throwable t) {
        try {
          warn.accept("kernelweave: old journal runs in " + parent + " not removed: "
              + JournalFailures.describe(t));
        } catch (Throwable ignored) {
          // Nothing more to say.
        }
      }
    }
  }
}
