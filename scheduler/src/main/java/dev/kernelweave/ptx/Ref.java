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
  /**
   * The address of some {@code .global} or {@code .const} variable whose name is not known (one
   * declared inside a function): any module variable.
   */
  static final int ANY_MODULE_VARIABLE = -4;
  /** An address in local memory (the stack, {@code .local} variables). */
  static final int LOCAL = -5;
  /** An address in shared memory. */
  static final int SHARED = -6;
  /**
   * An address somewhere in the kernel's parameter space: a parameter's name used as a value
   * ({@code mov %rd, k_p0}, then {@code cvta.param}) or a parameter access at a computed address.
   * Parameters lie side by side there, so such an address reaches every one of them.
   */
  static final int PARAM_SPACE = -7;

  private static final int KERNEL_PARAM_BASE = -100;
  /** Module variables take the references below kernel parameters' (at most 2^29 parameters). */
  private static final int MODULE_VARIABLE_BASE = -(1 << 29);

  /** The address of kernel parameter {@code k} in the parameter space. */
  static int kernelParam(int k) {
    return KERNEL_PARAM_BASE - k;
  }

  static boolean isKernelParam(int ref) {
    return ref <= KERNEL_PARAM_BASE && ref > MODULE_VARIABLE_BASE;
  }

  static int kernelParamIndex(int ref) {
    return KERNEL_PARAM_BASE - ref;
  }

  /** The address of module variable {@code j} ({@link PtxModule#variables}). */
  static int moduleVariable(int j) {
    return MODULE_VARIABLE_BASE - j;
  }

  static boolean isModuleVariable(int ref) {
    return ref <= MODULE_VARIABLE_BASE;
  }

  static int moduleVariableIndex(int ref) {
    return MODULE_VARIABLE_BASE - ref;
  }
}
