package dev.kernelweave.ptx;

import java.util.List;

/** The printed forms of {@link KernelAccessSummary}. Stateless. */
public final class KernelSummaryFormat {
  private KernelSummaryFormat() {}

  /** The token that follows the parameters' when the kernel touches memory no parameter names. */
  public static final String OTHER = "OTHER";

  /**
   * {@code name<TAB>tokens}: one token per parameter in order (R, W, RW or V), then OTHER when
   * {@link KernelAccessSummary#touchesOtherMemory()}, separated by single spaces. A kernel without
   * parameters and without other memory prints its name and the tab alone.
   */
  public static String line(KernelAccessSummary s) {
    StringBuilder b = new StringBuilder(s.name().length() + 4 * s.parameterCount() + 8);
    b.append(s.name()).append('\t');
    for (int i = 0; i < s.parameterCount(); i++) {
      if (i > 0) b.append(' ');
      b.append(s.use(i).symbol());
    }
    if (s.touchesOtherMemory()) {
      if (s.parameterCount() > 0) b.append(' ');
      b.append(OTHER);
    }
    return b.toString();
  }

  /**
   * A JSON array with one object per kernel, one per line:
   * {@code {"name":"k","parameters":[{"use":"R","bytes":8}],"otherMemory":false}}.
   */
  public static String json(List<KernelAccessSummary> kernels) {
    StringBuilder b = new StringBuilder("[");
    for (int k = 0; k < kernels.size(); k++) {
      KernelAccessSummary s = kernels.get(k);
      b.append(k == 0 ? "\n  " : ",\n  ");
      b.append("{\"name\":");
      string(b, s.name());
      b.append(",\"parameters\":[");
      for (int i = 0; i < s.parameterCount(); i++) {
        if (i > 0) b.append(',');
        b.append("{\"use\":\"").append(s.use(i).symbol()).append("\",\"bytes\":").append(s.parameterSize(i)).append('}');
      }
      b.append("],\"otherMemory\":").append(s.touchesOtherMemory()).append('}');
    }
    b.append(kernels.isEmpty() ? "]" : "\n]");
    return b.toString();
  }

  private static void string(StringBuilder b, String s) {
    b.append('"');
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (c == '"' || c == '\\') b.append('\\').append(c);
      else if (c < 0x20) b.append(String.format("\\u%04x", (int) c));
      else b.append(c);
    }
    b.append('"');
  }
}
