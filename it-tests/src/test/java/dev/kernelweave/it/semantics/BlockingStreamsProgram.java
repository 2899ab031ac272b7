package dev.kernelweave.it.semantics;

import static dev.kernelweave.it.semantics.Sequence.BYTES;
import static dev.kernelweave.it.semantics.Sequence.N;
import static dev.kernelweave.it.semantics.Sequence.NON_BLOCKING;
import static dev.kernelweave.it.semantics.Sequence.alloc;
import static dev.kernelweave.it.semantics.Sequence.allocHost;
import static dev.kernelweave.it.semantics.Sequence.event;
import static dev.kernelweave.it.semantics.Sequence.stream;
import static jcuda.driver.JCudaDriver.CU_STREAM_PER_THREAD;
import static jcuda.driver.JCudaDriver.cuCtxGetCurrent;
import static jcuda.driver.JCudaDriver.cuCtxSynchronize;
import static jcuda.driver.JCudaDriver.cuEventDestroy;
import static jcuda.driver.JCudaDriver.cuEventRecord;
import static jcuda.driver.JCudaDriver.cuEventSynchronize;
import static jcuda.driver.JCudaDriver.cuGraphDestroy;
import static jcuda.driver.JCudaDriver.cuGraphExecDestroy;
import static jcuda.driver.JCudaDriver.cuGraphInstantiate;
import static jcuda.driver.JCudaDriver.cuGraphLaunch;
import static jcuda.driver.JCudaDriver.cuStreamBeginCapture;
import static jcuda.driver.JCudaDriver.cuStreamEndCapture;
import static jcuda.driver.JCudaDriver.cuLaunchHostFunc;
import static jcuda.driver.JCudaDriver.cuMemFree;
import static jcuda.driver.JCudaDriver.cuMemcpyDtoHAsync;
import static jcuda.driver.JCudaDriver.cuMemcpyHtoDAsync;
import static jcuda.driver.JCudaDriver.cuStreamAddCallback;
import static jcuda.driver.JCudaDriver.cuStreamDestroy;
import static jcuda.driver.JCudaDriver.cuStreamQuery;
import static jcuda.driver.JCudaDriver.cuStreamSynchronize;
import static jcuda.driver.JCudaDriver.cuStreamWaitEvent;

import java.util.Map;
import java.util.concurrent.CountDownLatch;
import jcuda.Pointer;
import jcuda.driver.CUcontext;
import jcuda.driver.CUdeviceptr;
import jcuda.driver.CUevent;
import jcuda.driver.CUfunction;
import jcuda.driver.CUgraph;
import jcuda.driver.CUgraphExec;
import jcuda.driver.CUhostFn;
import jcuda.driver.CUstream;

