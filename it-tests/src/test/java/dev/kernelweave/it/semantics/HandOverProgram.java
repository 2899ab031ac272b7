package dev.kernelweave.it.semantics;

import static dev.kernelweave.it.semantics.Sequence.N;
import static jcuda.driver.JCudaDriver.cuCtxSynchronize;
import static jcuda.driver.JCudaDriver.cuEventDestroy;
import static jcuda.driver.JCudaDriver.cuEventRecord;
import static jcuda.driver.JCudaDriver.cuMemFree;
import static jcuda.driver.JCudaDriver.cuStreamDestroy;
import static jcuda.driver.JCudaDriver.cuStreamQuery;
import static jcuda.driver.JCudaDriver.cuStreamSynchronize;
import static jcuda.driver.JCudaDriver.cuStreamWaitEvent;

import jcuda.driver.CUdeviceptr;
import jcuda.driver.CUevent;
import jcuda.driver.CUfunction;
import jcuda.driver.CUmodule;
import jcuda.driver.CUstream;

/**
 * The hand-over under {@code engage=auto}: the program's first run of 16 launches in a row engages
 * the agent at its 16th launch, the first the agent schedules, which reads what launches made as
 * written before it wrote. CUDA orders it after them by its stream; the agent must too, whatever
 * lane it issues it on. In the first repetition the agent engages there; later ones are scheduled
 * from the start.
 *
 * <ul>
 *   <li>{@code non-blocking}, {@code blocking}, {@code legacy}: on one stream of that kind, 14 fills
 *       of a scratch buffer, a fill of {@code x}, then (engaging) a scale of {@code x}; the stream
 *       synchronized and {@code x} read back.
 *   <li>{@code event}: a fill of {@code x} on one non-blocking stream and an event recorded after it,
 *       which a second non-blocking stream waits for; on the second, 15 fills of a scratch buffer,
 *       then (engaging) a scale of {@code x}, the second stream synchronized and {@code x} read back.
 *   <li>{@code events-waited-after}: eight blocking streams each fill their {@code x} and record an
 *       event after it; 16 fills of a scratch buffer on another non-blocking stream (engaging); then
 *       eight non-blocking streams each wait for one of the events, recorded before the agent
 *       engaged, and scale that {@code x}; the context synchronized and every {@code x} read back.
 *   <li>{@code idle-stream-queried}: a fill of {@code x} on a non-blocking stream, which is then
 *       synchronized; 16 fills of a scratch buffer on another (engaging); then a query of the first
 *       stream, which CUDA answers with success: all of its work has completed.
 * </ul>
 */
public final class HandOverProgram {

  public static void main(String[] args) throws Exception {
    Sequence seq = Sequence.start(args, "non-blocking");
    CUmodule module = Sequence.loadSemantics();
    CUfunction slowFill = Sequence.function(module, "slow_fill");
    CUfunction slowAxpb = Sequence.function(module, "slow_axpb");
    seq.repeat(rep -> {
      float v = 3f + 10 * rep;
      switch (seq.variant) {
        case "non-blocking" -> oneStream(seq, rep, v, slowFill, slowAxpb, Sequence.NON_BLOCKING);
        case "blocking" -> oneStream(seq, rep, v, slowFill, slowAxpb, 0);
        case "legacy" -> oneStream(seq, rep, v, slowFill, slowAxpb, -1);
        case "event" -> event(seq, rep, v, slowFill, slowAxpb);
        case "events-waited-after" -> eventsWaitedAfter(seq, rep, v, slowFill, slowAxpb);
        case "idle-stream-queried" -> idleStreamQueried(seq, rep, v, slowFill);
        default -> throw new IllegalArgumentException("unknown variant " + seq.variant);
      }
    });
  }

  /** {@code flags} of the stream, or -1 for the legacy stream. */
  private static void oneStream(Sequence seq, int rep, float v, CUfunction slowFill, CUfunction slowAxpb, int flags) {
    CUstream s = flags >= 0 ? Sequence.stream(flags) : null;
    CUdeviceptr x = Sequence.alloc(4L * N);
    CUdeviceptr scratch = Sequence.alloc(4L * N);
    for (int i = 0; i < 14; i++) {
      seq.rc(rep, "slow_fill scratch", 0, Sequence.launch(slowFill, s, scratch, (float) i, N, seq.cycles));
    }
    seq.rc(rep, "slow_fill x", 0, Sequence.launch(slowFill, s, x, v, N, seq.cycles));
    seq.rc(rep, "slow_axpb x", 0, Sequence.launch(slowAxpb, s, x, 2f, 1f, N, seq.cycles));
    seq.rc(rep, "cuStreamSynchronize", 0, cuStreamSynchronize(s));
    seq.check(rep, "x", describe(2 * v + 1, 2), read(x));
    cuMemFree(x);
    cuMemFree(scratch);
    if (s != null) {
      cuStreamDestroy(s);
    }
  }

