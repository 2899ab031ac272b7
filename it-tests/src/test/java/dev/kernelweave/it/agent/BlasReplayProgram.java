package dev.kernelweave.it.agent;

import static jcuda.driver.JCudaDriver.cuMemAlloc;
import static jcuda.driver.JCudaDriver.cuMemcpyDtoH;
import static jcuda.driver.JCudaDriver.cuMemcpyHtoD;
import static jcuda.jcublas.JCublas2.cublasCreate;
import static jcuda.jcublas.JCublas2.cublasDestroy;
import static jcuda.jcublas.JCublas2.cublasSetAtomicsMode;
import static jcuda.jcublas.JCublas2.cublasSetMathMode;
import static jcuda.jcublas.JCublas2.cublasSetPointerMode;
import static jcuda.jcublas.JCublas2.cublasSetStream;
import static jcuda.jcublas.JCublas2.cublasSetWorkspace;
import static jcuda.jcublas.JCublas2.cublasSgemm;
import static jcuda.jcublas.cublasAtomicsMode.CUBLAS_ATOMICS_ALLOWED;
import static jcuda.jcublas.cublasMath.CUBLAS_TF32_TENSOR_OP_MATH;
import static jcuda.jcublas.cublasOperation.CUBLAS_OP_N;
import static jcuda.jcublas.cublasPointerMode.CUBLAS_POINTER_MODE_DEVICE;
import static jcuda.jcublas.cublasPointerMode.CUBLAS_POINTER_MODE_HOST;

import dev.kernelweave.kernels.Cuda;
import jcuda.Pointer;
import jcuda.Sizeof;
import jcuda.driver.CUdeviceptr;
import jcuda.jcublas.cublasHandle;

/**
 * A JCublas2 loop the agent replays as CUDA graphs: each iteration runs four independent sgemms and
 * one that reads two of their results, then reads results back synchronously. Its host scalar
 * changes from one iteration to the next and is overwritten after the calls, before the read
 * (cuBLAS read it at the call); between phases the program changes its handle's math mode, pointer
 * mode, atomics mode, workspace and stream, and destroys and creates it again. Every setting
 * changes the stand-in cuBLAS's results, so a replay under an old setting, or of an old scalar,
 * changes the printed checksums.
 *
 * <p>Usage: {@code BlasReplayProgram [iterations per phase]}. Prints a {@code result} line per
 * iteration.
 */
public final class BlasReplayProgram {

  private static final int M = 16;
  private static final int OUTPUTS = 5;

  private final cublasHandle handle = new cublasHandle();
  private final CUdeviceptr[] a = new CUdeviceptr[OUTPUTS];
  private final CUdeviceptr[] b = new CUdeviceptr[OUTPUTS];
  private final CUdeviceptr[] c = new CUdeviceptr[OUTPUTS];
  private final float[] alpha = {1f};
  private final Pointer hostAlpha = Pointer.to(alpha);
  private final Pointer hostBeta = Pointer.to(new float[] {0.5f});
  private final CUdeviceptr deviceAlpha = upload(new float[] {1f});
  private final CUdeviceptr deviceBeta = upload(new float[] {0.25f});
  private boolean deviceScalars;

  public static void main(String[] args) {
    int iterations = args.length > 0 ? Integer.parseInt(args[0]) : 8;
    SmokePrograms.exitWithoutGpu();
    Cuda.makeContextCurrent();
    new BlasReplayProgram().run(iterations);
  }

  private BlasReplayProgram() {
    float[] host = new float[M * M];
    for (int g = 0; g < OUTPUTS; g++) {
      for (int i = 0; i < host.length; i++) {
        host[i] = ((i * 7 + g * 13) % 17) * 0.0625f - 0.5f;
      }
      a[g] = upload(host);
      for (int i = 0; i < host.length; i++) {
        host[i] = ((i * 5 + g * 3) % 11) * 0.125f - 0.625f;
      }
      b[g] = upload(host);
      c[g] = upload(new float[M * M]);
    }
  }

  private void run(int iterations) {
    cublasCreate(handle);
    phase("default", iterations);
    cublasSetMathMode(handle, CUBLAS_TF32_TENSOR_OP_MATH);
    phase("tf32", iterations);
    cublasSetPointerMode(handle, CUBLAS_POINTER_MODE_DEVICE);
    deviceScalars = true;
    phase("device-scalars", iterations);
    cublasSetPointerMode(handle, CUBLAS_POINTER_MODE_HOST);
    deviceScalars = false;
    cublasSetAtomicsMode(handle, CUBLAS_ATOMICS_ALLOWED);
    phase("atomics", iterations);
    CUdeviceptr workspace = new CUdeviceptr();
    cuMemAlloc(workspace, 4 * 1024);
    cublasSetWorkspace(handle, workspace, 4 * 1024);
    phase("workspace", iterations);
    cublasSetStream(handle, null);
    phase("stream-set", iterations);
    cublasDestroy(handle);
    cublasCreate(handle);
    phase("created-again", iterations);
    cublasDestroy(handle);
  }

  private void phase(String name, int iterations) {
    float[][] results = new float[2][M * M];
    for (int it = 0; it < iterations; it++) {
      float value = 0.5f + (it % 3) * 0.25f;
      if (deviceScalars) {
        cuMemcpyHtoD(deviceAlpha, Pointer.to(new float[] {value}), Sizeof.FLOAT);
      }
      alpha[0] = value;
      Pointer al = deviceScalars ? deviceAlpha : hostAlpha;
      Pointer be = deviceScalars ? deviceBeta : hostBeta;
      for (int g = 0; g < OUTPUTS - 1; g++) {
        cublasSgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, M, M, M, al, a[g], M, b[g], M, be, c[g], M);
      }
      cublasSgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, M, M, M, al, c[0], M, c[1], M, be, c[OUTPUTS - 1], M);
      alpha[0] = 99f; // cuBLAS read the scalar at the call
      cuMemcpyDtoH(Pointer.to(results[0]), c[0], (long) M * M * Sizeof.FLOAT);
      cuMemcpyDtoH(Pointer.to(results[1]), c[OUTPUTS - 1], (long) M * M * Sizeof.FLOAT);
      System.out.println("result " + name + " " + it + " " + SmokePrograms.checksum(results));
    }
  }

  private static CUdeviceptr upload(float[] values) {
    CUdeviceptr p = new CUdeviceptr();
    cuMemAlloc(p, (long) values.length * Sizeof.FLOAT);
    cuMemcpyHtoD(p, Pointer.to(values), (long) values.length * Sizeof.FLOAT);
    return p;
  }
}
