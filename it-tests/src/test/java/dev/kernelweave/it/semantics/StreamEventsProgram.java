package dev.kernelweave.it.semantics;

import static dev.kernelweave.it.semantics.Sequence.BYTES;
import static dev.kernelweave.it.semantics.Sequence.N;
import static dev.kernelweave.it.semantics.Sequence.NON_BLOCKING;
import static dev.kernelweave.it.semantics.Sequence.alloc;
import static dev.kernelweave.it.semantics.Sequence.allocHost;
import static dev.kernelweave.it.semantics.Sequence.event;
import static dev.kernelweave.it.semantics.Sequence.stream;
import static jcuda.driver.JCudaDriver.cuCtxGetCurrent;
import static jcuda.driver.JCudaDriver.cuCtxSynchronize;
import static jcuda.driver.JCudaDriver.cuEventQuery;
import static jcuda.driver.JCudaDriver.cuEventRecord;
import static jcuda.driver.JCudaDriver.cuEventSynchronize;
import static jcuda.driver.JCudaDriver.cuMemcpyDtoDAsync;
import static jcuda.driver.JCudaDriver.cuMemcpyDtoHAsync;
import static jcuda.driver.JCudaDriver.cuMemcpyHtoD;
import static jcuda.driver.JCudaDriver.cuMemcpyHtoDAsync;
import static jcuda.driver.JCudaDriver.cuMemsetD8Async;
import static jcuda.driver.JCudaDriver.cuStreamSynchronize;
import static jcuda.driver.JCudaDriver.cuStreamWaitEvent;

import java.nio.ByteOrder;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import jcuda.Pointer;
import jcuda.driver.CUcontext;
import jcuda.driver.CUdeviceptr;
import jcuda.driver.CUevent;
import jcuda.driver.CUresult;
import jcuda.driver.CUstream;

/**
 * Events, copies and memsets between streams, each variant a sequence whose every observation CUDA
 * defines. After a run of 16 launches (so that {@code engage=auto} schedules the rest):
 *
 * <ul>
 *   <li>{@code never-recorded}: an event never recorded is complete: {@code cuEventQuery} and
 *       {@code cuEventSynchronize} answer 0, and a stream that waits for it runs its work (a fill and
 *       a scale, read back on that stream).
 *   <li>{@code empty-record}: an event recorded on a stream that has had no work; another stream
 *       waits for it, then fills, scales and reads back.
 *   <li>{@code query-poll}: a fill and scales on a non-blocking stream, an event recorded after
 *       them, {@code cuEventQuery} polled until it answers 0 (the only synchronization); then a read
 *       on a second non-blocking stream that waits for nothing.
 *   <li>{@code memset-d8-join}: {@code cuMemsetD8Async} of a buffer on one non-blocking stream, an
 *       event; a second waits for it, scales the buffer and reads it back.
 *   <li>{@code dtod-chain}: a fill of {@code a} and a copy into {@code b} on one stream; after its
 *       event a second stream scales {@code b} and copies it into {@code c}; after that one's event a
 *       third scales {@code c} and copies it over {@code a}: all three read back.
 *   <li>{@code pinned-reuse}: five rounds on one stream of an upload from page-locked memory, a
 *       scale and a read back into other page-locked memory, the stream synchronized, and the
 *       page-locked source then overwritten by the host for the next round.
 *   <li>{@code beside-legacy}: a slow fill on a non-blocking stream beside round trips on the legacy
 *       stream (which does not wait for it); then the non-blocking stream synchronized and read.
 *   <li>{@code ctx-sync-thread}: twelve launches on a blocking stream; another thread, told by a
 *       latch once they are made, calls {@code cuCtxSynchronize} and then reads the buffer on a
 *       non-blocking stream of its own that waits for nothing.
 * </ul>
 */
public final class StreamEventsProgram {

