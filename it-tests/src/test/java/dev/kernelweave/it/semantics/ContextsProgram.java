package dev.kernelweave.it.semantics;

import static dev.kernelweave.it.semantics.Sequence.BYTES;
import static dev.kernelweave.it.semantics.Sequence.N;
import static jcuda.driver.JCudaDriver.cuCtxCreate;
import static jcuda.driver.JCudaDriver.cuCtxDestroy;
import static jcuda.driver.JCudaDriver.cuCtxPopCurrent;
import static jcuda.driver.JCudaDriver.cuCtxPushCurrent;
import static jcuda.driver.JCudaDriver.cuCtxSetCurrent;
import static jcuda.driver.JCudaDriver.cuMemAlloc;
import static jcuda.driver.JCudaDriver.cuMemFree;
import static jcuda.driver.JCudaDriver.cuStreamCreate;
import static jcuda.driver.JCudaDriver.cuStreamDestroy;

import jcuda.driver.CUcontext;
import jcuda.driver.CUdeviceptr;
import jcuda.driver.CUfunction;
import jcuda.driver.CUmodule;
import jcuda.driver.CUstream;

/**
 * Two contexts of one device in one program, each with its own module, memory and streams; CUDA
 * keeps each context's stream order whichever context is current between its calls. After a run of
 * 16 launches in the primary context (so that {@code engage=auto} schedules the rest):
 *
 * <ul>
 *   <li>{@code push-pop}: a slow fill of {@code x} on a stream of the primary context; the second
 *       context pushed, a fill and a scale of its own buffer on its own stream, popped; a scale of
 *       {@code x} on the first stream (after the fill: same stream); the second context pushed again
 *       for a read of its buffer, popped; then a read of {@code x}. Each context created and
 *       destroyed per repetition.
 *   <li>{@code two-threads}: a second thread makes the second context current and fills, scales and
 *       reads back a buffer of its own on that context's legacy stream, three times, while the main
 *       thread does the same in the primary context.
 * </ul>
 */
public final class ContextsProgram {

  public static void main(String[] args) throws Exception {
    Sequence seq = Sequence.start(args, "push-pop");
    CUcontext primary = seq.retainPrimary();
    CUmodule module = Sequence.loadSemantics();
    CUfunction slowFill = Sequence.function(module, "slow_fill");
    CUfunction slowAxpb = Sequence.function(module, "slow_axpb");
    BlockingStreamsProgram.engagingRun(slowFill);
    seq.repeat(rep -> {
      float v = 7f + 10 * rep;
      CUcontext other = new CUcontext();
      seq.rc(rep, "cuCtxCreate", 0, cuCtxCreate(other, 0, seq.device));
      CUfunction[] otherKernels = {null, null};
      // Made current by its creation: its module is loaded there.
      CUmodule otherModule = Sequence.loadSemantics();
      otherKernels[0] = Sequence.function(otherModule, "slow_fill");
      otherKernels[1] = Sequence.function(otherModule, "slow_axpb");
      cuCtxSetCurrent(primary);
      switch (seq.variant) {
        case "push-pop" -> pushPop(seq, rep, v, primary, other, slowFill, slowAxpb, otherKernels);
        case "two-threads" -> twoThreads(seq, rep, v, other, slowFill, slowAxpb, otherKernels);
        default -> throw new IllegalArgumentException("unknown variant " + seq.variant);
      }
      seq.rc(rep, "cuCtxDestroy", 0, cuCtxDestroy(other));
      cuCtxSetCurrent(primary);
    });
  }

  private static float[] axpb(float[] x, float a, float b) {
    float[] y = new float[x.length];
    for (int i = 0; i < x.length; i++) {
      y[i] = a * x[i] + b;
    }
    return y;
  }