/**
 * Stream, event and thread orderings CUDA defines between streams created with flags 0 (blocking
 * with respect to the legacy stream only), the per-thread default stream and threads, each variant a
 * sequence whose every observation CUDA defines. Every variant first makes 16 launches in a row on
 * the legacy stream, so that an agent engaging at such a run ({@code engage=auto}) schedules the rest.
 *
 * <ul>
 *   <li>{@code host-function-blocking}: a host function on blocking stream {@code a} waits (at most
 *       {@code --timeout-ms}) until the host has read back the results of 20 kernels on blocking
 *       stream {@code b}. Two blocking streams do not wait for each other (only for the legacy
 *       stream), so every read returns while the host function waits, and the host lets it go.
 *   <li>{@code callback-blocking}: the same with {@code cuStreamAddCallback} on {@code a} and the
 *       calling thread's per-thread default stream (blocking too) in place of {@code b}.
 *   <li>{@code event-rerecord}: a slow kernel on {@code s1}, an event recorded after it, a wait for
 *       the event on {@code s2}, then the same event recorded again at once on an idle stream: the
 *       wait is for the record that preceded it, so a read on {@code s2} sees the kernel's values.
 *   <li>{@code per-thread-threads}: four threads each fill, scale and read back a buffer of their
 *       own on {@code CU_STREAM_PER_THREAD}, and synchronize it; each sees its own values.
 *   <li>{@code ctx-sync-other-thread}: one thread launches a slow kernel on a non-blocking stream
 *       and tells another (a latch), which calls {@code cuCtxSynchronize} and reads mapped memory the
 *       kernel wrote, then reads the buffer back on the legacy stream.
 *   <li>{@code mapped-syncs}: a slow kernel on a non-blocking stream writes mapped page-locked
 *       memory; the host reads it after {@code cuStreamSynchronize}, after {@code cuEventSynchronize}
 *       of an event recorded after a second kernel, and after {@code cuCtxSynchronize} of a third.
 *   <li>{@code host-function-legacy-copies}: a host function on a non-blocking stream waits (at most
 *       {@code --timeout-ms}) until the host has made 10 round trips on the legacy stream
 *       (synchronous upload, kernel, synchronous read back), which does not synchronize with a
 *       non-blocking stream: every round trip returns while the host function waits.
 *   <li>{@code query-after-event-sync}: a slow kernel on a stream (blocking, then non-blocking), an
 *       event recorded after it (timed, then without timing), {@code cuEventSynchronize} of the
 *       event: the record was the stream's last work, so {@code cuStreamQuery} of the stream answers
 *       0 at once, and so does {@code cuEventQuery}.
 *   <li>{@code pageable-async-upload}: ten {@code cuMemcpyHtoDAsync} from one Java array into ten
 *       buffers on a stream, the array overwritten after each returns (a copy from pageable memory
 *       has read it by then), each buffer then scaled on another stream after an event: each holds
 *       what the array held at its copy.
 *   <li>{@code app-graph}: the program captures a scale of {@code x} into a graph, instantiates it,
 *       and launches it five times on a blocking stream, each after a plain launch of another scale
 *       of {@code x} on the same stream; then once on a non-blocking stream after an event of the
 *       first, followed there by a plain launch: {@code x} read back.
 *   <li>{@code host-function-upload}: a host function on a stream writes page-locked memory that the
 *       next call of the stream, an asynchronous upload, copies to the device; a kernel then scales
 *       it. The upload reads what the host function wrote.
 * </ul>
 */
public final class BlockingStreamsProgram {

  public static void main(String[] args) throws Exception {
    Sequence.repeatEngaged(args, "host-function-blocking", 5f, Map.ofEntries(
        Map.entry("host-function-blocking", (q, k, rep, v) -> hostFunctionBlocking(q, k.slowFill(), rep, v, false)),
        Map.entry("callback-blocking", (q, k, rep, v) -> hostFunctionBlocking(q, k.slowFill(), rep, v, true)),
        Map.entry("event-rerecord", (q, k, rep, v) -> eventRerecord(q, k.slowFill(), rep, v)),
        Map.entry("per-thread-threads", (q, k, rep, v) -> perThreadThreads(q, k.slowFill(), k.slowAxpb(), rep, v)),
        Map.entry("ctx-sync-other-thread", (q, k, rep, v) -> ctxSyncOtherThread(q, k.slowFill(), rep, v)),
        Map.entry("mapped-syncs", (q, k, rep, v) -> mappedSyncs(q, k.slowFill(), k.slowAxpb(), rep, v)),
        Map.entry("host-function-upload", (q, k, rep, v) -> hostFunctionUpload(q, k.slowAxpb(), rep, v)),
        Map.entry("host-function-legacy-copies", (q, k, rep, v) -> hostFunctionLegacyCopies(q, k.slowAxpb(), rep, v)),
        Map.entry("query-after-event-sync", (q, k, rep, v) -> queryAfterEventSync(q, k.slowFill(), rep, v)),
        Map.entry("pageable-async-upload", (q, k, rep, v) -> pageableAsyncUpload(q, k.slowAxpb(), rep, v)),
        Map.entry("app-graph", (q, k, rep, v) -> appGraph(q, k.slowFill(), k.slowAxpb(), rep, v))));
  }


