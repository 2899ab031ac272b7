package dev.kernelweave.interceptor;

/**
 * The JCuda libraries the agent intercepts, as they register with an {@link AgentState} ({@link
 * InterceptedLibraries}): names, never their classes, so that the core names no class of a library
 * the application may not have. Intercepting one more library that keeps state of its own, issues
 * held calls or undoes something when scheduling stops adds its constant here.
 */
public enum JCudaLibrary {
  /** {@code jcuda.driver.JCudaDriver}. */
  DRIVER,
  /** {@code jcuda.runtime.JCuda}. */
  RUNTIME,
  /** {@code jcuda.jcublas.JCublas2}. */
  CUBLAS
}
