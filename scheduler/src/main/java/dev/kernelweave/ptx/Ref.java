package dev.kernelweave.ptx;

/**
 * Operand references that are not variables of the function: constant provenances.
 *
 * <p>A value's provenance says where an address computed from it may point. These are its
 * fixed parts; the parameters of the kernel are the variable part.
 */
final class Ref {
  private Ref() {}

  /** An immediate, a label or a sink: carries nothing. */
  static final int NOTHING = -1;
  /** A full-width value of unknown origin, for example a 64-bit load from global memory. */
  static final int UNKNOWN = -2;
  /**
   * A value narrower than a pointer from an unknown origin (a 32-bit load, a 32-bit scalar
   * parameter): used as an index, not an address, unless pieces are put back together.
   */
  static final int PART = -3;
  /** The address of a module {@code .global} variable. */
  static final int GLOBAL_SYMBOL = -4;
  /** An address in local memory (the stack, {@code .local} variables). */
  static final int LOCAL = -5;
  /** An address in shared memory. */
  static final int SHARED = -6;
  /** The address of a {@code .const} variable. */
  static final int CONST_SYMBOL = -7;

  private static final int KERNEL_PARAM_BASE = -100;

  /** The address of kernel parameter {@code k} in the parameter space. */
  static int kernelParam(int k) {
    return KERNEL_PARAM_BASE - k;
  }

  static boolean isKernelParam(int ref) {
    return ref <= KERNEL_PARAM_BASE;
  }

  static int kernelParamIndex(int ref) {
    return KERNEL_PARAM_BASE - ref;
  }
}