  private static void hostFunctionBlocking(Sequence seq, CUfunction slowFill, int rep, float v, boolean callback)
      throws Exception {
    CUstream waiting = stream(0);
    CUstream working = callback ? CU_STREAM_PER_THREAD : stream(0);
    Sequence.Gate readBack = seq.new Gate();
    CUdeviceptr before = alloc(BYTES);
    // Work on the waiting stream before the host function: the host function follows it.
    seq.rc(rep, "slow_fill before the host function", 0, Sequence.launch(slowFill, waiting, before, v, N, seq.cycles));
    if (callback) {
      seq.rc(rep, "cuStreamAddCallback", 0,
          cuStreamAddCallback(waiting, (stream, status, data) -> readBack.await(), null, 0));
    } else {
      CUhostFn f = data -> readBack.await();
      seq.rc(rep, "cuLaunchHostFunc", 0, cuLaunchHostFunc(waiting, f, null));
    }
    Pointer pinned = allocHost(BYTES);
    CUdeviceptr[] buffers = seq.fillAndReadBackTwenty(rep, slowFill, working, pinned, v);
    CUevent e = event(0);
    seq.rc(rep, "cuEventRecord on the working stream", 0, cuEventRecord(e, working));
    seq.rc(rep, "cuEventSynchronize", 0, cuEventSynchronize(e));
    seq.rc(rep, "cuStreamQuery of the working stream", 0, cuStreamQuery(working));
    readBack.open();
    seq.rc(rep, "cuStreamSynchronize waiting", 0, cuStreamSynchronize(waiting));
    seq.check(rep, "the host function was let go by the host", true, readBack.released());
    cuEventDestroy(e);
    seq.check(rep, "before", Sequence.describe(Sequence.ramp(v)), Sequence.describe(Sequence.read(before)));
    for (CUdeviceptr b : buffers) {
      cuMemFree(b);
    }
    Sequence.release(before, pinned, waiting);
    if (!callback) {
      cuStreamDestroy(working);
    }
  }

  private static void eventRerecord(Sequence seq, CUfunction slowFill, int rep, float v) {
    CUstream s1 = stream(NON_BLOCKING);
    CUstream s2 = stream(NON_BLOCKING);
    CUstream idle = stream(NON_BLOCKING);
    CUdeviceptr a = alloc(BYTES);
    Pointer pinned = allocHost(BYTES);
    Sequence.fill(pinned, -1f);
    CUevent e = event(0);
    seq.rc(rep, "slow_fill on s1", 0, Sequence.launch(slowFill, s1, a, v, N, seq.cycles));
    seq.rc(rep, "cuEventRecord(e, s1)", 0, cuEventRecord(e, s1));
    seq.rc(rep, "cuStreamWaitEvent(s2, e)", 0, cuStreamWaitEvent(s2, e, 0));
    seq.rc(rep, "cuEventRecord(e, idle)", 0, cuEventRecord(e, idle));
    seq.rc(rep, "cuMemcpyDtoHAsync on s2", 0, cuMemcpyDtoHAsync(pinned, a, BYTES, s2));
    seq.rc(rep, "cuStreamSynchronize(s2)", 0, cuStreamSynchronize(s2));
    seq.check(rep, "read after the first record", Sequence.describe(Sequence.ramp(v)),
        Sequence.describe(Sequence.floats(pinned)));
    cuCtxSynchronize();
    Sequence.release(e, pinned, a, s1, s2, idle);
  }

