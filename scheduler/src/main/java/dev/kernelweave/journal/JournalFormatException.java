package dev.kernelweave.journal;

import java.nio.file.Path;

/**
 * A journal file that this version cannot read past: damaged bytes (a truncated or overwritten
 * file), or a record of another format version. Everything before {@link #readableEnd} was read.
 */
public final class JournalFormatException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  private final transient Path file;
  private final long readableEnd;

  /**
   * @param file the damaged file
   * @param readableEnd the byte offset in {@code file} where the readable part ends
   * @param reason what is wrong there, in a few words
   */
  public JournalFormatException(Path file, long readableEnd, String reason, Throwable cause) {
    super(file + " is damaged: readable up to byte " + readableEnd + ", then " + reason, cause);
    this.file = file;
    this.readableEnd = readableEnd;
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
