package dev.kernelweave.interceptor;

import dev.kernelweave.ptx.KernelAccessSummary;
import dev.kernelweave.ptx.KernelSummaryCache;
import dev.kernelweave.ptx.ModuleAccessSummary;
import dev.kernelweave.ptx.ParameterUse;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;

/**
 * Kernels' read/write sets from a module's PTX text, analyzed once per distinct module. A cubin or
 * fatbin yields nothing: its kernels stay read-write on every pointer. Thread-safe.
 */
final class PtxKernels {

  private static final KernelSummaryCache CACHE = new KernelSummaryCache();

  private PtxKernels() {}

  /** Each entry's parameter uses, by kernel name; empty when the image is not PTX. */
  static Map<String, KernelInfo> analyze(byte[] image) {
    Optional<ModuleAccessSummary> module = CACHE.module(image);
    if (module.isEmpty()) {
      return Map.of();
    }
    Map<String, KernelInfo> kernels = new HashMap<>();
    for (KernelAccessSummary s : module.get().kernels()) {
      byte[] uses = new byte[s.parameterCount()];
      for (int i = 0; i < uses.length; i++) {
        ParameterUse use = s.use(i);
        uses[i] = use == ParameterUse.V ? KernelInfo.VALUE : (byte) use.accessMode().orElseThrow().ordinal();
      }
      kernels.put(s.name(), new KernelInfo(s.name(), uses, s.touchesOtherMemory()));
    }
    return kernels;
  }
}