  public static void main(String[] args) throws Exception {
    Sequence.repeatEngaged(args, "never-recorded", 23f, Map.of(
        "never-recorded", (q, k, rep, v) -> neverRecorded(q, k, rep, v, false),
        "empty-record", (q, k, rep, v) -> neverRecorded(q, k, rep, v, true),
        "query-poll", StreamEventsProgram::queryPoll,
        "memset-d8-join", StreamEventsProgram::memsetD8Join,
        "dtod-chain", StreamEventsProgram::dtodChain,
        "pinned-reuse", StreamEventsProgram::pinnedReuse,
        "beside-legacy", StreamEventsProgram::besideLegacy,
        "ctx-sync-thread", StreamEventsProgram::ctxSyncThread));
  }

  private static void neverRecorded(Sequence seq, Sequence.Kernels k, int rep, float v, boolean record) {
    CUstream idle = stream(NON_BLOCKING);
    CUstream s = stream(NON_BLOCKING);
    CUevent e = event(0);
    CUdeviceptr a = alloc(BYTES);
    Pointer pinned = allocHost(BYTES);
    if (record) {
      seq.rc(rep, "cuEventRecord on the idle stream", 0, cuEventRecord(e, idle));
      seq.rc(rep, "cuEventSynchronize", 0, cuEventSynchronize(e));
    }
    seq.rc(rep, "cuEventQuery", 0, cuEventQuery(e));
    seq.rc(rep, "cuEventSynchronize", 0, cuEventSynchronize(e));
    seq.rc(rep, "cuStreamWaitEvent", 0, cuStreamWaitEvent(s, e, 0));
    seq.rc(rep, "slow_fill", 0, Sequence.launch(k.slowFill(), s, a, v, N, seq.cycles));
    seq.rc(rep, "slow_axpb", 0, Sequence.launch(k.slowAxpb(), s, a, 2f, 1f, N, seq.cycles));
    seq.rc(rep, "cuMemcpyDtoHAsync", 0, cuMemcpyDtoHAsync(pinned, a, BYTES, s));
    seq.rc(rep, "cuStreamSynchronize", 0, cuStreamSynchronize(s));
    seq.check(rep, "a", Sequence.describe(Sequence.axpb(Sequence.ramp(v), 2f, 1f)),
        Sequence.describe(Sequence.floats(pinned)));
    seq.rc(rep, "cuEventQuery again", 0, cuEventQuery(e));
    Sequence.release(pinned, a, e, s, idle);
  }

  private static void queryPoll(Sequence seq, Sequence.Kernels k, int rep, float v) {
    CUstream s1 = stream(NON_BLOCKING);
    CUstream s2 = stream(NON_BLOCKING);
    CUevent e = event(0);
    CUdeviceptr a = alloc(BYTES);
    Pointer pinned = allocHost(BYTES);
    Sequence.fill(pinned, -1f);
    seq.rc(rep, "slow_fill", 0, Sequence.launch(k.slowFill(), s1, a, v, N, seq.cycles));
    float[] expected = Sequence.ramp(v);
    for (int j = 0; j < 6; j++) {
      seq.rc(rep, "slow_axpb " + j, 0, Sequence.launch(k.slowAxpb(), s1, a, 1f, 2f, N, seq.cycles / 6));
      expected = Sequence.axpb(expected, 1f, 2f);
    }
    seq.rc(rep, "cuEventRecord", 0, cuEventRecord(e, s1));
    long deadline = System.nanoTime() + seq.timeoutMs * 1_000_000L;
    int code;
    while ((code = cuEventQuery(e)) == CUresult.CUDA_ERROR_NOT_READY && System.nanoTime() < deadline) {
      Thread.onSpinWait();
    }
    seq.rc(rep, "cuEventQuery", 0, code);
    seq.rc(rep, "cuMemcpyDtoHAsync on s2", 0, cuMemcpyDtoHAsync(pinned, a, BYTES, s2));
    seq.rc(rep, "cuStreamSynchronize s2", 0, cuStreamSynchronize(s2));
    seq.check(rep, "a", Sequence.describe(expected), Sequence.describe(Sequence.floats(pinned)));
    Sequence.release(pinned, a, e, s1, s2);
  }

