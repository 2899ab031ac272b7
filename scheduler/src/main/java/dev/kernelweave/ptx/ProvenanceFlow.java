package dev.kernelweave.ptx;

/**
 * How each instruction of a {@link ProvenanceAnalysis} grows the provenance sets: moves, sums and
 * their scalings, loads and stores through the regions the analysis sees, and calls. Not
 * thread-safe; one instance analyses one kernel once.
 */
abstract class ProvenanceFlow extends ProvenanceSets {

  /**
   * Whether a value computed from two addresses keeps both provenances: {@link
   * dev.kernelweave.scheduler.OrderingRules.Rule#POINTER_DIFFERENCES_KEEP_PROVENANCE}, always but in
   * the fuzz's broken analysis.
   */
  private final boolean seesMixedAddresses;

  /**
   * Some store or call may write a kernel parameter's slot: see
   * {@link ProvenanceAnalysis#parameterSpaceIsExact()}.
   */
  protected boolean parametersWritten;
  private final long[] seen;
  private final long[] twice;

  ProvenanceFlow(PtxModule module, PtxFunction kernel, boolean seesMixedAddresses) {
    super(module, kernel);
    this.seesMixedAddresses = seesMixedAddresses;
    this.seen = new long[words];
    this.twice = new long[words];
  }

  // ---- fixpoint -------------------------------------------------------------------------------

  protected void solve() {
    queue = new int[Math.max(1, code.length)];
    queued = new boolean[code.length];
    runToFixpoint(this::transfer);
  }

  private void transfer(int i) {
    Insn insn = code[i];
    int base = codeBase[i];
    switch (insn.kind) {
      case Insn.MOVE:
        clear(t);
        union(t, insn.srcs, base);
        if ((insn.flags & Insn.RESTORE) != 0) restore(t);
        if ((insn.flags & Insn.PROMOTE) != 0) promote(t);
        if (mixesAddresses(insn.srcs, null, base)) t[0] |= F_MIXED;
        for (int d : insn.dsts) join(abs(d, base), t);
        break;
      case Insn.SUM:
        sum(insn, base);
        for (int d : insn.dsts) join(abs(d, base), t);
        break;
      case Insn.LOAD:
        loadResult(insn, base, t);
        for (int d : insn.dsts) join(abs(d, base), t);
        break;
      case Insn.STORE:
        storeValue(insn, base);
        break;
      case Insn.ATOMIC:
        storeValue(insn, base);
        loadResult(insn, base, t);
        for (int d : insn.dsts) join(abs(d, base), t);
        break;
      case Insn.COPY:
        clear(t);
        t[0] = F_UNKNOWN;
        if (insn.space == Insn.SHARED || insn.space == Insn.LOCAL) join(regionContent(insn.space), t);
        break;
      case Insn.CALL:
        call(i, insn, base);
        break;
      case Insn.OPAQUE:
        clear(t);
        t[0] = F_UNKNOWN;
        for (int d : insn.dsts) join(abs(d, base), t);
        break;
      case Insn.FALLBACK:
        clear(t);
        union(t, insn.srcs, base);
        t[0] |= F_UNKNOWN;
        for (int d : insn.dsts) join(abs(d, base), t);
        writeRegions(t, t);
        break;
      default:
        break;
    }
  }

  /** Scaled provenances back to plain ones: the operation may undo a multiplication. */
  private void restore(long[] s) {
    for (int w = 0; w < m; w++) {
      s[1 + w] |= s[1 + m + w];
      s[1 + m + w] = 0;
    }
    if ((s[0] & F_SCALED_UNKNOWN) != 0) s[0] = (s[0] & ~F_SCALED_UNKNOWN) | F_UNKNOWN;
    if ((s[0] & F_SCALED_VARIABLE) != 0) s[0] = (s[0] & ~F_SCALED_VARIABLE) | F_ANY_VARIABLE;
  }

  /** Narrow pieces may have been put back together into a whole pointer of unknown origin. */
  private static void promote(long[] s) {
    if ((s[0] & F_PART) != 0) s[0] |= F_UNKNOWN;
  }

