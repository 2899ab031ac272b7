package dev.kernelweave.journal;

import java.io.IOException;
import java.nio.file.FileStore;
import java.nio.file.FileSystemException;

/**
 * How a journal's failures are said: one line a user can act on (a full disk, a permission, the
 * JDK packages Chronicle needs opened), for the journal's warnings and the reader's errors.
 */
final class JournalFailures {

  private JournalFailures() {}

  /**
   * {@link #describe}, and a full disk named as such: a write into a memory-mapped page that the
   * file system cannot back surfaces as the JVM's "fault occurred in a recent unsafe memory access"
   * {@link InternalError}, which says nothing of the disk.
   */
  static String describeWrite(Throwable t, FileStore store, long needed) {
    if (t instanceof InternalError && String.valueOf(t.getMessage()).contains("unsafe memory access")) {
      long free = -1;
      try {
        free = store == null ? -1 : store.getUsableSpace();
      } catch (IOException | RuntimeException ignored) {
        // Said without the number.
      }
      return free >= 0 && free < needed
          ? DISK_FULL + ", " + free + " bytes free"
          : "a write into the journal's memory-mapped file failed (" + DISK_FULL + ", or the file was truncated)";
    }
    return describe(t);
  }

  /** How a full disk is named in warnings. */
  static final String DISK_FULL = "disk full (No space left on device)";

  /** One line: the exception's simple name and the first line of its message, and a hint if known. */
  static String describe(Throwable t) {
    for (Throwable c = t; c != null; c = c.getCause()) {
      if (String.valueOf(c.getMessage()).contains("No space left on device")) {
        return DISK_FULL;
      }
    }
    String message = t.getMessage();
    if (t.getClass() == IOException.class && message != null && !message.isBlank()) {
      return message;
    }
    // A file error's message is its file alone where the JDK maps the system's error to a type.
    if (t instanceof java.nio.file.AccessDeniedException) {
      return "permission denied: " + ((FileSystemException) t).getFile();
    }
    if (t instanceof java.nio.file.NoSuchFileException) {
      return "no such file or directory: " + ((FileSystemException) t).getFile();
    }
    if (t instanceof FileSystemException f && f.getReason() != null) {
      return f.getReason() + ": " + f.getFile();
    }
    String name = t.getClass().getSimpleName();
    String line = message == null || message.isBlank()
        ? name : name + ": " + message.lines().findFirst().orElse("");
    for (Throwable c = t; c != null; c = c.getCause()) {
      if (c instanceof IllegalAccessException
          || c.getClass().getName().equals("java.lang.reflect.InaccessibleObjectException")) {
        return line + " (Chronicle needs the JDK packages opened: --add-opens java.base/sun.nio.ch"
            + " and the others the agent's manifest lists)";
      }
    }
    return line;
  }
}
