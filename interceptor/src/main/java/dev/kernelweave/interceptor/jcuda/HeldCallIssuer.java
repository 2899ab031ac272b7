package dev.kernelweave.interceptor.jcuda;

import dev.kernelweave.call.CallRecord;
import jcuda.driver.CUstream;

/**
 * Issues the held calls that are not kernel launches (cuBLAS routines) for {@link JCudaGraphDevice}:
 * each library registers its own with the interceptor's state ({@code InterceptedLibraries}), so
 * that the graph device names no class of a library the application may not have.
 */
public interface HeldCallIssuer {

  /**
   * Makes ready, before a capture begins, what issuing {@code call} on {@code stream} needs (a
   * cuBLAS handle bound to the stream): nothing may be created while a stream captures.
   *
   * @return 0, or the library's error: the call cannot be captured on that stream
   */
  int prepare(CallRecord call, CUstream stream);

  /**
   * Issues the call on {@code stream} as the application made it.
   *
   * @return 0, or the library's error
   */
  int issue(CallRecord call, CUstream stream);
}
