package dev.kernelweave.ptx;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.IntConsumer;

/**
 * The state of a {@link ProvenanceAnalysis}: the kernel and the functions it calls laid out as one
 * code array, a provenance set per variable (a flag word, then the kernel parameters plain, scaled
 * and as addresses, then the module variables), and the worklist that applies instructions until
 * the sets stop growing. Not thread-safe; one instance analyses one kernel once.
 */
abstract class ProvenanceSets {

  // Flags in word 0 of a set.
  protected static final long F_UNKNOWN = 1;
  protected static final long F_SCALED_UNKNOWN = 2;
  protected static final long F_PART = 4;
  /** The address of some module variable, which one not known. */
  protected static final long F_ANY_VARIABLE = 8;
  protected static final long F_LOCAL = 16;
  protected static final long F_SHARED = 32;
  /** A module variable's address scaled by a constant: an index, unless the scaling is undone. */
  protected static final long F_SCALED_VARIABLE = 64;
  /**
   * Arithmetic mixed this value's pointer provenances with another address ({@code b - a}, {@code a ^ b}):
   * it may be a distance between allocations, so a scaling ({@code (b - a) / 4 * 4}) leaves its
   * pointers and module variables plain instead of making them an index.
   */
  protected static final long F_MIXED = 128;
  protected static final long F_REGIONS = F_LOCAL | F_SHARED;

  // Variables that are not the functions' own. Up to V_PARAM_SPACE, they never change.
  private static final int V_UNKNOWN = 0;
  private static final int V_PART = 1;
  private static final int V_ANY_VARIABLE = 2;
  private static final int V_LOCAL = 3;
  private static final int V_SHARED = 4;
  /** Every parameter's address: see {@link Ref#PARAM_SPACE}. */
  private static final int V_PARAM_SPACE = 5;
  protected static final int V_LOCAL_CONTENT = 6;
  protected static final int V_SHARED_CONTENT = 7;
  /** Read by whatever reads some parameter's content: woken when any of them changes. */
  private static final int V_PARAM_CONTENT_ANY = 8;
  private static final int V_FIXED = 9;

  protected final PtxModule module;
  protected final PtxFunction kernel;
  protected final int n;
  protected final int m;
  /** Module variables, and words of their bits in a set. */
  protected final int nv;
  protected final int g;
  protected final int words;
  protected final int pointerBytes;

  protected final Map<PtxFunction, Integer> bases = new HashMap<>();
  protected int kernelBase;
  protected Insn[] code;
  protected int[] codeBase;
  protected PtxFunction[] callees;
  protected int[] calleeBase;
  protected int varCount;
  private long[] val;
  private int[] readerStart;
  private int[] readers;

  protected int[] queue;
  protected boolean[] queued;
  private int head;
  private int size;

  protected final long[] a;
  protected final long[] t;
  protected final long[] u;

  ProvenanceSets(PtxModule module, PtxFunction kernel) {
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
  }

  // ---- layout ---------------------------------------------------------------------------------

  private int paramRef(int k) {
    return V_FIXED + k;
  }

  protected int paramContent(int k) {
    return V_FIXED + n + k;
  }

  private int variableRef(int j) {
    return V_FIXED + 2 * n + j;
  }

  private boolean pointerCapable(int k) {
    int size = kernel.params.get(k).size;
    return size == 0 || size >= pointerBytes;
  }

  protected void layOut() {
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

  protected int abs(int ref, int base) {
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

  /**
   * Applies {@code transfer} to every instruction, then again to the readers of every variable it
   * changes ({@link #enqueueReaders}), until nothing changes.
   */
  protected void runToFixpoint(IntConsumer transfer) {
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

  protected void enqueueReaders(int var) {
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
  protected void join(int var, long[] set) {
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

  protected boolean isConstant(int var) {
    return var < 0 || var <= V_PARAM_SPACE || var == V_PARAM_CONTENT_ANY || (var >= V_FIXED && var < V_FIXED + n)
        || (var >= V_FIXED + 2 * n && var < V_FIXED + 2 * n + nv);
  }

  protected void load(long[] into, int var) {
    if (var < 0) return;
    int o = var * words;
    for (int w = 0; w < words; w++) into[w] |= val[o + w];
  }

  protected static void clear(long[] s) {
    java.util.Arrays.fill(s, 0);
  }

  protected void union(long[] into, int[] refs, int base) {
    for (int r : refs) load(into, abs(r, base));
  }

  protected boolean hasPointer(long[] s) {
    for (int w = 0; w < m; w++) if (s[1 + w] != 0) return true;
    return false;
  }

  /** Whether {@code s} may be the address of a module variable. */
  protected boolean hasVariable(long[] s) {
    if ((s[0] & F_ANY_VARIABLE) != 0) return true;
    for (int w = 1 + 3 * m; w < words; w++) if (s[w] != 0) return true;
    return false;
  }

  protected boolean hasParamRef(long[] s) {
    for (int w = 0; w < m; w++) if (s[1 + 2 * m + w] != 0) return true;
    return false;
  }

  /**
   * The first parameter from {@code k} on whose address {@code s} may hold, or -1. Walks a set's
   * parameter references: {@code for (int k = nextParamRef(s, 0); k >= 0; k = nextParamRef(s, k + 1))}.
   */
  protected int nextParamRef(long[] s, int k) {
    for (int w = k >>> 6; w < m; w++) {
      long bits = s[1 + 2 * m + w];
      if (w == k >>> 6) bits &= -1L << k; // the shift takes k modulo 64: the bits from k on in its word
      if (bits != 0) return (w << 6) + Long.numberOfTrailingZeros(bits);
    }
    return -1;
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
