package dev.kernelweave.text;

/**
 * JSON string literals, for the places that write JSON by hand ({@code inspect}'s trace and
 * statistics, the benchmark's results) rather than load a JSON library into the application's JVM.
 */
public final class JsonStrings {
  private JsonStrings() {}

  /** Appends {@code s} to {@code b} as a quoted JSON string, control characters escaped. */
  public static void appendQuoted(StringBuilder b, String s) {
    b.append('"');
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      switch (c) {
        case '"' -> b.append("\\\"");
        case '\\' -> b.append("\\\\");
        case '\n' -> b.append("\\n");
        case '\r' -> b.append("\\r");
        case '\t' -> b.append("\\t");
        default -> {
          if (c < 0x20) {
            b.append(String.format("\\u%04x", (int) c));
          } else {
            b.append(c);
          }
        }
      }
    }
    b.append('"');
  }
}
