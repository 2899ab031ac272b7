package dev.kernelweave.ptx;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Where the addresses of one kernel may point, and so which parameters it loads through and
 * stores through.
 *
 * <p>Every variable of the kernel and of the functions it calls holds a set of provenances: the
 * kernel parameters it may derive from, a scaled derivative of one (an index, not an address),
 * the address of a region (local, shared, a parameter), or an unknown value. The sets only grow;
 * instructions are applied in any order until none changes them, so branches, loops, predicated
 * instructions and recursion need no special care. Calls to defined functions are followed
 * through their parameters and return values, one set per function for all its call sites.
 * Memory in the regions the analysis can see (local, shared, the parameter space) has one set per
 * region; what is loaded from global memory is unknown. A value computed from two addresses, at
 * least one of them a parameter or a module variable ({@code b - a}, {@code a ^ b}), may be the
 * distance between two allocations: it keeps both provenances, and scaling it no longer makes them
 * an index, so {@code a + (b - a) / 4 * 4} is both a's and b's.
 *
 * <p>Then every access is classified by its address: through a parameter's provenance it is a
 * load or store of that parameter; through an unknown value or a module variable it touches
 * other memory.
 *
 * <p>Extents: a second fixpoint gives every variable, besides its provenances, what it is known to
 * be exactly: one pointer parameter's value plus a constant offset in a closed interval, or nothing
 * known ({@link #OFFSET_ANY}). Only a pointer-wide {@code ld.param} of the whole parameter starts
 * such a value, and only {@code mov}, {@code cvta} to or from global and {@code add}/{@code sub} of
 * an immediate carry it on; any other definition of a variable makes it {@code OFFSET_ANY}, and so
 * does every definition the analysis does not see (the parameters and results of called functions),
 * so a variable keeps an interval only if every one of its definitions gives one. Variables join
 * by the interval hull; one that keeps growing (a pointer stepped in a loop) gives up after
 * {@link #OFFSET_CHANGES} changes. A parameter's extent is then the hull of {@code [offset,
 * offset + bytes)} over every global access its provenance reaches, and unbounded when one of them
 * is not at a known variable plus a constant with a known size, when a value derived from it is
 * stored anywhere or passed to a call, or when the parameter space may be addressed or written
 * (then an {@code ld.param} may not yield the parameter as passed). Not thread-safe; one instance
 * analyses one kernel once.
 *
 * <p>The layout, the sets and the worklist are {@link ProvenanceSets}'s; how each instruction grows
 * the sets is {@link ProvenanceFlow}'s; this class adds the offsets, the extents and the
 * classification.
 */
final class ProvenanceAnalysis extends ProvenanceFlow {

  private static final byte READ = 1;
  private static final byte WRITE = 2;

  /** A variable's offset state: no definition seen yet. */
  private static final int OFFSET_NONE = -1;
  /** A variable's offset state: not known to be one parameter plus a constant. */
  private static final int OFFSET_ANY = -2;
  /** Changes a variable's offset interval may take before it is given up as {@link #OFFSET_ANY}. */
  private static final int OFFSET_CHANGES = 64;
  /** Offsets and extents beyond this many bytes either way are not worth keeping: unbounded. */
  private static final long OFFSET_LIMIT = 1L << 40;

  private final long[] reads;
  private final long[] writes;
  private final long[] variableReads;
  private final long[] variableWrites;
  private boolean anyVariableRead;
  private boolean anyVariableWrite;
  private boolean other;
  /** A call prints: see {@link KernelAccessSummary#prints()}. */
  private boolean prints;

  /** Per variable: {@link #OFFSET_NONE}, {@link #OFFSET_ANY}, or the parameter it is an offset of. */
  private int[] offsetParam;
  private long[] offsetLow;
  private long[] offsetHigh;
  private int[] offsetChanges;
  /** Per parameter: whether an access was seen, the hull of them, and whether it is unbounded. */
  private final boolean[] extentSeen;
  private final boolean[] extentUnbounded;
  private final long[] extentLow;
  private final long[] extentHigh;

  private ProvenanceAnalysis(PtxModule module, PtxFunction kernel, boolean seesMixedAddresses) {
    super(module, kernel, seesMixedAddresses);
    this.reads = new long[m];
    this.writes = new long[m];
    this.variableReads = new long[g];
    this.variableWrites = new long[g];
    this.extentSeen = new boolean[n];
    this.extentUnbounded = new boolean[n];
    this.extentLow = new long[n];
    this.extentHigh = new long[n];
  }

  /** @param seesMixedAddresses see {@link ProvenanceFlow}: true but in the fuzz's broken analysis */
  static KernelAccessSummary analyze(PtxModule module, PtxFunction kernel, boolean seesMixedAddresses) {
    int[] sizes = new int[kernel.params.size()];
    for (int k = 0; k < sizes.length; k++) sizes[k] = kernel.params.get(k).size;
    try {
      ProvenanceAnalysis analysis = new ProvenanceAnalysis(module, kernel, seesMixedAddresses);
      analysis.layOut();
      analysis.solve();
      analysis.solveOffsets();
      analysis.classify();
      List<ParameterUse> uses = new ArrayList<>(sizes.length);
      List<ParameterExtent> extents = new ArrayList<>(sizes.length);
      for (int k = 0; k < sizes.length; k++) {
        long bit = 1L << k;
        ParameterUse use =
            ParameterUse.of((analysis.reads[k >>> 6] & bit) != 0, (analysis.writes[k >>> 6] & bit) != 0);
        uses.add(use);
        extents.add(use == ParameterUse.V ? ParameterExtent.UNBOUNDED : analysis.extent(k));
      }
      Map<String, ParameterUse> variables = new LinkedHashMap<>();
      for (int j = 0; j < analysis.nv; j++) {
        long bit = 1L << j;
        ParameterUse use = ParameterUse.of((analysis.variableReads[j >>> 6] & bit) != 0,
            (analysis.variableWrites[j >>> 6] & bit) != 0);
        if (use != ParameterUse.V) variables.put(module.variables.get(j).name(), use);
      }
      ParameterUse any = ParameterUse.of(analysis.anyVariableRead, analysis.anyVariableWrite);
      return new KernelAccessSummary(kernel.name, uses, sizes, analysis.other, variables, any, extents,
          analysis.prints);
    } catch (RuntimeException e) {
      return KernelAccessSummary.unknown(kernel.name, sizes);
    }
  }

  // ---- constant offsets -----------------------------------------------------------------------

  /**
   * Whether an {@code ld.param} of a kernel parameter yields the value the launch passed: nothing
   * may write the parameter space, and no address into it is taken (through which it could be
   * written, or read at an offset the analysis does not follow).
   */
  private boolean parameterSpaceIsExact() {
    if (parametersWritten) return false;
    for (int i = 0; i < code.length; i++) {
      if (codeBase[i] != kernelBase) continue;
      Insn insn = code[i];
      for (int[] refs : new int[][] {insn.srcs, insn.addr, insn.addr2, insn.args}) {
        for (int r : refs) if (r == Ref.PARAM_SPACE) return false;
      }
      for (int r : insn.args) if (Ref.isKernelParam(r)) return false; // a parameter passed by its address
    }
    return true;
  }

  /** The fixpoint of every variable's offset state; see the class comment. */
  private void solveOffsets() {
    offsetParam = new int[varCount];
    offsetLow = new long[varCount];
    offsetHigh = new long[varCount];
    offsetChanges = new int[varCount];
    java.util.Arrays.fill(offsetParam, OFFSET_NONE);
    // Parameters and results of called functions are defined by their calls, which this does not follow.
    for (Map.Entry<PtxFunction, Integer> f : bases.entrySet()) {
      if (f.getKey() == kernel) continue;
      for (PtxFunction.Param p : f.getKey().params) if (p.var >= 0) offsetParam[f.getValue() + p.var] = OFFSET_ANY;
      for (PtxFunction.Param p : f.getKey().returns) if (p.var >= 0) offsetParam[f.getValue() + p.var] = OFFSET_ANY;
    }
    boolean exactParameters = parameterSpaceIsExact();
    runToFixpoint(i -> transferOffset(i, exactParameters));
  }

  private void transferOffset(int i, boolean exactParameters) {
    Insn insn = code[i];
    int base = codeBase[i];
    int[] dsts = insn.kind == Insn.CALL ? insn.rets : insn.dsts;
    if (dsts.length == 0) return;
    int from = OFFSET_ANY;
    long low = 0;
    long high = 0;
    if ((insn.kind == Insn.MOVE || insn.kind == Insn.SUM) && insn.displaced && isSmall(insn.displacement)) {
      int src = abs(insn.srcs[0], base);
      from = offsetParam[src];
      if (from == OFFSET_NONE) return; // nothing known of the source yet
      low = offsetLow[src] + insn.displacement;
      high = offsetHigh[src] + insn.displacement;
    } else if (exactParameters && isWholeParameterLoad(insn, base)) {
      from = Ref.kernelParamIndex(insn.addr[0]);
    }
    for (int d : dsts) joinOffset(abs(d, base), from, low, high);
  }

  /** {@code ld.param} of a whole pointer-sized kernel parameter, at offset 0, in the kernel itself. */
  private boolean isWholeParameterLoad(Insn insn, int base) {
    if (insn.kind != Insn.LOAD || insn.space != Insn.PARAM || base != kernelBase || !insn.displaced
        || insn.displacement != 0 || insn.bytes != pointerBytes || insn.addr.length != 1
        || !Ref.isKernelParam(insn.addr[0])) {
      return false;
    }
    int k = Ref.kernelParamIndex(insn.addr[0]);
    return k < n && kernel.params.get(k).size == pointerBytes;
  }

  /** Joins {@code param + [low, high]} ({@link #OFFSET_ANY}: anything) into {@code var}'s offset state. */
  private void joinOffset(int var, int param, long low, long high) {
    if (var < 0 || isConstant(var)) return;
    int now = offsetParam[var];
    if (now == OFFSET_ANY) return;
    if (param == OFFSET_ANY || (now != OFFSET_NONE && now != param) || !isSmall(low) || !isSmall(high)) {
      offsetParam[var] = OFFSET_ANY;
    } else if (now == OFFSET_NONE) {
      offsetParam[var] = param;
      offsetLow[var] = low;
      offsetHigh[var] = high;
    } else if (low < offsetLow[var] || high > offsetHigh[var]) {
      offsetLow[var] = Math.min(low, offsetLow[var]);
      offsetHigh[var] = Math.max(high, offsetHigh[var]);
      if (++offsetChanges[var] > OFFSET_CHANGES) offsetParam[var] = OFFSET_ANY; // stepped in a loop
    } else {
      return;
    }
    enqueueReaders(var);
  }

  /**
   * Widens parameter {@code k}'s extent by the access {@code insn}: by its bytes at its address's
   * offset interval when the address is known to be {@code k} plus a constant, else to unbounded.
   */
  private void widenExtent(int k, Insn insn, int base) {
    if (extentUnbounded[k]) return;
    if (insn == null || !insn.displaced || !isSmall(insn.displacement) || insn.bytes <= 0
        || insn.addr.length != 1) {
      extentUnbounded[k] = true;
      return;
    }
    int v = abs(insn.addr[0], base);
    if (v < 0 || offsetParam[v] != k) {
      extentUnbounded[k] = true;
      return;
    }
    long low = offsetLow[v] + insn.displacement;
    long high = offsetHigh[v] + insn.displacement + insn.bytes;
    if (!isSmall(low) || !isSmall(high)) {
      extentUnbounded[k] = true;
    } else if (!extentSeen[k]) {
      extentSeen[k] = true;
      extentLow[k] = low;
      extentHigh[k] = high;
    } else {
      extentLow[k] = Math.min(low, extentLow[k]);
      extentHigh[k] = Math.max(high, extentHigh[k]);
    }
  }

  /** Whether {@code offset} is within {@link #OFFSET_LIMIT}, so that sums of two such cannot overflow. */
  private static boolean isSmall(long offset) {
    return offset >= -OFFSET_LIMIT && offset <= OFFSET_LIMIT;
  }

  /** A value derived from a parameter that is stored or passed on may be used anywhere: unbounded. */
  private void escape(int[] values, int base) {
    clear(u);
    union(u, values, base);
    for (int w = 0; w < m; w++) {
      long bits = u[1 + w] | u[1 + m + w];
      while (bits != 0) {
        extentUnbounded[(w << 6) + Long.numberOfTrailingZeros(bits)] = true;
        bits &= bits - 1;
      }
    }
  }

  private ParameterExtent extent(int k) {
    return extentSeen[k] && !extentUnbounded[k] ? ParameterExtent.of(extentLow[k], extentHigh[k])
        : ParameterExtent.UNBOUNDED;
  }

  // ---- classification -------------------------------------------------------------------------

  private void classify() {
    for (int i = 0; i < code.length; i++) {
      Insn insn = code[i];
      int base = codeBase[i];
      switch (insn.kind) {
        case Insn.LOAD:
          access(insn, insn.addr, base, insn.space, READ);
          break;
        case Insn.STORE:
          access(insn, insn.addr, base, insn.space, WRITE);
          escape(insn.srcs, base);
          break;
        case Insn.ATOMIC:
          access(insn, insn.addr, base, insn.space, (byte) (READ | WRITE));
          escape(insn.srcs, base);
          break;
        case Insn.COPY:
          access(null, insn.addr2, base, insn.space2, READ);
          access(null, insn.addr, base, insn.space, insn.reduce ? (byte) (READ | WRITE) : WRITE);
          break;
        case Insn.CALL:
          if (callees[i] == null) callAccess(insn, base);
          escape(insn.args, base);
          break;
        case Insn.OPAQUE:
          other = true;
          break;
        case Insn.FALLBACK:
          clear(a);
          union(a, insn.srcs, base);
          mark(a, (byte) (READ | WRITE), null, base);
          other = true;
          break;
        default:
          break;
      }
    }
  }

  private void callAccess(Insn insn, int base) {
    switch (callKind(insn)) {
      case Insn.CALL_ALLOC:
        return;
      case Insn.CALL_PRINT:
        prints = true;
        reachable(insn, base);
        mark(a, READ, null, base);
        if ((a[0] & F_UNKNOWN) != 0) other = true;
        return;
      default:
        reachable(insn, base);
        mark(a, (byte) (READ | WRITE), null, base);
        other = true;
    }
  }

  /** @param insn the load, store or atomic whose address {@code addr} is; null for any other access */
  private void access(Insn insn, int[] addr, int base, byte space, byte mode) {
    clear(a);
    union(a, addr, base);
    if (space == Insn.CONST) {
      // The constant space holds the module's .const variables only: whatever the address, one of them.
      if ((a[0] & F_UNKNOWN) != 0 || hasPointer(a) || !hasVariable(a)) markAnyVariable(mode);
      for (int w = 0; w < m; w++) a[1 + w] = 0; // a pointer into global memory cannot be used here
      mark(a, mode, null, base);
    } else if (space == Insn.GLOBAL || (space == Insn.GENERIC && reachesGlobal(a))) {
      mark(a, mode, insn, base);
      if ((a[0] & F_UNKNOWN) != 0 || !(hasPointer(a) || hasVariable(a))) other = true;
    }
  }

  /**
   * Marks the parameters and the module variables {@code s} may point to, and widens the
   * parameters' extents by the access {@code insn} made at {@code s} (null: an access of unknown
   * place or size, which leaves them unbounded).
   */
  private void mark(long[] s, byte mode, Insn insn, int base) {
    boolean read = (mode & READ) != 0;
    boolean write = (mode & WRITE) != 0;
    for (int w = 0; w < m; w++) {
      if (read) reads[w] |= s[1 + w];
      if (write) writes[w] |= s[1 + w];
      long bits = s[1 + w];
      while (bits != 0) {
        int k = (w << 6) + Long.numberOfTrailingZeros(bits);
        bits &= bits - 1;
        widenExtent(k, insn, base);
      }
    }
    for (int w = 0; w < g; w++) {
      if (read) variableReads[w] |= s[1 + 3 * m + w];
      if (write) variableWrites[w] |= s[1 + 3 * m + w];
    }
    if ((s[0] & F_ANY_VARIABLE) != 0) markAnyVariable(mode);
  }

  private void markAnyVariable(byte mode) {
    anyVariableRead |= (mode & READ) != 0;
    anyVariableWrite |= (mode & WRITE) != 0;
  }

}
