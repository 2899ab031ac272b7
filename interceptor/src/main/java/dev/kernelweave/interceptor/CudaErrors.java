package dev.kernelweave.interceptor;

/** CUDA driver error codes the agent acts on. */
final class CudaErrors {

  private CudaErrors() {}

  /**
   * Whether {@code code} is a sticky error: the context is unusable once it occurred, and every
   * later call of the context returns it (an illegal address, a failed or timed-out launch, a
   * faulting instruction, an uncorrectable ECC error).
   */
  static boolean isSticky(int code) {
    return code == 214 // CUDA_ERROR_ECC_UNCORRECTABLE
        || code == 700 // CUDA_ERROR_ILLEGAL_ADDRESS
        || code == 702 // CUDA_ERROR_LAUNCH_TIMEOUT
        || code >= 714 && code <= 719; // hardware stack error .. CUDA_ERROR_LAUNCH_FAILED
  }
}
