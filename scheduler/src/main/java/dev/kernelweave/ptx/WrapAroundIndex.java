package dev.kernelweave.ptx;

import static dev.kernelweave.ptx.ForwardIndexing.ALWAYS;
import static dev.kernelweave.ptx.ForwardIndexing.INTEGER;
import static dev.kernelweave.ptx.ForwardIndexing.REGISTER;
import static dev.kernelweave.ptx.ForwardIndexing.S32_MAX;

import dev.kernelweave.ptx.ForwardIndexing.KernelAnalysis;
import dev.kernelweave.ptx.ForwardIndexing.V;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;

/**
 * The wrap-around index of a periodic stencil, {@code i == 0 ? n - 1 : i - 1}, proven non-negative
 * for one {@link KernelAnalysis} (the rule and why it holds: {@link ForwardIndexing}'s class
 * comment). Kept apart because it is the analysis's one flow-sensitive part: it follows the entry's
 * branches, which it computes once. Not thread-safe; one per analysis.
 */
final class WrapAroundIndex {
  private final KernelAnalysis analysis;

  WrapAroundIndex(KernelAnalysis analysis) {
    this.analysis = analysis;
  }

  /** {@link #less1}'s answer where the rule does not apply (compared by identity). */
  static final V UNPROVEN = new V(V.TOP, 0, 0, -1, 0, 0, 0);

  /**
   * The value of {@code s - 1} where register {@code s} is a wrap-around index that is at least 1
   * (see the class): {@code s}'s one definition, unguarded, is {@code selp.b32 s, a, b, p} (or
   * {@code .s32}, {@code .u32}), where {@code p}'s last definition before it, in the same
   * straight-line block (no label between, none at the {@code selp}), is an unguarded {@code
   * setp.eq} (or {@code .ne}) {@code .s32}/{@code .u32}/{@code .b32 p, x, 0} (or {@code 0, x}); no
   * instruction between them defines {@code x}; the arm the {@code selp} takes where {@code x != 0} is
   * {@code x} itself, and {@code x} is a non-negative value below 2^31 (its sign-extension is
   * non-negative); the arm it takes where {@code x == 0} is an immediate in {@code [1, 2^31 - 1]}, or
   * a register {@code n} that {@link #atLeastOneAt} proves at least 1 where the {@code selp} runs.
   * {@link #UNPROVEN} where the rule does not apply; null where a value it reads has none yet.
   */
  V less1(String s) {
    if (!KernelAnalysis.isReg(s) || KernelAnalysis.special(s) != null) return UNPROVEN;
    List<Integer> sDefs = definitions().get(s);
    if (sDefs == null || sDefs.size() != 1) return UNPROVEN;
    int k = sDefs.get(0);
    String[] sel = analysis.insns.get(k);
    if (analysis.guards.get(k) != null || sel.length != 5 || !sel[0].matches("selp\\.[bsu]32") || !sel[1].trim().equals(s)) {
      return UNPROVEN;
    }
    String p = sel[4].trim();
    if (!KernelAnalysis.isReg(p) || p.contains("|")) return UNPROVEN;
    int j = k - 1;
    for (; ; j--) {
      if (j < 0 || analysis.labels.containsValue(j + 1)) return UNPROVEN; // k is reached some other way too
      if (defines(j, p)) break;
    }
    String[] cmp = analysis.insns.get(j);
    String[] op = cmp[0].split("\\.");
    if (analysis.guards.get(j) != null || cmp.length != 4 || op.length != 3 || !cmp[1].trim().equals(p)
        || !(op[1].equals("eq") || op[1].equals("ne")) || !op[2].matches("[bsu]32")) {
      return UNPROVEN;
    }
    String a = cmp[2].trim(), b = cmp[3].trim();
    String x = isZero(b) && KernelAnalysis.isReg(a) ? a : isZero(a) && KernelAnalysis.isReg(b) ? b : null;
    if (x == null || KernelAnalysis.special(x) != null) return UNPROVEN;
    for (int m = j + 1; m < k; m++) if (defines(m, x)) return UNPROVEN;
    boolean eq = op[1].equals("eq"); // p: x == 0 (eq), x != 0 (ne)
    String nonZeroArm = (eq ? sel[3] : sel[2]).trim();
    String zeroArm = (eq ? sel[2] : sel[3]).trim();
    if (!nonZeroArm.equals(x)) return UNPROVEN;
    V xv = analysis.value(x);
    if (xv == null) return null;
    V wide = KernelAnalysis.extend(xv, true); // x as a signed 32-bit value: non-negative, its bound at most 2^31 - 1
    if (wide.kind() != V.NN || wide.c() != 0 || wide.k() > S32_MAX) return UNPROVEN;
    long zeroMax;
    V need; // the launch limit and conditions the zero arm's proof needs
    long zeroTaint;
    long imm = KernelAnalysis.isReg(zeroArm) ? -1 : KernelAnalysis.immediate(zeroArm);
    if (imm >= 1 && imm <= S32_MAX) {
      zeroMax = imm;
      need = V.nn(0, 0, ALWAYS, 0, 0);
      zeroTaint = 0;
    } else if (KernelAnalysis.isReg(zeroArm) && KernelAnalysis.special(zeroArm) == null) {
      V zv = analysis.value(zeroArm);
      if (zv == null) return null;
      need = atLeastOneAt(k, zeroArm);
      if (need == null) return null;
      if (need == UNPROVEN) return UNPROVEN;
      zeroMax = S32_MAX; // a signed 32-bit value
      zeroTaint = zv.taint();
    } else {
      return UNPROVEN;
    }
    return V.nn(Math.max(wide.k(), zeroMax) - 1, 0, Math.min(wide.limit(), need.limit()), xv.taint() | zeroTaint, 0)
        .needing(xv.cond() | need.cond());
  }

