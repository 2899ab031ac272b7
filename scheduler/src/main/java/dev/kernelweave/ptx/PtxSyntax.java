package dev.kernelweave.ptx;

import java.util.ArrayList;
import java.util.List;

/**
 * The lexical pieces of PTX the parser shares: type sizes, names, integer immediates, brackets and
 * comma lists. Pure functions of strings; thread-safe.
 */
final class PtxSyntax {

  private PtxSyntax() {}

  static int typeBytes(String token) {
    switch (token) {
      case ".b8": case ".u8": case ".s8": case ".pred":
        return 1;
      case ".b16": case ".u16": case ".s16": case ".f16": case ".bf16":
        return 2;
      case ".b32": case ".u32": case ".s32": case ".f32": case ".f16x2": case ".bf16x2": case ".tf32":
        return 4;
      case ".b64": case ".u64": case ".s64": case ".f64": case ".texref": case ".samplerref": case ".surfref":
        return 8;
      case ".b128":
        return 16;
      default:
        return 0;
    }
  }

  static int indexOfWord(String s, String word) {
    int i = s.indexOf(word);
    while (i >= 0) {
      int end = i + word.length();
      boolean startOk = i == 0 || s.charAt(i - 1) == ' ';
      boolean endOk = end == s.length() || !isNameChar(s.charAt(end));
      if (startOk && endOk) return i;
      i = s.indexOf(word, i + 1);
    }
    return -1;
  }

  static int skipSpaces(String s, int i) {
    while (i < s.length() && s.charAt(i) == ' ') i++;
    return i;
  }

  static boolean isNameChar(char c) {
    return Character.isLetterOrDigit(c) || c == '_' || c == '$' || c == '%' || c == '.';
  }

  /** The index of the bracket closing the one at {@code open}, or the end of the string. */
  static int matching(String s, int open) {
    int depth = 0;
    for (int i = open; i < s.length(); i++) {
      char c = s.charAt(i);
      if (c == '(' || c == '[' || c == '{') depth++;
      else if (c == ')' || c == ']' || c == '}') {
        if (--depth == 0) return i;
      }
    }
    return s.length();
  }

  static List<String> splitTopLevel(String s, char sep) {
    List<String> out = new ArrayList<>();
    int depth = 0;
    int start = 0;
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (c == '(' || c == '[' || c == '{') depth++;
      else if (c == ')' || c == ']' || c == '}') depth--;
      else if (c == sep && depth == 0) {
        out.add(s.substring(start, i).trim());
        start = i + 1;
      }
    }
    String last = s.substring(start).trim();
    if (!last.isEmpty() || !out.isEmpty()) out.add(last);
    return out;
  }

  static boolean isImmediate(String t) {
    if (t.isEmpty()) return true;
    char c = t.charAt(0);
    if (c == '-' || c == '+') return t.length() == 1 || Character.isDigit(t.charAt(1));
    return Character.isDigit(c);
  }

  /** An integer immediate's value, or null when {@code t} is not one (registers, float literals). */
  static Long integer(String t) {
    String s = t.trim();
    if (s.isEmpty()) return null;
    boolean negative = s.charAt(0) == '-';
    if (negative || s.charAt(0) == '+') s = s.substring(1);
    if (s.endsWith("U") || s.endsWith("u")) s = s.substring(0, s.length() - 1);
    if (s.isEmpty() || !Character.isDigit(s.charAt(0))) return null;
    try {
      long v;
      if (s.startsWith("0x") || s.startsWith("0X")) v = Long.parseUnsignedLong(s.substring(2), 16);
      else if (s.startsWith("0b") || s.startsWith("0B")) v = Long.parseUnsignedLong(s.substring(2), 2);
      else if (s.startsWith("0f") || s.startsWith("0F") || s.startsWith("0d") || s.startsWith("0D")) return null;
      else if (s.length() > 1 && s.charAt(0) == '0') v = Long.parseUnsignedLong(s.substring(1), 8);
      else v = Long.parseUnsignedLong(s);
      return negative ? -v : v;
    } catch (NumberFormatException e) {
      return null;
    }
  }
}
