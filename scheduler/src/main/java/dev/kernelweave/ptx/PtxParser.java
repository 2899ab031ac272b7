package dev.kernelweave.ptx;

import static dev.kernelweave.ptx.PtxSyntax.indexOfWord;
import static dev.kernelweave.ptx.PtxSyntax.isNameChar;
import static dev.kernelweave.ptx.PtxSyntax.matching;
import static dev.kernelweave.ptx.PtxSyntax.skipSpaces;
import static dev.kernelweave.ptx.PtxSyntax.splitTopLevel;
import static dev.kernelweave.ptx.PtxSyntax.typeBytes;

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
final class PtxParser implements PtxStatementScanner.Sink {

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

  private final PtxOperands operands = new PtxOperands(this);
  private final PtxInstructions instructions = new PtxInstructions(this, operands);

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
    new PtxStatementScanner(text, this).scan();
    if (current != null) endFunction(); // unterminated body: keep what was read
  }

  @Override
  public boolean openFunction(String head) {
    if (current != null || !FUNCTION_HEADER.matcher(head).matches()) return false;
    startFunction(head);
    return true;
  }

  @Override
  public void openBlock() {
    if (current == null) {
      // A block at module level that is not a function body: nothing of interest inside.
      blockDepth = 0;
      return;
    }
    blockDepth++;
    scopes.add(new HashMap<>());
  }

  @Override
  public void closeBlock() {
    if (current == null) return;
    if (blockDepth > 0) {
      blockDepth--;
      scopes.remove(scopes.size() - 1);
    }
    if (blockDepth == 0) endFunction();
  }

  @Override
  public void statement(StringBuilder cur) {
    String s = cur.toString().trim();
    if (s.isEmpty()) return;
    if (current == null) {
      moduleStatement(s);
    } else if (s.charAt(0) == '.') {
      declaration(s);
    } else {
      Insn insn;
      try {
        insn = instructions.instruction(s);
      } catch (RuntimeException e) {
        insn = instructions.fallback(s);
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
  int lookup(String name) {
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

  // ---- what instructions and operands ask of the function being read --------------------------

  int pointerBytes() {
    return pointerBytes;
  }

  PtxFunction currentFunction() {
    return current;
  }

  /** Whether variable {@code var} was declared {@code .param}: its name denotes memory, not a value. */
  boolean isParamVariable(int var) {
    return paramKind[var];
  }
}
