package dev.kernelweave.ptx;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;

/**
 * A 32-bit loop counter proven to stay within {@code [0, 2^31)} wherever its value is used, under
 * a condition on the launch: the counter of a grid-stride loop, {@code for (int i = blockIdx.x *
 * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)}, which {@link ForwardIndexing}'s
 * flow-insensitive values alone cannot bound (each pass adds the stride). Immutable.
 *
 * <p>The shape, checked on the entry's instructions: register {@code r} has one definition {@code
 * D0} and one or more increments {@code D1}, none guarded by a predicate: {@code D0} giving a
 * non-negative value of at most {@code k0 + c0*G}, and each {@code D1: add.s32 r, r', s} with
 * {@code s} non-negative, at most {@code ks + cs*G} ({@code ks}, {@code cs}: the largest over the
 * increments), where {@code r'} is {@code r} or a copy of it: a register whose one definition, {@code
 * cvt.u32.u64 r', x}, narrows a register {@code x} whose one definition, {@code cvt.s64.s32 x, r},
 * widens {@code r} (nvcc's round trip when it keeps the counter in 64 bits across an inner loop); the
 * low 32 bits of the widened value are the value {@code r} held where {@code x} read it, a use of
 * {@code r} like any other. Right after each {@code D1}, with no label between, {@code setp} compares
 * {@code r} with a register {@code q} whose one definition loads 4-byte parameter {@code j} ({@code r
 * < q} or {@code r <= q}, either way round), and a branch on that predicate follows. From the
 * branch's failing edge, no instruction that mentions {@code r} can be reached before {@code D0}
 * defines it again (the loop's exit does not use the counter); no indirect branch or call is in the
 * entry.
 *
 * <p>Why it holds, with {@code P} the launch's value of parameter {@code j} (signed: at least 0;
 * unsigned compare: as unsigned), {@code K = max(k0, 0) + ks}, {@code C = c0 + cs}, under the
 * condition {@code P + K + C*G <= 2^31 - 1}: every value {@code r} takes is either {@code D0}'s, in
 * {@code [0, k0 + c0*G]}, or {@code D1}'s from an earlier value {@code v}. Values that are used
 * outside the compare are {@code D0}'s or {@code D1}'s that passed the compare, at most {@code P}
 * (the failing ones reach no use). So {@code v <= P + max(k0, 0) + c0*G} and {@code v + s <= P + K +
 * C*G <= 2^31 - 1}: the 32-bit add never wraps, every value is exact and non-negative, and a sign
 * extension of it is too. Moreover, as {@code G >= 1}, a value used outside the compare is at most
 * {@code 2^31 - 1 - (ks + cs)}: one that passed is at most {@code P <= 2^31 - 1 - K - C*G}, and
 * {@code D0}'s is at most {@code max(k0, 0) + c0*G <= 2^31 - 1 - P - ks - cs*G}. The counter then
 * holds, wherever it is used other than by its compare (whose predicate carries no value), a value in
 * {@code [0, 2^31 - 1 - (ks + cs)]}; so {@code i + 1} of a grid-stride loop's {@code i}, whose step
 * is {@code G}, still fits. At its compare the counter may exceed that bound, but it is non-negative
 * there too: {@link ForwardIndexing}'s wrap-around rule, which reads the compare as a guard of
 * {@code q}, relies on no more.
 */
final class GuardedInduction {

  /** Marks a conditional limit (negative); see {@link #encode}. */
  private static final long CONDITIONAL = Long.MIN_VALUE;
  private static final long K_OFFSET = 1L << 38;

  final String register;
  final int parameter;
  final boolean signed;
  final long k;
  final long c;
  /** The launch limit on {@code G} that the counter's parts already need. */
  final long limit;
  final long taint;
  /**
   * {@code ks + cs}: the counter, wherever it is used other than by its compare, is at most {@code
   * 2^31 - 1 - margin}.
   */
  final long margin;

