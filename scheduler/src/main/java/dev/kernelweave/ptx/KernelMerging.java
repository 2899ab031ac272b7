package dev.kernelweave.ptx;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Generates the merged variant of a kernel from its PTX: one launch that does the work of k
 * launches of the kernel ("instances"), each with its own parameters and grid.
 *
 * <p>The variant {@code NAME__kw_merged(.u64 table, .u32 count)} reads a table with one row per
 * instance ({@link MergedLaunchTable}). It is launched 1-D, with {@link MergedLaunchTable#totalBlocks}
 * blocks in x: block {@code b} belongs to the last instance whose first block is {@code <= b}
 * (a linear search over the rows), and its index within that instance, {@code b - first}, is
 * unfolded into x, y and z over the instance's grid (x fastest), so kernels with 2-D and 3-D
 * grids merge too. The original body then runs with {@code %ctaid.*} and {@code %nctaid.*}
 * replaced by the instance's values and each {@code ld.param} of a kernel parameter replaced by
 * an {@code ld.global} of the same bytes from the instance's row. Labels are renamed so the
 * copy's never clash with the original's in debug sections.
 *
 * <p>Preconditions of the caller, which PTX cannot decide: every instance has the same block
 * shape and the same dynamic shared memory (the merged launch passes them once); the instances
 * are independent, by the dependency tracker's byte ranges (no instance writes what another
 * reads or writes), since the merged launch runs their blocks concurrently where k launches on
 * one stream would run them one after the other; the count is at least 1; the table lies at an
 * address aligned to {@link MergedLaunchTable#alignment()} and stays unchanged until the merged
 * launch completes.
 *
 * <p>Refused, with the reason: special registers that tell the hardware, the time or the grid
 * apart from {@code %ctaid}/{@code %nctaid} ({@code %clock}, {@code %clock64},
 * {@code %globaltimer}, {@code %smid}, {@code %gridid}, {@code %cluster*}, {@code %envreg*} of
 * cooperative launches...), cluster barriers and cluster shared memory, programmatic dependent
 * launch, calls to external functions (dynamic parallelism, grid-wide synchronization of
 * cooperative groups, device {@code malloc}: one launch would hold every instance's allocations
 * at once), indirect calls, a called function that reads
 * {@code %ctaid} or {@code %nctaid}, a parameter used other than by a {@code ld.param} at a
 * constant offset within it (its address taken, as {@code __grid_constant__} parameters are),
 * texture or surface reference parameters and texture or surface instructions (not yet checked
 * by execution), device {@code printf} and {@code assert} (the instances' lines would interleave,
 * where k launches print theirs one launch after another), writes to module variables (the instances would share them), entry directives
 * other than the block-shape ones (cluster launches), and anything the text does not match.
 *
 * <p>Stateless and thread-safe.
 */
public final class KernelMerging {
  private KernelMerging() {}

  /** Names of what the prologue adds; the kernel's own registers may not start with this. */
  private static final String OWN = "__kw_";
  /** Printing kernels are refused before calls are looked at: these are the only external calls kept. */
  private static final Set<String> ALLOWED_EXTERNAL = Set.of("vprintf", "__assertfail");
  private static final Set<String> ALLOWED_DIRECTIVES = Set.of(".maxntid", ".reqntid", ".minnctapersm",
      ".maxnctapersm", ".maxnreg", ".pragma");
  /** Special registers whose values merging keeps: the block's own, and the launch's shared memory. */
  private static final Set<String> KEPT_SPECIALS = Set.of("%tid", "%ntid", "%laneid", "%lanemask_eq",
      "%lanemask_lt", "%lanemask_le", "%lanemask_gt", "%lanemask_ge", "%dynamic_smem_size", "%total_smem_size");
  private static final Pattern REGISTER = Pattern.compile("%[A-Za-z_$][\\w$]*(\\.[A-Za-z]+)?");
  private static final Pattern REG_DECLARATION = Pattern.compile("(?<![\\w$.])\\.reg\\s([^;]*);");
  private static final Pattern DECLARED_NAME = Pattern.compile("(%[A-Za-z_$][\\w$]*)(<\\d+>)?");
  private static final Pattern CALL = Pattern.compile(
      "(?<![\\w$.])call(?:\\.uni)?\\s+(?:\\([^)]*\\)\\s*,\\s*)?([%$\\w]+)");
  private static final Pattern LABEL = Pattern.compile("(?m)(?:^|[;{}])\\s*([$A-Za-z_][\\w$]*)\\s*:(?!:)");
  private static final Pattern DIRECTIVE = Pattern.compile("\\.[A-Za-z_]\\w*");
  private static final Pattern LEADING_DECLARATION = Pattern.compile("\\s*\\.(?:reg|local|shared)\\s[^;]*;");
  /** Instructions that only make sense with clusters or across launches. */
  private static final Map<Pattern, String> FORBIDDEN = Map.of(
      Pattern.compile("(?<![\\w$])barrier\\.cluster"), "cluster barrier",
      Pattern.compile("::cluster"), "cluster shared memory",
      Pattern.compile("(?<![\\w$.])(?:mapa|getctarank)(?![\\w$])"), "cluster shared memory",
      Pattern.compile("(?<![\\w$.])griddepcontrol(?![\\w$])"), "programmatic dependent launch",
      Pattern.compile("(?<![\\w$.])clusterlaunchcontrol(?![\\w$])"), "cluster launch control",
      // Safe in principle (handles are values), but never checked against separate launches.
      Pattern.compile("(?<![\\w$.])(?:tex|tld4|txq|suld|sust|sured|suq)\\."), "texture or surface access");

  /** Every kernel of {@code module}, in the order of the text. */
  public static List<MergedKernel> mergeAll(CharSequence module) {
    return mergeAll(module, PtxAnalyzer.analyzeModule(module));
  }

  /** {@link #mergeAll(CharSequence)} with the module's summaries already at hand. */
  static List<MergedKernel> mergeAll(CharSequence module, ModuleAccessSummary summary) {
    String text = module.toString();
    String clean = PtxText.blankComments(text);
    List<MergedKernel> all = new ArrayList<>();
    for (KernelAccessSummary k : summary.kernels()) all.add(merge(text, clean, summary, k.name()));
    return all;
  }

  /** The merged variant of {@code kernel} in {@code module}, or why there is none. */
  public static MergedKernel merge(CharSequence module, String kernel) {
    Objects.requireNonNull(kernel, "kernel");
    String text = module.toString();
    return merge(text, PtxText.blankComments(text), PtxAnalyzer.analyzeModule(text), kernel);
  }

  private static MergedKernel merge(String text, String clean, ModuleAccessSummary summary, String kernel) {
    PtxText.FunctionSpan span = PtxText.find(clean, kernel, true);
    if (span == null) return MergedKernel.refused(kernel, "no such kernel defined in the module");
    String mergedName = kernel + MergedKernel.SUFFIX;
    if (PtxText.word(mergedName).matcher(clean).find()) {
      return MergedKernel.refused(kernel, "the module already has " + mergedName);
    }
    try {
      List<Param> params = params(span.params(clean));
      checkDirectives(span.directives(clean));
      checkModuleVariables(summary, kernel);
      String body = span.body(clean);
      checkFunction(clean, body, true, new HashSet<>());
      int alignment = 1;
      int[] offsets = new int[params.size()];
      int[] sizes = new int[params.size()];
      for (Param p : params) {
        alignment = Math.max(alignment, p.align);
        offsets[p.index] = p.offset;
        sizes[p.index] = p.size;
      }
      if (alignment > 256) throw new Refusal("parameter alignment above 256");
      MergedLaunchTable table = new MergedLaunchTable(offsets, sizes, alignment);
      String entry = entry(mergedName, span.directives(clean), rewriteBody(body, params, table, mergedName));
      String moduleText = text.substring(0, span.bodyEnd() + 1) + "\n\n" + entry + text.substring(span.bodyEnd() + 1);
      return MergedKernel.merged(kernel, entry, moduleText, table);
    } catch (Refusal r) {
      return MergedKernel.refused(kernel, r.getMessage());
    }
  }

  /** Why a kernel is not merged; thrown where the check finds it. */
  private static final class Refusal extends Exception {
    Refusal(String reason) {
      super(reason, null, false, false);
    }
  }

  private record Param(String name, int index, int offset, int size, int align) {}

  /** The entry's parameters laid out as in the launch's parameter buffer (each at its alignment). */
  private static List<Param> params(String declared) throws Refusal {
    List<Param> params = new ArrayList<>();
    if (declared.isBlank()) return params;
    int offset = 0;
    for (String decl : PtxSyntax.splitTopLevel(declared, ',')) {
      String[] tokens = decl.trim().split("\\s+");
      int i = params.size();
      if (tokens.length < 3 || !tokens[0].equals(".param")) throw new Refusal("parameter " + i + " not understood");
      int align = 0;
      int typeBytes = 0;
      for (int t = 1; t < tokens.length - 1; t++) {
        if (tokens[t].equals(".ptr")) break; // what follows describes the memory pointed to
        if (tokens[t].equals(".align") && t + 1 < tokens.length - 1) align = parseAlignment(tokens[++t], i);
        else if (PtxSyntax.typeBytes(tokens[t]) > 0) typeBytes = PtxSyntax.typeBytes(tokens[t]);
        if (tokens[t].endsWith("ref")) throw new Refusal("texture or surface reference parameter");
      }
      String last = tokens[tokens.length - 1];
      int count = 1;
      Matcher array = Pattern.compile("([\\w$]+)\\[(\\d+)]").matcher(last);
      if (array.matches()) {
        last = array.group(1);
        count = Integer.parseInt(array.group(2));
      } else if (!last.matches("[A-Za-z_$][\\w$]*")) {
        throw new Refusal("parameter " + i + " not understood");
      }
      if (typeBytes == 0 || count == 0) throw new Refusal("parameter " + i + " of a type not understood");
      if (align == 0) align = typeBytes;
      offset = MergedLaunchTable.roundUp(offset, align);
      params.add(new Param(last, i, offset, typeBytes * count, align));
      offset += typeBytes * count;
    }
    return params;
  }

  private static int parseAlignment(String token, int param) throws Refusal {
    try {
      int align = Integer.parseInt(token);
      if (align > 0 && Integer.bitCount(align) == 1) return align;
    } catch (NumberFormatException e) {
      // refused below
    }
    throw new Refusal("parameter " + param + " alignment not understood");
  }

  private static void checkDirectives(String directives) throws Refusal {
    Matcher m = DIRECTIVE.matcher(directives.replaceAll("\"[^\"]*\"", ""));
    while (m.find()) {
      if (m.group().contains("cluster")) throw new Refusal("cluster launch (" + m.group() + ")");
      if (!ALLOWED_DIRECTIVES.contains(m.group())) throw new Refusal("entry directive " + m.group());
    }
  }

  private static void checkModuleVariables(ModuleAccessSummary summary, String kernel) throws Refusal {
    KernelAccessSummary s = summary.kernel(kernel).orElseThrow(() -> new Refusal("kernel not analysed"));
    for (var v : s.moduleVariables().entrySet()) {
      if (v.getValue().writes()) throw new Refusal("writes module variable " + v.getKey());
    }
    if (s.anyModuleVariable().writes()) throw new Refusal("writes module variables");
    // k launches print their lines launch after launch; one merged launch would interleave them.
    if (s.prints()) throw new Refusal("prints (device printf or assert)");
  }

  /**
   * Refuses what merging cannot keep in the body of the kernel ({@code entry}) or of a function it
   * calls, following calls into the module's functions; {@code visited} holds those seen.
   */
  private static void checkFunction(String clean, String body, boolean entry, Set<String> visited) throws Refusal {
    for (var f : FORBIDDEN.entrySet()) {
      if (f.getKey().matcher(body).find()) throw new Refusal(f.getValue());
    }
    Set<String> declared = new HashSet<>();
    Set<String> declaredPrefixes = new HashSet<>();
    Matcher decl = REG_DECLARATION.matcher(body);
    while (decl.find()) {
      Matcher name = DECLARED_NAME.matcher(decl.group(1));
      while (name.find()) {
        if (name.group(1).startsWith("%" + OWN)) throw new Refusal("register names of the merged variant in use");
        (name.group(2) == null ? declared : declaredPrefixes).add(name.group(1));
      }
    }
    Matcher reg = REGISTER.matcher(REG_DECLARATION.matcher(body).replaceAll(""));
    while (reg.find()) {
      String token = reg.group();
      String base = reg.group(1) == null ? token : token.substring(0, token.length() - reg.group(1).length());
      String prefix = base.replaceFirst("\\d+$", "");
      // %r<8> declares %r0..%r7 only: a special register never passes for one of a range.
      if (declared.contains(base) || (!prefix.equals(base) && declaredPrefixes.contains(prefix))) continue;
      if (base.equals("%ctaid") || base.equals("%nctaid")) {
        if (!entry) throw new Refusal("calls a function that reads " + base);
        if (reg.group(1) == null || !reg.group(1).matches("\\.[xyz]")) throw new Refusal("reads " + token);
        continue;
      }
      if (base.startsWith("%envreg")) throw new Refusal("cooperative launch (reads " + base + ")");
      if (!KEPT_SPECIALS.contains(base)) throw new Refusal("reads " + base);
    }
    Matcher call = CALL.matcher(body);
    while (call.find()) {
      String callee = call.group(1);
      if (callee.startsWith("%")) throw new Refusal("indirect call");
      PtxText.FunctionSpan f = PtxText.find(clean, callee, false);
      if (f == null) {
        if (!ALLOWED_EXTERNAL.contains(callee)) throw new Refusal(externalCall(callee));
      } else if (visited.add(callee)) {
        checkFunction(clean, f.body(clean), false, visited);
      }
    }
  }

  private static String externalCall(String callee) {
    if (callee.contains("LaunchDevice") || callee.contains("GetParameterBuffer") || callee.startsWith("__cudaCDP")) {
      return "dynamic parallelism (calls " + callee + ")";
    }
    if (callee.startsWith("cudaCG")) return "grid-wide synchronization (calls " + callee + ")";
    // One launch holds every instance's allocations at once: malloc may fail where k launches' would not.
    if (callee.equals("malloc") || callee.equals("free")) return "device heap (calls " + callee + ")";
    return "calls external " + callee;
  }

  /** The body with parameter loads, grid registers and labels rewritten, and the prologue added. */
  private static String rewriteBody(String body, List<Param> params, MergedLaunchTable table, String mergedName)
      throws Refusal {
    String rewritten = body;
    for (Param p : params) rewritten = rewriteParamLoads(rewritten, p, table);
    for (String axis : new String[] {"x", "y", "z"}) {
      rewritten = rewritten.replace("%nctaid." + axis, "%" + OWN + "nctaid_" + axis)
          .replace("%ctaid." + axis, "%" + OWN + "ctaid_" + axis);
    }
    Set<String> labels = new LinkedHashSet<>();
    Matcher label = LABEL.matcher(rewritten);
    while (label.find()) labels.add(label.group(1));
    for (String l : labels) {
      rewritten = PtxText.word(l).matcher(rewritten).replaceAll(Matcher.quoteReplacement(l + OWN));
    }
    int at = 0;
    for (Matcher d = LEADING_DECLARATION.matcher(rewritten); d.find(at) && d.start() == at; ) at = d.end();
    return rewritten.substring(0, at) + "\n" + prologue(table, mergedName) + rewritten.substring(at);
  }

  /** Each {@code ld.param [P+k]} of parameter {@code p} becomes a load of the row's bytes. */
  private static String rewriteParamLoads(String body, Param p, MergedLaunchTable table) throws Refusal {
    Pattern load = Pattern.compile("(?<![\\w$.])ld\\.param(?:::entry)?((?:\\.[\\w]+)*)(\\s[^;\\[]*\\[)\\s*"
        + Pattern.quote(p.name) + "\\s*(?:\\+\\s*(\\d\\w*))?\\s*]");
    Matcher m = load.matcher(body);
    StringBuilder out = new StringBuilder(body.length());
    int loads = 0;
    while (m.find()) {
      int lanes = 1;
      int bytes = 0;
      for (String mod : m.group(1).substring(m.group(1).isEmpty() ? 0 : 1).split("\\.")) {
        if (mod.matches("v[248]")) lanes = mod.charAt(1) - '0';
        else if (PtxSyntax.typeBytes("." + mod) > 0 && bytes == 0) bytes = PtxSyntax.typeBytes("." + mod);
        else throw new Refusal("parameter " + p.index + " loaded in a form not understood");
      }
      // PTX's integers: 010 is octal, 0x10 hexadecimal.
      Long at = m.group(3) == null ? Long.valueOf(0) : PtxSyntax.integer(m.group(3));
      if (bytes == 0 || at == null || at < 0 || at + (long) lanes * bytes > p.size) {
        throw new Refusal("parameter " + p.index + " loaded outside its bytes");
      }
      long rowOffset = table.parametersOffset() + p.offset + at;
      m.appendReplacement(out, Matcher.quoteReplacement(
          "ld.global" + m.group(1) + m.group(2) + "%" + OWN + "row+" + rowOffset + "]"));
      loads++;
    }
    m.appendTail(out);
    int uses = 0;
    for (Matcher w = PtxText.word(p.name).matcher(body); w.find(); ) uses++;
    if (uses != loads) throw new Refusal("parameter " + p.index + " used other than by ld.param (address taken)");
    return out.toString();
  }

  private static String prologue(MergedLaunchTable table, String mergedName) {
    int row = table.rowBytes();
    String r = "%" + OWN;
    return String.join("\n",
        "\t.reg .b64 " + r + "table, " + r + "row, " + r + "offset;",
        "\t.reg .b32 " + r + "count, " + r + "block, " + r + "i, " + r + "next, " + r + "first, " + r + "local, "
            + r + "plane;",
        "\t.reg .b32 " + r + "ctaid_x, " + r + "ctaid_y, " + r + "ctaid_z, " + r + "nctaid_x, " + r + "nctaid_y, "
            + r + "nctaid_z;",
        "\t.reg .pred " + r + "p;",
        "\tld.param.u64 " + r + "table, [" + mergedName + "_param_0];",
        "\tld.param.u32 " + r + "count, [" + mergedName + "_param_1];",
        "\tcvta.to.global.u64 " + r + "table, " + r + "table;",
        "\tmov.u32 " + r + "block, %ctaid.x;",
        "\tmov.u32 " + r + "i, 0;",
        // The instance: the last row whose first block is at or before this block.
        "$" + OWN + "search:",
        "\tadd.u32 " + r + "next, " + r + "i, 1;",
        "\tsetp.ge.u32 " + r + "p, " + r + "next, " + r + "count;",
        "\t@" + r + "p bra $" + OWN + "found;",
        "\tmul.wide.u32 " + r + "offset, " + r + "next, " + row + ";",
        "\tadd.s64 " + r + "row, " + r + "table, " + r + "offset;",
        "\tld.global.u32 " + r + "first, [" + r + "row+" + MergedLaunchTable.FIRST_BLOCK + "];",
        "\tsetp.lt.u32 " + r + "p, " + r + "block, " + r + "first;",
        "\t@" + r + "p bra $" + OWN + "found;",
        "\tmov.u32 " + r + "i, " + r + "next;",
        "\tbra $" + OWN + "search;",
        "$" + OWN + "found:",
        "\tmul.wide.u32 " + r + "offset, " + r + "i, " + row + ";",
        "\tadd.s64 " + r + "row, " + r + "table, " + r + "offset;",
        "\tld.global.u32 " + r + "first, [" + r + "row+" + MergedLaunchTable.FIRST_BLOCK + "];",
        "\tld.global.u32 " + r + "nctaid_x, [" + r + "row+" + MergedLaunchTable.GRID_X + "];",
        "\tld.global.u32 " + r + "nctaid_y, [" + r + "row+" + MergedLaunchTable.GRID_Y + "];",
        "\tld.global.u32 " + r + "nctaid_z, [" + r + "row+" + MergedLaunchTable.GRID_Z + "];",
        // The block within the instance, unfolded x fastest, as CUDA numbers a grid's blocks.
        "\tsub.u32 " + r + "local, " + r + "block, " + r + "first;",
        "\tmul.lo.u32 " + r + "plane, " + r + "nctaid_x, " + r + "nctaid_y;",
        "\tdiv.u32 " + r + "ctaid_z, " + r + "local, " + r + "plane;",
        // A block past the last instance's (a launch larger than the table says) does nothing.
        "\tsetp.ge.u32 " + r + "p, " + r + "ctaid_z, " + r + "nctaid_z;",
        "\t@" + r + "p ret;",
        "\trem.u32 " + r + "local, " + r + "local, " + r + "plane;",
        "\tdiv.u32 " + r + "ctaid_y, " + r + "local, " + r + "nctaid_x;",
        "\trem.u32 " + r + "ctaid_x, " + r + "local, " + r + "nctaid_x;",
        "");
  }

  private static String entry(String mergedName, String directives, String body) {
    return ".visible .entry " + mergedName + "(\n"
        + "\t.param .u64 " + mergedName + "_param_0,\n"
        + "\t.param .u32 " + mergedName + "_param_1\n"
        + ")" + directives + "{" + body + "}\n";
  }
}
