package dev.kernelweave.it.bench;

import dev.kernelweave.text.JsonStrings;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Just enough JSON for the workload protocol and the results file, so that the benchmark needs
 * nothing on its class path but itself.
 *
 * <p>Objects read as {@code LinkedHashMap<String, Object>}, arrays as {@code List<Object>},
 * numbers as {@code Double}, and {@code true}, {@code false}, {@code null} as themselves. Written
 * values may be maps, iterables, strings, numbers, booleans or null; a number that is not finite
 * is written as null.
 */
public final class Json {
  private final String text;
  private int at;

  private Json(String text) {
    this.text = text;
  }

  /** Reads one JSON value that fills {@code text} (whitespace aside). */
  public static Object parse(String text) {
    Json json = new Json(text);
    Object value = json.value();
    json.skipSpace();
    if (json.at != text.length()) {
      throw json.error("unexpected text after the value");
    }
    return value;
  }

  /** Writes {@code value} indented by two spaces, one member or element a line. */
  public static String write(Object value) {
    StringBuilder out = new StringBuilder();
    write(value, out, "");
    return out.append('\n').toString();
  }

  private Object value() {
    skipSpace();
    if (at >= text.length()) {
      throw error("unexpected end");
    }
    char c = text.charAt(at);
    switch (c) {
      case '{':
        return object();
      case '[':
        return array();
      case '"':
        return string();
      case 't':
        return literal("true", Boolean.TRUE);
      case 'f':
        return literal("false", Boolean.FALSE);
      case 'n':
        return literal("null", null);
      default:
        if (c == '-' || (c >= '0' && c <= '9')) {
          return number();
        }
        throw error("unexpected '" + c + "'");
    }
  }

  private Map<String, Object> object() {
    Map<String, Object> members = new LinkedHashMap<>();
    sequence('}', () -> {
      skipSpace();
      if (peek() != '"') {
        throw error("expected a member name");
      }
      String name = string();
      skipSpace();
      expect(':');
      members.put(name, value());
    });
    return members;
  }

  private List<Object> array() {
    List<Object> elements = new ArrayList<>();
    sequence(']', () -> elements.add(value()));
    return elements;
  }

  /**
   * Reads, from its opening bracket to {@code close}, a sequence of items separated by commas, each
   * by {@code item}; an empty sequence calls it never.
   */
  private void sequence(char close, Runnable item) {
    at++;
    skipSpace();
    if (peek() == close) {
      at++;
      return;
    }
    while (true) {
      item.run();
      skipSpace();
      if (peek() == ',') {
        at++;
      } else {
        expect(close);
        return;
      }
    }
  }

  private String string() {
    at++;
    StringBuilder out = new StringBuilder();
    while (true) {
      if (at >= text.length()) {
        throw error("unterminated string");
      }
      char c = text.charAt(at++);
      if (c == '"') {
        return out.toString();
      }
      if (c != '\\') {
        out.append(c);
        continue;
      }
      char e = at < text.length() ? text.charAt(at++) : '?';
      switch (e) {
        case '"', '\\', '/' -> out.append(e);
        case 'b' -> out.append('\b');
        case 'f' -> out.append('\f');
        case 'n' -> out.append('\n');
        case 'r' -> out.append('\r');
        case 't' -> out.append('\t');
        case 'u' -> {
          if (at + 4 > text.length()) {
            throw error("short \\u escape");
          }
          out.append((char) Integer.parseInt(text.substring(at, at + 4), 16));
          at += 4;
        }
        default -> throw error("bad escape '\\" + e + "'");
      }
    }
  }

  private Double number() {
    int start = at;
    while (at < text.length() && "+-0123456789.eE".indexOf(text.charAt(at)) >= 0) {
      at++;
    }
    try {
      return Double.valueOf(text.substring(start, at));
    } catch (NumberFormatException e) {
      at = start;
      throw error("bad number");
    }
  }

  private Object literal(String word, Object value) {
    if (!text.startsWith(word, at)) {
      throw error("unexpected word");
    }
    at += word.length();
    return value;
  }

  private void expect(char c) {
    if (peek() != c) {
      throw error("expected '" + c + "'");
    }
    at++;
  }

  private char peek() {
    return at < text.length() ? text.charAt(at) : '\0';
  }

  private void skipSpace() {
    while (at < text.length() && Character.isWhitespace(text.charAt(at))) {
      at++;
    }
  }

  private IllegalArgumentException error(String what) {
    return new IllegalArgumentException("JSON: " + what + " at offset " + at);
  }

  private static void write(Object value, StringBuilder out, String indent) {
    if (value instanceof Map<?, ?> map) {
      writeMembers(map, out, indent);
    } else if (value instanceof Iterable<?> list) {
      writeElements(list, out, indent);
    } else if (value instanceof String s) {
      JsonStrings.appendQuoted(out, s);
    } else if (value instanceof Double || value instanceof Float) {
      double d = ((Number) value).doubleValue();
      out.append(Double.isFinite(d) ? Double.toString(d) : "null");
    } else if (value instanceof Number || value instanceof Boolean || value == null) {
      out.append(value);
    } else {
      JsonStrings.appendQuoted(out, value.toString());
    }
  }

  private static void writeMembers(Map<?, ?> map, StringBuilder out, String indent) {
    if (map.isEmpty()) {
      out.append("{}");
      return;
    }
    String inner = indent + "  ";
    out.append("{\n");
    int left = map.size();
    for (Map.Entry<?, ?> member : map.entrySet()) {
      out.append(inner);
      JsonStrings.appendQuoted(out, String.valueOf(member.getKey()));
      out.append(": ");
      write(member.getValue(), out, inner);
      out.append(--left > 0 ? ",\n" : "\n");
    }
    out.append(indent).append('}');
  }

  private static void writeElements(Iterable<?> list, StringBuilder out, String indent) {
    boolean flat = true;
    boolean empty = true;
    for (Object element : list) {
      empty = false;
      flat &= !(element instanceof Map || element instanceof Iterable);
    }
    if (empty) {
      out.append("[]");
      return;
    }
    // Lists of numbers stay on one line: a file of per-repetition times stays readable.
    String inner = indent + "  ";
    out.append(flat ? "[" : "[\n");
    boolean first = true;
    for (Object element : list) {
      if (!first) {
        out.append(flat ? ", " : ",\n");
      }
      first = false;
      if (!flat) {
        out.append(inner);
      }
      write(element, out, inner);
    }
    out.append(flat ? "]" : "\n" + indent + "]");
  }
}