  private GuardedInduction(String register, int parameter, boolean signed, long k, long c, long limit, long taint,
      long margin) {
    this.register = register;
    this.parameter = parameter;
    this.signed = signed;
    this.k = k;
    this.c = c;
    this.limit = limit;
    this.taint = taint;
    this.margin = margin;
  }

  /**
   * The proof of a parameter that needs this condition, whose own limit on {@code G} is {@code
   * gLimit}, as one long: negative, the parameter in bits 48-55, unsigned in bit 47, {@code C} in bits
   * 40-46, {@code K} offset by 2^38 in bits 0-39. {@link ForwardIndexing#NOT_PROVEN} where it does not
   * fit, or where {@code gLimit} is stricter than the condition with {@code P = 0} already is.
   */
  long encode(long gLimit) {
    if (parameter > 0xFF || c < 0 || c > 0x7F || k < -K_OFFSET || k > ForwardIndexing.S32_MAX) {
      return ForwardIndexing.NOT_PROVEN;
    }
    long implied = c == 0 ? ForwardIndexing.ALWAYS : (ForwardIndexing.S32_MAX - k) / c;
    if (gLimit < implied || implied < 1) {
      return ForwardIndexing.NOT_PROVEN;
    }
    return CONDITIONAL | ((long) parameter << 48) | (signed ? 0 : 1L << 47) | (c << 40) | (k + K_OFFSET);
  }

  static boolean unsigned(long encoded) {
    return (encoded & (1L << 47)) != 0;
  }

  static long c(long encoded) {
    return (encoded >>> 40) & 0x7F;
  }

  static long k(long encoded) {
    return (encoded & ((1L << 40) - 1)) - K_OFFSET;
  }

  /** Per register, the indices of the instructions that may write it (their first operand names it). */
  static Map<String, List<Integer>> definitions(List<String[]> insns) {
    Map<String, List<Integer>> defs = new HashMap<>();
    for (int i = 0; i < insns.size(); i++) {
      String[] in = insns.get(i);
      if (in.length > 1 && !in[1].trim().startsWith("[")) {
        Matcher m = ForwardIndexing.REGISTER.matcher(in[1]);
        while (m.find()) defs.computeIfAbsent(m.group(), x -> new ArrayList<>()).add(i);
      }
    }
    return defs;
  }

  /** Every counter of {@code kernel} of the shape above, from its flow-insensitive values. */
  static List<GuardedInduction> find(ForwardIndexing.KernelAnalysis kernel) {
    List<GuardedInduction> out = new ArrayList<>();
    List<String[]> insns = kernel.insns;
    for (String[] in : insns) {
      if (in[0].startsWith("brx") || in[0].startsWith("call")) {
        return out; // control the instructions do not show
      }
    }
    Map<String, List<Integer>> defs = definitions(insns);
    for (Map.Entry<String, List<Integer>> e : defs.entrySet()) {
      GuardedInduction g = of(kernel, defs, e.getKey(), e.getValue());
      if (g != null) out.add(g);
    }
    return out;
  }

  /** The counter {@code r} when its definitions are one start and increments each guarded as above. */
  private static GuardedInduction of(ForwardIndexing.KernelAnalysis kernel, Map<String, List<Integer>> defs, String r,
      List<Integer> rDefs) {
    if (!r.matches("%[A-Za-z_$][\\w$]*") || rDefs.size() < 2) return null;
    int d0 = -1;
    List<Integer> increments = new ArrayList<>();
    for (int d : rDefs) {
      if (kernel.guards.get(d) != null) return null;
      if (step(kernel, defs, kernel.insns.get(d), r) != null) increments.add(d);
      else if (d0 < 0) d0 = d;
      else return null;
    }
    if (d0 < 0 || increments.isEmpty() || !kernel.insns.get(d0)[1].trim().equals(r)) return null;
    ForwardIndexing.V init = kernel.given[d0];
    if (init == null || init.kind() != ForwardIndexing.V.NN || init.k() < -1 || init.c() < 0) return null;
    int parameter = -1;
    Boolean signed = null;
    long ks = 0;
    long cs = 0;
    long limit = init.limit();
    long taint = init.taint();
    for (int d1 : increments) {
      Guard g = guard(kernel, defs, r, d1, d0);
      if (g == null || parameter >= 0 && (g.parameter != parameter || g.signed != signed)) return null;
      parameter = g.parameter;
      signed = g.signed;
      String step = step(kernel, defs, kernel.insns.get(d1), r);
      ForwardIndexing.V s = step.startsWith("%") ? kernel.regs.get(step) : kernel.immediateValue(step);
      if (s == null || s.kind() != ForwardIndexing.V.NN || s.k() < -1 || s.c() < 0) return null;
      ks = Math.max(ks, s.k());
      cs = Math.max(cs, s.c());
      limit = Math.min(limit, s.limit());
      taint |= s.taint();
    }
    return new GuardedInduction(r, parameter, signed, Math.max(init.k(), 0) + ks, init.c() + cs, limit, taint,
        Math.min(Math.min(ks, ForwardIndexing.S32_MAX) + Math.min(cs, ForwardIndexing.S32_MAX),
            ForwardIndexing.S32_MAX));
  }

