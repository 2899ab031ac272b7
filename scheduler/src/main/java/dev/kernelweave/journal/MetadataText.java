package dev.kernelweave.journal;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The text of the agent's own queue metadata documents ({@link RunHeader}, {@link RunEnd}): a
 * first line that names the kind, then {@code key=value} lines. Readers that do not know a document
 * skip it, and its first byte is one no call record starts with, so that {@link JournalReader} never
 * takes it for a call. A reader ignores keys it does not know, so later versions may add some.
 */
final class MetadataText {

  /** No document of the agent's comes near this; a longer one is something else. */
  private static final int MAX_LENGTH = 4096;

  private MetadataText() {}

  /** The bytes that open a document of the kind {@code firstLine}. */
  static byte[] mark(String firstLine) {
    return (firstLine + "\n").getBytes(StandardCharsets.US_ASCII);
  }

  /** The document: {@code mark}, then a line per key and value, {@code keysAndValues} alternating. */
  static byte[] document(byte[] mark, String... keysAndValues) {
    StringBuilder text = new StringBuilder(new String(mark, StandardCharsets.US_ASCII));
    for (int i = 0; i + 1 < keysAndValues.length; i += 2) {
      text.append(keysAndValues[i]).append('=').append(oneLine(keysAndValues[i + 1])).append('\n');
    }
    return text.toString().getBytes(StandardCharsets.UTF_8);
  }

  /** Whether the document (the buffer's bytes from its position to its limit) opens with {@code mark}. */
  static boolean opensWith(ByteBuffer document, byte[] mark) {
    int length = document.remaining();
    if (length < mark.length || length > MAX_LENGTH) {
      return false;
    }
    for (int i = 0; i < mark.length; i++) {
      if (document.get(document.position() + i) != mark[i]) {
        return false;
      }
    }
    return true;
  }

  /** The document's values, read from the buffer's position to its limit. */
  static Map<String, String> values(ByteBuffer document) {
    byte[] bytes = new byte[document.remaining()];
    document.get(bytes);
    Map<String, String> values = new LinkedHashMap<>();
    String[] lines = new String(bytes, StandardCharsets.UTF_8).split("\n");
    for (int i = 1; i < lines.length; i++) {
      int eq = lines[i].indexOf('=');
      if (eq > 0) {
        values.putIfAbsent(lines[i].substring(0, eq), lines[i].substring(eq + 1));
      }
    }
    return values;
  }

  /** The value as one line, never null. */
  static String oneLine(String value) {
    return value == null ? "" : value.replaceAll("[\\r\\n]", " ").strip();
  }
}