  private static boolean isZero(String operand) {
    return INTEGER.matcher(operand).matches() && KernelAnalysis.immediate(operand) == 0;
  }

  /**
   * Whether register {@code n} holds a signed 32-bit value of at least 1 whenever instruction {@code
   * at} runs: on every path from the entry to {@code at}, control passed a guard edge for {@code n}
   * and no instruction defined {@code n} since. A guard edge is an edge of a predicated {@code bra}
   * (no label at it) right after an unguarded {@code setp.lt.s32 q, x, n} (or {@code gt n, x}; or
   * {@code ge x, n} / {@code le n, x} on the edge where the predicate is false) on which {@code x <
   * n} holds, {@code x} being a value proven non-negative below 2^31 wherever it is read: there
   * {@code n > x >= 0} as signed values. A "must" data flow over the entry's instructions (each
   * instruction's successors: the next one, a {@code bra}'s target; none after {@code ret}, {@code
   * exit}, {@code trap} unless predicated), every fact starting true but the entry's and falling to
   * its greatest fixpoint. Returns the launch limit and conditions of the guards' {@code x}, {@link
   * #UNPROVEN} where it does not hold (or an indirect branch, a call or a branch to an unknown label is
   * in the entry), null where an {@code x} has no value yet.
   */
  V atLeastOneAt(int at, String n) {
    int[][] succ = successors();
    if (succ == null) return UNPROVEN;
    int size = analysis.insns.size();
    // Per instruction i, the successor it reaches through a guard edge (-1: none); a branch to its
    // own next instruction reaches it both ways and so has none.
    int[] genTo = new int[size];
    Arrays.fill(genTo, -1);
    long limit = ALWAYS, cond = 0;
    for (int i = 1; i < size; i++) {
      String[] br = analysis.insns.get(i);
      String guard = analysis.guards.get(i);
      if (guard == null || !(br[0].equals("bra") || br[0].equals("bra.uni")) || br.length != 2
          || analysis.labels.containsValue(i)) continue;
      Integer target = analysis.labels.get(br[1].trim());
      if (target == null || target == i + 1) continue;
      String[] cmp = analysis.insns.get(i - 1);
      String[] op = cmp[0].split("\\.");
      boolean negated = guard.startsWith("@!");
      if (analysis.guards.get(i - 1) != null || cmp.length != 4 || op.length != 3 || !op[0].equals("setp")
          || !op[2].equals("s32") || !cmp[1].trim().equals(guard.substring(negated ? 2 : 1))) continue;
      String a = cmp[2].trim(), b = cmp[3].trim();
      String x;
      boolean whenTrue; // x < n where the predicate is true (else where it is false)
      if (b.equals(n) && (op[1].equals("lt") || op[1].equals("ge"))) {
        x = a;
        whenTrue = op[1].equals("lt");
      } else if (a.equals(n) && (op[1].equals("gt") || op[1].equals("le"))) {
        x = b;
        whenTrue = op[1].equals("gt");
      } else {
        continue;
      }
      if (x.equals(n) || cmp[1].trim().equals(n)) continue;
      long before = analysis.bad;
      V xv = analysis.value(x);
      analysis.bad = before; // a look, not a read: the setp's own step reads it
      if (xv == null) {
        if (analysis.finalPass) continue;
        return null;
      }
      V wide = KernelAnalysis.extend(xv, true);
      if (wide.kind() != V.NN || wide.c() != 0 || wide.k() > S32_MAX) continue;
      limit = Math.min(limit, wide.limit());
      cond |= xv.cond();
      // The taken edge is where the predicate is true, unless the branch is negated.
      genTo[i] = whenTrue != negated ? target : i + 1;
    }
    boolean[] fact = new boolean[size]; // n >= 1 holds before the instruction
    Arrays.fill(fact, true);
    for (boolean again = true; again; ) {
      again = false;
      boolean[] next = new boolean[size];
      Arrays.fill(next, true);
      if (size > 0) next[0] = false; // the entry: nothing known
      for (int i = 0; i < size; i++) {
        boolean out = fact[i] && !defines(i, n);
        for (int t : succ[i]) if (t < size && !(out || genTo[i] == t)) next[t] = false;
      }
      for (int i = 0; i < size; i++) if (next[i] != fact[i]) { fact[i] = next[i]; again = true; }
    }
    return fact[at] ? V.nn(0, 0, limit, 0, 0).needing(cond) : UNPROVEN;
  }

