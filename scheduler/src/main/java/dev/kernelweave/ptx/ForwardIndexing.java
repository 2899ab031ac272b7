package dev.kernelweave.ptx;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Proves, per pointer parameter of a kernel, that every memory access through it is at {@code
 * param + offset} with {@code offset >= 0}: the kernel never touches memory below the pointer it is
 * given, so a pointer one past the end of allocation X that is the base of allocation Y names Y
 * alone. Stateless.
 *
 * <p>The result per parameter is a limit on {@code G = gridDim.x * blockDim.x} of the launch:
 * {@link #NOT_PROVEN} (0), {@link #ALWAYS}, or {@code L}: the proof holds for a launch with {@code G
 * <= L}; or, where the index is a grid-stride loop's counter ({@link GuardedInduction}), a
 * conditional limit ({@link #isConditional}): the proof holds for a launch whose parameter value
 * {@code P} meets {@code P + K + C*G <= 2^31 - 1} ({@link #holds}). It is conditional because nvcc's index {@code blockIdx.x * blockDim.x + threadIdx.x} is a
 * signed 32-bit value, sign-extended before it scales: it is non-negative only when the
 * mathematical value stays below 2^31.
 *
 * <p>Soundness. The analysis reads the entry's text, flow-insensitively: each register holds the
 * join of all its definitions, iterated to a fixpoint (a value still growing after a few passes
 * becomes unknown). A value is one of: a non-negative integer no greater than {@code k + c*G}
 * (leaves: immediates, {@code %tid} {@code <= 1023} (z: 63), {@code %ntid} {@code <= 1024} (z: 64),
 * {@code %ctaid.x <= nctaid.x - 1 <= G - 1}, {@code %ctaid.y/z <= 65534}, {@code %nctaid.x <= G},
 * {@code %nctaid.y/z <= 65535}: CUDA's launch limits; {@code ctaid.x*ntid.x + tid.x <= G - 1}), a
 * parameter plus a non-negative offset no greater than a bound, or unknown. 32-bit {@code add},
 * {@code mul.lo}, {@code mad.lo} and {@code shl} by an immediate are exact modulo 2^32 on such
 * values, so the register holds the mathematical value whenever its bound is below 2^31; a
 * sign-extension ({@code cvt.s64.s32}, {@code mul.wide.s32}) of a value with bound {@code k + c*G}
 * records the condition {@code G <= (2^31 - 1 - k) / c}. A zero-extension is non-negative whatever
 * the value. {@code and}, {@code shr.u} by immediates bound their result whatever their input.
 * {@code selp} of two integers gives one of them, whichever its predicate picks: their join. 64-bit
 * values are kept below 2^62 so nothing wraps. Subtraction, negative immediates (but for the
 * wrap-around index below), loaded values, and every instruction not listed are unknown. Each value
 * also carries the set of parameters it derives from (taint); a parameter is not proven when a
 * tainted value reaches an address other than as {@code param + non-negative offset}, a negative displacement ({@code
 * [%rd+-4]}), a store's or atomic's value (the pointer escapes to memory), an unknown instruction
 * (calls included), or when a parameter's name is used as an address ({@code mov %rd, k_param_0}:
 * its value may then be read back untainted), or any register is read that nothing defines.
 *
 * <p>The wrap-around index. nvcc compiles {@code i == 0 ? n - 1 : i - 1} (a periodic stencil's left
 * neighbour) to {@code setp.eq.s32 p, i, 0; selp.b32 s, n, i, p; add.s32 d, s, -1}. Such an {@code
 * add} of {@code -1} (32-bit, {@code .s32} or {@code .u32}) gives a non-negative value of at most
 * {@code 2^31 - 2} ({@link WrapAroundIndex}) where: {@code s}'s one definition, unguarded,
 * is a 32-bit {@code selp s, a, b, p}; {@code p}'s last definition before it, in the same
 * straight-line block (no label between them or at the {@code selp}), is an unguarded 32-bit {@code
 * setp.eq p, x, 0} or {@code setp.ne} (with {@code 0, x} as well), and nothing between them defines
 * {@code x}; the arm taken where {@code x != 0} is {@code x} itself, whose value is non-negative
 * below 2^31 (as above); the arm taken where {@code x == 0} is an immediate in {@code [1, 2^31 - 1]},
 * or a register {@code n} that holds a signed value of at least 1 wherever the {@code selp} runs:
 * on every path from the entry to the {@code selp} control passed a guard edge for {@code n}, and no
 * instruction defined {@code n} after it. A guard edge is an edge of a predicated {@code bra}, with
 * no label at it, right after an unguarded {@code setp.lt.s32 q, y, n} or {@code setp.gt.s32 q, n,
 * y} (the edge where {@code q} is true), or {@code setp.ge.s32 q, y, n} or {@code setp.le.s32 q, n,
 * y} (the edge where it is false), {@code y} a value non-negative below 2^31: on it {@code n > y >=
 * 0} as signed values. That "on every path" is
 * a must data flow over the entry's instructions and branches (an entry with an indirect branch, a
 * call, or a branch to a label it cannot find proves nothing this way); it is what keeps the guard,
 * a fact of one point of the program, from being read where it does not hold (before the guard, or
 * where control joins from around it), which the flow-insensitive values could not tell. Why it
 * holds: where {@code p} picked {@code x}, {@code x != 0} and {@code x >= 0}, so {@code x >= 1};
 * where it picked {@code n} (or the immediate), that is at least 1; either is at most {@code 2^31 -
 * 1}; so {@code s - 1} lies in {@code [0, 2^31 - 2]}, computed exactly, and its sign-extension is the
 * same value. The values of {@code x} and {@code y} are this analysis's flow-insensitive ones, which
 * hold at every read of their register; a {@link GuardedInduction} counter read at its own compare
 * may exceed the bound it is given elsewhere, but is non-negative below 2^31 there too, and only that
 * is read of a guard's {@code y}. The result needs the launch limits and conditions of {@code x} and
 * of every guard's {@code y}. Not proven this way: {@code (i - 1 + n) % n}, whose sum may wrap past
 * 2^31 for large {@code n}, and a {@code selp} between values already decremented ({@code selp d, m,
 * t, p} of {@code m = n - 1}, {@code t = i - 1}).
 */
public final class ForwardIndexing {
  private ForwardIndexing() {}

  /** Not proven forward-only. */
  public static final long NOT_PROVEN = 0;
  /** Forward-only for every launch. */
  public static final long ALWAYS = Long.MAX_VALUE;

  /**
   * Whether {@code limit} is forward-only under a condition on a parameter's value as well ({@link
   * GuardedInduction}): {@code P + K + C * G <= 2^31 - 1}, {@code P} the 32-bit parameter {@link
   * #conditionParameter} of the launch (its signed value, at least 0; or its unsigned value).
   */
  public static boolean isConditional(long limit) {
    return limit < 0;
  }

  /** The parameter whose value a conditional limit's condition reads. */
  public static int conditionParameter(long limit) {
    return (int) ((limit >>> 48) & 0xFF);
  }

  /**
   * Whether a launch of {@code threads = gridDim.x * blockDim.x} (unsigned), whose parameter {@link
   * #conditionParameter} holds the 32 bits {@code value}, meets the conditional limit.
   */
  public static boolean holds(long limit, long threads, int value) {
    long p = GuardedInduction.unsigned(limit) ? Integer.toUnsignedLong(value) : Math.max(0, value);
    long room = S32_MAX - GuardedInduction.k(limit) - p;
    long c = GuardedInduction.c(limit);
    return threads > 0 && room >= 0 && (c == 0 || threads <= room / c);
  }

  /** A conditional limit as {@code ptx} prints it: {@code 2x+p1<=2147483647} ({@code p1u}: unsigned). */
  public static String describe(long limit) {
    long k = GuardedInduction.k(limit);
    long c = GuardedInduction.c(limit);
    return (c == 0 ? "" : (c == 1 ? "" : Long.toString(c)) + "x+") + "p" + conditionParameter(limit)
        + (GuardedInduction.unsigned(limit) ? "u" : "") + "<=" + (S32_MAX - k);
  }

  static final long S32_MAX = Integer.MAX_VALUE;
  private static final long U32_MAX = 0xFFFF_FFFFL;
  private static final long BIG = 1L << 62;
  private static final int WIDEN_AFTER = 8;
  private static final int TAG_CTAID_X = 1;
  private static final int TAG_NTID_X = 2;
  private static final int TAG_TID_X = 3;
  private static final int TAG_PRODUCT_X = 4;
  private static final int TAG_NCTAID_X = 5;

  private static final Pattern WORD = Pattern.compile("(?<![%\\w$.])[A-Za-z_$][\\w$]*");
  private static final Pattern SPECIAL = Pattern.compile("%(clock(64)?|smid|nsmid|warpid|nwarpid|gridid|laneid"
      + "|lanemask_\\w+|globaltimer\\w*|envreg\\d+|pm\\d+\\w*|\\w*smem_size|clusterid|nclusterid|cluster_\\w+)");
  static final Pattern INTEGER = Pattern.compile("-?(0[xX][0-9a-fA-F]+|\\d+)");
  private static final Pattern LABEL = Pattern.compile("^[\\w$.]+:");
  private static final Pattern ENTRY = Pattern.compile("\\.entry\\s+([\\w$.]+)\\s*\\(");
  static final Pattern REGISTER = Pattern.compile("%[A-Za-z_$][\\w$]*(?:\\.[xyz])?");
  static final Pattern ADDRESS = Pattern.compile("\\[\\s*([%\\w$.]+)\\s*(?:\\+\\s*(-?(?:0[xX][0-9a-fA-F]+|\\d+)))?\\s*\\]");

  /**
   * A value: kind NN (k + c*G), PTR (param p, offset [0, k]) or TOP; limit: G <= limit needed;
   * cond: the launch conditions ({@link GuardedInduction}) the bound needs, a bit each.
   */
  record V(int kind, long k, long c, int p, long limit, long taint, int tag, long cond) {
    static final int NN = 0, PTR = 1, TOP = 2;
    V(int kind, long k, long c, int p, long limit, long taint, int tag) {
      this(kind, k, c, p, limit, taint, tag, 0);
    }
    static V nn(long k, long c, long limit, long taint, int tag) {
      return k > BIG || c > BIG || k < -BIG ? top(taint) : new V(NN, k, c, -1, limit, taint, tag);
    }
    static V top(long taint) {
      return new V(TOP, 0, 0, -1, 0, taint, 0);
    }
    /** This value, needing the conditions {@code more} as well. */
    V needing(long more) {
      return (cond | more) == cond ? this : new V(kind, k, c, p, limit, taint, tag, cond | more);
    }
    V join(V o) {
      if (o == null) return this;
      long t = taint | o.taint;
      if (kind == NN && o.kind == NN) {
        return nn(Math.max(k, o.k), Math.max(c, o.c), Math.min(limit, o.limit), t, tag == o.tag ? tag : 0)
            .needing(cond | o.cond);
      }
      if (kind == PTR && o.kind == PTR && p == o.p) {
        return new V(PTR, Math.max(k, o.k), 0, p, Math.min(limit, o.limit), t, 0, cond | o.cond);
      }
      return top(t);
    }
  }

  private static long cond(V v) {
    return v == null ? 0 : v.cond;
  }

  /** Per {@code .entry} of {@code ptx}, by name: one limit per declared parameter (see the class). */
  public static Map<String, long[]> analyze(CharSequence ptx) {
    String text = ptx.toString().replaceAll("(?s)/\\*.*?\\*/", " ").replaceAll("//[^\n]*", "");
    Map<String, long[]> out = new HashMap<>();
    Matcher m = ENTRY.matcher(text);
    while (m.find()) {
      int close = text.indexOf(')', m.end());
      int open = close < 0 ? -1 : text.indexOf('{', close);
      if (open < 0) break;
      int depth = 0, end = open;
      for (; end < text.length(); end++) {
        char ch = text.charAt(end);
        if (ch == '{') depth++;
        else if (ch == '}' && --depth == 0) break;
      }
      List<String> params = new ArrayList<>();
      List<Integer> sizes = new ArrayList<>();
      for (String decl : text.substring(m.end(), close).split(",")) {
        Matcher array = Pattern.compile("\\[\\s*(\\d+)\\s*\\]").matcher(decl);
        String d = decl.replaceAll("\\[\\s*\\d+\\s*\\]", "").trim();
        if (d.isEmpty()) continue;
        String[] words = d.split("\\s+");
        params.add(words[words.length - 1]);
        int size = 0; // not understood: no load of it is within it
        for (String w : words) if (width(w) > 0) size = width(w);
        sizes.add(array.find() ? size * Integer.parseInt(array.group(1)) : size);
      }
      out.put(m.group(1), new ForwardIndexing.KernelAnalysis(params, sizes, text.substring(open + 1, Math.min(end, text.length()))).run());
    }
    return out;
  }

  /** Bytes of a scalar type ({@code .u64}, {@code b8}); 0 for anything else. */
  static int width(String type) {
    return switch (type.startsWith(".") ? type.substring(1) : type) {
      case "u8", "s8", "b8" -> 1;
      case "u16", "s16", "b16", "f16" -> 2;
      case "u32", "s32", "b32", "f32" -> 4;
      case "u64", "s64", "b64", "f64" -> 8;
      default -> 0;
    };
  }

  /** The forward-indexing analysis of one kernel: its instructions, registers and passes. Not thread-safe. */
  static final class KernelAnalysis {
    final List<String> params;
    final List<Integer> sizes;
    final List<String[]> insns = new ArrayList<>();
    /** Per instruction: its guard ({@code @%p}, {@code @!%p}), or null. */
    final List<String> guards = new ArrayList<>();
    /** Each label's instruction: the index of the instruction that follows it. */
    final Map<String, Integer> labels = new HashMap<>();
    final Map<String, V> regs = new HashMap<>();
    /** Registers whose value a {@link GuardedInduction} fixes, with the value. */
    final Map<String, V> fixed = new HashMap<>();
    final List<GuardedInduction> conditions = new ArrayList<>();
    final long[] limits;
    /** The wrap-around index rule, with the entry's control flow it computes once. */
    private final WrapAroundIndex wrapAround = new WrapAroundIndex(this);
    final long[] condMasks;
    /** Per instruction, the value it last gave its destination, unjoined. */
    V[] given;
    int current;
    long bad;
    boolean changed;
    boolean finalPass;
    int pass;

    KernelAnalysis(List<String> params, List<Integer> sizes, String body) {
      this.params = params;
      this.sizes = sizes;
      this.limits = new long[params.size()];
      this.condMasks = new long[params.size()];
      for (String s : body.split(";")) {
        s = s.trim();
        for (boolean more = true; more; ) {
          more = false;
          if (s.startsWith("{") || s.startsWith("}")) { s = s.substring(1).trim(); more = true; }
          Matcher label = LABEL.matcher(s);
          if (label.find()) {
            labels.put(s.substring(0, label.end() - 1).trim(), insns.size());
            s = s.substring(label.end()).trim();
            more = true;
          }
        }
        while (s.startsWith(".") && s.contains("\n")) s = s.substring(s.indexOf('\n') + 1).trim();
        String guard = null;
        if (s.startsWith("@")) {
          Matcher g = Pattern.compile("^@!?%\\w+").matcher(s);
          if (g.find()) guard = g.group();
          s = s.replaceFirst("^@!?%\\w+\\s*", "");
        }
        if (s.isEmpty() || s.startsWith(".")) continue;
        guards.add(guard);
        String[] op = s.split("\\s+", 2);
        List<String> parts = new ArrayList<>();
        parts.add(op[0]);
        if (op.length > 1) parts.addAll(operands(op[1]));
        insns.add(parts.toArray(new String[0]));
      }
    }

    long[] run() {
      analyse();
      List<GuardedInduction> found = GuardedInduction.find(this);
      if (!found.isEmpty()) {
        // Again from the start, each such register holding its proven range.
        for (GuardedInduction g : found) {
          if (conditions.size() == 64) break;
          fixed.put(g.register, V.nn(S32_MAX - g.margin, 0, g.limit, g.taint, 0).needing(1L << conditions.size()));
          conditions.add(g);
        }
        regs.clear();
        bad = 0;
        pass = 0;
        finalPass = false;
        analyse();
      }
      for (int i = 0; i < limits.length; i++) {
        if ((bad & bit(i)) != 0 || limits[i] < 1) {
          limits[i] = NOT_PROVEN;
        } else if (condMasks[i] != 0) {
          limits[i] = Long.bitCount(condMasks[i]) == 1
              ? conditions.get(Long.numberOfTrailingZeros(condMasks[i])).encode(limits[i]) : NOT_PROVEN;
        }
      }
      return limits;
    }

    private void analyse() {
      Arrays.fill(limits, ALWAYS);
      Arrays.fill(condMasks, 0);
      given = new V[insns.size()];
      do {
        changed = false;
        pass++;
        steps();
      } while (changed && pass < 64);
      if (changed) bad = -1L;
      finalPass = true;
      steps();
    }

    private void steps() {
      for (current = 0; current < insns.size(); current++) step(insns.get(current));
    }

    static long bit(int p) {
      return 1L << Math.min(p, 63);
    }

    void step(String[] in) {
      String[] op = in[0].split("\\.");
      String base = op[0];
      String type = op[op.length - 1];
      boolean w32 = type.endsWith("32"), w64 = type.endsWith("64");
      switch (base) {
        case "bra", "ret", "exit", "bar", "barrier", "membar", "fence", "trap", "prefetch" -> { return; }
        case "setp" -> { for (String d : in[1].split("\\|")) def(d.trim(), V.top(0)); return; }
        case "ld", "ldu" -> {
          Matcher a = ADDRESS.matcher(in.length > 2 ? in[2] : "");
          if (in.length == 3 && a.matches() && op[1].equals("param") && params.contains(a.group(1))) {
            // Parameters lie side by side: a load that may reach past this one's bytes may read any.
            int p = params.indexOf(a.group(1));
            long at = a.group(2) == null ? 0 : Long.decode(a.group(2));
            int width = op.length == 3 ? width(type) : 0;
            if (width == 0 || at < 0 || at + width > sizes.get(p)) {
              bad = -1L;
              defAll(in[1], V.top(-1L));
            } else {
              defAll(in[1], at == 0 && width == 8 && sizes.get(p) == 8 ? new V(V.PTR, 0, 0, p, ALWAYS, bit(p), 0)
                  : V.top(bit(p)));
            }
            return;
          }
          if (in.length == 3 && a.matches()) { access(a); defAll(in[1], V.top(0)); return; }
        }
        case "st", "red", "atom" -> {
          int at = base.equals("atom") ? 2 : 1;
          Matcher a = ADDRESS.matcher(in.length > at ? in[at] : "");
          if (a.matches()) {
            access(a);
            for (int i = at + 1; i < in.length; i++) bad |= taintOf(in[i]);
            if (at == 2) defAll(in[1], V.top(0));
            return;
          }
        }
        case "mov", "cvta" -> {
          if (in.length == 3 && !in[1].contains("{") && !in[2].contains("{") && (base.equals("mov") || op[1].equals("to") && op[2].equals("global")
              || op[1].equals("global"))) {
            V v = value(in[2]);
            if (v != null || isReg(in[2])) { def(in[1], v); return; }
          }
        }
        case "cvt" -> {
          if (in.length == 3 && op.length == 3 && op[1].endsWith("64") && op[2].endsWith("32")) {
            V from = value(in[2]);
            V to = extend(from, op[2].startsWith("s"));
            def(in[1], to == null ? null : to.needing(cond(from)));
            return;
          }
        }
        case "selp" -> {
          // The destination is one of the two inputs, whichever the predicate picks: their join.
          if (in.length == 5 && op.length == 2 && (w32 || w64) && !type.startsWith("f") && isReg(in[4].trim())
              && !in[4].contains("|")) {
            V a = value(in[2]), b = value(in[3]);
            def(in[1], a == null || b == null ? null : a.join(b));
            return;
          }
        }
        case "add", "mul", "mad", "shl", "and", "shr" -> {
          if (base.equals("add") && op.length == 2 && (type.equals("s32") || type.equals("u32")) && in.length == 4
              && in[3].trim().equals("-1")) {
            V r = wrapAround.less1(in[2].trim());
            if (r != WrapAroundIndex.UNPROVEN) { def(in[1], r); return; }
          }
          if ((w32 || w64) && in.length >= 4 && !type.startsWith("f")) {
            boolean wide = op.length > 1 && op[1].equals("wide");
            boolean mulLike = base.equals("mul") || base.equals("mad");
            if (wide && !w32 || (mulLike ? op.length != 3 || !wide && !op[1].equals("lo") : op.length != 2)) break;
            V a = value(in[2]), b = value(in[3]);
            if (wide) { a = extend(a, type.startsWith("s")); b = extend(b, type.startsWith("s")); }
            boolean big = w64 || wide;
            V r = switch (base) {
              case "add" -> add(a, b, big);
              case "mul" -> mul(a, b, big);
              case "mad" -> in.length == 5 ? add(mul(a, b, big), value(in[4]), big) : V.top(-1L);
              case "shl" -> shiftConst(in[3]) >= 0 ? mul(a, V.nn(1L << shiftConst(in[3]), 0, ALWAYS, 0, 0), big) : V.top(-1L);
              case "and" -> immediate(in[3]) >= 0 && immediate(in[3]) < BIG ? V.nn(immediate(in[3]), 0, ALWAYS, taint(a), 0)
                  : V.top(taint(a) | taint(b));
              default -> shiftConst(in[3]) > 0 && type.startsWith("u") || shiftConst(in[3]) > 0 && type.startsWith("b")
                  ? V.nn((w32 ? U32_MAX : BIG) >> shiftConst(in[3]), 0, ALWAYS, taint(a), 0) : V.top(taint(a) | taint(b));
            };
            if (r != null && r.kind == V.TOP && r.taint == -1L) r = V.top(taint(a) | taint(b) | (in.length == 5 ? taint(value(in[4])) : 0));
            if (r != null) r = r.needing(cond(a) | cond(b) | (in.length == 5 ? cond(value(in[4])) : 0));
            def(in[1], r);
            return;
          }
        }
        default -> { }
      }
      // Anything else: every register it names may be written with an unknown value; a parameter
      // whose value reaches it is not proven; a parameter's name used as a value: none is.
      // Its destination is its first operand, as in every PTX instruction.
      for (int i = 1; i < in.length; i++) {
        bad |= taintOf(in[i]); // the first operand too: an address ({@code discard}, {@code cp.async})
        Matcher w = WORD.matcher(in[i]);
        while (w.find()) if (params.contains(w.group())) bad = -1L;
      }
      if (in.length > 1) defAll(in[1], V.top(0));
    }

    void access(Matcher a) {
      String reg = a.group(1);
      long disp = a.group(2) == null ? 0 : Long.decode(a.group(2));
      if (params.contains(reg)) { bad = -1L; return; }
      if (!isReg(reg)) return; // a module variable's address
      V v = regs.get(reg);
      if (v == null) { if (finalPass) bad = -1L; return; }
      if (v.kind == V.PTR && disp >= 0) {
        limits[v.p] = Math.min(limits[v.p], v.limit);
        condMasks[v.p] |= v.cond;
        bad |= v.taint & ~bit(v.p);
      } else {
        bad |= v.taint | (v.kind == V.PTR ? bit(v.p) : 0);
      }
    }

    static long taint(V v) {
      return v == null ? 0 : v.taint;
    }

    long taintOf(String operand) {
      long t = 0;
      Matcher r = REGISTER.matcher(operand);
      while (r.find()) {
        V v = special(r.group());
        if (v == null) v = regs.get(r.group());
        if (v == null && finalPass) return -1L;
        t |= taint(v);
      }
      return t;
    }

    static boolean isReg(String s) {
      return s.startsWith("%");
    }

    /** The operand's value; null for a register nothing has defined yet (read undefined: everything bad). */
    V value(String s) {
      s = s.trim();
      if (isReg(s)) {
        V v = switch (s) {
          case "%tid.x" -> V.nn(1023, 0, ALWAYS, 0, TAG_TID_X);
          case "%tid.y" -> V.nn(1023, 0, ALWAYS, 0, 0);
          case "%tid.z" -> V.nn(63, 0, ALWAYS, 0, 0);
          case "%ntid.x" -> V.nn(1024, 0, ALWAYS, 0, TAG_NTID_X);
          case "%ntid.y" -> V.nn(1024, 0, ALWAYS, 0, 0);
          case "%ntid.z" -> V.nn(64, 0, ALWAYS, 0, 0);
          case "%ctaid.x" -> V.nn(-1, 1, ALWAYS, 0, TAG_CTAID_X);
          case "%ctaid.y", "%ctaid.z" -> V.nn(65534, 0, ALWAYS, 0, 0);
          case "%nctaid.x" -> V.nn(0, 1, ALWAYS, 0, TAG_NCTAID_X);
          case "%nctaid.y", "%nctaid.z" -> V.nn(65535, 0, ALWAYS, 0, 0);
          case "%laneid" -> V.nn(31, 0, ALWAYS, 0, 0);
          default -> special(s) != null ? V.top(0) : regs.get(s);
        };
        if (v == null && finalPass) bad = -1L;
        return v;
      }
      V imm = immediateValue(s);
      if (imm != null) return imm;
      for (String p : params) if (s.equals(p)) bad = -1L; // a parameter's address
      return V.top(0);
    }

    /** A special register that is not an index: unknown, untainted; null for an ordinary register. */
    static V special(String s) {
      return s.contains(".") || SPECIAL.matcher(s).matches() ? V.top(0) : null;
    }

    /** A non-negative immediate's value; null for anything else. */
    V immediateValue(String s) {
      long imm = immediate(s.trim());
      return imm >= 0 && imm < BIG ? V.nn(imm, 0, ALWAYS, 0, 0) : null;
    }

    static long immediate(String s) {
      try {
        return INTEGER.matcher(s).matches() ? Long.decode(s) : -1;
      } catch (NumberFormatException e) {
        return -1;
      }
    }

    static long shiftConst(String s) {
      long n = immediate(s.trim());
      return n >= 0 && n < 32 ? n : -1;
    }

    /** A 32-bit value widened to 64 bits: sign-extended (needs bound < 2^31) or zero-extended. */
    static V extend(V v, boolean signed) {
      return v == null ? null : widen(v, signed).needing(v.cond);
    }

    private static V widen(V v, boolean signed) {
      if (!signed) {
        return v.kind == V.NN && v.c == 0 ? V.nn(Math.min(v.k, U32_MAX), 0, v.limit, v.taint, 0)
            : v.kind == V.PTR ? V.top(v.taint) : V.nn(U32_MAX, 0, ALWAYS, v.taint, 0);
      }
      if (v.kind != V.NN) return V.top(v.taint);
      if (v.c == 0) return v.k <= S32_MAX ? V.nn(v.k, 0, v.limit, v.taint, 0) : V.top(v.taint);
      long limit = (S32_MAX - v.k) / v.c;
      return limit < 1 ? V.top(v.taint) : V.nn(S32_MAX, 0, Math.min(v.limit, limit), v.taint, 0);
    }

    static V add(V a, V b, boolean w64) {
      if (a == null || b == null) return null;
      long t = a.taint | b.taint;
      if (w64 && (a.c != 0 || b.c != 0)) return V.top(t);
      long limit = Math.min(a.limit, b.limit);
      if (a.kind == V.NN && b.kind == V.NN) {
        boolean exact = a.tag == TAG_PRODUCT_X && b.tag == TAG_TID_X || b.tag == TAG_PRODUCT_X && a.tag == TAG_TID_X;
        return exact ? V.nn(-1, 1, limit, t, 0) : V.nn(a.k + b.k, a.c + b.c, limit, t, 0);
      }
      if (w64 && (a.kind == V.PTR && b.kind == V.NN || a.kind == V.NN && b.kind == V.PTR)) {
        V ptr = a.kind == V.PTR ? a : b, n = a.kind == V.PTR ? b : a;
        long k = ptr.k + n.k;
        return k > BIG ? V.top(t) : new V(V.PTR, k, 0, ptr.p, limit, t, 0);
      }
      return V.top(t);
    }

    static V mul(V a, V b, boolean w64) {
      if (a == null || b == null) return null;
      long t = a.taint | b.taint;
      if (a.kind != V.NN || b.kind != V.NN || w64 && (a.c != 0 || b.c != 0)) return V.top(t);
      long limit = Math.min(a.limit, b.limit);
      if (a.tag == TAG_NCTAID_X && b.tag == TAG_NTID_X || a.tag == TAG_NTID_X && b.tag == TAG_NCTAID_X) {
        return V.nn(0, 1, limit, t, 0); // nctaid.x * ntid.x = G: a grid-stride loop's step
      }
      if (a.tag == TAG_CTAID_X && b.tag == TAG_NTID_X || a.tag == TAG_NTID_X && b.tag == TAG_CTAID_X) {
        return V.nn(-1, 1, limit, t, TAG_PRODUCT_X); // (nctaid.x - 1) * ntid.x <= G - 1
      }
      if (a.c != 0 && b.c != 0) return V.top(t);
      V s = b.c == 0 ? a : b, f = b.c == 0 ? b : a; // s * f, f <= f.k and f.k >= 0
      if (f.k < 0 || f.k > BIG || Math.abs(s.k) > BIG || s.c > (1L << 31)) return V.top(t);
      if (Math.multiplyHigh(Math.abs(s.k), f.k) != 0 || Math.multiplyHigh(s.c, f.k) != 0) return V.top(t);
      return V.nn(s.k * f.k, s.c * f.k, limit, t, 0);
    }


    void def(String reg, V v) {
      reg = reg.trim();
      if (!isReg(reg) || reg.contains(".")) return;
      if (current < given.length) given[current] = v;
      V proven = fixed.get(reg);
      if (proven != null) v = proven;
      V old = regs.get(reg);
      V joined = v == null ? old : v.join(old);
      if (joined == null || joined.equals(old)) return;
      if (old != null && pass > WIDEN_AFTER) joined = V.top(joined.taint);
      if (joined.equals(old)) return;
      regs.put(reg, joined);
      changed = true;
    }

    void defAll(String operand, V v) {
      Matcher r = REGISTER.matcher(operand);
      while (r.find()) if (special(r.group()) == null) def(r.group(), v);
    }

    static List<String> operands(String s) {
      List<String> out = new ArrayList<>();
      int depth = 0, from = 0;
      for (int i = 0; i < s.length(); i++) {
        char ch = s.charAt(i);
        if (ch == '[' || ch == '{' || ch == '(') depth++;
        else if (ch == ']' || ch == '}' || ch == ')') depth--;
        else if (ch == ',' && depth == 0) { out.add(s.substring(from, i).trim()); from = i + 1; }
      }
      out.add(s.substring(from).trim());
      return out;
    }
  }
}
