package dev.kernelweave.agent.cli.inspect;

import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.List;
import java.util.stream.Stream;

/**
 * A file an inspect command writes ({@code trace -o}, {@code dag -o}): never one of the journal's
 * own files, and written whole or not at all.
 *
 * <p>{@link #refuseJournalFiles} compares the output's identity (its file key, through {@link
 * Files#isSameFile}, so a hard link or a symbolic link to a journal file is caught) with every
 * file of the journal, and refuses an output inside the journal's directory. {@link #write} writes
 * a temporary file beside the output and moves it into place atomically: an output that exists is
 * replaced (a link by a file, its target untouched) only once the new contents are complete, and a
 * failure leaves it as it was. The file is readable by its owner only (the temporary file's mode).
 */
public final class OutputFile {

  /** Exit code when the output cannot be written. */
  public static final int FAILED = 1;
  /** Exit code when the output would overwrite the journal (a usage error). */
  public static final int REFUSED = Journal.UNREADABLE;

  /** Writes the output's contents; buffered by the caller. */
  @FunctionalInterface
  public interface Contents {
    void writeTo(OutputStream out) throws IOException;
  }

  private OutputFile() {}

  /**
   * Refuses {@code output} when it is, or links to, a file of the journal in {@code journal} (a run
   * directory), or lies inside it.
   */
  public static void refuseJournalFiles(Path output, Path journal) throws InspectException {
    if (!Files.isDirectory(journal)) {
      return;
    }
    Path parent = output.toAbsolutePath().normalize().getParent();
    try {
      Path realJournal = journal.toRealPath();
      if (parent != null && Files.isDirectory(parent) && parent.toRealPath().startsWith(realJournal)) {
        throw refused(output, "inside the journal directory " + journal + " that it reads");
      }
      if (Files.isSymbolicLink(output) && Files.exists(output)
          && output.toRealPath().startsWith(realJournal)) {
        throw refused(output, "a symbolic link to " + output.toRealPath() + " of the journal it reads");
      }
      if (!Files.exists(output)) {
        return;
      }
      for (Path f : filesOf(journal)) {
        if (Files.isSameFile(output, f)) {
          throw refused(output, "the journal's file " + f + " (a link to it)");
        }
      }
    } catch (IOException e) {
      // The write itself says what is wrong.
    }
  }

  private static List<Path> filesOf(Path directory) throws IOException {
    try (Stream<Path> files = Files.list(directory)) {
      return files.filter(p -> Files.isRegularFile(p, LinkOption.NOFOLLOW_LINKS)).toList();
    }
  }

  private static InspectException refused(Path output, String what) {
    return new InspectException("will not write " + output + ": it is " + what + "; choose a file elsewhere",
        REFUSED);
  }

  /** Writes {@code contents} to {@code output} through a temporary file moved into place. */
  public static void write(Path output, Contents contents) throws InspectException {
    Path target = output.toAbsolutePath();
    Path parent = target.getParent();
    if (parent == null || !Files.isDirectory(parent)) {
      throw failed(output, parent != null && Files.exists(parent) ? "not a directory" : "no such directory");
    }
    if (Files.isDirectory(target)) {
      throw failed(output, "it is a directory");
    }
    Path temporary = null;
    try {
      temporary = Files.createTempFile(parent, "." + target.getFileName() + ".", ".tmp");
      try (OutputStream out = new BufferedOutputStream(Files.newOutputStream(temporary), 1 << 16)) {
        contents.writeTo(out);
      }
      try {
        Files.move(temporary, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
      } catch (AtomicMoveNotSupportedException e) {
        Files.move(temporary, target, StandardCopyOption.REPLACE_EXISTING);
      }
      temporary = null;
    } catch (IOException e) {
      throw failed(output, reason(e));
    } catch (UncheckedIOException e) {
      throw failed(output, reason(e.getCause()));
    } finally {
      if (temporary != null) {
        try {
          Files.deleteIfExists(temporary);
        } catch (IOException ignored) {
          // Already failing; the failure is what is said.
        }
      }
    }
  }

  private static InspectException failed(Path output, String reason) {
    return new InspectException("cannot write " + output + ": " + reason, FAILED);
  }

  /** The operating system's reason, in a few words. */
  public static String reason(IOException e) {
    if (e instanceof NoSuchFileException) {
      return "no such file or directory";
    }
    if (e instanceof AccessDeniedException) {
      return "permission denied";
    }
    if (e instanceof FileSystemException f && f.getReason() != null) {
      return f.getReason();
    }
    return e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
  }
}
