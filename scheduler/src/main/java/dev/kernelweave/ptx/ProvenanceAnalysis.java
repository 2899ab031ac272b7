package dev.kernelweave.ptx;

import dev.kernelweave.scheduler.Mutant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.IntConsumer;

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
 */
final class ProvenanceAnalysis {

  /** False only for the fuzz's mutant that loses the provenance of a pointer difference. */
  private static final boolean SEES_MIXED_ADDRESSES = Mutant.ofSystemProperty() != Mutant.POINTER_DIFFERENCE_LOST;

  // Flags in word 0 of a set.
  private static final long F_UNKNOWN = 1;
  private static final long F_SCALED_UNKNOWN = 2;
  private static final long F_PART = 4;
  /** The address of some module variable, which one not known. */
  private static final long F_ANY_VARIABLE = 8;
  private static final long F_LOCAL = 16;
  private static final long F_SHARED = 32;
  /** A module variable's address scaled by a constant: an index, unless the scaling is undone. */
  private static final long F_SCALED_VARIABLE = 64;
  /**
   * Arithmetic mixed this value's pointer provenances with another address ({@code b - a}, {@code a ^ b}):
   * it may be a distance between allocations, so a scaling ({@code (b - a) / 4 * 4}) leaves its
   * pointers and module variables plain instead of making them an index.
   */
  private static final long F_MIXED = 128;
  private static final long F_REGIONS = F_LOCAL | F_SHARED;

  // Variables that are not the functions' own. Up to V_PARAM_SPACE, they never change.
  private static final int V_UNKNOWN = 0;
  private static final int V_PART = 1;
  private static final int V_ANY_VARIABLE = 2;
  private static final int V_LOCAL = 3;
  private static final int V_SHARED = 4;
  /** Every parameter's address: see {@link Ref#PARAM_SPACE}. */
  private static final int V_PARAM_SPACE = 5;
  private static final int V_LOCAL_CONTENT = 6;
  private static final int V_SHARED_CONTENT = 7;
  /** Read by whatever reads some parameter's content: woken when any of them changes. */
  private static final int V_PARAM_CONTENT_ANY = 8;
  private static final int V_FIXED = 9;

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

  private final PtxModule module;
  private final PtxFunction kernel;
  private final int n;
  private final int m;
  /** Module variables, and words of their bits in a set. */
  private final int nv;
  private final int g;
  private final int words;
  private final int pointerBytes;

  private final Map<PtxFunction, Integer> bases = new HashMap<>();
  private int kernelBase;
  private Insn[] code;
  private int[] codeBase;
  private PtxFunction[] callees;
  private int[] calleeBase;
  private int varCount;
  private long[] val;
  private int[] readerStart;
  private int[] readers;

  private int[] queue;
  private boolean[] queued;
  private int head;
  private int size;

  private final long[] a;
  private final long[] t;
  private final long[] u;
  private final long[] seen;
  private final long[] twice;

  private final long[] reads;
  private final long[] writes;
  private final long[] variableReads;
  private final long[] variableWrites;
  private boolean anyVariableRead;
  private boolean anyVariableWrite;
  private boolean other;
  /** A call prints: see {@link KernelAccessSummary#prints()}. */
  private boolean prints;

  /** Some store or call may write a kernel parameter's slot: see {@link #parameterSpaceIsExact()}. */
  private boolean parametersWritten;
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

  private ProvenanceAnalysis(PtxModule module, PtxFunction kernel) {
    this.module = module;
    this.kernel = kernel;
    this.n = kernel.params.size();
    this.m = (n + 63) >>> 6;
    this.nv = module.variables.size();
    this.g = (nv + 63) >>> 6;
    this.words = 1 + 3 * m + g;
    this.pointerBytes = module.pointerBytes;
    this.a = new long[words];
    this.t = new long[words];
    this.u = new long[words];
    this.seen = new long[words];
    this.twice = new long[words];
    this.reads = new long[m];
    this.writes = new long[m];
    this.variableReads = new long[g];
    this.variableWrites = new long[g];
    this.extentSeen = new boolean[n];
    this.extentUnbounded = new boolean[n];
    this.extentLow = new long[n];
    this.extentHigh = new long[n];
  }

