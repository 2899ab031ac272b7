package dev.kernelweave.it.semantics;

import static dev.kernelweave.it.semantics.Sequence.BYTES;
import static dev.kernelweave.it.semantics.Sequence.N;
import static dev.kernelweave.it.semantics.Sequence.alloc;
import static dev.kernelweave.it.semantics.Sequence.allocHost;
import static dev.kernelweave.it.semantics.Sequence.event;
import static dev.kernelweave.it.semantics.Sequence.stream;
import static jcuda.driver.JCudaDriver.cuCtxSynchronize;
import static jcuda.driver.JCudaDriver.cuEventQuery;
import static jcuda.driver.JCudaDriver.cuEventCreate;
import static jcuda.driver.JCudaDriver.cuEventDestroy;
import static jcuda.driver.JCudaDriver.cuEventElapsedTime;
import static jcuda.driver.JCudaDriver.cuEventRecord;
import static jcuda.driver.JCudaDriver.cuEventSynchronize;
import static jcuda.driver.JCudaDriver.cuMemFree;
import static jcuda.driver.JCudaDriver.cuMemFreeHost;
import static jcuda.driver.JCudaDriver.cuMemcpyDtoHAsync;
import static jcuda.driver.JCudaDriver.cuMemcpyHtoD;
import static jcuda.driver.JCudaDriver.cuGraphDestroy;
import static jcuda.driver.JCudaDriver.cuGraphExecDestroy;
import static jcuda.driver.JCudaDriver.cuGraphInstantiate;
import static jcuda.driver.JCudaDriver.cuGraphLaunch;
import static jcuda.driver.JCudaDriver.cuStreamAddCallback;
import static jcuda.driver.JCudaDriver.cuStreamBeginCapture;
import static jcuda.driver.JCudaDriver.cuStreamEndCapture;
import static jcuda.driver.JCudaDriver.cuStreamDestroy;
import static jcuda.driver.JCudaDriver.cuStreamQuery;
import static jcuda.driver.JCudaDriver.cuStreamSynchronize;

import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import jcuda.Pointer;
import jcuda.driver.CUdeviceptr;
import jcuda.driver.CUevent;
import jcuda.driver.CUfunction;
import jcuda.driver.CUgraph;
import jcuda.driver.CUgraphExec;
import jcuda.driver.CUmodule;
import jcuda.driver.CUstream;
import jcuda.driver.CUstreamCaptureMode;

/**
 * Issue 23's stream sequences, one variant each, on a blocking stream {@code s}:
 *
 * <ul>
 *   <li>{@code pageable-read}: a copy into pinned memory, then {@code cuMemcpyDtoHAsync} into a Java
 *       array, on {@code s}: a copy into pageable memory returns once done, in stream order, so the
 *       pinned memory holds its values when it returns.
 *   <li>{@code callback}: {@code cuStreamAddCallback(s, cb)}: {@code cb} receives {@code s}.
 *   <li>{@code query-idle}: a copy into pinned memory on the legacy stream, then {@code
 *       cuStreamQuery(s)} of the idle blocking stream: 0 (nothing was issued to it).
 *   <li>{@code query-after-copy}: a kernel on {@code s}, then a synchronous {@code cuMemcpyHtoD} from
 *       a Java array, then {@code cuStreamQuery(s)}: 0 (the copy from pageable memory completed the
 *       blocking stream's earlier work first).
 *   <li>{@code event-after-copy}: events recorded on {@code s} around a kernel, then a synchronous
 *       {@code cuMemcpyHtoD} from a Java array: {@code cuEventQuery} of the second answers 0 and
 *       {@code cuEventElapsedTime} of the pair succeeds (the copy completed the stream's work first).
 *   <li>{@code query-after-legacy-sync}: a kernel on {@code s}, a kernel on the legacy stream (which
 *       waits for it), {@code cuStreamSynchronize} of the legacy stream, then {@code cuStreamQuery(s)}: 0.
 *   <li>{@code capture-other-stream}: while another stream captures a graph, a kernel on {@code s},
 *       which is not capturing; after the capture a second kernel on {@code s} runs after it.
 *   <li>{@code free-beside-capture}: while another stream captures a graph (relaxed mode), a long
 *       kernel on the blocking stream {@code s} writes a buffer that the program then frees: the free
 *       may synchronize (it does for blocking streams on the stand-in with
 *       {@code KW_CPU_DEVICE_FREE=legacy}), so the kernel never writes freed memory (no error 700).
 *   <li>{@code timing}: a long kernel on {@code s}, then records of two timing events around a
 *       kernel on {@code s}: their elapsed time covers the kernel between them (at least half of
 *       what the same kernel alone between two records takes).
 *   <li>{@code legacy-timing}: a long kernel on the legacy stream, then records of two timing events
 *       on the legacy stream around a kernel on the blocking stream {@code s}: CUDA starts that kernel
 *       after the first record and ends the second after it, so their elapsed time covers it too.
 * </ul>
 */