  private static void perThreadThreads(Sequence seq, CUfunction slowFill, CUfunction slowAxpb, int rep, float v)
      throws Exception {
    CUcontext context = new CUcontext();
    cuCtxGetCurrent(context);
    int threads = 4;
    Sequence.Worker[] workers = new Sequence.Worker[threads];
    String[][] seen = new String[threads][3];
    CountDownLatch start = new CountDownLatch(1);
    for (int t = 0; t < threads; t++) {
      int id = t;
      workers[t] = new Sequence.Worker("per-thread-" + t, context, () -> {
        CUdeviceptr x = alloc(BYTES);
        Pointer pinned = allocHost(BYTES);
        start.await();
        for (int round = 0; round < 3; round++) {
          float value = v + 100 * id + 1000 * round;
          Sequence.launch(slowFill, CU_STREAM_PER_THREAD, x, value, N, seq.cycles);
          Sequence.launch(slowAxpb, CU_STREAM_PER_THREAD, x, 2f, 1f, N, seq.cycles);
          cuMemcpyDtoHAsync(pinned, x, BYTES, CU_STREAM_PER_THREAD);
          cuStreamSynchronize(CU_STREAM_PER_THREAD);
          seen[id][round] = Sequence.describe(Sequence.floats(pinned));
        }
        Sequence.release(pinned, x);
      });
    }
    start.countDown();
    for (Sequence.Worker w : workers) {
      w.join();
    }
    for (int t = 0; t < threads; t++) {
      for (int round = 0; round < 3; round++) {
        float[] expected = Sequence.axpb(Sequence.ramp(v + 100 * t + 1000 * round), 2f, 1f);
        seq.check(rep, "thread " + t + " round " + round, Sequence.describe(expected), seen[t][round]);
      }
    }
  }

  private static void ctxSyncOtherThread(Sequence seq, CUfunction slowFill, int rep, float v) throws Exception {
    CUcontext context = new CUcontext();
    cuCtxGetCurrent(context);
    Pointer host = seq.mappedHost(rep);
    CUdeviceptr mapped = Sequence.devicePointer(host);
    CUdeviceptr a = alloc(BYTES);
    CountDownLatch launched = new CountDownLatch(1);
    String[] seen = new String[2];
    Sequence.Worker reader = new Sequence.Worker("reader", context, () -> {
      launched.await();
      seen[0] = "cuCtxSynchronize returned " + cuCtxSynchronize() + " " + Sequence.describe(Sequence.floats(host));
      seen[1] = Sequence.describe(Sequence.read(a));
    });
    CUstream s = stream(NON_BLOCKING);
    seq.rc(rep, "slow_fill into mapped memory", 0, Sequence.launch(slowFill, s, mapped, v, N, seq.cycles));
    seq.rc(rep, "slow_fill into device memory", 0, Sequence.launch(slowFill, s, a, v + 1, N, seq.cycles));
    launched.countDown();
    reader.join();
    seq.check(rep, "mapped memory after the other thread's cuCtxSynchronize",
        "cuCtxSynchronize returned 0 " + Sequence.describe(Sequence.ramp(v)), seen[0]);
    seq.check(rep, "device memory read on the other thread", Sequence.describe(Sequence.ramp(v + 1)), seen[1]);
    Sequence.release(s, a, host);
  }

  private static void mappedSyncs(Sequence seq, CUfunction slowFill, CUfunction slowAxpb, int rep, float v) {
    Pointer host = seq.mappedHost(rep);
    CUdeviceptr mapped = Sequence.devicePointer(host);
    CUstream s = stream(NON_BLOCKING);
    CUevent e = event(0);
    float[] expected = Sequence.ramp(v);
    seq.rc(rep, "slow_fill", 0, Sequence.launch(slowFill, s, mapped, v, N, seq.cycles));
    seq.rc(rep, "cuStreamSynchronize", 0, cuStreamSynchronize(s));
    seq.check(rep, "mapped memory after cuStreamSynchronize", Sequence.describe(expected),
        Sequence.describe(Sequence.floats(host)));
    seq.rc(rep, "slow_axpb", 0, Sequence.launch(slowAxpb, s, mapped, 2f, 1f, N, seq.cycles));
    seq.rc(rep, "cuEventRecord", 0, cuEventRecord(e, s));
    seq.rc(rep, "cuEventSynchronize", 0, cuEventSynchronize(e));
    expected = Sequence.axpb(expected, 2f, 1f);
    seq.check(rep, "mapped memory after cuEventSynchronize", Sequence.describe(expected),
        Sequence.describe(Sequence.floats(host)));
    seq.rc(rep, "slow_axpb again", 0, Sequence.launch(slowAxpb, s, mapped, 3f, -1f, N, seq.cycles));
    seq.rc(rep, "cuCtxSynchronize", 0, cuCtxSynchronize());
    expected = Sequence.axpb(expected, 3f, -1f);
    seq.check(rep, "mapped memory after cuCtxSynchronize", Sequence.describe(expected),
        Sequence.describe(Sequence.floats(host)));
    Sequence.release(e, s, host);
  }

