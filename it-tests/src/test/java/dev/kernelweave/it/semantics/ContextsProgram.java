package dev.kernelweave.it.semantics;

import static dev.kernelweave.it.semantics.Sequence.BYTES;
import static dev.kernelweave.it.semantics.Sequence.N;
import static dev.kernelweave.it.semantics.Sequence.alloc;
import static dev.kernelweave.it.semantics.Sequence.stream;
import static jcuda.driver.JCudaDriver.cuCtxCreate;
import static jcuda.driver.JCudaDriver.cuCtxDestroy;
import static jcuda.driver.JCudaDriver.cuCtxPopCurrent;
import static jcuda.driver.JCudaDriver.cuCtxPushCurrent;
import static jcuda.driver.JCudaDriver.cuCtxSetCurrent;
import static jcuda.driver.JCudaDriver.cuMemAllocHost;
import static jcuda.driver.JCudaDriver.cuMemFree;
import static jcuda.driver.JCudaDriver.cuMemFreeHost;
import static jcuda.driver.JCudaDriver.cuMemcpyDtoHAsync;
import static jcuda.driver.JCudaDriver.cuStreamSynchronize;

import dev.kernelweave.it.semantics.Sequence.Kernels;
import jcuda.Pointer;
import jcuda.driver.CUcontext;
import jcuda.driver.CUdeviceptr;
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
 *   <li>{@code each-stream-synchronized}: as a program serving several devices does it, a fill and a
 *       scale of a buffer on a non-blocking stream of each context, each read back into page-locked
 *       memory on its stream, with that context current; then, with the second context still
 *       current, each stream synchronized (CUDA lets a thread synchronize any context's stream) and
 *       each page-locked copy read with no other call.
 * </ul>
 */
public final class ContextsProgram {

  public static void main(String[] args) throws Exception {
    Sequence seq = Sequence.start(args, "push-pop");
    CUcontext primary = seq.retainPrimary();
    Kernels kernels = Kernels.load();
    Sequence.engagingRun(kernels.slowFill());
    seq.repeat(rep -> {
      float v = 7f + 10 * rep;
      CUcontext other = new CUcontext();
      seq.rc(rep, "cuCtxCreate", 0, cuCtxCreate(other, 0, seq.device));
      // Made current by its creation: its module is loaded there.
      Kernels otherKernels = Kernels.load();
      cuCtxSetCurrent(primary);
      switch (seq.variant) {
        case "push-pop" -> pushPop(seq, rep, v, primary, other, kernels, otherKernels);
        case "two-threads" -> twoThreads(seq, rep, v, other, kernels, otherKernels);
        case "each-stream-synchronized" -> eachStreamSynchronized(seq, rep, v, primary, other, kernels, otherKernels);
        default -> throw new IllegalArgumentException("unknown variant " + seq.variant);
      }
      seq.rc(rep, "cuCtxDestroy", 0, cuCtxDestroy(other));
      cuCtxSetCurrent(primary);
    });
  }


  private static void pushPop(Sequence seq, int rep, float v, CUcontext primary, CUcontext other, Kernels kernels,
      Kernels otherKernels) {
    CUstream s = stream(0);
    CUdeviceptr x = alloc(BYTES);
    seq.rc(rep, "slow_fill x in the primary context", 0, Sequence.launch(kernels.slowFill(), s, x, v, N, seq.cycles));
    seq.rc(rep, "cuCtxPushCurrent", 0, cuCtxPushCurrent(other));
    CUstream t = stream(0);
    CUdeviceptr y = alloc(BYTES);
    seq.rc(rep, "slow_fill y in the second context", 0, Sequence.launch(otherKernels.slowFill(), t, y, v + 1, N, seq.cycles));
    seq.rc(rep, "slow_axpb y in the second context", 0,
        Sequence.launch(otherKernels.slowAxpb(), t, y, 2f, 1f, N, seq.cycles));
    CUcontext popped = new CUcontext();
    seq.rc(rep, "cuCtxPopCurrent", 0, cuCtxPopCurrent(popped));
    seq.check(rep, "popped the second context", true, popped.equals(other));
    seq.rc(rep, "slow_axpb x in the primary context", 0, Sequence.launch(kernels.slowAxpb(), s, x, 3f, -1f, N, seq.cycles));
    seq.rc(rep, "cuCtxPushCurrent again", 0, cuCtxPushCurrent(other));
    seq.check(rep, "y", Sequence.describe(Sequence.axpb(Sequence.ramp(v + 1), 2f, 1f)), Sequence.describe(Sequence.read(y)));
    Sequence.release(y, t);
    seq.rc(rep, "cuCtxPopCurrent again", 0, cuCtxPopCurrent(popped));
    seq.check(rep, "x", Sequence.describe(Sequence.axpb(Sequence.ramp(v), 3f, -1f)), Sequence.describe(Sequence.read(x)));
    Sequence.release(x, s);
  }

  private static void eachStreamSynchronized(Sequence seq, int rep, float v, CUcontext primary, CUcontext other,
      Kernels kernels, Kernels otherKernels) {
    CUstream[] streams = new CUstream[2];
    CUdeviceptr[] buffers = new CUdeviceptr[2];
    Pointer[] pinned = new Pointer[2];
    for (int c = 0; c < 2; c++) {
      if (c == 1) {
        seq.rc(rep, "cuCtxSetCurrent the second context", 0, cuCtxSetCurrent(other));
      }
      Kernels k = c == 0 ? kernels : otherKernels;
      streams[c] = stream(Sequence.NON_BLOCKING);
      buffers[c] = alloc(BYTES);
      pinned[c] = new Pointer();
      seq.rc(rep, "cuMemAllocHost " + c, 0, cuMemAllocHost(pinned[c], BYTES));
      seq.rc(rep, "slow_fill " + c, 0, Sequence.launch(k.slowFill(), streams[c], buffers[c], v + c, N, seq.cycles));
      seq.rc(rep, "slow_axpb " + c, 0, Sequence.launch(k.slowAxpb(), streams[c], buffers[c], 2f, 1f, N, seq.cycles));
      seq.rc(rep, "cuMemcpyDtoHAsync " + c, 0, cuMemcpyDtoHAsync(pinned[c], buffers[c], BYTES, streams[c]));
    }
    for (int c = 0; c < 2; c++) {
      seq.rc(rep, "cuStreamSynchronize " + c + " from the second context", 0, cuStreamSynchronize(streams[c]));
      float[] back = new float[N];
      pinned[c].getByteBuffer(0, BYTES).order(java.nio.ByteOrder.nativeOrder()).asFloatBuffer().get(back);
      seq.check(rep, "buffer " + c, Sequence.describe(Sequence.axpb(Sequence.ramp(v + c), 2f, 1f)),
          Sequence.describe(back));
    }
    for (int c = 1; c >= 0; c--) {
      cuCtxSetCurrent(c == 1 ? other : primary);
      cuMemFreeHost(pinned[c]);
      Sequence.release(buffers[c], streams[c]);
    }
  }

  private static void twoThreads(Sequence seq, int rep, float v, CUcontext other, Kernels kernels,
      Kernels otherKernels) throws Exception {
    String[] seen = new String[3];
    Sequence.Worker worker = new Sequence.Worker("second context's thread", other, () -> {
      CUdeviceptr z = alloc(BYTES);
      for (int round = 0; round < 3; round++) {
        Sequence.launch(otherKernels.slowFill(), null, z, v + 100 + round, N, seq.cycles);
        Sequence.launch(otherKernels.slowAxpb(), null, z, 2f, 1f, N, seq.cycles);
        seen[round] = Sequence.describe(Sequence.read(z));
      }
      cuMemFree(z);
    });
    CUdeviceptr x = alloc(BYTES);
    for (int round = 0; round < 3; round++) {
      seq.rc(rep, "slow_fill x round " + round, 0, Sequence.launch(kernels.slowFill(), null, x, v + round, N, seq.cycles));
      seq.rc(rep, "slow_axpb x round " + round, 0, Sequence.launch(kernels.slowAxpb(), null, x, 3f, -1f, N, seq.cycles));
      seq.check(rep, "x round " + round, Sequence.describe(Sequence.axpb(Sequence.ramp(v + round), 3f, -1f)),
          Sequence.describe(Sequence.read(x)));
    }
    worker.join();
    for (int round = 0; round < 3; round++) {
      seq.check(rep, "z round " + round, Sequence.describe(Sequence.axpb(Sequence.ramp(v + 100 + round), 2f, 1f)), seen[round]);
    }
    cuMemFree(x);
  }
}
