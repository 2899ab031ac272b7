package dev.kernelweave.journal;

import java.nio.ByteBuffer;
import java.util.Map;

/**
 * Which KernelWeave wrote a journal, and on which Java: the first document the writer puts in the
 * queue, before any call, in {@link MetadataText}'s form under the first line {@value #FIRST_LINE}.
 * Journals written before it have none: their writer is unknown.
 *
 * @param version the agent's version, as its {@code --version} says it
 * @param java the Java runtime's version ({@code java.version})
 */
public record RunHeader(String version, String java) {

  /** The document's first line, which marks it. */
  static final String FIRST_LINE = "kernelweave-run";

  private static final byte[] MARK = MetadataText.mark(FIRST_LINE);

  public RunHeader {
    version = MetadataText.oneLine(version);
    java = MetadataText.oneLine(java);
  }

  /** The header of a run of this JVM, written by the given version of the agent. */
  public static RunHeader of(String version) {
    return new RunHeader(version, System.getProperty("java.version", ""));
  }

  /** The document's bytes. */
  byte[] document() {
    return MetadataText.document(MARK, "version", version, "java", java);
  }

  /** Whether the document (the buffer's bytes from its position to its limit) is a header. */
  static boolean isHeader(ByteBuffer document) {
    return MetadataText.opensWith(document, MARK);
  }

  /** The header in the document ({@link #isHeader} said it is one). */
  static RunHeader read(ByteBuffer document) {
    Map<String, String> values = MetadataText.values(document);
    return new RunHeader(values.getOrDefault("version", ""), values.getOrDefault("java", ""));
  }
}
