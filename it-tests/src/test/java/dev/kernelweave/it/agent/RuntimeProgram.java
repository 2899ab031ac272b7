package dev.kernelweave.it.agent;

import static jcuda.driver.JCudaDriver.cuInit;
import static jcuda.driver.JCudaDriver.cuLaunchKernel;
import static jcuda.runtime.JCuda.cudaDeviceSynchronize;
import static jcuda.runtime.JCuda.cudaFree;
import static jcuda.runtime.JCuda.cudaFreeHost;
import static jcuda.runtime.JCuda.cudaGetDeviceCount;
import static jcuda.runtime.JCuda.cudaMalloc;
import static jcuda.runtime.JCuda.cudaMallocHost;
import static jcuda.runtime.JCuda.cudaMemcpy;
import static jcuda.runtime.JCuda.cudaMemcpyAsync;
import static jcuda.runtime.JCuda.cudaMemset;
import static jcuda.runtime.JCuda.cudaSetDevice;
import static jcuda.runtime.JCuda.cudaStreamCreate;
import static jcuda.runtime.JCuda.cudaStreamSynchronize;
import static jcuda.runtime.cudaMemcpyKind.cudaMemcpyDeviceToDevice;
import static jcuda.runtime.cudaMemcpyKind.cudaMemcpyDeviceToHost;
import static jcuda.runtime.cudaMemcpyKind.cudaMemcpyHostToDevice;

import java.nio.ByteOrder;
import jcuda.Pointer;
import jcuda.driver.CUfunction;
import jcuda.driver.JCudaDriver;
import jcuda.runtime.JCuda;
import jcuda.runtime.cudaStream_t;

/**
 * A program written against the runtime API, with the driver API only to launch: cudaMalloc,
 * synchronous and asynchronous cudaMemcpy (into page-locked memory on a stream of its own, read
 * after cudaStreamSynchronize), cudaMemset, cudaDeviceSynchronize, cudaFree. Prints its results.
 */
public final class RuntimeProgram {

  public static void main(String[] args) throws Exception {
    int chains = 4;
    int kernels = 24;
    int n = 4096;
    long bytes = 4L * n;
    try {
      JCuda.setExceptionsEnabled(true);
      JCudaDriver.setExceptionsEnabled(true);
      int[] count = {0};
      cudaGetDeviceCount(count);
      if (count[0] == 0) {
        throw new IllegalStateException("no CUDA device");
      }
    } catch (Throwable t) {
      System.out.println("no GPU: " + t);
      System.exit(SmokePrograms.NO_GPU);
    }
    cudaSetDevice(0);
    cudaFree(new Pointer());
    cuInit(0);
    CUfunction axpb = SmokePrograms.function(SmokePrograms.loadSmokeModule(), "axpb");
    float[] input = new float[n];
    for (int i = 0; i < n; i++) {
      input[i] = (i % 31) * 0.125f;
    }
    Pointer shared = new Pointer();
    cudaMalloc(shared, bytes);
    cudaMemcpy(shared, Pointer.to(input), bytes, cudaMemcpyHostToDevice);
    Pointer[] buffers = new Pointer[chains];
    for (int c = 0; c < chains; c++) {
      buffers[c] = new Pointer();
      cudaMalloc(buffers[c], bytes);
      cudaMemset(buffers[c], 0, bytes);
    }
    for (int k = 0; k < kernels; k++) {
      for (int c = 0; c < chains; c++) {
        cuLaunchKernel(axpb, n / 256, 1, 1, 256, 1, 1, 0, null, Pointer.to(Pointer.to(buffers[c]), Pointer.to(shared),
            Pointer.to(new float[] {1f + c}), Pointer.to(new float[] {0.5f * k}), Pointer.to(new int[] {n})), null);
      }
    }
    Pointer copy = new Pointer();
    cudaMalloc(copy, bytes);
    cudaMemcpy(copy, buffers[0], bytes, cudaMemcpyDeviceToDevice);
    cuLaunchKernel(axpb, n / 256, 1, 1, 256, 1, 1, 0, null, Pointer.to(Pointer.to(copy), Pointer.to(buffers[1]),
        Pointer.to(new float[] {2f}), Pointer.to(new float[] {1f}), Pointer.to(new int[] {n})), null);
    Pointer pinned = new Pointer();
    cudaMallocHost(pinned, bytes);
    cudaStream_t stream = new cudaStream_t();
    cudaStreamCreate(stream);
    cudaMemcpyAsync(pinned, copy, bytes, cudaMemcpyDeviceToHost, stream);
    cudaStreamSynchronize(stream);
    float[] fromPinned = new float[n];
    pinned.getByteBuffer(0, bytes).order(ByteOrder.nativeOrder()).asFloatBuffer().get(fromPinned);
    float[][] results = new float[chains][n];
    for (int c = 0; c < chains; c++) {
      cudaMemcpy(Pointer.to(results[c]), buffers[c], bytes, cudaMemcpyDeviceToHost);
      System.out.println("result " + c + " " + results[c][0] + " " + results[c][n - 1]);
    }
    cudaDeviceSynchronize();
    System.out.println("result pinned " + fromPinned[0] + " " + fromPinned[n - 1]);
    System.out.println("checksum " + SmokePrograms.checksum(results) + " " + SmokePrograms.checksum(fromPinned));
    for (Pointer p : buffers) {
      cudaFree(p);
    }
    cudaFree(copy);
    cudaFree(shared);
    cudaFreeHost(pinned);
  }
}