  /**
   * {@code s} of {@code add.s32 r, r, s} (or {@code r, s, r}), where the operand {@code r} may also
   * be a {@link #copyOf copy} of {@code r}; null for any other instruction.
   */
  private static String step(ForwardIndexing.KernelAnalysis kernel, Map<String, List<Integer>> defs, String[] in, String r) {
    if (!(in[0].equals("add.s32") || in[0].equals("add.u32")) || in.length != 4 || !in[1].trim().equals(r)) {
      return null;
    }
    String a = in[2].trim();
    String b = in[3].trim();
    boolean aIsR = a.equals(r) || copyOf(kernel, defs, a, r);
    boolean bIsR = b.equals(r) || copyOf(kernel, defs, b, r);
    if (aIsR == bIsR) return null;
    return aIsR ? b : a;
  }

  /**
   * Whether register {@code t} holds a value {@code r} held when it was read: {@code t}'s one
   * definition, unguarded, is {@code cvt.u32.u64 t, x} (or {@code .s32}/{@code .s64}, without
   * rounding or saturation), and {@code x}'s one definition, unguarded, is {@code cvt.s64.s32 x, r}
   * (or {@code .u64}/{@code .u32}): the low 32 bits of a widened 32-bit value are that value. The
   * read of {@code r} is a use of it like any other, so the value is one that {@code r} holds where
   * it is used (see the class); nvcc makes this round trip when a loop counter is kept in 64 bits
   * across an inner loop.
   */
  private static boolean copyOf(ForwardIndexing.KernelAnalysis kernel, Map<String, List<Integer>> defs, String t, String r) {
    String[] narrow = onlyDefinition(kernel, defs, t);
    if (narrow == null || !narrow[0].matches("cvt\\.[us]32\\.[us]64") || narrow.length != 3) return false;
    String x = narrow[2].trim();
    String[] widen = onlyDefinition(kernel, defs, x);
    return widen != null && widen[0].matches("cvt\\.[us]64\\.[us]32") && widen.length == 3 && widen[2].trim().equals(r);
  }

  /** The one unguarded instruction that defines register {@code t} (its only destination); null otherwise. */
  private static String[] onlyDefinition(ForwardIndexing.KernelAnalysis kernel, Map<String, List<Integer>> defs, String t) {
    if (!t.matches("%[A-Za-z_$][\\w$]*")) return null;
    List<Integer> tDefs = defs.get(t);
    if (tDefs == null || tDefs.size() != 1 || kernel.guards.get(tDefs.get(0)) != null) return null;
    String[] in = kernel.insns.get(tDefs.get(0));
    return in.length > 1 && in[1].trim().equals(t) ? in : null;
  }

  /** The parameter an increment's compare reads. */
  private record Guard(int parameter, boolean signed) {}