  private static void hostFunctionUpload(Sequence seq, CUfunction slowAxpb, int rep, float v) {
    CUstream s = stream(NON_BLOCKING);
    Pointer pinned = allocHost(BYTES);
    Sequence.fill(pinned, -1f);
    Pointer result = allocHost(BYTES);
    CUdeviceptr a = alloc(BYTES);
    float[] values = Sequence.ramp(v);
    CUhostFn write = data -> pinned.getByteBuffer(0, BYTES).order(java.nio.ByteOrder.nativeOrder())
        .asFloatBuffer().put(values);
    seq.rc(rep, "cuLaunchHostFunc", 0, cuLaunchHostFunc(s, write, null));
    seq.rc(rep, "cuMemcpyHtoDAsync", 0, cuMemcpyHtoDAsync(a, pinned, BYTES, s));
    seq.rc(rep, "slow_axpb", 0, Sequence.launch(slowAxpb, s, a, 2f, 1f, N, seq.cycles));
    seq.rc(rep, "cuMemcpyDtoHAsync", 0, cuMemcpyDtoHAsync(result, a, BYTES, s));
    seq.rc(rep, "cuStreamSynchronize", 0, cuStreamSynchronize(s));
    float[] expected = Sequence.axpb(Sequence.ramp(v), 2f, 1f);
    seq.check(rep, "uploaded what the host function wrote", Sequence.describe(expected),
        Sequence.describe(Sequence.floats(result)));
    Sequence.release(s, a, pinned, result);
  }

  private static void hostFunctionLegacyCopies(Sequence seq, CUfunction slowAxpb, int rep, float v) {
    CUstream waiting = stream(NON_BLOCKING);
    Sequence.Gate done = seq.new Gate();
    seq.rc(rep, "cuLaunchHostFunc", 0, cuLaunchHostFunc(waiting, data -> done.await(), null));
    CUdeviceptr x = alloc(BYTES);
    for (int k = 0; k < 10; k++) {
      seq.check(rep, "round trip " + k, true, Sequence.axpbRoundTrip(slowAxpb, x, v + k, seq.cycles / 10));
    }
    done.open();
    seq.rc(rep, "cuStreamSynchronize waiting", 0, cuStreamSynchronize(waiting));
    seq.check(rep, "the host function was let go by the host", true, done.released());
    Sequence.release(x, waiting);
  }

  private static void queryAfterEventSync(Sequence seq, CUfunction slowFill, int rep, float v) {
    CUdeviceptr a = alloc(BYTES);
    for (int flags : new int[] {0, NON_BLOCKING}) {
      for (int eventFlags : new int[] {0, 2}) {  // 2: CU_EVENT_DISABLE_TIMING
        String what = (flags == 0 ? "blocking" : "non-blocking") + (eventFlags == 0 ? ", timed" : ", untimed");
        CUstream s = stream(flags);
        CUevent e = event(eventFlags);
        seq.rc(rep, what + ": slow_fill", 0, Sequence.launch(slowFill, s, a, v, N, seq.cycles));
        seq.rc(rep, what + ": cuEventRecord", 0, cuEventRecord(e, s));
        seq.rc(rep, what + ": cuEventSynchronize", 0, cuEventSynchronize(e));
        seq.rc(rep, what + ": cuStreamQuery", 0, cuStreamQuery(s));
        seq.rc(rep, what + ": cuEventQuery", 0, jcuda.driver.JCudaDriver.cuEventQuery(e));
        seq.check(rep, what + ": a", Sequence.describe(Sequence.ramp(v)), Sequence.describe(Sequence.read(a)));
        Sequence.release(e, s);
      }
    }
    cuMemFree(a);
  }

