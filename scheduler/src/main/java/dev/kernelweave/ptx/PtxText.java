package dev.kernelweave.ptx;

import java.util.regex.Pattern;

/**
 * Text-level helpers for rewriting PTX: comments blanked out, functions found by name, names
 * matched as whole identifiers. Stateless.
 */
final class PtxText {
  private PtxText() {}

  /** Where a function's parts lie in a module's text: offsets into it. */
  record FunctionSpan(int start, int paramsStart, int paramsEnd, int headerEnd, int bodyStart, int bodyEnd) {
    /** The declared parameters, between the parentheses; empty when there are none. */
    String params(String text) {
      return paramsStart < 0 ? "" : text.substring(paramsStart + 1, paramsEnd);
    }

    /** What lies between the parameters and the body: performance directives. */
    String directives(String text) {
      return text.substring(headerEnd, bodyStart);
    }

    /** Inside the braces. */
    String body(String text) {
      return text.substring(bodyStart + 1, bodyEnd);
    }
  }

  /**
   * {@code text} with every comment replaced by spaces (newlines kept), so that offsets into it
   * are offsets into {@code text}. Quoted strings ({@code .file 1 "a//b.cu"}) are left alone.
   */
  static String blankComments(CharSequence text) {
    StringBuilder b = new StringBuilder(text);
    int n = b.length();
    int i = 0;
    while (i < n) {
      char c = b.charAt(i);
      if (c == '"') {
        i++;
        while (i < n && b.charAt(i) != '"' && b.charAt(i) != '\n') i++;
        i++;
      } else if (c == '/' && i + 1 < n && b.charAt(i + 1) == '/') {
        while (i < n && b.charAt(i) != '\n') b.setCharAt(i++, ' ');
      } else if (c == '/' && i + 1 < n && b.charAt(i + 1) == '*') {
        while (i < n && !(b.charAt(i) == '*' && i + 1 < n && b.charAt(i + 1) == '/')) {
          if (b.charAt(i) != '\n') b.setCharAt(i, ' ');
          i++;
        }
        if (i < n) {
          b.setCharAt(i++, ' ');
          b.setCharAt(i++, ' ');
        }
      } else {
        i++;
      }
    }
    return b.toString();
  }

  /** A pattern matching {@code name} as a whole identifier (not part of a longer name or register). */
  static Pattern word(String name) {
    return Pattern.compile("(?<![\\w$%.])" + Pattern.quote(name) + "(?![\\w$])");
  }

  /**
   * The definition (with a body) of the {@code .entry} ({@code entry}) or {@code .func} named
   * {@code name} in comment-free {@code text}; null when the module only declares it or lacks it.
   */
  static FunctionSpan find(String text, String name, boolean entry) {
    Pattern header = entry
        ? Pattern.compile("\\.entry\\s+" + Pattern.quote(name) + "(?![\\w$])")
        : Pattern.compile("\\.func\\s+(?:\\([^)]*\\)\\s*)?" + Pattern.quote(name) + "(?![\\w$])");
    var m = header.matcher(text);
    while (m.find()) {
      int i = skipSpaces(text, m.end());
      int paramsStart = -1;
      int paramsEnd = -1;
      if (i < text.length() && text.charAt(i) == '(') {
        paramsStart = i;
        paramsEnd = text.indexOf(')', i);
        if (paramsEnd < 0) return null;
        i = paramsEnd + 1;
      }
      int brace = text.indexOf('{', i);
      int semicolon = text.indexOf(';', i);
      if (brace < 0) return null;
      if (semicolon >= 0 && semicolon < brace) continue; // a declaration
      int depth = 0;
      for (int j = brace; j < text.length(); j++) {
        char c = text.charAt(j);
        if (c == '{') depth++;
        else if (c == '}' && --depth == 0) {
          return new FunctionSpan(m.start(), paramsStart, paramsEnd, i, brace, j);
        }
      }
      return null;
    }
    return null;
  }

  static int skipSpaces(String s, int i) {
    while (i < s.length() && Character.isWhitespace(s.charAt(i))) i++;
    return i;
  }
}