  /**
   * The compare and branch right after increment {@code d1} of {@code r}: {@code r} against a 4-byte
   * parameter, the failing edge reaching no mention of {@code r} before {@code d0}; null otherwise.
   */
  private static Guard guard(ForwardIndexing.KernelAnalysis kernel, Map<String, List<Integer>> defs, String r, int d1, int d0) {
    List<String[]> insns = kernel.insns;
    if (d1 + 2 >= insns.size() || kernel.labels.containsValue(d1 + 1) || kernel.labels.containsValue(d1 + 2)) {
      return null;
    }
    String[] cmp = insns.get(d1 + 1);
    String[] br = insns.get(d1 + 2);
    String[] op = cmp[0].split("\\.");
    if (cmp.length != 4 || op.length != 3 || !op[0].equals("setp") || kernel.guards.get(d1 + 1) != null
        || !(op[2].equals("s32") || op[2].equals("u32"))) return null;
    String pred = cmp[1].trim();
    String a = cmp[2].trim();
    String b = cmp[3].trim();
    boolean rFirst = a.equals(r) && !b.equals(r);
    if (!rFirst && !(b.equals(r) && !a.equals(r))) return null;
    String q = rFirst ? b : a;
    String rel = op[1];
    boolean below = rFirst ? rel.equals("lt") || rel.equals("le") : rel.equals("gt") || rel.equals("ge");
    boolean above = rFirst ? rel.equals("ge") || rel.equals("gt") : rel.equals("le") || rel.equals("lt");
    if (!below && !above) return null;
    String guard = kernel.guards.get(d1 + 2);
    if (!(br[0].equals("bra") || br[0].equals("bra.uni")) || br.length != 2 || guard == null) return null;
    boolean negated = guard.startsWith("@!");
    if (!guard.substring(negated ? 2 : 1).equals(pred) || pred.contains("|")) return null;
    Integer target = kernel.labels.get(br[1].trim());
    if (target == null) return null;
    // The taken edge is where r is below q when the predicate says so and the branch is not negated.
    boolean passOnTaken = below != negated;
    int failing = passOnTaken ? d1 + 3 : target;
    List<Integer> qDefs = defs.get(q);
    if (qDefs == null || qDefs.size() != 1 || kernel.guards.get(qDefs.get(0)) != null) return null;
    String[] load = insns.get(qDefs.get(0));
    Matcher at = ForwardIndexing.ADDRESS.matcher(load.length == 3 ? load[2].trim() : "");
    if (!load[0].matches("ld\\.param\\.[usb]32") || !load[1].trim().equals(q) || !at.matches() || at.group(2) != null) {
      return null;
    }
    int j = kernel.params.indexOf(at.group(1));
    if (j < 0 || kernel.sizes.get(j) != 4 || mentionedFrom(kernel, failing, r, d0)) return null;
    return new Guard(j, op[2].equals("s32"));
  }

  /** Whether an instruction mentioning {@code r} is reachable from {@code start} before {@code d0}. */
  private static boolean mentionedFrom(ForwardIndexing.KernelAnalysis kernel, int start, String r, int d0) {
    List<String[]> insns = kernel.insns;
    boolean[] seen = new boolean[insns.size() + 1];
    Deque<Integer> todo = new ArrayDeque<>();
    todo.push(start);
    while (!todo.isEmpty()) {
      int i = todo.pop();
      if (i >= insns.size() || seen[i]) continue;
      seen[i] = true;
      if (i == d0) continue; // r is given its first value again
      String[] in = insns.get(i);
      for (int o = 1; o < in.length; o++) {
        Matcher m = ForwardIndexing.REGISTER.matcher(in[o]);
        while (m.find()) if (m.group().equals(r)) return true;
      }
      boolean guarded = kernel.guards.get(i) != null;
      if (in[0].equals("bra") || in[0].startsWith("bra.")) {
        Integer target = in.length == 2 ? kernel.labels.get(in[1].trim()) : null;
        if (target == null) return true; // a target it cannot follow
        todo.push(target);
        if (guarded) todo.push(i + 1);
      } else if (in[0].equals("ret") || in[0].equals("exit") || in[0].startsWith("trap")) {
        if (guarded) todo.push(i + 1);
      } else {
        todo.push(i + 1);
      }
    }
    return false;
  }
}
