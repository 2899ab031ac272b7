package dev.kernelweave.journal;

import java.nio.file.Path;

/**
 * A journal file that this version cannot read past: damaged bytes (a truncated, zeroed or
 * overwritten file), a record of another format version, or calls missing from the journal (a gap in
 * the records' sequence numbers). Everything before {@link #readableEnd} was read. The message is one
 * line; when the reader knows it, it ends with the first sequence number the journal lacks.
 */
public final class JournalFormatException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  private final transient Path file;
  private final long readableEnd;
  private final long firstMissing;

  /**
   * @param file the damaged file
   * @param readableEnd the byte offset in {@code file} where the readable part ends
   * @param reason what is wrong there, in a few words
   */
  public JournalFormatException(Path file, long readableEnd, String reason, Throwable cause) {
    this(file, readableEnd, reason, -1, cause);
  }

  /**
   * @param firstMissing the first sequence number missing from the journal, or -1 when unknown
   */
  public JournalFormatException(Path file, long readableEnd, String reason, long firstMissing, Throwable cause) {
    super(file + " is damaged: readable up to byte " + readableEnd + ", then " + reason
        + (firstMissing >= 0 ? "; the first call missing is seq " + firstMissing : ""), cause);
    this.file = file;
    this.readableEnd = readableEnd;
    this.firstMissing = firstMissing;
  }

  /** The first sequence number the journal lacks, or -1 when the reader does not know it. */
  public long firstMissing() {
    return firstMissing;
  }

  /** The damaged file. */
  public Path file() {
    return file;
  }

  /** The byte offset in {@link #file} where the readable part ends. */
  public long readableEnd() {
    return readableEnd;
  }
}
