package dev.kernelweave.journal;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import net.openhft.chronicle.bytes.BytesOut;

/**
 * Which KernelWeave wrote a journal, and on which Java: the first document the writer puts in the
 * queue, before any call. It is a queue metadata document, which readers that do not know it (those
 * of earlier versions) skip, and its text starts with a byte no call record starts with, so that
 * {@link JournalReader} does not take it for a call. Journals written before it have none: their
 * writer is unknown.
 *
 * <p>The text is {@value #FIRST_LINE} then {@code key=value} lines; a reader ignores keys it does not
 * know, so later versions may add some.
 *
 * @param version the agent's version, as its {@code --version} says it
 * @param java the Java runtime's version ({@code java.version})
 */
public record RunHeader(String version, String java) {

  /** The document's first line, which marks it. */
  static final String FIRST_LINE = "kernelweave-run";

  private static final byte[] MARK = (FIRST_LINE + "\n").getBytes(StandardCharsets.US_ASCII);
  /** No header comes near this; a longer document is something else. */
  private static final int MAX_LENGTH = 4096;

  public RunHeader {
    version = oneLine(version);
    java = oneLine(java);
  }

  /** The header of a run of this JVM, written by the given version of the agent. */
  public static RunHeader of(String version) {
    return new RunHeader(version, System.getProperty("java.version", ""));
  }

  void writeTo(BytesOut<?> out) {
    out.write(MARK);
    out.write(("version=" + version + "\njava=" + java + "\n").getBytes(StandardCharsets.UTF_8));
  }

  /** Whether the document (the buffer's bytes from its position to its limit) is a header. */
  static boolean isHeader(ByteBuffer document) {
    int length = document.remaining();
    if (length < MARK.length || length > MAX_LENGTH) {
      return false;
    }
    for (int i = 0; i < MARK.length; i++) {
      if (document.get(document.position() + i) != MARK[i]) {
        return false;
      }
    }
    return true;
  }

  /** The header in the document ({@link #isHeader} said it is one). */
  static RunHeader read(ByteBuffer document) {
    byte[] bytes = new byte[document.remaining()];
    document.get(bytes);
    String version = "";
    String java = "";
    for (String line : new String(bytes, StandardCharsets.UTF_8).split("\n")) {
      if (line.startsWith("version=")) {
        version = line.substring("version=".length());
      } else if (line.startsWith("java=")) {
        java = line.substring("java=".length());
      }
    }
    return new RunHeader(version, java);
  }

  private static String oneLine(String value) {
    return value == null ? "" : value.replaceAll("[\\r\\n]", " ").strip();
  }
}
