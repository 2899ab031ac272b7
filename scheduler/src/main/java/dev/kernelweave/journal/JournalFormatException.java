package dev.kernelweave.journal;

/** A journal record that this version cannot read: another format version, or damaged bytes. */
public final class JournalFormatException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  public JournalFormatException(String message, Throwable cause) {
    super(message, cause);
  }
}
