package dev.kernelweave.interceptor.cublas;

import jcuda.driver.CUdeviceptr;
import jcuda.jcublas.cublasHandle;
import jcuda.runtime.cudaStream_t;

/**
 * The CUDA and cuBLAS calls {@link ShadowHandles} makes, on the agent's own handles only: JCuda's
 * natives in the agent ({@link JCudaShadowNatives}), a recording fake in tests. Each returns the
 * status code of the call (0 for success).
 */
interface ShadowNatives {

  int create(cublasHandle handle);

  /** cuBLAS documents that destroying a handle synchronizes the device. */
  int destroy(cublasHandle handle);

  /** Also puts the handle back on cuBLAS's default workspace. */
  int setStream(cublasHandle handle, cudaStream_t stream);

  int set(cublasHandle handle, BlasSetting setting, int value);

  /** Reads a setting into {@code value[0]}. */
  int get(cublasHandle handle, BlasSetting setting, int[] value);

  /** {@code workspace} is null when {@code bytes} is 0. */
  int setWorkspace(cublasHandle handle, CUdeviceptr workspace, long bytes);

  int allocate(CUdeviceptr pointer, long bytes);

  int free(CUdeviceptr pointer);

  /** The host waits until the stream's work so far is done. */
  int synchronize(cudaStream_t stream);

  /** Stream {@code waiting} waits, on the device, for what stream {@code on} has queued so far. */
  int order(long waiting, long on);
}