  private void scale(long[] s) {
    if ((s[0] & F_UNKNOWN) != 0) s[0] = (s[0] & ~F_UNKNOWN) | F_SCALED_UNKNOWN;
    if ((s[0] & F_MIXED) != 0) return; // a distance scaled may be a distance still: see F_MIXED
    for (int w = 0; w < m; w++) {
      s[1 + m + w] |= s[1 + w];
      s[1 + w] = 0;
    }
    boolean variable = (s[0] & F_ANY_VARIABLE) != 0;
    for (int w = 1 + 3 * m; w < words; w++) {
      variable |= s[w] != 0;
      s[w] = 0;
    }
    if (variable) s[0] = (s[0] & ~F_ANY_VARIABLE) | F_SCALED_VARIABLE;
  }

  /**
   * Union of the terms into {@link #t}. Two scaled terms of the same origin may add up to it
   * again ({@code 4p - 3p}), so such a pair restores the plain provenance.
   */
  private void sum(Insn insn, int base) {
    clear(t);
    clear(seen);
    clear(twice);
    for (int j = 0; j < insn.srcs.length; j++) {
      clear(u);
      load(u, abs(insn.srcs[j], base));
      byte f = insn.termFlags[j];
      if ((f & Insn.SCALED) != 0) scale(u);
      if ((f & Insn.PROMOTE) != 0) promote(u);
      for (int w = 1 + m; w < 1 + 2 * m; w++) {
        twice[w] |= seen[w] & u[w];
        seen[w] |= u[w];
      }
      twice[0] |= seen[0] & u[0] & (F_SCALED_UNKNOWN | F_SCALED_VARIABLE);
      seen[0] |= u[0] & (F_SCALED_UNKNOWN | F_SCALED_VARIABLE);
      for (int w = 0; w < words; w++) t[w] |= u[w];
    }
    for (int w = 0; w < m; w++) t[1 + w] |= twice[1 + m + w];
    if ((twice[0] & F_SCALED_UNKNOWN) != 0) t[0] |= F_UNKNOWN;
    if ((twice[0] & F_SCALED_VARIABLE) != 0) t[0] |= F_ANY_VARIABLE;
    if (seesMixedAddresses && mixesAddresses(insn.srcs, insn.termFlags, base)) t[0] |= F_MIXED;
  }

  /**
   * Whether two or more of the operands may be addresses, at least one of them a pointer or a
   * module variable (an unknown value may be one laundered through global memory): their sum,
   * difference or bitwise mix may then be a distance from one allocation to another. Uses {@link #u}.
   *
   * @param termFlags each operand's {@link Insn#SCALED} and {@link Insn#PROMOTE}; null for none
   */
  private boolean mixesAddresses(int[] srcs, byte[] termFlags, int base) {
    if (srcs.length < 2) return false;
    int addresses = 0;
    boolean named = false;
    for (int j = 0; j < srcs.length; j++) {
      clear(u);
      load(u, abs(srcs[j], base));
      byte f = termFlags == null ? 0 : termFlags[j];
      if ((f & Insn.SCALED) != 0) scale(u);
      if ((f & Insn.PROMOTE) != 0) promote(u);
      boolean pointer = hasPointer(u) || hasVariable(u);
      named |= pointer;
      if (pointer || (u[0] & F_UNKNOWN) != 0) addresses++;
    }
    return named && addresses >= 2;
  }

  /** Joins the content of every parameter whose address {@code s} may hold into {@code into}. */
  private void paramContents(long[] s, long[] into) {
    for (int k = nextParamRef(s, 0); k >= 0; k = nextParamRef(s, k + 1)) load(into, paramContent(k));
  }

  private void address(Insn insn, int base, long[] into) {
    clear(into);
    union(into, insn.addr, base);
  }

  /** What a load through {@code insn}'s address yields, into {@code out}. */
  private void loadResult(Insn insn, int base, long[] out) {
    address(insn, base, a);
    clear(out);
    switch (insn.space) {
      case Insn.PARAM:
        if (insn.paramVar >= 0) {
          load(out, base + insn.paramVar);
        } else {
          paramContents(a, out);
          if (!hasParamRef(a) || hasPointer(a) || (a[0] & ~F_PART & ~F_SCALED_UNKNOWN) != 0) out[0] |= F_UNKNOWN;
        }
        break;
      case Insn.LOCAL, Insn.SHARED:
        load(out, regionContent(insn.space));
        break;
      case Insn.GENERIC:
        loadRegions(a, out);
        paramContents(a, out);
        if (reachesGlobal(a)) out[0] |= F_UNKNOWN;
        break;
      default: // global, const
        out[0] |= F_UNKNOWN;
    }
    if (insn.width > 0 && insn.width < pointerBytes && (out[0] & (F_UNKNOWN | F_SCALED_UNKNOWN)) != 0) {
      out[0] = (out[0] & ~(F_UNKNOWN | F_SCALED_UNKNOWN)) | F_PART;
    }
  }

