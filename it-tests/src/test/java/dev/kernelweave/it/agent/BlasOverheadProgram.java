package dev.kernelweave.it.agent;

import static jcuda.driver.JCudaDriver.cuCtxSynchronize;
import static jcuda.driver.JCudaDriver.cuMemAlloc;
import static jcuda.jcublas.JCublas2.cublasCreate;
import static jcuda.jcublas.JCublas2.cublasSgemm;
import static jcuda.jcublas.cublasOperation.CUBLAS_OP_N;

import java.util.Arrays;
import jcuda.Pointer;
import jcuda.driver.CUdeviceptr;
import jcuda.jcublas.JCublas2;
import jcuda.jcublas.cublasHandle;

/**
 * Host time per {@code cublasSgemm} of a small matrix, on the calling thread: what the agent adds
 * to a cuBLAS call. Prints {@code sgemm-ns <median of rounds>}.
 *
 * <p>Usage: {@code BlasOverheadProgram [callsPerRound] [rounds]}.
 */
public final class BlasOverheadProgram {

  public static void main(String[] args) {
    int calls = args.length > 0 ? Integer.parseInt(args[0]) : 4000;
    int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 11;
    SmokePrograms.contextOrExit();
    JCublas2.setExceptionsEnabled(true);
    cublasHandle handle = new cublasHandle();
    cublasCreate(handle);
    int m = 32;
    CUdeviceptr a = new CUdeviceptr();
    CUdeviceptr c = new CUdeviceptr();
    cuMemAlloc(a, 4L * m * m);
    cuMemAlloc(c, 4L * m * m);
    long[] perCall = new long[rounds];
    for (int r = 0; r < rounds; r++) {
      cuCtxSynchronize();
      long start = System.nanoTime();
      for (int i = 0; i < calls; i++) {
        cublasSgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, m, m, m, Pointer.to(new float[] {1f}), a, m, a, m,
            Pointer.to(new float[] {0f}), c, m);
      }
      perCall[r] = (System.nanoTime() - start) / calls;
      cuCtxSynchronize();
    }
    Arrays.sort(perCall);
    System.out.println("sgemm-ns " + perCall[rounds / 2] + " min " + perCall[0] + " max " + perCall[rounds - 1]);
  }
}
