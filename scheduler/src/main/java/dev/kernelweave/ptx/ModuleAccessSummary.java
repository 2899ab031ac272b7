package dev.kernelweave.ptx;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/** The summaries of all kernels of one PTX module, by name. Immutable and thread-safe. */
public final class ModuleAccessSummary {
  private final List<KernelAccessSummary> kernels;
  private final Map<String, KernelAccessSummary> byName;

  public ModuleAccessSummary(List<KernelAccessSummary> kernels) {
    this.kernels = List.copyOf(kernels);
    Map<String, KernelAccessSummary> map = new HashMap<>();
    for (KernelAccessSummary k : this.kernels) map.putIfAbsent(k.name(), k);
    this.byName = Map.copyOf(map);
  }

  /** In the order of the module's text. */
  public List<KernelAccessSummary> kernels() {
    return kernels;
  }

  /** The kernel named exactly {@code name} (as {@code cuModuleGetFunction} is given it). */
  public Optional<KernelAccessSummary> kernel(String name) {
    return Optional.ofNullable(byName.get(name));
  }
}
