package dev.kernelweave.ptx;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The summaries of all kernels of one PTX module, by name, and the module's variables. Immutable
 * and thread-safe.
 */
public final class ModuleAccessSummary {
  private final List<KernelAccessSummary> kernels;
  private final Map<String, KernelAccessSummary> byName;
  private final List<ModuleVariable> variables;

  /** A module without variables. */
  public ModuleAccessSummary(List<KernelAccessSummary> kernels) {
    this(kernels, List.of());
  }

  public ModuleAccessSummary(List<KernelAccessSummary> kernels, List<ModuleVariable> variables) {
    this.variables = List.copyOf(variables);
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

  /**
   * Its {@code .global} and {@code .const} variables, each once, in the order of the text: the
   * names a kernel's {@link KernelAccessSummary#moduleVariables()} use, and what its
   * {@link KernelAccessSummary#anyModuleVariable()} covers.
   */
  public List<ModuleVariable> variables() {
    return variables;
  }
}