public final class StreamOrderProgram {

  /** A buffer of its own 2 MiB granule on a GPU, so that a kernel writing it after its free faults there. */
  private static final long FREED_BYTES = 4L << 20;

  public static void main(String[] args) throws Exception {
    Sequence seq = Sequence.start(args, "pageable-read");
    CUmodule module = Sequence.loadSemantics();
    CUfunction slowFill = Sequence.function(module, "slow_fill");
    CUfunction slowAxpb = Sequence.function(module, "slow_axpb");
    seq.repeat(rep -> {
      CUstream s = stream(0);
      CUdeviceptr x = alloc(BYTES);
      CUdeviceptr y = alloc(BYTES);
      float value = 3f * rep;
      switch (seq.variant) {
        case "pageable-read" -> pageableRead(seq, rep, slowFill, s, x, y, value);
        case "callback" -> callback(seq, rep, s);
        case "query-idle" -> queryIdle(seq, rep, slowFill, s, x, value);
        case "query-after-copy" -> {
          seq.rc(rep, "slow_fill on s", 0, Sequence.launch(slowFill, s, x, value, N, 20 * seq.cycles));
          cuMemcpyHtoD(y, Pointer.to(Sequence.ramp(value)), BYTES);
          seq.rc(rep, "cuStreamQuery(s) after the synchronous copy", 0, cuStreamQuery(s));
        }
        case "event-after-copy" -> {
          CUevent start = event(0);
          CUevent end = event(0);
          seq.rc(rep, "cuEventRecord(start, s)", 0, cuEventRecord(start, s));
          seq.rc(rep, "slow_fill on s", 0, Sequence.launch(slowFill, s, x, value, N, 20 * seq.cycles));
          seq.rc(rep, "cuEventRecord(end, s)", 0, cuEventRecord(end, s));
          cuMemcpyHtoD(y, Pointer.to(Sequence.ramp(value)), BYTES);
          seq.rc(rep, "cuEventQuery(end) after the synchronous copy", 0, cuEventQuery(end));
          float[] ms = {-1};
          seq.rc(rep, "cuEventElapsedTime(start, end) after the synchronous copy", 0, cuEventElapsedTime(ms, start, end));
          Sequence.release(start, end);
        }
        case "query-after-legacy-sync" -> {
          seq.rc(rep, "slow_fill on s", 0, Sequence.launch(slowFill, s, x, value, N, 20 * seq.cycles));
          seq.rc(rep, "slow_fill on the legacy stream", 0, Sequence.launch(slowFill, null, y, value, N, seq.cycles));
          seq.rc(rep, "cuStreamSynchronize(legacy)", 0, cuStreamSynchronize(null));
          seq.rc(rep, "cuStreamQuery(s) after the legacy stream's synchronize", 0, cuStreamQuery(s));
        }
        case "timing" -> timing(seq, rep, slowFill, s, x, y, value, s);
        case "legacy-timing" -> timing(seq, rep, slowFill, s, x, y, value, null);
        case "capture-other-stream" -> captureOtherStream(seq, rep, slowFill, slowAxpb, s, x, y, value);
        case "free-beside-capture" -> freeBesideCapture(seq, rep, slowFill, s, y, value);
        default -> throw new IllegalArgumentException("variant " + seq.variant);
      }
      cuCtxSynchronize();
      if (!List.of("callback", "capture-other-stream", "free-beside-capture").contains(seq.variant)) {
        seq.check(rep, "x", Sequence.describe(Sequence.ramp(value)), Sequence.describe(Sequence.read(x)));
      }
      Sequence.release(x, y, s);
    });
  }

