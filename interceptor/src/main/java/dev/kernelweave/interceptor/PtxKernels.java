package dev.kernelweave.interceptor;

import dev.kernelweave.ptx.KernelAccessSummary;
import dev.kernelweave.ptx.KernelSummaryCache;
import dev.kernelweave.ptx.MergedKernel;
import dev.kernelweave.ptx.ModuleAccessSummary;
import dev.kernelweave.ptx.ModuleVariable;
import dev.kernelweave.ptx.ParameterExtent;
import dev.kernelweave.ptx.ParameterUse;
import dev.kernelweave.scheduler.OrderingRules;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Kernels' read/write sets from a module's PTX text, analyzed once per distinct module, and the
 * module's variables they use. A cubin or fatbin yields nothing: its kernels stay unknown, and
 * launching one is a barrier. Thread-safe.
 */
final class PtxKernels {

  /**
   * A cache, not state: the summaries are a pure function of the PTX text (and of the ordering
   * rules, fixed for the run), so every {@link AgentState} of this class loader may share them
   * (bounded, see {@link KernelSummaryCache}); what a state knows of its modules is in {@link
   * AgentState#kernelsByModule}.
   */
  private static final KernelSummaryCache CACHE =
      new KernelSummaryCache(KernelSummaryCache.DEFAULT_MAXIMUM_MODULES, Interception.rules());
  /** {@link OrderingRules.Rule#PRINTING_KERNELS_ARE_BARRIERS}: true but in the fuzz's broken agent. */
  private static final boolean PRINTS_ARE_BARRIERS =
      Interception.rules().keeps(OrderingRules.Rule.PRINTING_KERNELS_ARE_BARRIERS);

  private PtxKernels() {}

  /** Finds a module variable by name, as {@code cuModuleGetGlobal} does. */
  @FunctionalInterface
  interface VariableFinder {
    /** Puts the address in {@code into[0]} and the size in {@code into[1]}; false when not found. */
    boolean find(String name, long[] into);
  }

  /** A module variable found: where it is and how large. */
  record Variable(String name, long address, long size) {}

  /**
   * One loaded module: its kernels by name, and its variables that were found, which the caller
   * tracks as allocations so that the kernels' accesses to them resolve.
   */
  record Loaded(Map<String, KernelInfo> kernels, List<Variable> variables) {
    static final Loaded NOTHING = new Loaded(Map.of(), List.of());
  }

  /** The merged variants of the kernels of a module's PTX text, by kernel name, generated once per text. */
  static Map<String, MergedKernel> mergedVariants(String ptx) {
    return CACHE.mergedAll(ptx);
  }

  /** Each entry's parameter and module-variable uses, by kernel name; nothing when the image is not PTX. */
  static Loaded analyze(byte[] image, VariableFinder finder) {
    Optional<ModuleAccessSummary> module = CACHE.module(image);
    return module.isEmpty() ? Loaded.NOTHING : resolve(module.get(), finder);
  }

  /**
   * Ties the kernels' variable uses to the variables' addresses. A variable that cannot be found
   * (the host cannot reach it either) is left out when no kernel may write it; the kernels that use
   * one that some kernel may write are barriers, as are kernels that may use any variable while one
   * cannot be found.
   */
  static Loaded resolve(ModuleAccessSummary module, VariableFinder finder) {
    List<ModuleVariable> declared = module.variables();
    Map<String, Variable> found = new LinkedHashMap<>();
    long[] into = new long[2];
    for (ModuleVariable v : declared) {
      into[0] = 0;
      into[1] = 0;
      if (finder.find(v.name(), into) && into[0] != 0) {
        found.put(v.name(), new Variable(v.name(), into[0], Math.max(1, into[1])));
      }
    }
    boolean anyWriter = false;
    Set<String> written = new HashSet<>();
    for (KernelAccessSummary s : module.kernels()) {
      anyWriter |= s.anyModuleVariable().writes();
      s.moduleVariables().forEach((name, use) -> {
        if (use.writes()) written.add(name);
      });
    }
    boolean someMissing = found.size() < declared.size();
    Map<String, KernelInfo> kernels = new HashMap<>();
    for (KernelAccessSummary s : module.kernels()) {
      // A printing kernel is a barrier: its output keeps its place among every other launch's and
      // reaches the host at the synchronization that follows it, as without the agent.
      boolean barrier = s.touchesOtherMemory() || s.prints() && PRINTS_ARE_BARRIERS
          || (someMissing && s.anyModuleVariable() != ParameterUse.V);
      Map<Variable, ParameterUse> uses = new LinkedHashMap<>();
      if (s.anyModuleVariable() != ParameterUse.V) {
        for (Variable v : found.values()) uses.put(v, s.anyModuleVariable());
      }
      for (Map.Entry<String, ParameterUse> e : s.moduleVariables().entrySet()) {
        Variable v = found.get(e.getKey());
        if (v == null) {
          barrier |= anyWriter || written.contains(e.getKey());
        } else {
          uses.merge(v, e.getValue(), PtxKernels::union);
        }
      }
      long[] addresses = new long[uses.size()];
      byte[] modes = new byte[uses.size()];
      int i = 0;
      for (Map.Entry<Variable, ParameterUse> e : uses.entrySet()) {
        addresses[i] = e.getKey().address();
        modes[i++] = (byte) e.getValue().accessMode().orElseThrow().ordinal();
      }
      kernels.put(s.name(), new KernelInfo(s.name(), parameterUses(s), barrier, addresses, modes, parameterExtents(s),
          forwardLimits(s)));
    }
    return new Loaded(kernels, new ArrayList<>(found.values()));
  }

  private static ParameterUse union(ParameterUse a, ParameterUse b) {
    return ParameterUse.of(a.reads() || b.reads(), a.writes() || b.writes());
  }

  /** {@link KernelInfo#parameterExtents()} of the summary's; null when none is bounded. */
  private static long[] parameterExtents(KernelAccessSummary s) {
    long[] extents = null;
    for (int i = 0; i < s.parameterCount(); i++) {
      ParameterExtent e = s.extent(i);
      if (!e.isBounded()) {
        continue;
      }
      if (extents == null) {
        extents = new long[2 * s.parameterCount()];
      }
      extents[2 * i] = e.start();
      extents[2 * i + 1] = e.end();
    }
    return extents;
  }

  /** {@link KernelInfo#forwardLimits()} of the summary's; null when none is proven. */
  private static long[] forwardLimits(KernelAccessSummary s) {
    long[] limits = null;
    for (int i = 0; i < s.parameterCount(); i++) {
      if (s.forwardLimit(i) == 0) {
        continue;
      }
      if (limits == null) {
        limits = new long[s.parameterCount()];
      }
      limits[i] = s.forwardLimit(i);
    }
    return limits;
  }

  private static byte[] parameterUses(KernelAccessSummary s) {
    byte[] uses = new byte[s.parameterCount()];
    for (int i = 0; i < uses.length; i++) {
      ParameterUse use = s.use(i);
      uses[i] = use == ParameterUse.V ? KernelInfo.VALUE : (byte) use.accessMode().orElseThrow().ordinal();
    }
    return uses;
  }
}
