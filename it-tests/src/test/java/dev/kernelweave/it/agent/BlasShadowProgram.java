package dev.kernelweave.it.agent;

import static jcuda.driver.JCudaDriver.cuMemAlloc;
import static jcuda.driver.JCudaDriver.cuMemFree;
import static jcuda.driver.JCudaDriver.cuMemcpyDtoH;
import static jcuda.driver.JCudaDriver.cuMemcpyHtoD;
import static jcuda.jcublas.JCublas2.cublasCreate;
import static jcuda.jcublas.JCublas2.cublasDestroy;
import static jcuda.jcublas.JCublas2.cublasGetPointerMode;
import static jcuda.jcublas.JCublas2.cublasGetStream;
import static jcuda.jcublas.JCublas2.cublasSetAtomicsMode;
import static jcuda.jcublas.JCublas2.cublasSetMathMode;
import static jcuda.jcublas.JCublas2.cublasSetPointerMode;
import static jcuda.jcublas.JCublas2.cublasSetWorkspace;
import static jcuda.jcublas.JCublas2.cublasSgemm;
import static jcuda.jcublas.cublasAtomicsMode.CUBLAS_ATOMICS_ALLOWED;
import static jcuda.jcublas.cublasAtomicsMode.CUBLAS_ATOMICS_NOT_ALLOWED;
import static jcuda.jcublas.cublasMath.CUBLAS_DEFAULT_MATH;
import static jcuda.jcublas.cublasMath.CUBLAS_TF32_TENSOR_OP_MATH;
import static jcuda.jcublas.cublasOperation.CUBLAS_OP_N;
import static jcuda.jcublas.cublasPointerMode.CUBLAS_POINTER_MODE_DEVICE;

import dev.kernelweave.kernels.Cuda;
import jcuda.Pointer;
import jcuda.Sizeof;
import jcuda.driver.CUdeviceptr;
import jcuda.jcublas.cublasHandle;
import jcuda.runtime.cudaStream_t;

/**
 * A JCublas2 program that configures its handle the way careful users do: scalars in device memory
 * (pointer mode DEVICE), TF32 math, atomics allowed and a workspace of its own; then many small
 * sgemms into independent outputs on the default stream, in two rounds, with a new alpha, other
 * modes and a workspace of another size in between.
 *
 * <p>Usage: {@code BlasShadowProgram [gemms] [size] [lingerMillis]}. Prints {@code result} lines
 * (the outputs and what the handle reports of itself) and a {@code checksum}, then waits
 * {@code lingerMillis} before exiting (a run shorter than the agent's journal start-up would leave
 * no journal).
 */
public final class BlasShadowProgram {

  public static void main(String[] args) throws InterruptedException {
    int gemms = args.length > 0 ? Integer.parseInt(args[0]) : 24;
    int m = args.length > 1 ? Integer.parseInt(args[1]) : 16;
    long lingerMillis = args.length > 2 ? Long.parseLong(args[2]) : 0;
    // The primary context, which cuBLAS uses too (exceptions enabled for the driver and cuBLAS).
    Cuda.makeContextCurrent();
    cublasHandle handle = new cublasHandle();
    cublasCreate(handle);
    cublasSetPointerMode(handle, CUBLAS_POINTER_MODE_DEVICE);
    cublasSetMathMode(handle, CUBLAS_TF32_TENSOR_OP_MATH);
    cublasSetAtomicsMode(handle, CUBLAS_ATOMICS_ALLOWED);
    CUdeviceptr workspace = new CUdeviceptr();
    cuMemAlloc(workspace, 16 * 1024);
    cublasSetWorkspace(handle, workspace, 16 * 1024);

    CUdeviceptr alpha = scalar(1.5f);
    CUdeviceptr beta = scalar(0.5f);
    long bytes = (long) m * m * Sizeof.FLOAT;
    CUdeviceptr[] a = new CUdeviceptr[gemms];
    CUdeviceptr[] b = new CUdeviceptr[gemms];
    CUdeviceptr[] c = new CUdeviceptr[gemms];
    float[] host = new float[m * m];
    for (int g = 0; g < gemms; g++) {
      for (int i = 0; i < host.length; i++) {
        host[i] = ((i * 7 + g * 13) % 17) * 0.1f + 0.013f * g;
      }
      a[g] = upload(host);
      for (int i = 0; i < host.length; i++) {
        host[i] = ((i * 5 + g * 3) % 11) * 0.37f - 1.1f;
      }
      b[g] = upload(host);
      for (int i = 0; i < host.length; i++) {
        host[i] = (i % 13) * 0.3f;
      }
      c[g] = upload(host);
    }

    for (int g = 0; g < gemms; g++) {
      cublasSgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, m, m, m, alpha, a[g], m, b[g], m, beta, c[g], m);
    }
    // A new alpha while the first round may still read the old one, then other settings.
    cuMemcpyHtoD(alpha, Pointer.to(new float[] {0.75f}), Sizeof.FLOAT);
    cublasSetMathMode(handle, CUBLAS_DEFAULT_MATH);
    cublasSetAtomicsMode(handle, CUBLAS_ATOMICS_NOT_ALLOWED);
    CUdeviceptr smaller = new CUdeviceptr();
    cuMemAlloc(smaller, 8 * 1024);
    cublasSetWorkspace(handle, smaller, 8 * 1024);
    for (int g = 0; g < gemms; g++) {
      cublasSgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, m, m, m, alpha, a[(g + 1) % gemms], m, b[g], m, beta, c[g], m);
    }

    float[][] results = new float[gemms][m * m];
    for (int g = 0; g < gemms; g++) {
      cuMemcpyDtoH(Pointer.to(results[g]), c[g], bytes);
      System.out.println("result " + g + " " + results[g][0] + " " + results[g][m * m - 1]);
    }
    int[] mode = {-1};
    cublasGetPointerMode(handle, mode);
    cudaStream_t stream = new cudaStream_t();
    cublasGetStream(handle, stream);
    System.out.println("result handle pointer mode " + mode[0] + ", stream " + stream);
    System.out.println("checksum " + SmokePrograms.checksum(results));
    cublasDestroy(handle);
    cuMemFree(workspace);
    cuMemFree(smaller);
    Thread.sleep(lingerMillis);
  }

  private static CUdeviceptr scalar(float value) {
    return upload(new float[] {value});
  }

  private static CUdeviceptr upload(float[] values) {
    CUdeviceptr p = new CUdeviceptr();
    cuMemAlloc(p, (long) values.length * Sizeof.FLOAT);
    cuMemcpyHtoD(p, Pointer.to(values), (long) values.length * Sizeof.FLOAT);
    return p;
  }
}
