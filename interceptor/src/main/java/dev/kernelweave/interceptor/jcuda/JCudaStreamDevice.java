package dev.kernelweave.interceptor.jcuda;

import dev.kernelweave.call.PriorityClass;
import dev.kernelweave.scheduler.StreamDevice;
import java.util.Arrays;
import jcuda.driver.CUdeviceptr;
import jcuda.driver.CUevent;
import jcuda.driver.CUresult;
import jcuda.driver.CUstream;
import jcuda.driver.CUstreamCaptureMode;
import jcuda.runtime.cudaStream_t;

/**
 * The scheduler's lanes and events as JCuda streams and events of one context. Lane
 * {@code streams} is the legacy default stream (a null handle).
 *
 * <p>A driver error in one of these calls throws {@link DeviceCallFailed}; the interceptor then
 * falls back to pass-through. Not thread-safe: used under the context's scheduling lock.
 */
public final class JCudaStreamDevice implements StreamDevice {

  /** An agent-issued CUDA call failed; the agent stops scheduling. */
  public static final class DeviceCallFailed extends RuntimeException {
    private static final long serialVersionUID = 1L;

    DeviceCallFailed(String call, int result) {
      super(call + " failed with CUDA error " + result);
    }
  }

  private final CUstream[] lanes;
  private final cudaStream_t[] runtimeLanes;
  private CUevent[] events = new CUevent[32];
  /** Addresses {@link #freeAfterNextSynchronize} holds: {@code pendingFree[0 .. pendingFrees)}. */
  private long[] pendingFree = new long[0];
  private int pendingFrees;
  /** Events that can be timed, apart from the pooled ones: few, and only for sampled windows. */
  private CUevent[] timingEvents = new CUevent[16];
  private final float[] elapsedMillis = new float[1];
  /** Reused for the application's stream handles, so that joining one allocates nothing. */
  private final CUstream appStreamScratch = new CUstream();
  private final int[] captureStatus = new int[1];
  /** Reused for the application's event handles, likewise. */
  private final CUevent appEventScratch = new CUevent();

  /** The device's stream priority range, asked at the first lane of a class other than normal. */
  private final int[] leastPriority = new int[1];
  private final int[] greatestPriority = new int[1];
  private boolean priorityRangeKnown;

  /** @param streams the pool lanes of every class ({@code Scheduler.poolLanes}); lane {@code streams} is the legacy stream */
  public JCudaStreamDevice(int streams) {
    lanes = new CUstream[streams + 1];
    runtimeLanes = new cudaStream_t[streams + 1];
    lanes[streams] = new CUstream();
    runtimeLanes[streams] = new cudaStream_t();
  }

  /** The JCuda stream of a lane, to hand to the real call in place of the application's. */
  public CUstream stream(int lane) {
    return lanes[lane];
  }

  /** The same stream for the runtime API and cuBLAS. */
  public cudaStream_t runtimeStream(int lane) {
    return runtimeLanes[lane];
  }

  @Override
  public void createStream(int lane) {
    CUstream s = new CUstream();
    check("cuStreamCreate", JCudaNatives.createNonBlockingStream(s));
    lanes[lane] = s;
    runtimeLanes[lane] = new cudaStream_t(s);
  }

  /**
   * A normal lane is created as before ({@code cuStreamCreate}, priority 0); a high lane with the
   * context's greatest stream priority, a low one with its least ({@code cuCtxGetStreamPriorityRange}).
   */
  @Override
  public void createStream(int lane, PriorityClass priority) {
    if (priority == PriorityClass.NORMAL) {
      createStream(lane);
      return;
    }
    if (!priorityRangeKnown) {
      check("cuCtxGetStreamPriorityRange", JCudaNatives.streamPriorityRange(leastPriority, greatestPriority));
      priorityRangeKnown = true;
    }
    CUstream s = new CUstream();
    int value = priority == PriorityClass.HIGH ? greatestPriority[0] : leastPriority[0];
    check("cuStreamCreateWithPriority", JCudaNatives.createNonBlockingStream(s, value));
    lanes[lane] = s;
    runtimeLanes[lane] = new cudaStream_t(s);
  }

  @Override
  public void createEvent(int event) {
    events = withRoomFor(events, event);
    CUevent e = new CUevent();
    check("cuEventCreate", JCudaNatives.createEvent(e));
    events[event] = e;
  }

  @Override
  public boolean createTimingEvent(int timingEvent) {
    timingEvents = withRoomFor(timingEvents, timingEvent);
    CUevent e = new CUevent();
    if (JCudaNatives.createTimingEvent(e) != 0) {
      return false; // not worth a failure of the agent: windows are then not timed
    }
    timingEvents[timingEvent] = e;
    return true;
  }

  /** {@code events}, or a larger copy, with a slot at {@code index}. */
  private static CUevent[] withRoomFor(CUevent[] events, int index) {
    return index < events.length ? events : Arrays.copyOf(events, Math.max(index + 1, events.length * 2));
  }

  @Override
  public void recordTimingEvent(int timingEvent, int lane) {
    check("cuEventRecord", JCudaNatives.recordEvent(timingEvents[timingEvent], lanes[lane]));
  }

  /**
   * {@code cuEventQuery} of the end (not ready: {@code CUDA_ERROR_NOT_READY}), then
   * {@code cuEventElapsedTime}, whose resolution is about half a microsecond.
   */
  @Override
  public long elapsedNanos(int start, int end) {
    int ready = JCudaNatives.queryEvent(timingEvents[end]);
    if (ready == CUresult.CUDA_ERROR_NOT_READY) {
      return NOT_YET;
    }
    if (ready != 0 || JCudaNatives.elapsedTime(elapsedMillis, timingEvents[start], timingEvents[end]) != 0) {
      return UNREADABLE;
    }
    return Math.max(0, Math.round(elapsedMillis[0] * 1e6));
  }