  static KernelAccessSummary analyze(PtxModule module, PtxFunction kernel) {
    int[] sizes = new int[kernel.params.size()];
    for (int k = 0; k < sizes.length; k++) sizes[k] = kernel.params.get(k).size;
    try {
      ProvenanceAnalysis analysis = new ProvenanceAnalysis(module, kernel);
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

  // ---- layout ---------------------------------------------------------------------------------

  private int paramRef(int k) {
    return V_FIXED + k;
  }

  private int paramContent(int k) {
    return V_FIXED + n + k;
  }

  private int variableRef(int j) {
    return V_FIXED + 2 * n + j;
  }

  private boolean pointerCapable(int k) {
    int size = kernel.params.get(k).size;
    return size == 0 || size >= pointerBytes;
  }

  private void layOut() {
    List<PtxFunction> order = new ArrayList<>();
    int next = V_FIXED + 2 * n + nv;
    order.add(kernel);
    kernelBase = next;
    bases.put(kernel, next);
    next += kernel.varCount;
    for (int i = 0; i < order.size(); i++) {
      for (Insn insn : order.get(i).insns) {
        if (insn.kind != Insn.CALL || insn.callKind != Insn.CALL_DIRECT) continue;
        PtxFunction f = module.functions.get(insn.callee);
        if (f != null && f.defined && !bases.containsKey(f)) {
          bases.put(f, next);
          next += f.varCount;
          order.add(f);
        }
      }
    }
    varCount = next;
    int total = 0;
    for (PtxFunction f : order) total += f.insns.size();
    code = new Insn[total];
    codeBase = new int[total];
    callees = new PtxFunction[total];
    calleeBase = new int[total];
    int c = 0;
    for (PtxFunction f : order) {
      int base = bases.get(f);
      for (Insn insn : f.insns) {
        code[c] = insn;
        codeBase[c] = base;
        if (insn.kind == Insn.CALL && insn.callKind == Insn.CALL_DIRECT) {
          PtxFunction callee = module.functions.get(insn.callee);
          if (callee != null && callee.defined && !callee.entry
              && callee.params.size() == insn.args.length && callee.returns.size() == insn.rets.length) {
            callees[c] = callee;
            calleeBase[c] = bases.get(callee);
          }
        }
        c++;
      }
    }

    val = new long[varCount * words];
    set(V_UNKNOWN, 0, F_UNKNOWN);
    set(V_PART, 0, F_PART);
    set(V_ANY_VARIABLE, 0, F_ANY_VARIABLE);
    set(V_LOCAL, 0, F_LOCAL);
    set(V_SHARED, 0, F_SHARED);
    for (int j = 0; j < nv; j++) set(variableRef(j), 1 + 3 * m + (j >>> 6), 1L << j);
    for (int k = 0; k < n; k++) {
      set(V_PARAM_SPACE, 1 + 2 * m + (k >>> 6), 1L << k);
      set(paramRef(k), 1 + 2 * m + (k >>> 6), 1L << k);
      if (pointerCapable(k)) set(paramContent(k), 1 + (k >>> 6), 1L << k);
      else set(paramContent(k), 0, F_PART);
    }
    buildReaders();
  }

  private void set(int var, int word, long bits) {
    val[var * words + word] |= bits;
  }

  private int abs(int ref, int base) {
    if (ref >= 0) return base + ref;
    switch (ref) {
      case Ref.UNKNOWN:
        return V_UNKNOWN;
      case Ref.PART:
        return V_PART;
      case Ref.ANY_MODULE_VARIABLE:
        return V_ANY_VARIABLE;
      case Ref.LOCAL:
        return V_LOCAL;
      case Ref.SHARED:
        return V_SHARED;
      case Ref.PARAM_SPACE:
        return base == kernelBase ? V_PARAM_SPACE : V_UNKNOWN;
      case Ref.NOTHING:
        return -1;
      default:
        if (Ref.isModuleVariable(ref)) {
          int j = Ref.moduleVariableIndex(ref);
          return j < nv ? variableRef(j) : V_ANY_VARIABLE;
        }
        if (Ref.isKernelParam(ref)) {
          int k = Ref.kernelParamIndex(ref);
          return k < n && base == kernelBase ? paramRef(k) : V_UNKNOWN;
        }
        return V_UNKNOWN;
    }
  }

  private void buildReaders() {
    int[] count = new int[varCount + 1];
    List<int[]> readLists = new ArrayList<>(code.length);
    for (int i = 0; i < code.length; i++) {
      int[] r = readsOf(i);
      readLists.add(r);
      for (int v : r) if (v >= 0) count[v]++;
    }
    readerStart = new int[varCount + 1];
    for (int v = 0; v < varCount; v++) readerStart[v + 1] = readerStart[v] + count[v];
    readers = new int[readerStart[varCount]];
    int[] fill = new int[varCount];
    for (int i = 0; i < code.length; i++) {
      for (int v : readLists.get(i)) if (v >= 0) readers[readerStart[v] + fill[v]++] = i;
    }
  }

  private int[] readsOf(int i) {
    Insn insn = code[i];
    int base = codeBase[i];
    IntList r = new IntList();
    switch (insn.kind) {
      case Insn.MOVE:
      case Insn.SUM:
      case Insn.FALLBACK:
        for (int s : insn.srcs) r.add(abs(s, base));
        break;
      case Insn.LOAD:
      case Insn.STORE:
      case Insn.ATOMIC:
        for (int s : insn.addr) r.add(abs(s, base));
        for (int s : insn.srcs) r.add(abs(s, base));
        if (insn.paramVar >= 0) r.add(base + insn.paramVar);
        r.add(V_LOCAL_CONTENT);
        r.add(V_SHARED_CONTENT);
        r.add(V_PARAM_CONTENT_ANY);
        break;
      case Insn.CALL:
        for (int s : insn.args) r.add(abs(s, base));
        if (callees[i] != null) {
          for (PtxFunction.Param p : callees[i].returns) r.add(calleeBase[i] + p.var);
        } else {
          r.add(V_LOCAL_CONTENT);
          r.add(V_SHARED_CONTENT);
          r.add(V_PARAM_CONTENT_ANY);
        }
        break;
      default:
        break;
    }
    return r.toArray();
  }

  // ---- fixpoint -------------------------------------------------------------------------------

  private void solve() {
    queue = new int[Math.max(1, code.length)];
    queued = new boolean[code.length];
    runToFixpoint(this::transfer);
  }

  /**
   * Applies {@code transfer} to every instruction, then again to the readers of every variable it
   * changes ({@link #enqueueReaders}), until nothing changes.
   */
  private void runToFixpoint(IntConsumer transfer) {
    for (int i = 0; i < code.length; i++) {
      queue[i] = i;
      queued[i] = true;
    }
    head = 0;
    size = code.length;
    while (size > 0) {
      int i = queue[head];
      head = (head + 1) % queue.length;
      size--;
      queued[i] = false;
      transfer.accept(i);
    }
  }

  private void enqueueReaders(int var) {
    for (int r = readerStart[var]; r < readerStart[var + 1]; r++) {
      int i = readers[r];
      if (!queued[i]) {
        queued[i] = true;
        queue[(head + size) % queue.length] = i;
        size++;
      }
    }
  }

  /** {@code var |= set}, waking the readers of {@code var} if it grew. */
  private void join(int var, long[] set) {
    if (isConstant(var)) return;
    int o = var * words;
    boolean changed = false;
    for (int w = 0; w < words; w++) {
      long next = val[o + w] | set[w];
      if (next != val[o + w]) {
        val[o + w] = next;
        changed = true;
      }
    }
    if (changed) {
      enqueueReaders(var);
      if (var >= V_FIXED + n && var < V_FIXED + 2 * n) enqueueReaders(V_PARAM_CONTENT_ANY);
    }
  }

  private boolean isConstant(int var) {
    return var < 0 || var <= V_PARAM_SPACE || var == V_PARAM_CONTENT_ANY || (var >= V_FIXED && var < V_FIXED + n)
        || (var >= V_FIXED + 2 * n && var < V_FIXED + 2 * n + nv);
  }

  private void load(long[] into, int var) {
    if (var < 0) return;
    int o = var * words;
    for (int w = 0; w < words; w++) into[w] |= val[o + w];
  }

  private static void clear(long[] s) {
    java.util.Arrays.fill(s, 0);
  }

  private void union(long[] into, int[] refs, int base) {
    for (int r : refs) load(into, abs(r, base));
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
        if (insn.space == Insn.SHARED) join(V_SHARED_CONTENT, t);
        else if (insn.space == Insn.LOCAL) join(V_LOCAL_CONTENT, t);
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
    if (SEES_MIXED_ADDRESSES && mixesAddresses(insn.srcs, insn.termFlags, base)) t[0] |= F_MIXED;
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

  private boolean hasPointer(long[] s) {
    for (int w = 0; w < m; w++) if (s[1 + w] != 0) return true;
    return false;
  }

  /** Whether {@code s} may be the address of a module variable. */
  private boolean hasVariable(long[] s) {
    if ((s[0] & F_ANY_VARIABLE) != 0) return true;
    for (int w = 1 + 3 * m; w < words; w++) if (s[w] != 0) return true;
    return false;
  }

  private boolean hasParamRef(long[] s) {
    for (int w = 0; w < m; w++) if (s[1 + 2 * m + w] != 0) return true;
    return false;
  }

  /** Joins the content of every parameter whose address {@code s} may hold into {@code into}. */
  private void paramContents(long[] s, long[] into) {
    for (int w = 0; w < m; w++) {
      long bits = s[1 + 2 * m + w];
      while (bits != 0) {
        int k = (w << 6) + Long.numberOfTrailingZeros(bits);
        bits &= bits - 1;
        load(into, paramContent(k));
      }
    }
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
      case Insn.LOCAL:
        load(out, V_LOCAL_CONTENT);
        break;
      case Insn.SHARED:
        load(out, V_SHARED_CONTENT);
        break;
      case Insn.GENERIC:
        if ((a[0] & F_LOCAL) != 0) load(out, V_LOCAL_CONTENT);
        if ((a[0] & F_SHARED) != 0) load(out, V_SHARED_CONTENT);
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
  private boolean reachesGlobal(long[] s) {
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
      case Insn.LOCAL:
        join(V_LOCAL_CONTENT, t);
        break;
      case Insn.SHARED:
        join(V_SHARED_CONTENT, t);
        break;
      case Insn.GENERIC:
        writeRegions(a, t);
        break;
      default:
        break;
    }
  }

  /** Joins {@code value} into every region whose address {@code s} may hold. */
  private void writeRegions(long[] s, long[] value) {
    if ((s[0] & F_LOCAL) != 0) join(V_LOCAL_CONTENT, value);
    if ((s[0] & F_SHARED) != 0) join(V_SHARED_CONTENT, value);
    writeParamContents(s, value);
  }

  private void writeParamContents(long[] s, long[] value) {
    for (int w = 0; w < m; w++) {
      long bits = s[1 + 2 * m + w];
      parametersWritten |= bits != 0;
      while (bits != 0) {
        int k = (w << 6) + Long.numberOfTrailingZeros(bits);
        bits &= bits - 1;
        join(paramContent(k), value);
      }
    }
  }

  /** Everything reachable from the arguments through the regions they point to, into {@link #a}. */
  private void reachable(Insn insn, int base) {
    clear(a);
    union(a, insn.args, base);
    boolean grew = true;
    while (grew) {
      System.arraycopy(a, 0, u, 0, words);
      if ((a[0] & F_LOCAL) != 0) load(a, V_LOCAL_CONTENT);
      if ((a[0] & F_SHARED) != 0) load(a, V_SHARED_CONTENT);
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

  private byte callKind(Insn insn) {
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

  /** A growable int array. */
  private static final class IntList {
    private int[] items = new int[8];
    private int size;

    void add(int v) {
      if (size == items.length) items = java.util.Arrays.copyOf(items, size * 2);
      items[size++] = v;
    }

    int[] toArray() {
      return java.util.Arrays.copyOf(items, size);
    }
  }
}