  /** Whether a generic address may be in global memory: it names no region, or also global memory. */
  protected boolean reachesGlobal(long[] s) {
    if (hasPointer(s) || hasVariable(s) || (s[0] & F_UNKNOWN) != 0) return true;
    return (s[0] & F_REGIONS) == 0 && !hasParamRef(s);
  }

  private void storeValue(Insn insn, int base) {
    address(insn, base, a);
    clear(t);
    union(t, insn.srcs, base);
    switch (insn.space) {
      case Insn.PARAM:
        if (insn.paramVar >= 0) {
          join(base + insn.paramVar, t);
        } else if (hasParamRef(a)) {
          writeParamContents(a, t);
        } else {
          parametersWritten |= n > 0;
          for (int k = 0; k < n; k++) join(paramContent(k), t);
        }
        break;
      case Insn.LOCAL, Insn.SHARED:
        join(regionContent(insn.space), t);
        break;
      case Insn.GENERIC:
        writeRegions(a, t);
        break;
      default:
        break;
    }
  }

  /** The variable of what local or shared memory holds: each space is one region, its content one value. */
  private static int regionContent(int space) {
    return space == Insn.LOCAL ? V_LOCAL_CONTENT : V_SHARED_CONTENT;
  }

  /** Loads into {@code out} what every region whose address {@code s} may hold holds. */
  private void loadRegions(long[] s, long[] out) {
    if ((s[0] & F_LOCAL) != 0) load(out, V_LOCAL_CONTENT);
    if ((s[0] & F_SHARED) != 0) load(out, V_SHARED_CONTENT);
  }

  /** Joins {@code value} into every region whose address {@code s} may hold. */
  private void writeRegions(long[] s, long[] value) {
    if ((s[0] & F_LOCAL) != 0) join(V_LOCAL_CONTENT, value);
    if ((s[0] & F_SHARED) != 0) join(V_SHARED_CONTENT, value);
    writeParamContents(s, value);
  }

  private void writeParamContents(long[] s, long[] value) {
    for (int k = nextParamRef(s, 0); k >= 0; k = nextParamRef(s, k + 1)) {
      parametersWritten = true;
      join(paramContent(k), value);
    }
  }

  /** Everything reachable from the arguments through the regions they point to, into {@link #a}. */
  protected void reachable(Insn insn, int base) {
    clear(a);
    union(a, insn.args, base);
    boolean grew = true;
    while (grew) {
      System.arraycopy(a, 0, u, 0, words);
      loadRegions(a, a);
      paramContents(u, a);
      grew = !java.util.Arrays.equals(a, u);
    }
  }

  private void call(int i, Insn insn, int base) {
    PtxFunction callee = callees[i];
    if (callee != null) {
      int cb = calleeBase[i];
      for (int j = 0; j < insn.args.length; j++) {
        clear(t);
        load(t, abs(insn.args[j], base));
        join(cb + callee.params.get(j).var, t);
      }
      for (int j = 0; j < insn.rets.length; j++) {
        clear(t);
        load(t, cb + callee.returns.get(j).var);
        join(abs(insn.rets[j], base), t);
      }
      return;
    }
    clear(t);
    switch (callKind(insn)) {
      case Insn.CALL_PRINT:
        t[0] = F_PART;
        break;
      case Insn.CALL_ALLOC:
        t[0] = F_UNKNOWN;
        break;
      default:
        // The callee may store anything it can reach into any region it can reach. Unknown calls
        // already make the kernel touch other memory; this keeps the sets right regardless.
        reachable(insn, base);
        System.arraycopy(a, 0, t, 0, words);
        t[0] |= F_UNKNOWN;
        writeRegions(t, t);
    }
    for (int r : insn.rets) join(abs(r, base), t);
  }

  protected byte callKind(Insn insn) {
    if (insn.callKind != Insn.CALL_DIRECT || insn.callee == null) return Insn.CALL_UNKNOWN;
    PtxFunction f = module.functions.get(insn.callee);
    if (f != null && f.defined) return Insn.CALL_UNKNOWN; // defined, but not callable as written
    switch (insn.callee) {
      case "vprintf":
      case "__assertfail":
      case "__assert_fail":
        return Insn.CALL_PRINT;
      case "malloc":
        return Insn.CALL_ALLOC;
      default:
        return Insn.CALL_UNKNOWN;
    }
  }

}