  private static void memsetD8Join(Sequence seq, Sequence.Kernels k, int rep, float v) {
    CUstream s1 = stream(NON_BLOCKING);
    CUstream s2 = stream(NON_BLOCKING);
    CUevent e = event(0);
    CUdeviceptr a = alloc(BYTES);
    Pointer pinned = allocHost(BYTES);
    seq.rc(rep, "slow_fill on s1", 0, Sequence.launch(k.slowFill(), s1, a, v, N, seq.cycles));
    int b = 0x40 + rep % 3;
    seq.rc(rep, "cuMemsetD8Async on s1", 0, cuMemsetD8Async(a, (byte) b, BYTES / 2, s1));
    seq.rc(rep, "cuEventRecord", 0, cuEventRecord(e, s1));
    seq.rc(rep, "cuStreamWaitEvent", 0, cuStreamWaitEvent(s2, e, 0));
    seq.rc(rep, "slow_axpb on s2", 0, Sequence.launch(k.slowAxpb(), s2, a, 2f, 1f, N, seq.cycles));
    seq.rc(rep, "cuMemcpyDtoHAsync on s2", 0, cuMemcpyDtoHAsync(pinned, a, BYTES, s2));
    seq.rc(rep, "cuStreamSynchronize s2", 0, cuStreamSynchronize(s2));
    float[] expected = Sequence.ramp(v);
    java.util.Arrays.fill(expected, 0, N / 2, Float.intBitsToFloat(b * 0x01010101));
    seq.check(rep, "a", Sequence.describe(Sequence.axpb(expected, 2f, 1f)), Sequence.describe(Sequence.floats(pinned)));
    cuStreamSynchronize(s1);
    Sequence.release(pinned, a, e, s1, s2);
  }

  private static void dtodChain(Sequence seq, Sequence.Kernels k, int rep, float v) {
    CUstream s1 = stream(NON_BLOCKING);
    CUstream s2 = stream(NON_BLOCKING);
    CUstream s3 = stream(NON_BLOCKING);
    CUevent e1 = event(0);
    CUevent e2 = event(0);
    CUdeviceptr a = alloc(BYTES);
    CUdeviceptr b = alloc(BYTES);
    CUdeviceptr c = alloc(BYTES);
    seq.rc(rep, "slow_fill a on s1", 0, Sequence.launch(k.slowFill(), s1, a, v, N, seq.cycles));
    seq.rc(rep, "cuMemcpyDtoDAsync a to b on s1", 0, cuMemcpyDtoDAsync(b, a, BYTES, s1));
    seq.rc(rep, "cuEventRecord e1", 0, cuEventRecord(e1, s1));
    seq.rc(rep, "cuStreamWaitEvent s2 e1", 0, cuStreamWaitEvent(s2, e1, 0));
    seq.rc(rep, "slow_axpb b on s2", 0, Sequence.launch(k.slowAxpb(), s2, b, 2f, 1f, N, seq.cycles));
    seq.rc(rep, "cuMemcpyDtoDAsync b to c on s2", 0, cuMemcpyDtoDAsync(c, b, BYTES, s2));
    seq.rc(rep, "cuEventRecord e2", 0, cuEventRecord(e2, s2));
    seq.rc(rep, "cuStreamWaitEvent s3 e2", 0, cuStreamWaitEvent(s3, e2, 0));
    seq.rc(rep, "slow_axpb c on s3", 0, Sequence.launch(k.slowAxpb(), s3, c, 3f, 0f, N, seq.cycles));
    seq.rc(rep, "cuMemcpyDtoDAsync c to a on s3", 0, cuMemcpyDtoDAsync(a, c, BYTES, s3));
    seq.rc(rep, "cuStreamSynchronize s3", 0, cuStreamSynchronize(s3));
    float[] eb = Sequence.axpb(Sequence.ramp(v), 2f, 1f);
    float[] ec = Sequence.axpb(eb, 3f, 0f);
    seq.check(rep, "a", Sequence.describe(ec), Sequence.describe(Sequence.read(a)));
    seq.check(rep, "b", Sequence.describe(eb), Sequence.describe(Sequence.read(b)));
    seq.check(rep, "c", Sequence.describe(ec), Sequence.describe(Sequence.read(c)));
    Sequence.release(a, b, c, e1, e2, s1, s2, s3);
  }