  private static void pushPop(Sequence seq, int rep, float v, CUcontext primary, CUcontext other, CUfunction slowFill,
      CUfunction slowAxpb, CUfunction[] otherKernels) {
    CUstream s = new CUstream();
    cuStreamCreate(s, 0);
    CUdeviceptr x = new CUdeviceptr();
    cuMemAlloc(x, BYTES);
    seq.rc(rep, "slow_fill x in the primary context", 0, Sequence.launch(slowFill, s, x, v, N, seq.cycles));
    seq.rc(rep, "cuCtxPushCurrent", 0, cuCtxPushCurrent(other));
    CUstream t = new CUstream();
    cuStreamCreate(t, 0);
    CUdeviceptr y = new CUdeviceptr();
    cuMemAlloc(y, BYTES);
    seq.rc(rep, "slow_fill y in the second context", 0, Sequence.launch(otherKernels[0], t, y, v + 1, N, seq.cycles));
    seq.rc(rep, "slow_axpb y in the second context", 0,
        Sequence.launch(otherKernels[1], t, y, 2f, 1f, N, seq.cycles));
    CUcontext popped = new CUcontext();
    seq.rc(rep, "cuCtxPopCurrent", 0, cuCtxPopCurrent(popped));
    seq.check(rep, "popped the second context", true, popped.equals(other));
    seq.rc(rep, "slow_axpb x in the primary context", 0, Sequence.launch(slowAxpb, s, x, 3f, -1f, N, seq.cycles));
    seq.rc(rep, "cuCtxPushCurrent again", 0, cuCtxPushCurrent(other));
    seq.check(rep, "y", Sequence.describe(axpb(Sequence.ramp(v + 1), 2f, 1f)), Sequence.describe(Sequence.read(y)));
    cuMemFree(y);
    cuStreamDestroy(t);
    seq.rc(rep, "cuCtxPopCurrent again", 0, cuCtxPopCurrent(popped));
    seq.check(rep, "x", Sequence.describe(axpb(Sequence.ramp(v), 3f, -1f)), Sequence.describe(Sequence.read(x)));
    cuMemFree(x);
    cuStreamDestroy(s);
  }

  private static void twoThreads(Sequence seq, int rep, float v, CUcontext other, CUfunction slowFill,
      CUfunction slowAxpb, CUfunction[] otherKernels) throws Exception {
    String[] seen = new String[3];
    Throwable[] failed = new Throwable[1];
    Thread worker = new Thread(() -> {
      try {
        cuCtxSetCurrent(other);
        CUdeviceptr z = new CUdeviceptr();
        cuMemAlloc(z, BYTES);
        for (int round = 0; round < 3; round++) {
          Sequence.launch(otherKernels[0], null, z, v + 100 + round, N, seq.cycles);
          Sequence.launch(otherKernels[1], null, z, 2f, 1f, N, seq.cycles);
          seen[round] = Sequence.describe(Sequence.read(z));
        }
        cuMemFree(z);
      } catch (Throwable t) {
        failed[0] = t;
      }
    }, "second-context");
    worker.start();
    CUdeviceptr x = new CUdeviceptr();
    cuMemAlloc(x, BYTES);
    for (int round = 0; round < 3; round++) {
      seq.rc(rep, "slow_fill x round " + round, 0, Sequence.launch(slowFill, null, x, v + round, N, seq.cycles));
      seq.rc(rep, "slow_axpb x round " + round, 0, Sequence.launch(slowAxpb, null, x, 3f, -1f, N, seq.cycles));
      seq.check(rep, "x round " + round, Sequence.describe(axpb(Sequence.ramp(v + round), 3f, -1f)),
          Sequence.describe(Sequence.read(x)));
    }
    worker.join();
    if (failed[0] != null) {
      throw new IllegalStateException("the second context's thread failed", failed[0]);
    }
    for (int round = 0; round < 3; round++) {
      seq.check(rep, "z round " + round, Sequence.describe(axpb(Sequence.ramp(v + 100 + round), 2f, 1f)), seen[round]);
    }
    cuMemFree(x);
  }
}
