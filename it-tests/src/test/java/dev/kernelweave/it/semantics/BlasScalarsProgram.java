package dev.kernelweave.it.semantics;

import static dev.kernelweave.it.semantics.Sequence.BYTES;
import static dev.kernelweave.it.semantics.Sequence.N;
import static dev.kernelweave.it.semantics.Sequence.stream;
import static jcuda.driver.JCudaDriver.cuEventCreate;
import static jcuda.driver.JCudaDriver.cuEventRecord;
import static jcuda.driver.JCudaDriver.cuMemAlloc;
import static jcuda.driver.JCudaDriver.cuMemFree;
import static jcuda.driver.JCudaDriver.cuMemsetD32Async;
import static jcuda.driver.JCudaDriver.cuStreamCreate;
import static jcuda.driver.JCudaDriver.cuStreamDestroy;
import static jcuda.driver.JCudaDriver.cuStreamSynchronize;
import static jcuda.driver.JCudaDriver.cuStreamWaitEvent;
import static jcuda.jcublas.JCublas2.cublasCreate;
import static jcuda.jcublas.JCublas2.cublasDestroy;
import static jcuda.jcublas.JCublas2.cublasSetPointerMode;
import static jcuda.jcublas.JCublas2.cublasSetStream;
import static jcuda.jcublas.JCublas2.cublasSgemm;
import static jcuda.jcublas.cublasOperation.CUBLAS_OP_N;
import static jcuda.jcublas.cublasPointerMode.CUBLAS_POINTER_MODE_DEVICE;
import static jcuda.jcublas.cublasPointerMode.CUBLAS_POINTER_MODE_HOST;

import dev.kernelweave.it.semantics.Sequence.Kernels;
import jcuda.driver.CUdeviceptr;
import jcuda.driver.CUevent;
import jcuda.driver.CUfunction;
import jcuda.driver.CUstream;
import jcuda.jcublas.cublasHandle;
import jcuda.runtime.cudaStream_t;

/**
 * JCublas2 routines whose scalars or results live in device memory (device pointer mode), written
 * or read by kernels on the routine's stream or on a stream that waits for an event. Matrices of
 * 16 x 16 small integers, so every sum is exact in float in any order: the host computes what the
 * device must give. Every variant makes a run of 16 launches (so that {@code engage=auto} schedules
 * the rest).
 *
 * <ul>
 *   <li>{@code device-scalars}: on one stream bound to the handle, alpha and beta are set to zero, a
 *       slow kernel writes them, kernels fill A, B and C, then {@code cublasSgemm} in device pointer
 *       mode reads alpha and beta, and a kernel scales C: C read back.
 *   <li>{@code device-scalars-early}: the same with the pointer mode set before the run of 16
 *       launches, that is before an agent with {@code engage=auto} engages.
 *   <li>{@code device-scalars-event}: the scalars are written on another stream; the handle's stream
 *       waits for an event recorded after that.
 * </ul>
 */
public final class BlasScalarsProgram {

  private static final int M = 16;

  public static void main(String[] args) throws Exception {
    Sequence seq = Sequence.start(args, "device-scalars");
    Kernels kernels = Kernels.load();
    CUfunction slowFill = kernels.slowFill();
    CUfunction slowAxpb = kernels.slowAxpb();
    cublasHandle handle = new cublasHandle();
    seq.rc("cublasCreate", cublasCreate(handle));
    if (seq.variant.equals("device-scalars-early")) {
      seq.rc("cublasSetPointerMode", cublasSetPointerMode(handle, CUBLAS_POINTER_MODE_DEVICE));
    }
    Sequence.engagingRun(slowFill);
    seq.repeat(rep -> {
      switch (seq.variant) {
        case "device-scalars", "device-scalars-early" -> deviceScalars(seq, rep, handle, slowFill, slowAxpb, false);
        case "device-scalars-event" -> deviceScalars(seq, rep, handle, slowFill, slowAxpb, true);
        default -> throw new IllegalArgumentException("unknown variant " + seq.variant);
      }
    });
    cublasDestroy(handle);
  }