  private static void pageableRead(Sequence seq, int rep, CUfunction slowFill, CUstream s, CUdeviceptr x,
      CUdeviceptr y, float value) {
    Pointer pinned = allocHost(BYTES);
    Sequence.fill(pinned, -1f);
    cuMemcpyHtoD(y, Pointer.to(Sequence.ramp(100f + rep)), BYTES);
    seq.rc(rep, "slow_fill on s", 0, Sequence.launch(slowFill, s, x, value, N, 20 * seq.cycles));
    seq.rc(rep, "cuMemcpyDtoHAsync into pinned memory", 0, cuMemcpyDtoHAsync(pinned, x, BYTES, s));
    float[] back = new float[N];
    seq.rc(rep, "cuMemcpyDtoHAsync into a Java array", 0, cuMemcpyDtoHAsync(Pointer.to(back), y, BYTES, s));
    seq.check(rep, "pinned memory once the pageable copy returned", Sequence.describe(Sequence.ramp(value)),
        Sequence.describe(Sequence.floats(pinned)));
    seq.check(rep, "Java array", Sequence.describe(Sequence.ramp(100f + rep)), Sequence.describe(back));
    cuStreamSynchronize(s);
    cuMemFreeHost(pinned);
  }

  private static void callback(Sequence seq, int rep, CUstream s) {
    AtomicReference<CUstream> received = new AtomicReference<>();
    seq.rc(rep, "cuStreamAddCallback", 0, cuStreamAddCallback(s, (stream, status, data) -> received.set(stream), null, 0));
    seq.rc(rep, "cuStreamSynchronize", 0, cuStreamSynchronize(s));
    seq.check(rep, "the callback received its stream", true, s.equals(received.get()));
  }

  private static void queryIdle(Sequence seq, int rep, CUfunction slowFill, CUstream s, CUdeviceptr x, float value) {
    Pointer pinned = allocHost(BYTES);
    seq.rc(rep, "slow_fill on the legacy stream", 0, Sequence.launch(slowFill, null, x, value, N, 20 * seq.cycles));
    seq.rc(rep, "cuMemcpyDtoHAsync into pinned memory on the legacy stream", 0,
        cuMemcpyDtoHAsync(pinned, x, BYTES, null));
    seq.rc(rep, "cuStreamQuery(s) of the idle blocking stream", 0, cuStreamQuery(s));
    cuCtxSynchronize();
    cuMemFreeHost(pinned);
  }

  private static void captureOtherStream(Sequence seq, int rep, CUfunction slowFill, CUfunction slowAxpb, CUstream s,
      CUdeviceptr x, CUdeviceptr y, float value) {
    CUstream capturing = stream(0);
    seq.rc(rep, "cuStreamBeginCapture", 0,
        cuStreamBeginCapture(capturing, CUstreamCaptureMode.CU_STREAM_CAPTURE_MODE_GLOBAL));
    seq.rc(rep, "slow_fill y captured", 0, Sequence.launch(slowFill, capturing, y, value, N, seq.cycles));
    seq.rc(rep, "slow_fill x on s during the capture", 0, Sequence.launch(slowFill, s, x, value, N, 20 * seq.cycles));
    CUgraph graph = new CUgraph();
    seq.rc(rep, "cuStreamEndCapture", 0, cuStreamEndCapture(capturing, graph));
    seq.rc(rep, "slow_axpb x on s after the capture", 0, Sequence.launch(slowAxpb, s, x, 1f, 1f, N, seq.cycles));
    CUgraphExec exec = new CUgraphExec();
    seq.rc(rep, "cuGraphInstantiate", 0, cuGraphInstantiate(exec, graph, 0));
    seq.rc(rep, "cuGraphLaunch", 0, cuGraphLaunch(exec, capturing));
    seq.rc(rep, "cuStreamSynchronize", 0, cuStreamSynchronize(capturing));
    seq.check(rep, "x", Sequence.describe(Sequence.ramp(value + 1)), Sequence.describe(Sequence.read(x)));
    seq.check(rep, "y", Sequence.describe(Sequence.ramp(value)), Sequence.describe(Sequence.read(y)));
    cuGraphExecDestroy(exec);
    cuGraphDestroy(graph);
    cuStreamDestroy(capturing);
  }