  private static void event(Sequence seq, int rep, float v, CUfunction slowFill, CUfunction slowAxpb) {
    CUstream first = Sequence.stream(Sequence.NON_BLOCKING);
    CUstream second = Sequence.stream(Sequence.NON_BLOCKING);
    CUevent filled = Sequence.event(0);
    CUdeviceptr x = Sequence.alloc(4L * N);
    CUdeviceptr scratch = Sequence.alloc(4L * N);
    seq.rc(rep, "slow_fill x", 0, Sequence.launch(slowFill, first, x, v, N, seq.cycles));
    seq.rc(rep, "cuEventRecord", 0, cuEventRecord(filled, first));
    seq.rc(rep, "cuStreamWaitEvent", 0, cuStreamWaitEvent(second, filled, 0));
    for (int i = 0; i < 15; i++) {
      seq.rc(rep, "slow_fill scratch", 0, Sequence.launch(slowFill, second, scratch, (float) i, N, seq.cycles));
    }
    seq.rc(rep, "slow_axpb x", 0, Sequence.launch(slowAxpb, second, x, 2f, 1f, N, seq.cycles));
    seq.rc(rep, "cuStreamSynchronize", 0, cuStreamSynchronize(second));
    seq.check(rep, "x", describe(2 * v + 1, 2), read(x));
    cuMemFree(x);
    cuMemFree(scratch);
    cuEventDestroy(filled);
    cuStreamDestroy(first);
    cuStreamDestroy(second);
  }

  private static void eventsWaitedAfter(Sequence seq, int rep, float v, CUfunction slowFill, CUfunction slowAxpb) {
    int pairs = 8;
    CUstream[] recorders = new CUstream[pairs];
    CUstream[] waiters = new CUstream[pairs];
    CUevent[] filled = new CUevent[pairs];
    CUdeviceptr[] x = new CUdeviceptr[pairs];
    for (int i = 0; i < pairs; i++) {
      recorders[i] = Sequence.stream(0);
      waiters[i] = Sequence.stream(Sequence.NON_BLOCKING);
      filled[i] = Sequence.event(0);
      x[i] = Sequence.alloc(4L * N);
      seq.rc(rep, "slow_fill x" + i, 0, Sequence.launch(slowFill, recorders[i], x[i], v + i, N, seq.cycles));
      seq.rc(rep, "cuEventRecord " + i, 0, cuEventRecord(filled[i], recorders[i]));
    }
    CUstream run = Sequence.stream(Sequence.NON_BLOCKING);
    CUdeviceptr scratch = Sequence.alloc(4L * N);
    for (int i = 0; i < 16; i++) {
      seq.rc(rep, "slow_fill scratch", 0, Sequence.launch(slowFill, run, scratch, (float) i, N, seq.cycles / 10));
    }
    for (int i = 0; i < pairs; i++) {
      seq.rc(rep, "cuStreamWaitEvent " + i, 0, cuStreamWaitEvent(waiters[i], filled[i], 0));
      seq.rc(rep, "slow_axpb x" + i, 0, Sequence.launch(slowAxpb, waiters[i], x[i], 2f, 1f, N, seq.cycles / 10));
    }
    seq.rc(rep, "cuCtxSynchronize", 0, cuCtxSynchronize());
    for (int i = 0; i < pairs; i++) {
      seq.check(rep, "x" + i, describe(2 * (v + i) + 1, 2), read(x[i]));
      cuMemFree(x[i]);
      cuEventDestroy(filled[i]);
      cuStreamDestroy(recorders[i]);
      cuStreamDestroy(waiters[i]);
    }
    cuMemFree(scratch);
    cuStreamDestroy(run);
  }

  private static void idleStreamQueried(Sequence seq, int rep, float v, CUfunction slowFill) {
    CUstream idle = Sequence.stream(Sequence.NON_BLOCKING);
    CUstream run = Sequence.stream(Sequence.NON_BLOCKING);
    CUdeviceptr x = Sequence.alloc(4L * N);
    CUdeviceptr scratch = Sequence.alloc(4L * N);
    seq.rc(rep, "slow_fill x", 0, Sequence.launch(slowFill, idle, x, v, N, seq.cycles));
    seq.rc(rep, "cuStreamSynchronize", 0, cuStreamSynchronize(idle));
    for (int i = 0; i < 16; i++) {
      seq.rc(rep, "slow_fill scratch", 0, Sequence.launch(slowFill, run, scratch, (float) i, N, seq.cycles / 10));
    }
    seq.rc(rep, "cuStreamQuery of a stream whose work has all completed", 0, cuStreamQuery(idle));
    seq.rc(rep, "cuStreamSynchronize", 0, cuStreamSynchronize(run));
    seq.check(rep, "x", describe(v, 1), read(x));
    cuMemFree(x);
    cuMemFree(scratch);
    cuStreamDestroy(idle);
    cuStreamDestroy(run);
  }

  private static String read(CUdeviceptr x) {
    float[] back = Sequence.read(x);
    return back[0] + ", " + back[1] + " .. " + back[N - 1];
  }

  /** What {@code read} gives for element {@code i} holding {@code first + step * i}. */
  private static String describe(float first, float step) {
    return first + ", " + (first + step) + " .. " + (first + step * (N - 1));
  }
}
