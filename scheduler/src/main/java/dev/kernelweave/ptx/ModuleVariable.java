package dev.kernelweave.ptx;

import java.util.Objects;

/**
 * A variable declared at module scope in the {@code .global} or {@code .const} state space: a
 * CUDA {@code __device__} or {@code __constant__} variable, or a string of {@code printf}. It
 * lives as long as its module and is shared by all the module's kernels and by the host, which
 * reaches it by name through {@code cuModuleGetGlobal}. Immutable.
 *
 * @param name as the module spells it (mangled for C++), which is what {@code cuModuleGetGlobal}
 *     takes
 * @param constant declared {@code .const}: kernels only read it
 */
public record ModuleVariable(String name, boolean constant) {
  public ModuleVariable {
    Objects.requireNonNull(name, "name");
  }
}