  private static void freeBesideCapture(Sequence seq, int rep, CUfunction slowFill, CUstream s, CUdeviceptr y,
      float value) {
    CUdeviceptr used = alloc(FREED_BYTES);
    CUstream capturing = stream(0);
    seq.rc(rep, "cuStreamBeginCapture (relaxed)", 0,
        cuStreamBeginCapture(capturing, CUstreamCaptureMode.CU_STREAM_CAPTURE_MODE_RELAXED));
    seq.rc(rep, "slow_fill y captured", 0, Sequence.launch(slowFill, capturing, y, value, N, seq.cycles));
    seq.rc(rep, "slow_fill of the freed buffer on s during the capture", 0,
        Sequence.launch(slowFill, s, used, value, N, 20 * seq.cycles));
    seq.rc(rep, "cuMemFree during the capture", 0, cuMemFree(used));
    CUgraph graph = new CUgraph();
    seq.rc(rep, "cuStreamEndCapture", 0, cuStreamEndCapture(capturing, graph));
    CUgraphExec exec = new CUgraphExec();
    seq.rc(rep, "cuGraphInstantiate", 0, cuGraphInstantiate(exec, graph, 0));
    seq.rc(rep, "cuGraphLaunch", 0, cuGraphLaunch(exec, capturing));
    seq.rc(rep, "cuCtxSynchronize: no kernel wrote freed memory", 0, cuCtxSynchronize());
    seq.check(rep, "y", Sequence.describe(Sequence.ramp(value)), Sequence.describe(Sequence.read(y)));
    cuGraphExecDestroy(exec);
    cuGraphDestroy(graph);
    cuStreamDestroy(capturing);
  }

  /** {@code recordOn}: the stream of the long kernel and of the records around the bracketed kernel on {@code s}. */
  private static void timing(Sequence seq, int rep, CUfunction slowFill, CUstream s, CUdeviceptr x, CUdeviceptr y,
      float value, CUstream recordOn) {
    CUevent[] e = new CUevent[4];
    for (int i = 0; i < e.length; i++) {
      e[i] = new CUevent();
      cuEventCreate(e[i], 0);
    }
    // The bracketed kernel alone, on an idle stream: what the pair must cover.
    cuEventRecord(e[0], s);
    Sequence.launch(slowFill, s, y, value, N, seq.cycles);
    cuEventRecord(e[1], s);
    cuEventSynchronize(e[1]);
    float[] alone = {0};
    seq.rc(rep, "cuEventElapsedTime alone", 0, cuEventElapsedTime(alone, e[0], e[1]));
    // The same kernel behind a long independent one on the same stream.
    seq.rc(rep, "slow_fill before", 0, Sequence.launch(slowFill, recordOn, x, value, N, 20 * seq.cycles));
    seq.rc(rep, "cuEventRecord start", 0, cuEventRecord(e[2], recordOn));
    Sequence.launch(slowFill, s, y, value + 1, N, seq.cycles);
    seq.rc(rep, "cuEventRecord end", 0, cuEventRecord(e[3], recordOn));
    seq.rc(rep, "cuEventSynchronize end", 0, cuEventSynchronize(e[3]));
    float[] between = {0};
    seq.rc(rep, "cuEventElapsedTime", 0, cuEventElapsedTime(between, e[2], e[3]));
    seq.check(rep, "the elapsed time covers the bracketed kernel", true, between[0] >= 0.5f * alone[0] && alone[0] > 0);
    for (CUevent event : e) {
      cuEventDestroy(event);
    }
  }
}