  @Override
  public void recordEvent(int event, int lane) {
    check("cuEventRecord", JCudaNatives.recordEvent(events[event], lanes[lane]));
  }

  @Override
  public void waitEvent(int lane, int event) {
    check("cuStreamWaitEvent", JCudaNatives.waitEvent(lanes[lane], events[event]));
  }

  @Override
  public void waitEventOnAppStream(long appStream, int event) {
    check("cuStreamWaitEvent", JCudaNatives.waitEvent(appStream(appStream), events[event]));
  }

  @Override
  public void synchronizeAppStream(long appStream) {
    CUstream stream = new CUstream(); // not the scratch handle: called without the scheduler's lock
    JCudaPointers.setNativePointer(stream, appStream);
    check("cuStreamSynchronize", JCudaNatives.synchronizeStream(stream));
  }

  /** An event of its own, recorded on the stream and destroyed once waited for: CUDA frees it when it completes. */
  @Override
  public void laneFollowsAppStream(int lane, long appStream) {
    CUevent e = new CUevent();
    check("cuEventCreate", JCudaNatives.createEvent(e));
    try {
      check("cuEventRecord", JCudaNatives.recordEvent(e, appStream(appStream)));
      check("cuStreamWaitEvent", JCudaNatives.waitEvent(lanes[lane], e));
    } finally {
      JCudaNatives.destroyEvent(e);
    }
  }

  /** The scratch handle set to the application's stream {@code appStream}, 0x1 (the legacy stream) as null. */
  private CUstream appStream(long appStream) {
    JCudaPointers.setNativePointer(appStreamScratch, appStream == 0x1 ? 0 : appStream);
    return appStreamScratch;
  }

  @Override
  public void laneWaitsForAppEvent(int lane, long appEvent) {
    JCudaPointers.setNativePointer(appEventScratch, appEvent);
    check("cuStreamWaitEvent", JCudaNatives.waitEvent(lanes[lane], appEventScratch));
  }

  /** A sticky error or any other answer than CUDA_SUCCESS counts as busy: the stream is then followed. */
  @Override
  public boolean appStreamIdle(long appStream) {
    return JCudaNatives.queryStream(appStream(appStream)) == 0;
  }

  @Override
  public boolean appStreamCapturing(long appStream) {
    JCudaPointers.setNativePointer(appStreamScratch, appStream);
    captureStatus[0] = -1;
    int result = JCudaNatives.isCapturing(appStreamScratch, captureStatus);
    return result != 0 || captureStatus[0] != 0; // when it cannot tell, as capturing: passed through
  }

  /** The JCuda event behind a pooled event id. */
  public CUevent event(int event) {
    return events[event];
  }

  @Override
  public void synchronizeEvent(int event) {
    check("cuEventSynchronize", JCudaNatives.synchronizeEvent(events[event]));
  }

  @Override
  public void synchronizeLane(int lane) {
    check("cuStreamSynchronize", JCudaNatives.synchronizeStream(lanes[lane]));
  }

  @Override
  public void synchronizeDevice() {
    check("cuCtxSynchronize", JCudaNatives.synchronizeContext());
    freePending();
  }

  /**
   * Frees device memory of the agent's own at the context's next synchronization, when no work
   * enqueued before now can still read it: freeing it now could block the host (under the
   * context's lock) until the device is idle. Memory waits for a synchronization the program makes.
   */
  public void freeAfterNextSynchronize(long address) {
    if (pendingFrees == pendingFree.length) {
      pendingFree = Arrays.copyOf(pendingFree, Math.max(8, 2 * pendingFrees));
    }
    pendingFree[pendingFrees++] = address;
  }

  private void freePending() {
    if (pendingFrees == 0) {
      return; // the common case: a synchronization allocates nothing
    }
    CUdeviceptr p = new CUdeviceptr();
    while (pendingFrees > 0) {
      JCudaPointers.setNativePointer(p, pendingFree[--pendingFrees]);
      JCudaNatives.free(p);
    }
  }

  @Override
  public int relaxCaptureMode() {
    int[] mode = {CUstreamCaptureMode.CU_STREAM_CAPTURE_MODE_RELAXED}; // a free during a capture is rare: no reuse needed, and no lock held
    check("cuThreadExchangeStreamCaptureMode", JCudaNatives.exchangeCaptureMode(mode));
    return mode[0];
  }

  @Override
  public void restoreCaptureMode(int previous) {
    check("cuThreadExchangeStreamCaptureMode", JCudaNatives.exchangeCaptureMode(new int[] {previous}));
  }

  /** Destroys the streams and events this device created, frees what waits for a synchronization; the caller has synchronized. */
  public void close() {
    freePending();
    destroyStreams(lanes, lanes.length - 1); // the last lane is the legacy stream, not ours
    destroyEvents(events);
    destroyEvents(timingEvents);
  }

  /** Destroys {@code streams[0 .. count)} that were created, and forgets them. */
  static void destroyStreams(CUstream[] streams, int count) {
    for (int i = 0; i < count; i++) {
      if (streams[i] != null) {
        JCudaNatives.destroyStream(streams[i]);
        streams[i] = null;
      }
    }
  }

  /** Destroys every event of {@code events} that was created, and forgets them. */
  static void destroyEvents(CUevent[] events) {
    for (int i = 0; i < events.length; i++) {
      if (events[i] != null) {
        JCudaNatives.destroyEvent(events[i]);
        events[i] = null;
      }
    }
  }

  /** Throws {@link DeviceCallFailed} for a CUDA error of one of the agent's own calls. */
  static void check(String call, int result) {
    if (result != 0) {
      throw new DeviceCallFailed(call, result);
    }
  }
}
