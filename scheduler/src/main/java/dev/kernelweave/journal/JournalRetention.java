package dev.kernelweave.journal;

import java.io.IOException;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.List;

/**
 * Keeps the newest runs of a journal directory within a number of runs and a number of bytes, so
 * that the default journal does not pile up: the run being written always stays; older runs go,
 * oldest first, from the first one that would pass either bound. Nothing but run directories
 * ({@code run-<yyyyMMdd-HHmmss>-<pid>[-n]}) is removed, and links are removed, never followed.
 *
 * <p>Stateless and thread-safe; two processes pruning at once at worst both remove the same run.
 */
public final class JournalRetention {

  /** Runs kept when not configured. */
  public static final int DEFAULT_KEEP_RUNS = 20;
  /** Bytes the kept runs may hold together when not configured: 1 GiB. */
  public static final long DEFAULT_MAX_BYTES = 1L << 30;

  private JournalRetention() {}

  /**
   * Removes the runs of {@code parent} beyond the newest {@code keepRuns} or {@code maxBytes}.
   *
   * @param current the run being written, kept whatever its size (null for none)
   * @return the runs removed, oldest first
   * @throws IOException when {@code parent} cannot be listed or a run cannot be removed
   */
  public static List<Path> prune(Path parent, Path current, int keepRuns, long maxBytes) throws IOException {
    if (keepRuns < 1 || maxBytes < 0) {
      throw new IllegalArgumentException("keep at least one run and no negative size: " + keepRuns + ", " + maxBytes);
    }
    List<Path> runs = JournalDirectories.runDirectories(parent);
    int kept = 0;
    long bytes = 0;
    if (current != null && runs.remove(current)) {
      kept = 1;
      bytes = size(current);
    }
    int removeCount = runs.size();
    for (int i = runs.size() - 1; i >= 0; i--) {
      long size = size(runs.get(i));
      if (kept + 1 > keepRuns || bytes + size > maxBytes) {
        removeCount = i + 1;
        break;
      }
      kept++;
      bytes += size;
      removeCount = i;
    }
    List<Path> removed = new ArrayList<>(runs.subList(0, removeCount));
    for (Path run : removed) {
      delete(run);
    }
    return removed;
  }

  /** The bytes of the files under {@code dir} (as long as they are; Chronicle's are sparse). */
  static long size(Path dir) throws IOException {
    long[] total = {0};
    Files.walkFileTree(dir, new SimpleFileVisitor<>() {
      @Override
      public FileVisitResult visitFile(Path file, BasicFileAttributes a) {
        total[0] += a.isRegularFile() ? a.size() : 0;
        return FileVisitResult.CONTINUE;
      }

      @Override
      public FileVisitResult visitFileFailed(Path file, IOException e) {
        return FileVisitResult.CONTINUE; // removed meanwhile
      }
    });
    return total[0];
  }

  private static void delete(Path dir) throws IOException {
    Files.walkFileTree(dir, new SimpleFileVisitor<>() {
      @Override
      public FileVisitResult visitFile(Path file, BasicFileAttributes a) throws IOException {
        Files.deleteIfExists(file);
        return FileVisitResult.CONTINUE;
      }

      @Override
      public FileVisitResult postVisitDirectory(Path d, IOException e) throws IOException {
        Files.deleteIfExists(d);
        return FileVisitResult.CONTINUE;
      }
    });
  }
}
