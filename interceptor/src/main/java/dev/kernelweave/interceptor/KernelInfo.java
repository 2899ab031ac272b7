package dev.kernelweave.interceptor;

import dev.kernelweave.call.AccessMode;

/**
 * What the agent knows of a kernel: its name and, when its PTX was analyzed, how it uses each
 * parameter. Immutable.
 *
 * @param name the kernel's name as passed to {@code cuModuleGetFunction}
 * @param parameterUses per parameter, an {@link AccessMode} ordinal or {@link #VALUE}; null when
 *     unknown, in which case every pointer is read-write
 * @param touchesOtherMemory the kernel may touch global memory that no parameter names: its launch
 *     is a barrier
 */
public record KernelInfo(String name, byte[] parameterUses, boolean touchesOtherMemory) {

  /** A parameter that is never used as a global memory address. */
  public static final byte VALUE = 3;

  public static KernelInfo unknown(String name) {
    return new KernelInfo(name, null, false);
  }

  /** How the kernel uses parameter {@code i}: an AccessMode ordinal, {@link #VALUE}, or read-write when unknown. */
  public int use(int i) {
    if (parameterUses == null || i >= parameterUses.length) {
      return AccessMode.READ_WRITE.ordinal();
    }
    return parameterUses[i];
  }
}
