package dev.kernelweave.it.agent;

import static jcuda.driver.JCudaDriver.cuMemAlloc;
import static jcuda.driver.JCudaDriver.cuMemcpyDtoH;
import static jcuda.driver.JCudaDriver.cuMemcpyHtoD;
import static jcuda.jcublas.JCublas2.cublasCreate;
import static jcuda.jcublas.JCublas2.cublasDestroy;
import static jcuda.jcublas.JCublas2.cublasSaxpy;
import static jcuda.jcublas.JCublas2.cublasSdot;
import static jcuda.jcublas.JCublas2.cublasSgemm;
import static jcuda.jcublas.cublasOperation.CUBLAS_OP_N;

import jcuda.Pointer;
import jcuda.Sizeof;
import jcuda.driver.CUdeviceptr;
import jcuda.jcublas.JCublas2;
import jcuda.jcublas.cublasHandle;

/**
 * A plain JCublas2 program: H independent small GEMMs on one handle and the default stream, an
 * axpy joining two of them, and a dot product returned to the host.
 *
 * <p>Usage: {@code BlasProgram [heads] [size]}. Prints {@code result} lines and a {@code checksum}.
 */
public final class BlasProgram {

  public static void main(String[] args) {
    int heads = args.length > 0 ? Integer.parseInt(args[0]) : 8;
    int m = args.length > 1 ? Integer.parseInt(args[1]) : 64;
    SmokePrograms.contextOrExit();
    JCublas2.setExceptionsEnabled(true);
    cublasHandle handle = new cublasHandle();
    cublasCreate(handle);
    long bytes = (long) m * m * Sizeof.FLOAT;
    CUdeviceptr[] a = new CUdeviceptr[heads];
    CUdeviceptr[] b = new CUdeviceptr[heads];
    CUdeviceptr[] c = new CUdeviceptr[heads];
    float[] host = new float[m * m];
    for (int h = 0; h < heads; h++) {
      a[h] = new CUdeviceptr();
      b[h] = new CUdeviceptr();
      c[h] = new CUdeviceptr();
      cuMemAlloc(a[h], bytes);
      cuMemAlloc(b[h], bytes);
      cuMemAlloc(c[h], bytes);
      for (int i = 0; i < host.length; i++) {
        host[i] = ((i * 7 + h * 13) % 17) * 0.0625f;
      }
      cuMemcpyHtoD(a[h], Pointer.to(host), bytes);
      for (int i = 0; i < host.length; i++) {
        host[i] = ((i * 5 + h * 3) % 11) * 0.125f;
      }
      cuMemcpyHtoD(b[h], Pointer.to(host), bytes);
    }
    Pointer one = Pointer.to(new float[] {1.0f});
    Pointer zero = Pointer.to(new float[] {0.0f});
    for (int h = 0; h < heads; h++) {
      cublasSgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, m, m, m, one, a[h], m, b[h], m, zero, c[h], m);
    }
    Pointer half = Pointer.to(new float[] {0.5f});
    cublasSaxpy(handle, m * m, half, c[1], 1, c[0], 1);
    float[] dot = {0};
    cublasSdot(handle, m * m, c[0], 1, c[heads - 1], 1, Pointer.to(dot));
    float[][] results = new float[heads][m * m];
    for (int h = 0; h < heads; h++) {
      cuMemcpyDtoH(Pointer.to(results[h]), c[h], bytes);
      System.out.println("result " + h + " " + results[h][0] + " " + results[h][m * m - 1]);
    }
    System.out.println("dot " + dot[0]);
    System.out.println("checksum " + SmokePrograms.checksum(results) + " " + Float.floatToIntBits(dot[0]));
    cublasDestroy(handle);
  }
}
