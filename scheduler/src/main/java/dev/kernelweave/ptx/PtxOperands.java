package dev.kernelweave.ptx;

import static dev.kernelweave.ptx.PtxSyntax.integer;
import static dev.kernelweave.ptx.PtxSyntax.isImmediate;
import static dev.kernelweave.ptx.PtxSyntax.isNameChar;
import static dev.kernelweave.ptx.PtxSyntax.splitTopLevel;

import java.util.ArrayList;
import java.util.List;

/**
 * Reads an instruction's operands into references ({@link Ref}): values, vectors and pairs,
 * addresses with their offsets, argument lists. Names resolve in the scopes of the function the
 * {@link PtxParser} is reading. Not thread-safe; belongs to one parser.
 */
final class PtxOperands {

  private final PtxParser parser;

  PtxOperands(PtxParser parser) {
    this.parser = parser;
  }

  /** The value an operand carries. */
  private int value(String operand) {
    String t = operand.trim();
    while (t.startsWith("!")) t = t.substring(1).trim();
    if (t.startsWith("-") && t.length() > 1 && !Character.isDigit(t.charAt(1))) t = t.substring(1);
    if (isImmediate(t) || t.equals("_")) return Ref.NOTHING;
    int plus = t.indexOf('+');
    if (plus > 0) t = t.substring(0, plus).trim();
    int r = parser.lookup(t);
    if (r >= 0 && parser.isParamVariable(r)) return Ref.UNKNOWN; // the address of a .param variable
    if (Ref.isKernelParam(r)) return Ref.PARAM_SPACE; // from there, any parameter is a few bytes away
    return r;
  }

  /** The values of an operand that may be a vector {@code {a, b}} or a pair {@code a|b}. */
  int[] values(String operand) {
    String t = operand.trim();
    List<String> parts;
    if (t.startsWith("{")) {
      parts = splitTopLevel(t.substring(1, t.endsWith("}") ? t.length() - 1 : t.length()), ',');
    } else if (t.indexOf('|') >= 0) {
      parts = List.of(t.split("\\|"));
    } else {
      parts = List.of(t);
    }
    int[] refs = new int[parts.size()];
    int n = 0;
    for (String p : parts) {
      int r = value(p);
      if (r != Ref.NOTHING) refs[n++] = r;
    }
    return n == refs.length ? refs : java.util.Arrays.copyOf(refs, n);
  }

  int[] registers(String operand) {
    int[] refs = values(operand);
    int n = 0;
    for (int r : refs) if (r >= 0) refs[n++] = r;
    return java.util.Arrays.copyOf(refs, n);
  }

  static boolean isAddress(String operand) {
    return operand.startsWith("[");
  }

  /**
   * Fills {@code insn.addr} (and {@code paramVar} for the parameter space) from {@code [expr]},
   * {@code [expr, {coordinates}]} or {@code [a+offset]}.
   */
  int[] address(String operand, byte space, int width, Insn insn) {
    String inner = operand.substring(1, operand.endsWith("]") ? operand.length() - 1 : operand.length());
    List<String> parts = splitTopLevel(inner, ',');
    String expr = parts.isEmpty() ? "" : parts.get(0);
    List<Integer> refs = new ArrayList<>(2);
    long offset = 0;
    String base = null;
    int valueTerms = 0;
    for (String term : terms(expr)) {
      if (term.isEmpty()) continue;
      Long v = integer(term);
      if (v != null) {
        offset += v;
        continue;
      }
      valueTerms++;
      if (base == null) {
        base = term;
      } else {
        int r = value(term);
        if (r != Ref.NOTHING) refs.add(r);
      }
    }
    if (base != null) {
      int r = parser.lookup(base);
      if (r >= 0 && parser.isParamVariable(r)) {
        if (space == Insn.PARAM && insn != null) insn.paramVar = r;
        else refs.add(Ref.UNKNOWN);
      } else if (Ref.isKernelParam(r)) {
        int k = Ref.kernelParamIndex(r);
        int size = parser.currentFunction().params.get(k).size;
        if (space != Insn.PARAM) {
          // Not how a parameter is read: whatever it means, it may be any parameter, or anything.
          refs.add(Ref.PARAM_SPACE);
          refs.add(Ref.UNKNOWN);
        } else if (!refs.isEmpty() || offset < 0 || size <= 0 || offset + Math.max(width, 1) > size) {
          refs.add(Ref.PARAM_SPACE); // a computed offset, or past this parameter: any of them
        } else {
          refs.add(r);
        }
      } else if (r != Ref.NOTHING) {
        refs.add(r);
      }
    }
    for (int p = 1; p < parts.size(); p++) {
      for (int r : values(parts.get(p))) refs.add(r);
    }
    if (insn != null && valueTerms == 1 && parts.size() == 1 && refs.size() == 1) {
      insn.displaced = true;
      insn.displacement = offset;
    }
    int[] out = new int[refs.size()];
    for (int j = 0; j < out.length; j++) out[j] = refs.get(j);
    return out;
  }

  /** {@code a+b+-4}, {@code a-4}: the terms, a subtracted constant keeping its sign. */
  private static List<String> terms(String expr) {
    List<String> out = new ArrayList<>(2);
    int start = 0;
    for (int i = 1; i < expr.length(); i++) {
      char c = expr.charAt(i);
      if (c == '+' || (c == '-' && expr.charAt(i - 1) != '+')) {
        out.add(expr.substring(start, i).trim());
        start = c == '+' ? i + 1 : i;
      }
    }
    out.add(expr.substring(start).trim());
    out.removeIf(String::isEmpty);
    return out;
  }

  /**
   * The variable an operand names when it is a register and nothing else (no sign, negation, vector
   * or pair, and not a {@code .param} variable); -1 otherwise.
   */
  int plainRegister(String operand) {
    String t = operand.trim();
    if (t.isEmpty() || isImmediate(t)) return -1;
    for (int i = 0; i < t.length(); i++) if (!isNameChar(t.charAt(i))) return -1;
    int r = parser.lookup(t);
    return r >= 0 && !parser.isParamVariable(r) ? r : -1;
  }

  int[] valuesOf(List<String> ops) {
    List<Integer> refs = new ArrayList<>();
    for (String op : ops) {
      if (isAddress(op)) continue; // an mbarrier or cache-policy operand, not data
      for (int r : values(op)) refs.add(r);
    }
    return refs.stream().mapToInt(Integer::intValue).toArray();
  }

  /** The variables named in {@code (a, b, c)}, in order; an immediate gives {@link Ref#NOTHING}. */
  int[] names(String list) {
    String inner = list.trim();
    if (inner.startsWith("(")) inner = inner.substring(1, inner.endsWith(")") ? inner.length() - 1 : inner.length());
    List<String> parts = splitTopLevel(inner, ',');
    int[] refs = new int[parts.size()];
    for (int j = 0; j < refs.length; j++) {
      String p = parts.get(j).trim();
      refs[j] = isImmediate(p) ? Ref.NOTHING : parser.lookup(p);
    }
    return refs;
  }
}