  private static void pageableAsyncUpload(Sequence seq, CUfunction slowAxpb, int rep, float v) {
    CUstream up = stream(NON_BLOCKING);
    CUstream work = stream(NON_BLOCKING);
    CUevent e = event(0);
    float[] array = new float[N];
    CUdeviceptr[] buffers = new CUdeviceptr[10];
    for (int k = 0; k < buffers.length; k++) {
      buffers[k] = alloc(BYTES);
      System.arraycopy(Sequence.ramp(v + k), 0, array, 0, N);
      seq.rc(rep, "cuMemcpyHtoDAsync " + k, 0, cuMemcpyHtoDAsync(buffers[k], Pointer.to(array), BYTES, up));
      java.util.Arrays.fill(array, -7f);
    }
    seq.rc(rep, "cuEventRecord", 0, cuEventRecord(e, up));
    seq.rc(rep, "cuStreamWaitEvent", 0, cuStreamWaitEvent(work, e, 0));
    for (int k = 0; k < buffers.length; k++) {
      seq.rc(rep, "slow_axpb " + k, 0, Sequence.launch(slowAxpb, work, buffers[k], 2f, 1f, N, seq.cycles / 10));
    }
    seq.rc(rep, "cuStreamSynchronize", 0, cuStreamSynchronize(work));
    for (int k = 0; k < buffers.length; k++) {
      float[] expected = Sequence.axpb(Sequence.ramp(v + k), 2f, 1f);
      seq.check(rep, "buffer " + k, Sequence.describe(expected), Sequence.describe(Sequence.read(buffers[k])));
      cuMemFree(buffers[k]);
    }
    Sequence.release(e, up, work);
  }

  private static void appGraph(Sequence seq, CUfunction slowFill, CUfunction slowAxpb, int rep, float v) {
    CUstream s = stream(0);
    CUstream other = stream(NON_BLOCKING);
    CUstream capturing = stream(NON_BLOCKING);
    CUevent e = event(0);
    CUdeviceptr x = alloc(BYTES);
    seq.rc(rep, "cuStreamBeginCapture", 0, cuStreamBeginCapture(capturing, 2));  // relaxed
    seq.rc(rep, "slow_axpb captured", 0, Sequence.launch(slowAxpb, capturing, x, 2f, 1f, N, seq.cycles));
    CUgraph graph = new CUgraph();
    seq.rc(rep, "cuStreamEndCapture", 0, cuStreamEndCapture(capturing, graph));
    CUgraphExec exec = new CUgraphExec();
    seq.rc(rep, "cuGraphInstantiate", 0, cuGraphInstantiate(exec, graph, 0));
    float[] expected = Sequence.ramp(v);
    seq.rc(rep, "slow_fill", 0, Sequence.launch(slowFill, s, x, v, N, seq.cycles));
    for (int k = 0; k < 5; k++) {
      seq.rc(rep, "slow_axpb " + k, 0, Sequence.launch(slowAxpb, s, x, 1f, -1f, N, seq.cycles));
      seq.rc(rep, "cuGraphLaunch " + k, 0, cuGraphLaunch(exec, s));
      for (int i = 0; i < N; i++) {
        expected[i] = 2f * (expected[i] - 1f) + 1f;
      }
    }
    seq.rc(rep, "cuEventRecord", 0, cuEventRecord(e, s));
    seq.rc(rep, "cuStreamWaitEvent", 0, cuStreamWaitEvent(other, e, 0));
    seq.rc(rep, "cuGraphLaunch on the other stream", 0, cuGraphLaunch(exec, other));
    seq.rc(rep, "slow_axpb on the other stream", 0, Sequence.launch(slowAxpb, other, x, 0.5f, 0f, N, seq.cycles));
    for (int i = 0; i < N; i++) {
      expected[i] = 0.5f * (2f * expected[i] + 1f);
    }
    seq.rc(rep, "cuStreamSynchronize", 0, cuStreamSynchronize(other));
    seq.check(rep, "x", Sequence.describe(expected), Sequence.describe(Sequence.read(x)));
    cuGraphExecDestroy(exec);
    cuGraphDestroy(graph);
    Sequence.release(e, x, s, other, capturing);
  }
}