  private static float[] ramp(float value, int n) {
    float[] values = new float[n];
    for (int i = 0; i < n; i++) {
      values[i] = value + i;
    }
    return values;
  }

  private static void deviceScalars(Sequence seq, int rep, cublasHandle handle, CUfunction slowFill,
      CUfunction slowAxpb, boolean event) {
    CUstream s = stream(0);
    CUstream producer = s;
    if (event) {
      producer = new CUstream();
      cuStreamCreate(producer, 1);
    }
    seq.rc(rep, "cublasSetStream", 0, cublasSetStream(handle, new cudaStream_t(s)));
    seq.rc(rep, "cublasSetPointerMode", 0, cublasSetPointerMode(handle, CUBLAS_POINTER_MODE_DEVICE));
    CUdeviceptr scalars = new CUdeviceptr();
    CUdeviceptr a = new CUdeviceptr();
    CUdeviceptr b = new CUdeviceptr();
    CUdeviceptr c = new CUdeviceptr();
    for (CUdeviceptr p : new CUdeviceptr[] {scalars, a, b, c}) {
      cuMemAlloc(p, BYTES);
    }
    float alpha = 1 + rep % 3;
    float beta = alpha + 1;
    float va = rep % 4;
    float vb = 1 + rep % 5;
    float vc = -2 - rep % 3;
    seq.rc(rep, "cuMemsetD32Async scalars", 0, cuMemsetD32Async(scalars, 0, N, producer));
    seq.rc(rep, "slow_fill scalars", 0, Sequence.launch(slowFill, producer, scalars, alpha, N, seq.cycles));
    seq.rc(rep, "slow_fill a", 0, Sequence.launch(slowFill, s, a, va, M * M, seq.cycles / 4));
    seq.rc(rep, "slow_fill b", 0, Sequence.launch(slowFill, s, b, vb, M * M, seq.cycles / 4));
    seq.rc(rep, "slow_fill c", 0, Sequence.launch(slowFill, s, c, vc, M * M, seq.cycles / 4));
    CUevent e = new CUevent();
    if (event) {
      cuEventCreate(e, 0);
      seq.rc(rep, "cuEventRecord", 0, cuEventRecord(e, producer));
      seq.rc(rep, "cuStreamWaitEvent", 0, cuStreamWaitEvent(s, e, 0));
    }
    seq.rc(rep, "cublasSgemm", 0, cublasSgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, M, M, M, scalars, a, M, b, M,
        scalars.withByteOffset(4), c, M));
    seq.rc(rep, "slow_axpb c", 0, Sequence.launch(slowAxpb, s, c, 1f, 0.5f, M * M, seq.cycles / 4));
    float[] ha = ramp(va, M * M);
    float[] hb = ramp(vb, M * M);
    float[] expected = ramp(vc, N);
    for (int j = 0; j < M; j++) {
      for (int i = 0; i < M; i++) {
        float sum = 0;
        for (int k = 0; k < M; k++) {
          sum += ha[i + k * M] * hb[k + j * M];
        }
        expected[i + j * M] = alpha * sum + beta * expected[i + j * M] + 0.5f;
      }
    }
    for (int i = M * M; i < N; i++) {
      expected[i] = Float.NaN;  // not compared
    }
    float[] back = Sequence.read(c);
    for (int i = M * M; i < N; i++) {
      back[i] = Float.NaN;
    }
    seq.check(rep, "c", Sequence.describe(expected), Sequence.describe(back));
    seq.rc(rep, "cublasSetPointerMode host", 0, cublasSetPointerMode(handle, CUBLAS_POINTER_MODE_HOST));
    seq.rc(rep, "cublasSetStream null", 0, cublasSetStream(handle, null));
    if (event) {
      cuStreamSynchronize(producer);
      Sequence.release(e, producer);
    }
    for (CUdeviceptr p : new CUdeviceptr[] {scalars, a, b, c}) {
      cuMemFree(p);
    }
    cuStreamDestroy(s);
  }
}