  /** Per instruction, the instructions control may reach next; null if the entry has control it cannot follow. */
  private int[][] successors;
  private boolean successorsDone;
  private Map<String, List<Integer>> definitions;

  int[][] successors() {
    if (successorsDone) return successors;
    successorsDone = true;
    int size = analysis.insns.size();
    int[][] out = new int[size][];
    for (int i = 0; i < size; i++) {
      String[] in = analysis.insns.get(i);
      boolean guarded = analysis.guards.get(i) != null;
      if (in[0].startsWith("brx") || in[0].startsWith("call")) return null;
      if (in[0].equals("bra") || in[0].startsWith("bra.")) {
        Integer target = in.length == 2 ? analysis.labels.get(in[1].trim()) : null;
        if (target == null) return null;
        out[i] = guarded ? new int[] {target, i + 1} : new int[] {target};
      } else if (in[0].equals("ret") || in[0].startsWith("ret.") || in[0].equals("exit") || in[0].startsWith("trap")) {
        out[i] = guarded ? new int[] {i + 1} : new int[0];
      } else {
        out[i] = new int[] {i + 1};
      }
    }
    successors = out;
    return out;
  }

  /** Each register's defining instructions: every register its first operand names (not an address). */
  Map<String, List<Integer>> definitions() {
    if (definitions == null) {
      definitions = GuardedInduction.definitions(analysis.insns);
    }
    return definitions;
  }

  /** Whether instruction {@code i} may write register {@code r} (its first operand names it). */
  boolean defines(int i, String r) {
    String[] in = analysis.insns.get(i);
    if (in.length < 2 || in[1].trim().startsWith("[")) return false;
    Matcher m = REGISTER.matcher(in[1]);
    while (m.find()) if (m.group().equals(r)) return true;
    return false;
  }
}