  private static void pinnedReuse(Sequence seq, Sequence.Kernels k, int rep, float v) {
    CUstream s = stream(NON_BLOCKING);
    CUdeviceptr x = alloc(BYTES);
    Pointer source = allocHost(BYTES);
    Pointer result = allocHost(BYTES);
    for (int round = 0; round < 5; round++) {
      float[] values = Sequence.ramp(v + 100 * round);
      source.getByteBuffer(0, BYTES).order(ByteOrder.nativeOrder()).asFloatBuffer().put(values);
      seq.rc(rep, "cuMemcpyHtoDAsync " + round, 0, cuMemcpyHtoDAsync(x, source, BYTES, s));
      seq.rc(rep, "slow_axpb " + round, 0, Sequence.launch(k.slowAxpb(), s, x, 2f, 1f, N, seq.cycles / 5));
      seq.rc(rep, "cuMemcpyDtoHAsync " + round, 0, cuMemcpyDtoHAsync(result, x, BYTES, s));
      seq.rc(rep, "cuStreamSynchronize " + round, 0, cuStreamSynchronize(s));
      Sequence.fill(source, -3f);
      seq.check(rep, "round " + round, Sequence.describe(Sequence.axpb(values, 2f, 1f)),
          Sequence.describe(Sequence.floats(result)));
    }
    Sequence.release(result, source, x, s);
  }

  private static void besideLegacy(Sequence seq, Sequence.Kernels k, int rep, float v) {
    CUstream s = stream(NON_BLOCKING);
    CUdeviceptr x = alloc(BYTES);
    CUdeviceptr y = alloc(BYTES);
    seq.rc(rep, "slow_fill x on the non-blocking stream", 0, Sequence.launch(k.slowFill(), s, x, v, N, seq.cycles));
    for (int round = 0; round < 3; round++) {
      float[] in = Sequence.ramp(v + 7 * round);
      cuMemcpyHtoD(y, Pointer.to(in), BYTES);
      seq.rc(rep, "slow_axpb y " + round, 0, Sequence.launch(k.slowAxpb(), null, y, 2f, -1f, N, seq.cycles / 3));
      seq.check(rep, "y " + round, Sequence.describe(Sequence.axpb(in, 2f, -1f)), Sequence.describe(Sequence.read(y)));
    }
    seq.rc(rep, "slow_axpb x on the non-blocking stream", 0, Sequence.launch(k.slowAxpb(), s, x, 1f, 1f, N, seq.cycles));
    seq.rc(rep, "cuStreamSynchronize", 0, cuStreamSynchronize(s));
    seq.check(rep, "x", Sequence.describe(Sequence.axpb(Sequence.ramp(v), 1f, 1f)), Sequence.describe(Sequence.read(x)));
    Sequence.release(x, y, s);
  }

  private static void ctxSyncThread(Sequence seq, Sequence.Kernels k, int rep, float v) throws Exception {
    CUcontext context = new CUcontext();
    cuCtxGetCurrent(context);
    CUstream s = stream(0);
    CUdeviceptr x = alloc(BYTES);
    CountDownLatch launched = new CountDownLatch(1);
    String[] seen = new String[1];
    Sequence.Worker reader = new Sequence.Worker("reader", context, () -> {
      CUstream own = stream(NON_BLOCKING);
      Pointer pinned = allocHost(BYTES);
      launched.await();
      int synced = cuCtxSynchronize();
      cuMemcpyDtoHAsync(pinned, x, BYTES, own);
      cuStreamSynchronize(own);
      seen[0] = "cuCtxSynchronize returned " + synced + " " + Sequence.describe(Sequence.floats(pinned));
      Sequence.release(pinned, own);
    });
    seq.rc(rep, "slow_fill", 0, Sequence.launch(k.slowFill(), s, x, v, N, seq.cycles / 12));
    float[] expected = Sequence.ramp(v);
    for (int j = 0; j < 11; j++) {
      seq.rc(rep, "slow_axpb " + j, 0, Sequence.launch(k.slowAxpb(), s, x, 1f, -1f, N, seq.cycles / 12));
      expected = Sequence.axpb(expected, 1f, -1f);
    }
    launched.countDown();
    reader.join();
    seq.check(rep, "read on the other thread", "cuCtxSynchronize returned 0 " + Sequence.describe(expected), seen[0]);
    Sequence.release(x, s);
  }
}
