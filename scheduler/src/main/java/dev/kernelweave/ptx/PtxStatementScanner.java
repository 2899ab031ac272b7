package dev.kernelweave.ptx;

/**
 * Cuts PTX text into statements: drops comments and labels, collapses whitespace, ends a statement
 * at a semicolon, at the end of a line directive or at a closing brace, and reports the braces that
 * open and close blocks. What a statement means is the {@link Sink}'s business. Not thread-safe;
 * one instance scans one text once.
 */
final class PtxStatementScanner {

  /** Receives the statements and blocks of the text, in order. */
  interface Sink {
    /** A statement, whitespace collapsed to single spaces; may be blank. */
    void statement(StringBuilder statement);

    /** A brace that opens a block of statements, not a function body or a statement's own braces. */
    void openBlock();

    void closeBlock();

    /** Whether {@code head}, the text before a brace, starts a function body; if so, its body follows. */
    boolean openFunction(String head);
  }

  private final CharSequence text;
  private final Sink sink;

  PtxStatementScanner(CharSequence text, Sink sink) {
    this.text = text;
    this.sink = sink;
  }

  void scan() {
    final int n = text.length();
    StringBuilder cur = new StringBuilder(128);
    int inlineDepth = 0; // inside braces that belong to a statement: {%f1, %f2}, = {1, 2}
    int skipDepth = 0; // inside a .section or an unattached block at module level
    int i = 0;
    while (i < n) {
      char c = text.charAt(i);
      if (c == '/' && i + 1 < n && text.charAt(i + 1) == '/') {
        while (i < n && text.charAt(i) != '\n') i++;
        continue;
      }
      if (c == '/' && i + 1 < n && text.charAt(i + 1) == '*') {
        int end = indexOf("*/", i + 2);
        i = end < 0 ? n : end + 2;
        appendSpace(cur);
        continue;
      }
      if (c == '"') {
        int j = i + 1;
        while (j < n && text.charAt(j) != '"' && text.charAt(j) != '\n') j++;
        if (skipDepth == 0) cur.append(text, i, Math.min(n, j + 1));
        i = j + 1;
        continue;
      }
      if (skipDepth > 0) {
        if (c == '{') skipDepth++;
        else if (c == '}') skipDepth--;
        i++;
        continue;
      }
      if (inlineDepth > 0) {
        if (c == '{') inlineDepth++;
        else if (c == '}') inlineDepth--;
        appendChar(cur, c);
        i++;
        continue;
      }
      switch (c) {
        case ';':
          sink.statement(cur);
          cur.setLength(0);
          break;
        case ':':
          if (isLabel(cur) && !(i + 1 < n && text.charAt(i + 1) == ':')) {
            cur.setLength(0);
          } else {
            cur.append(c);
          }
          break;
        case '{':
          if (isBlank(cur)) {
            sink.openBlock();
          } else {
            String head = cur.toString().trim();
            if (head.startsWith(".section")) {
              skipDepth = 1;
              cur.setLength(0);
            } else if (sink.openFunction(head)) {
              cur.setLength(0);
            } else {
              inlineDepth = 1;
              cur.append(c);
            }
          }
          break;
        case '}':
          if (!isBlank(cur)) {
            sink.statement(cur);
            cur.setLength(0);
          }
          sink.closeBlock();
          break;
        case '\n':
          if (isLineDirective(cur)) {
            sink.statement(cur);
            cur.setLength(0);
          } else {
            appendSpace(cur);
          }
          break;
        default:
          appendChar(cur, c);
      }
      i++;
    }
  }

  private int indexOf(String s, int from) {
    int n = text.length() - s.length();
    for (int i = from; i <= n; i++) {
      if (text.charAt(i) == s.charAt(0) && text.charAt(i + 1) == s.charAt(1)) return i;
    }
    return -1;
  }

  private static void appendChar(StringBuilder cur, char c) {
    if (Character.isWhitespace(c)) appendSpace(cur);
    else cur.append(c);
  }

  private static void appendSpace(StringBuilder cur) {
    int len = cur.length();
    if (len > 0 && cur.charAt(len - 1) != ' ') cur.append(' ');
  }

  private static boolean isBlank(StringBuilder cur) {
    for (int i = 0; i < cur.length(); i++) if (cur.charAt(i) != ' ') return false;
    return true;
  }

  /** Directives that end at the end of their line, without a semicolon. */
  private static boolean isLineDirective(StringBuilder cur) {
    int i = 0;
    while (i < cur.length() && cur.charAt(i) == ' ') i++;
    return startsWith(cur, i, ".loc") || startsWith(cur, i, ".file") || startsWith(cur, i, ".version")
        || startsWith(cur, i, ".target") || startsWith(cur, i, ".address_size");
  }

  private static boolean startsWith(StringBuilder cur, int at, String word) {
    int end = at + word.length();
    if (end > cur.length()) return false;
    for (int i = 0; i < word.length(); i++) if (cur.charAt(at + i) != word.charAt(i)) return false;
    return end == cur.length() || cur.charAt(end) == ' ';
  }

  private static boolean isLabel(StringBuilder cur) {
    int end = cur.length();
    while (end > 0 && cur.charAt(end - 1) == ' ') end--;
    int start = 0;
    while (start < end && cur.charAt(start) == ' ') start++;
    if (start == end) return false;
    for (int i = start; i < end; i++) {
      char c = cur.charAt(i);
      if (!(Character.isLetterOrDigit(c) || c == '_' || c == '$' || c == '%')) return false;
    }
    return true;
  }
}
