package dev.kernelweave.ptx;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * Turns PTX text into {@link PtxModule}: functions, their parameters, and instructions reduced to
 * {@link Insn}. It reads statements, not a grammar: what it does not recognise inside a function
 * becomes a conservative instruction, and outside one is skipped. It never throws on text it does
 * not understand. Not thread-safe; one instance parses one module.
 */
final class PtxParser {

  private static final Pattern FUNCTION_HEADER =
      Pattern.compile("^(\\.(visible|extern|weak|common)\\s+)*\\.(entry|func)\\b.*", Pattern.DOTALL);

  private final CharSequence text;
  private int pointerBytes = 4; // PTX's default when .address_size is absent

  private final Map<String, Integer> moduleSymbols = new HashMap<>();
  private final List<ModuleVariable> variables = new ArrayList<>();
  private final Map<String, PtxFunction> functions = new LinkedHashMap<>();
  private final List<PtxFunction> entries = new ArrayList<>();

  // The function being read, and its scopes (index 0: the function body).
  private PtxFunction current;
  private final List<Map<String, Integer>> scopes = new ArrayList<>();
  private Map<String, Integer> headerNames = Map.of();
  /** Variables declared {@code .param}: their name denotes memory, not a value. */
  private boolean[] paramKind = new boolean[64];
  private int blockDepth;
  /** The statement being read, for {@link #fallback(String)}. */
  private String statementText = "";

  private PtxParser(CharSequence text) {
    this.text = text;
  }

  static PtxModule parse(CharSequence text) {
    PtxParser parser = new PtxParser(text);
    parser.scan();
    return new PtxModule(parser.pointerBytes, List.copyOf(parser.entries), Map.copyOf(parser.functions),
        List.copyOf(parser.variables));
  }

  // ---- statements -----------------------------------------------------------------------------

  private void scan() {
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
          statement(cur);
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
            openBlock();
          } else {
            String head = cur.toString().trim();
            if (head.startsWith(".section")) {
              skipDepth = 1;
              cur.setLength(0);
            } else if (current == null && FUNCTION_HEADER.matcher(head).matches()) {
              startFunction(head);
              cur.setLength(0);
            } else {
              inlineDepth = 1;
              cur.append(c);
            }
          }
          break;
        case '}':
          if (!isBlank(cur)) {
            statement(cur);
            cur.setLength(0);
          }
          closeBlock();
          break;
        case '\n':
          if (isLineDirective(cur)) {
            statement(cur);
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
    if (current != null) endFunction(); // unterminated body: keep what was read
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

  private void openBlock() {
    if (current == null) {
      // A block at module level that is not a function body: nothing of interest inside.
      blockDepth = 0;
      return;
    }
    blockDepth++;
    scopes.add(new HashMap<>());
  }

  private void closeBlock() {
    if (current == null) return;
    if (blockDepth > 0) {
      blockDepth--;
      scopes.remove(scopes.size() - 1);
    }
    if (blockDepth == 0) endFunction();
  }

  private void statement(StringBuilder cur) {
    String s = cur.toString().trim();
    if (s.isEmpty()) return;
    if (current == null) {
      moduleStatement(s);
    } else if (s.charAt(0) == '.') {
      declaration(s);
    } else {
      Insn insn;
      try {
        insn = instruction(s);
      } catch (RuntimeException e) {
        insn = fallback(s);
      }
      if (insn != null) current.insns.add(insn);
    }
  }

  // ---- module level ---------------------------------------------------------------------------

  private void moduleStatement(String s) {
    if (s.startsWith(".address_size")) {
      String v = s.substring(".address_size".length()).trim();
      pointerBytes = "32".equals(v) ? 4 : 8;
      return;
    }
    if (FUNCTION_HEADER.matcher(s).matches()) {
      PtxFunction f = header(s);
      if (f != null) functions.putIfAbsent(f.name, f);
      return;
    }
    if (s.startsWith(".alias")) {
      String[] names = s.substring(".alias".length()).split(",");
      if (names.length == 2) {
        PtxFunction target = functions.get(names[1].trim());
        if (target != null) functions.put(names[0].trim(), target);
      }
      return;
    }
    // A variable: [.visible|.extern|.weak|.common]* space ... name[dims] [= initializer]
    int at = 0;
    while (true) {
      int sp = s.indexOf(' ', at);
      String token = sp < 0 ? s.substring(at) : s.substring(at, sp);
      int kind = spaceSymbol(token);
      if (kind != 0) {
        for (String name : declaredNames(s)) moduleSymbols.put(name, moduleSymbol(name, kind, token.equals(".const")));
        return;
      }
      boolean linkage = token.equals(".visible") || token.equals(".extern") || token.equals(".weak")
          || token.equals(".common");
      if (!linkage || sp < 0) return;
      at = sp + 1;
    }
  }

  /** The reference of a name declared at module scope; a variable declared again keeps its index. */
  private int moduleSymbol(String name, int kind, boolean constant) {
    if (kind != Ref.ANY_MODULE_VARIABLE) return kind;
    Integer known = moduleSymbols.get(name);
    if (known != null && Ref.isModuleVariable(known)) return known;
    variables.add(new ModuleVariable(name, constant));
    return Ref.moduleVariable(variables.size() - 1);
  }

  /**
   * What a declaration's state space makes of its names: {@link Ref#ANY_MODULE_VARIABLE} for
   * {@code .global} and {@code .const} (at module scope, the caller gives each its own index), a
   * region for {@code .shared} and {@code .local}, 0 for anything else.
   */
  private static int spaceSymbol(String token) {
    switch (token) {
      case ".global":
      case ".const":
        return Ref.ANY_MODULE_VARIABLE;
      case ".shared":
        return Ref.SHARED;
      case ".local":
        return Ref.LOCAL;
      default:
        return 0;
    }
  }

  /** Names declared by {@code [linkage] space [attributes] type name[dims] [= init], name...}. */
  private static List<String> declaredNames(String s) {
    int eq = s.indexOf('=');
    if (eq >= 0) s = s.substring(0, eq);
    List<String> names = new ArrayList<>();
    String[] parts = s.split(",");
    for (int p = 0; p < parts.length; p++) {
      String part = parts[p].trim();
      if (p == 0) {
        int sp = part.lastIndexOf(' ');
        part = sp < 0 ? part : part.substring(sp + 1);
      }
      String name = bareName(part);
      if (!name.isEmpty() && !name.startsWith(".")) names.add(name);
    }
    return names;
  }

  private static String bareName(String decl) {
    int cut = decl.length();
    int b = decl.indexOf('[');
    if (b >= 0) cut = Math.min(cut, b);
    int a = decl.indexOf('<');
    if (a >= 0) cut = Math.min(cut, a);
    return decl.substring(0, cut).trim();
  }

  // ---- function headers -----------------------------------------------------------------------

  private void startFunction(String head) {
    PtxFunction f = header(head);
    if (f == null) f = new PtxFunction("", false); // unreadable header: read the body, report nothing
    f.defined = true;
    current = f;
    blockDepth = 1;
    scopes.clear();
    scopes.add(new HashMap<>());
    paramKind = new boolean[Math.max(64, f.varCount * 2)];
    Map<String, Integer> names = new HashMap<>();
    for (int k = 0; k < f.params.size(); k++) {
      PtxFunction.Param p = f.params.get(k);
      names.put(p.name, f.entry ? Ref.kernelParam(k) : p.var);
      if (!f.entry) paramKind[p.var] = !p.register;
    }
    for (PtxFunction.Param p : f.returns) {
      names.put(p.name, p.var);
      paramKind[p.var] = !p.register;
    }
    headerNames = names;
  }

  private void endFunction() {
    PtxFunction f = current;
    current = null;
    blockDepth = 0;
    scopes.clear();
    headerNames = Map.of();
    if (f.name.isEmpty()) return;
    PtxFunction declared = functions.get(f.name);
    if (declared == null || !declared.defined) functions.put(f.name, f);
    if (f.entry) entries.add(f);
  }

  /** Reads {@code [linkage] .entry|.func [(returns)] name [(params)] [directives]}; null if unreadable. */
  private PtxFunction header(String s) {
    int at = indexOfWord(s, ".entry");
    boolean entry = at >= 0;
    if (!entry) at = indexOfWord(s, ".func");
    if (at < 0) return null;
    int i = at + (entry ? 6 : 5);
    i = skipSpaces(s, i);
    while (s.startsWith(".attribute", i)) {
      int open = s.indexOf('(', i);
      if (open < 0) return null;
      i = skipSpaces(s, matching(s, open) + 1);
    }
    String returns = null;
    if (!entry && i < s.length() && s.charAt(i) == '(') {
      int close = matching(s, i);
      returns = s.substring(i + 1, close);
      i = skipSpaces(s, close + 1);
    }
    int nameStart = i;
    while (i < s.length() && isNameChar(s.charAt(i)) && s.charAt(i) != '.') i++;
    if (i == nameStart) return null;
    String name = s.substring(nameStart, i);
    PtxFunction f = new PtxFunction(name, entry);
    i = skipSpaces(s, i);
    if (i < s.length() && s.charAt(i) == '(') {
      int close = matching(s, i);
      for (String decl : splitTopLevel(s.substring(i + 1, close), ',')) {
        if (!decl.isBlank()) f.params.add(param(f, decl.trim(), !entry));
      }
    }
    if (returns != null) {
      for (String decl : splitTopLevel(returns, ',')) {
        if (!decl.isBlank()) f.returns.add(param(f, decl.trim(), true));
      }
    }
    return f;
  }

  private static PtxFunction.Param param(PtxFunction f, String decl, boolean needsVar) {
    String[] tokens = decl.split(" ");
    String name = bareName(tokens[tokens.length - 1]);
    int size = 0;
    for (int t = 0; t < tokens.length - 1; t++) {
      int bytes = typeBytes(tokens[t]);
      if (bytes > 0) {
        size = bytes;
        break;
      }
    }
    String last = tokens[tokens.length - 1];
    int b = last.indexOf('[');
    while (b >= 0 && size > 0) {
      int e = last.indexOf(']', b);
      if (e < 0) break;
      try {
        size *= Integer.parseInt(last.substring(b + 1, e).trim());
      } catch (NumberFormatException ex) {
        size = 0;
      }
      b = last.indexOf('[', e);
    }
    int var = needsVar ? f.varCount++ : -1;
    return new PtxFunction.Param(name, size, var, tokens[0].equals(".reg"));
  }

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

  private static int indexOfWord(String s, String word) {
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

  private static int skipSpaces(String s, int i) {
    while (i < s.length() && s.charAt(i) == ' ') i++;
    return i;
  }

  private static boolean isNameChar(char c) {
    return Character.isLetterOrDigit(c) || c == '_' || c == '$' || c == '%' || c == '.';
  }

  /** The index of the bracket closing the one at {@code open}, or the end of the string. */
  private static int matching(String s, int open) {
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

  // ---- declarations in a body -----------------------------------------------------------------

  private void declaration(String s) {
    int sp = s.indexOf(' ');
    String directive = sp < 0 ? s : s.substring(0, sp);
    switch (directive) {
      case ".reg":
        for (String name : declaredNames(s)) {
          if (!name.isEmpty() && s.indexOf('<') < 0) scope().put(name, newVar(false));
        }
        break;
      case ".param":
        for (String name : declaredNames(s)) scope().put(name, newVar(true));
        break;
      case ".local":
      case ".shared":
      case ".const":
      case ".global":
        int kind = spaceSymbol(directive);
        for (String name : declaredNames(s)) scope().put(name, kind);
        break;
      default:
        // .pragma, .loc, .callprototype and the like say nothing about memory.
    }
  }

  private Map<String, Integer> scope() {
    return scopes.get(scopes.size() - 1);
  }

  private int newVar(boolean isParam) {
    int v = current.varCount++;
    if (v >= paramKind.length) paramKind = java.util.Arrays.copyOf(paramKind, v * 2 + 8);
    paramKind[v] = isParam;
    return v;
  }

  /** The reference a name denotes: a variable, a symbol's provenance, or {@link Ref#UNKNOWN}. */
  private int lookup(String name) {
    for (int s = scopes.size() - 1; s >= 0; s--) {
      Integer r = scopes.get(s).get(name);
      if (r != null) return r;
    }
    Integer r = headerNames.get(name);
    if (r != null) return r;
    r = moduleSymbols.get(name);
    if (r != null) return r;
    if (name.startsWith("%")) {
      int v = newVar(false); // a register declared with <N>, or a special register
      scopes.get(0).put(name, v);
      return v;
    }
    if (functions.containsKey(name)) return Ref.NOTHING; // a function's address
    return Ref.UNKNOWN;
  }

  // ---- operands -------------------------------------------------------------------------------

  private static boolean isImmediate(String t) {
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

  /** The value an operand carries. */
  private int value(String operand) {
    String t = operand.trim();
    while (t.startsWith("!")) t = t.substring(1).trim();
    if (t.startsWith("-") && t.length() > 1 && !Character.isDigit(t.charAt(1))) t = t.substring(1);
    if (isImmediate(t) || t.equals("_")) return Ref.NOTHING;
    int plus = t.indexOf('+');
    if (plus > 0) t = t.substring(0, plus).trim();
    int r = lookup(t);
    if (r >= 0 && paramKind[r]) return Ref.UNKNOWN; // the address of a .param variable
    if (Ref.isKernelParam(r)) return Ref.PARAM_SPACE; // from there, any parameter is a few bytes away
    return r;
  }

  /** The values of an operand that may be a vector {@code {a, b}} or a pair {@code a|b}. */
  private int[] values(String operand) {
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

  private int[] registers(String operand) {
    int[] refs = values(operand);
    int n = 0;
    for (int r : refs) if (r >= 0) refs[n++] = r;
    return java.util.Arrays.copyOf(refs, n);
  }

  private static boolean isAddress(String operand) {
    return operand.startsWith("[");
  }

  /**
   * Fills {@code insn.addr} (and {@code paramVar} for the parameter space) from {@code [expr]},
   * {@code [expr, {coordinates}]} or {@code [a+offset]}.
   */
  private int[] address(String operand, byte space, int width, Insn insn) {
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
      int r = lookup(base);
      if (r >= 0 && paramKind[r]) {
        if (space == Insn.PARAM && insn != null) insn.paramVar = r;
        else refs.add(Ref.UNKNOWN);
      } else if (Ref.isKernelParam(r)) {
        int k = Ref.kernelParamIndex(r);
        int size = current.params.get(k).size;
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

  // ---- instructions ---------------------------------------------------------------------------

  private static byte space(String[] mods) {
    for (int m = 1; m < mods.length; m++) {
      String t = mods[m];
      if (t.equals("global")) return Insn.GLOBAL;
      if (t.startsWith("shared")) return Insn.SHARED;
      if (t.equals("local")) return Insn.LOCAL;
      if (t.startsWith("const")) return Insn.CONST;
      if (t.equals("param") || t.startsWith("param::")) return Insn.PARAM;
    }
    return Insn.GENERIC;
  }

  private static List<Byte> spaces(String[] mods) {
    List<Byte> out = new ArrayList<>(2);
    for (int m = 1; m < mods.length; m++) {
      String t = mods[m];
      if (t.equals("global")) out.add(Insn.GLOBAL);
      else if (t.startsWith("shared")) out.add(Insn.SHARED);
      else if (t.equals("local")) out.add(Insn.LOCAL);
    }
    return out;
  }

  /** Bits of the last type modifier: {@code u32} gives 32; 0 if there is none. */
  private static int typeBits(String[] mods) {
    for (int m = mods.length - 1; m >= 1; m--) {
      int bytes = typeBytes("." + mods[m]);
      if (bytes > 0 && !mods[m].equals("pred")) return bytes * 8;
    }
    return 0;
  }

  private static boolean has(String[] mods, String mod) {
    for (int m = 1; m < mods.length; m++) if (mods[m].equals(mod)) return true;
    return false;
  }

  private Insn instruction(String s) {
    statementText = s;
    if (s.charAt(0) == '@') {
      int sp = s.indexOf(' ');
      if (sp < 0) return null;
      s = s.substring(sp + 1).trim();
    }
    int sp = s.indexOf(' ');
    String opcode = sp < 0 ? s : s.substring(0, sp);
    String rest = sp < 0 ? "" : s.substring(sp + 1).trim();
    String[] mods = opcode.split("\\.");
    String base = mods[0];
    List<String> ops = rest.isEmpty() ? List.of() : splitTopLevel(rest, ',');
    int pointerBits = pointerBytes * 8;

    switch (base) {
      case "ld":
      case "ldu":
        return sized(load(mods, ops, 0, 1), mods);
      case "ldmatrix":
        return load(mods, ops, 0, 1);
      case "st":
        return sized(store(mods, ops), mods);
      case "stmatrix":
        return store(mods, ops);
      case "atom":
        return sized(atomic(mods, ops, true), mods);
      case "red":
        return sized(atomic(mods, ops, false), mods);
      case "discard": {
        Insn insn = new Insn(Insn.STORE);
        insn.space = space(mods);
        if (ops.isEmpty() || !isAddress(ops.get(0))) return fallback(s);
        insn.addr = address(ops.get(0), insn.space, 0, insn);
        return insn;
      }
      case "wmma":
        if (mods.length > 1 && mods[1].equals("load")) return load(mods, ops, 0, 1);
        if (mods.length > 1 && mods[1].equals("store")) return store(mods, ops);
        break;
      case "cp":
        return copy(s, mods, ops);
      case "call":
        return call(ops, s);
      case "tex":
      case "tld4":
      case "txq":
      case "suld":
      case "sust":
      case "sured":
      case "suq":
      case "istypep": {
        Insn insn = new Insn(Insn.OPAQUE);
        if (!ops.isEmpty() && !isAddress(ops.get(0))) insn.dsts = registers(ops.get(0));
        return insn;
      }
      case "prefetch":
      case "prefetchu":
      case "applypriority":
      case "createpolicy":
      case "mbarrier":
      case "bar":
      case "barrier":
      case "membar":
      case "fence":
      case "bra":
      case "brx":
      case "ret":
      case "exit":
      case "trap":
      case "brkpt":
      case "nanosleep":
      case "pmevent":
      case "griddepcontrol":
      case "setmaxnreg":
      case "stackrestore":
      case "setp":
      case "set":
      case "testp":
      case "isspacep":
      case "vote":
      case "match":
      case "activemask":
        return null;
      case "alloca":
      case "stacksave": {
        Insn insn = new Insn(Insn.MOVE);
        insn.dsts = ops.isEmpty() ? Insn.NONE : registers(ops.get(0));
        insn.srcs = new int[] {Ref.LOCAL};
        return insn;
      }
      case "add":
      case "sub":
      case "addc":
      case "subc": {
        if (ops.size() < 3) break;
        Insn insn = sum(ops.get(0), new String[] {ops.get(1), ops.get(2)}, new byte[2]);
        if (mods.length == 2 && typeBits(mods) == pointerBits && insn.dsts.length == 1) {
          // p + c, c + p and p - c keep p's value up to a constant; c - p does not.
          Long second = integer(ops.get(2));
          Long first = base.equals("add") ? integer(ops.get(1)) : null;
          if (second != null && plainRegister(ops.get(1)) >= 0) {
            displace(insn, base.equals("add") ? second : -second);
          } else if (first != null && plainRegister(ops.get(2)) >= 0) {
            displace(insn, first);
          }
        }
        return insn;
      }
      case "mul":
      case "mul24": {
        if (ops.size() < 3 || has(mods, "hi")) break;
        int bits = typeBits(mods) * (has(mods, "wide") ? 2 : 1);
        return product(ops.get(0), ops.get(1), ops.get(2), null, bits >= pointerBits);
      }
      case "mad":
      case "mad24":
      case "fma": {
        if (ops.size() < 4 || has(mods, "hi")) break;
        int bits = typeBits(mods) * (has(mods, "wide") ? 2 : 1);
        return product(ops.get(0), ops.get(1), ops.get(2), ops.get(3), bits >= pointerBits);
      }
      case "shl": {
        if (ops.size() < 3) break;
        boolean wide = typeBits(mods) >= pointerBits;
        Long amount = integer(ops.get(2));
        byte flags;
        if (amount == null) flags = wide ? Insn.PROMOTE : 0;
        else flags = (byte) ((amount >= 1 ? Insn.SCALED : 0) | (wide && amount >= 8 ? Insn.PROMOTE : 0));
        return sum(ops.get(0), new String[] {ops.get(1)}, new byte[] {flags});
      }
      case "mov": {
        if (ops.size() < 2) break;
        Insn insn = new Insn(Insn.MOVE);
        insn.dsts = registers(ops.get(0));
        insn.srcs = values(ops.get(1));
        if (ops.get(1).startsWith("{") && typeBits(mods) >= pointerBits) insn.flags = Insn.PROMOTE;
        if (mods.length == 2 && typeBits(mods) == pointerBits && insn.dsts.length == 1
            && plainRegister(ops.get(1)) >= 0) {
          displace(insn, 0);
        }
        return insn;
      }
      case "selp":
      case "slct": {
        if (ops.size() < 3) break;
        return move(ops.get(0), List.of(ops.get(1), ops.get(2)), (byte) 0);
      }
      case "shfl": {
        if (ops.size() < 2) break;
        return move(ops.get(0), List.of(ops.get(1)), (byte) 0);
      }
      case "cvta": {
        if (ops.isEmpty()) return null;
        Insn insn = move(ops.get(0), ops.subList(1, ops.size()), (byte) 0);
        // A global address and its generic form differ by a constant, if at all.
        if (has(mods, "global") && typeBits(mods) == pointerBits && ops.size() == 2 && insn.dsts.length == 1
            && plainRegister(ops.get(1)) >= 0) {
          displace(insn, 0);
        }
        return insn;
      }
      case "cvt":
      case "and":
      case "or":
      case "xor":
      case "not":
      case "cnot":
      case "neg":
      case "abs":
      case "min":
      case "max":
      case "copysign":
      case "mapa":
      case "redux":
        if (ops.isEmpty()) return null;
        return move(ops.get(0), ops.subList(1, ops.size()), (byte) 0);
      case "shr":
      case "div":
      case "rem":
      case "bfe":
      case "popc":
      case "clz":
      case "bfind":
      case "brev":
        if (ops.isEmpty()) return null;
        return move(ops.get(0), ops.subList(1, ops.size()), Insn.RESTORE);
      default:
        break;
    }
    for (String op : ops) if (isAddress(op)) return fallback(s);
    if (ops.isEmpty()) return null;
    // Anything else: the first operand is the result, which may undo a scaling or rebuild a value.
    byte flags = Insn.RESTORE;
    if (typeBits(mods) >= pointerBits) flags |= Insn.PROMOTE;
    return move(ops.get(0), ops.subList(1, ops.size()), flags);
  }

  /** Marks {@code insn}, whose one source is a plain register, as that register plus {@code constant}. */
  private static void displace(Insn insn, long constant) {
    if (insn.srcs.length != 1 || insn.srcs[0] < 0) return;
    insn.displaced = true;
    insn.displacement = constant;
  }

  /**
   * The variable an operand names when it is a register and nothing else (no sign, negation, vector
   * or pair, and not a {@code .param} variable); -1 otherwise.
   */
  private int plainRegister(String operand) {
    String t = operand.trim();
    if (t.isEmpty() || isImmediate(t)) return -1;
    for (int i = 0; i < t.length(); i++) if (!isNameChar(t.charAt(i))) return -1;
    int r = lookup(t);
    return r >= 0 && !paramKind[r] ? r : -1;
  }

  /**
   * Gives a plain load, store or atomic its size: the element's bytes times the lanes of a vector.
   * Bulk forms, whose size is an operand, keep 0.
   */
  private static Insn sized(Insn insn, String[] mods) {
    if (insn.kind != Insn.LOAD && insn.kind != Insn.STORE && insn.kind != Insn.ATOMIC) return insn;
    for (int m = 1; m < mods.length; m++) if (mods[m].contains("bulk")) return insn;
    insn.bytes = width(mods) * lanes(mods);
    return insn;
  }

  private Insn move(String dst, List<String> srcs, byte flags) {
    Insn insn = new Insn(Insn.MOVE);
    insn.dsts = registers(dst);
    List<Integer> refs = new ArrayList<>();
    for (String op : srcs) for (int r : values(op)) refs.add(r);
    insn.srcs = refs.stream().mapToInt(Integer::intValue).toArray();
    insn.flags = flags;
    return insn;
  }

  private Insn sum(String dst, String[] terms, byte[] flags) {
    Insn insn = new Insn(Insn.SUM);
    insn.dsts = registers(dst);
    List<Integer> refs = new ArrayList<>();
    List<Byte> fl = new ArrayList<>();
    for (int t = 0; t < terms.length; t++) {
      for (int r : values(terms[t])) {
        refs.add(r);
        fl.add(flags[t]);
      }
    }
    insn.srcs = refs.stream().mapToInt(Integer::intValue).toArray();
    insn.termFlags = new byte[fl.size()];
    for (int j = 0; j < fl.size(); j++) insn.termFlags[j] = fl.get(j);
    return insn;
  }

  /** {@code a * b [+ c]}: a factor multiplied by an integer constant of magnitude 2+ is scaled. */
  private Insn product(String dst, String a, String b, String addend, boolean wide) {
    Long ca = integer(a);
    Long cb = integer(b);
    List<String> terms = new ArrayList<>(3);
    List<Byte> flags = new ArrayList<>(3);
    if (ca != null || cb != null) {
      long c = ca != null ? ca : cb;
      String factor = ca != null ? b : a;
      if (c != 0) {
        long m = Math.abs(c);
        byte f = (byte) ((m >= 2 ? Insn.SCALED : 0) | (wide && m >= 256 ? Insn.PROMOTE : 0));
        terms.add(factor);
        flags.add(f);
      }
    } else {
      terms.add(a);
      flags.add((byte) 0);
      terms.add(b);
      flags.add((byte) 0);
    }
    if (addend != null) {
      terms.add(addend);
      flags.add((byte) 0);
    }
    byte[] fl = new byte[flags.size()];
    for (int j = 0; j < fl.length; j++) fl[j] = flags.get(j);
    return sum(dst, terms.toArray(new String[0]), fl);
  }

  /** Elements of a vector access ({@code .v4}: 4), 1 for a scalar one. */
  private static int lanes(String[] mods) {
    for (int m = 1; m < mods.length; m++) {
      String t = mods[m];
      if (t.length() == 2 && t.charAt(0) == 'v' && Character.isDigit(t.charAt(1))) return t.charAt(1) - '0';
    }
    return 1;
  }

  private static int width(String[] mods) {
    return typeBits(mods) / 8;
  }

  private Insn load(String[] mods, List<String> ops, int dst, int addr) {
    if (ops.size() <= Math.max(dst, addr) || !isAddress(ops.get(addr))) return fallback(statementText);
    Insn insn = new Insn(Insn.LOAD);
    insn.space = space(mods);
    insn.width = width(mods);
    insn.dsts = registers(ops.get(dst));
    insn.addr = address(ops.get(addr), insn.space, insn.width * lanes(mods), insn);
    return insn;
  }

  private Insn store(String[] mods, List<String> ops) {
    if (ops.size() < 2 || !isAddress(ops.get(0))) return fallback(statementText);
    Insn insn = new Insn(Insn.STORE);
    insn.space = space(mods);
    insn.width = width(mods);
    insn.addr = address(ops.get(0), insn.space, insn.width, insn);
    insn.srcs = valuesOf(ops.subList(1, ops.size()));
    return insn;
  }

  private Insn atomic(String[] mods, List<String> ops, boolean hasResult) {
    int a = hasResult ? 1 : 0;
    if (ops.size() <= a || !isAddress(ops.get(a))) return fallback(statementText);
    Insn insn = new Insn(Insn.ATOMIC);
    insn.space = space(mods);
    insn.width = width(mods);
    if (hasResult) insn.dsts = registers(ops.get(0));
    insn.addr = address(ops.get(a), insn.space, insn.width, insn);
    insn.srcs = valuesOf(ops.subList(a + 1, ops.size()));
    return insn;
  }

  private int[] valuesOf(List<String> ops) {
    List<Integer> refs = new ArrayList<>();
    for (String op : ops) {
      if (isAddress(op)) continue; // an mbarrier or cache-policy operand, not data
      for (int r : values(op)) refs.add(r);
    }
    return refs.stream().mapToInt(Integer::intValue).toArray();
  }

  private Insn copy(String s, String[] mods, List<String> ops) {
    String opcode = String.join(".", mods);
    if (opcode.contains("tensor")) return new Insn(Insn.OPAQUE);
    boolean anyAddress = false;
    for (String op : ops) anyAddress |= isAddress(op);
    if (!anyAddress || opcode.contains("prefetch") || opcode.startsWith("cp.async.mbarrier")) return null;
    List<Byte> spaces = spaces(mods);
    if (ops.size() < 2 || !isAddress(ops.get(0)) || !isAddress(ops.get(1)) || spaces.size() != 2) {
      return fallback(s);
    }
    Insn insn = new Insn(Insn.COPY);
    insn.space = spaces.get(0);
    insn.space2 = spaces.get(1);
    insn.addr = address(ops.get(0), insn.space, 0, null);
    insn.addr2 = address(ops.get(1), insn.space2, 0, null);
    insn.reduce = mods[1].equals("reduce");
    return insn;
  }

  /** {@code call[.uni] [(rets),] target[, (args)][, prototype|targets]}. */
  private Insn call(List<String> ops, String s) {
    if (ops.isEmpty()) return fallback(s);
    int i = 0;
    Insn insn = new Insn(Insn.CALL);
    if (ops.get(0).startsWith("(")) {
      insn.rets = names(ops.get(0));
      i = 1;
    }
    if (i >= ops.size()) return fallback(s);
    String target = ops.get(i).trim();
    if (i + 1 < ops.size() && ops.get(i + 1).startsWith("(")) insn.args = names(ops.get(i + 1));
    boolean indirect = target.startsWith("%") || lookup(target) >= 0;
    insn.callKind = indirect ? Insn.CALL_UNKNOWN : Insn.CALL_DIRECT;
    insn.callee = indirect ? null : target;
    return insn;
  }

  /** The variables named in {@code (a, b, c)}, in order; an immediate gives {@link Ref#NOTHING}. */
  private int[] names(String list) {
    String inner = list.trim();
    if (inner.startsWith("(")) inner = inner.substring(1, inner.endsWith(")") ? inner.length() - 1 : inner.length());
    List<String> parts = splitTopLevel(inner, ',');
    int[] refs = new int[parts.size()];
    for (int j = 0; j < refs.length; j++) {
      String p = parts.get(j).trim();
      refs[j] = isImmediate(p) ? Ref.NOTHING : lookup(p);
    }
    return refs;
  }

  /**
   * An instruction this parser does not model but that has an address operand: every register
   * it names may be read, written, or used as an address.
   */
  private Insn fallback(String s) {
    Insn insn = new Insn(Insn.FALLBACK);
    List<Integer> refs = new ArrayList<>();
    List<Integer> dsts = new ArrayList<>();
    StringBuilder name = new StringBuilder();
    boolean first = true;
    int sp = s.indexOf(' ');
    String ops = sp < 0 ? "" : s.substring(sp + 1);
    for (int i = 0; i <= ops.length(); i++) {
      char c = i < ops.length() ? ops.charAt(i) : ' ';
      if (Character.isLetterOrDigit(c) || c == '_' || c == '$' || c == '%' || c == '.') {
        name.append(c);
        continue;
      }
      if (name.length() > 0) {
        String t = name.toString();
        name.setLength(0);
        if (!isImmediate(t)) {
          int r = lookup(t);
          if (r != Ref.NOTHING) {
            refs.add(r);
            if (first && r >= 0) dsts.add(r);
          }
        }
      }
      if (c == ',') first = false;
    }
    insn.srcs = refs.stream().mapToInt(Integer::intValue).toArray();
    insn.dsts = dsts.stream().mapToInt(Integer::intValue).toArray();
    return insn;
  }
}
