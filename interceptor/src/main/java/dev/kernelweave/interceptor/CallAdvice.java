package dev.kernelweave.interceptor;

import dev.kernelweave.scheduler.Placement;
import dev.kernelweave.call.CallKind;
import dev.kernelweave.call.CallRecord;
import jcuda.NativePointerObject;
import dev.kernelweave.interceptor.jcuda.JCudaPointers;
import net.bytebuddy.asm.Advice;

/**
 * Advice shared by every instrumentation: the end of a call, and the whole of a call the agent
 * knows only by its name. Referred to by name ({@link #END}, {@link #CLASSIFIED}).
 */
public final class CallAdvice {

  /** The exit advice of every call that needs nothing more than {@link Calls#end}. */
  public static final String END = CallAdvice.class.getName() + "$End";
  /** The exit advice of calls whose enter advice may take them over ({@link IssuedByAgent}). */
  public static final String END_OR_TAKEN_OVER = CallAdvice.class.getName() + "$EndOrTakenOver";
  /** The enter advice of calls classified by name ({@link CallClassification}). */
  public static final String CLASSIFIED = CallAdvice.class.getName() + "$Classified";
  /** The enter advice of {@code cuCtxSynchronize} and {@code cudaDeviceSynchronize}. */
  public static final String DEVICE_SYNCHRONIZE = CallAdvice.class.getName() + "$DeviceSynchronize";
  /**
   * The enter advice of {@code cuStreamSynchronize(CUstream)} and {@code
   * cudaStreamSynchronize(cudaStream_t)}: the stream is the first argument.
   */
  public static final String STREAM_SYNCHRONIZE = CallAdvice.class.getName() + "$StreamSynchronize";

  /** {@code cuStreamQuery}, {@code cudaStreamQuery}: the stream is the first argument. */
  public static final String STREAM_QUERY = CallAdvice.class.getName() + "$StreamQuery";
  /** {@code cuEventQuery}, {@code cudaEventQuery}: the event is the first argument. */
  public static final String EVENT_QUERY = CallAdvice.class.getName() + "$EventQuery";
  /** {@code cuEventElapsedTime}, {@code cudaEventElapsedTime}: time, start, end. */
  public static final String EVENT_ELAPSED_TIME = CallAdvice.class.getName() + "$EventElapsedTime";
  /** {@code cuStreamWaitEvent}, {@code cudaStreamWaitEvent}: stream, event. */
  public static final String STREAM_WAIT_EVENT = CallAdvice.class.getName() + "$StreamWaitEvent";
  /** {@code cuStreamBeginCapture*}, {@code cudaStreamBeginCapture}: the stream is the first argument. */
  public static final String CAPTURE_BEGIN = CallAdvice.class.getName() + "$CaptureBegin";
  /** {@code cuStreamEndCapture}, {@code cudaStreamEndCapture}. */
  public static final String CAPTURE_END = CallAdvice.class.getName() + "$CaptureEnd";
  /** {@code cuDevicePrimaryCtxReset}, {@code cudaDeviceReset}: enter and exit. */
  public static final String DEVICE_RESET = CallAdvice.class.getName() + "$DeviceReset";
  /** Stream creation with flags as the second argument: enter and exit. */
  public static final String STREAM_CREATE_WITH_FLAGS = CallAdvice.class.getName() + "$StreamCreateWithFlags";
  /** {@code cudaStreamCreate(cudaStream_t)}: a blocking stream. Enter and exit. */
  public static final String STREAM_CREATE = CallAdvice.class.getName() + "$StreamCreate";
  /** {@code cuMemHostRegister}, {@code cudaHostRegister}: pointer, size, flags. Enter and exit. */
  public static final String HOST_REGISTER = CallAdvice.class.getName() + "$HostRegister";

  private CallAdvice() {}

  static final class StreamQuery {
    @Advice.OnMethodEnter(suppress = Throwable.class)
    static CallRecord enter(@Advice.Origin("#m") String name, @Advice.Argument(0) NativePointerObject stream) {
      CallRecord r = Calls.begin(CallKind.STREAM, name, stream);
      Calls.place(r, Placement.STREAM_QUERY);
      return r;
    }
  }

  static final class EventQuery {
    @Advice.OnMethodEnter(suppress = Throwable.class)
    static CallRecord enter(@Advice.Origin("#m") String name, @Advice.Argument(0) NativePointerObject event) {
      CallRecord r = Calls.beginClassified(name);
      Calls.awaitEventCompletedForHost(r, event);
      return r;
    }
  }

  static final class EventElapsedTime {
    @Advice.OnMethodEnter(suppress = Throwable.class)
    static CallRecord enter(@Advice.Origin("#m") String name, @Advice.Argument(1) NativePointerObject start,
        @Advice.Argument(2) NativePointerObject end) {
      CallRecord r = Calls.beginClassified(name);
      Calls.awaitEventCompletedForHost(r, start);
      Calls.awaitEventCompletedForHost(r, end);
      return r;
    }
  }

  static final class StreamWaitEvent {
    @Advice.OnMethodEnter(suppress = Throwable.class)
    static CallRecord enter(@Advice.Origin("#m") String name, @Advice.Argument(0) NativePointerObject stream,
        @Advice.Argument(1) NativePointerObject event) {
      CallRecord r = Calls.begin(CallKind.EVENT, name, stream);
      if (r != null) {
        r.appEvent = JCudaPointers.nativePointer(event);
        Calls.place(r, Placement.STREAM_WAIT_EVENT);
      }
      return r;
    }
  }

  static final class CaptureBegin {
    @Advice.OnMethodEnter(suppress = Throwable.class)
    static CallRecord enter(@Advice.Origin("#m") String name, @Advice.Argument(0) NativePointerObject stream) {
      CallRecord r = Calls.begin(CallKind.STREAM, name, stream);
      Calls.place(r, Placement.CAPTURE_BEGIN);
      return r;
    }
  }

  static final class CaptureEnd {
    @Advice.OnMethodEnter(suppress = Throwable.class)
    static CallRecord enter(@Advice.Origin("#m") String name, @Advice.Argument(0) NativePointerObject stream) {
      CallRecord r = Calls.begin(CallKind.STREAM, name, stream);
      Calls.place(r, Placement.CAPTURE_END);
      return r;
    }
  }

  static final class DeviceReset {
    @Advice.OnMethodEnter(suppress = Throwable.class)
    static CallRecord enter(@Advice.Origin("#m") String name) {
      CallRecord r = Calls.begin(CallKind.CONTEXT, name, 0L);
      Calls.issueHeldEverywhere(r);
      Calls.place(r, Placement.BARRIER);
      return r;
    }

    @Advice.OnMethodExit(onThrowable = Throwable.class, suppress = Throwable.class)
    static void exit(@Advice.Enter CallRecord r, @Advice.Return int result, @Advice.Thrown Throwable thrown) {
      Calls.end(r, result, thrown);
      if (thrown == null && result == 0) {
        Calls.contextReset(r);
      }
    }
  }

  static final class StreamCreateWithFlags {
    @Advice.OnMethodEnter(suppress = Throwable.class)
    static CallRecord enter(@Advice.Origin("#m") String name) {
      return Calls.begin(CallKind.STREAM, name, 0L);
    }

    @Advice.OnMethodExit(onThrowable = Throwable.class, suppress = Throwable.class)
    static void exit(@Advice.Enter CallRecord r, @Advice.Argument(0) NativePointerObject stream,
        @Advice.Argument(1) int flags, @Advice.Return int result, @Advice.Thrown Throwable thrown) {
      if (thrown == null && result == 0) {
        Calls.streamCreated(r, stream, (flags & 1) != 0);
      }
      Calls.end(r, result, thrown);
    }
  }

  static final class StreamCreate {
    @Advice.OnMethodEnter(suppress = Throwable.class)
    static CallRecord enter(@Advice.Origin("#m") String name) {
      return Calls.begin(CallKind.STREAM, name, 0L);
    }

    @Advice.OnMethodExit(onThrowable = Throwable.class, suppress = Throwable.class)
    static void exit(@Advice.Enter CallRecord r, @Advice.Argument(0) NativePointerObject stream,
        @Advice.Return int result, @Advice.Thrown Throwable thrown) {
      if (thrown == null && result == 0) {
        Calls.streamCreated(r, stream, false);
      }
      Calls.end(r, result, thrown);
    }
  }

  static final class HostRegister {
    @Advice.OnMethodEnter(suppress = Throwable.class)
    static CallRecord enter(@Advice.Origin("#m") String name) {
      return Calls.begin(CallKind.ALLOC, name, 0L);
    }

    @Advice.OnMethodExit(onThrowable = Throwable.class, suppress = Throwable.class)
    static void exit(@Advice.Enter CallRecord r, @Advice.Argument(0) jcuda.Pointer ptr, @Advice.Argument(1) long size,
        @Advice.Return int result, @Advice.Thrown Throwable thrown) {
      if (r != null && thrown == null && result == 0) {
        r.bytes = size;
        Calls.allocated(r, JCudaPointers.address(ptr), size, dev.kernelweave.memory.MemoryKind.PINNED_HOST);
      }
      Calls.end(r, result, thrown);
    }
  }

  static final class End {
    @Advice.OnMethodExit(onThrowable = Throwable.class, suppress = Throwable.class)
    static void exit(@Advice.Enter CallRecord r, @Advice.Return int result, @Advice.Thrown Throwable thrown) {
      Calls.end(r, result, thrown);
    }
  }

  /**
   * The end of a call the agent may take over ({@link IssuedByAgent}, named in the enter advice's
   * {@code skipOn}): then the call returns success, else it ends as {@link End} ends it.
   */
  static final class EndOrTakenOver {
    @Advice.OnMethodExit(onThrowable = Throwable.class, suppress = Throwable.class)
    static void exit(@Advice.Enter Object entered, @Advice.Return(readOnly = false) int result,
        @Advice.Thrown Throwable thrown) {
      if (entered instanceof IssuedByAgent takenOver) {
        result = Calls.endIssuedByAgent(takenOver);
      } else {
        Calls.end((CallRecord) entered, result, thrown);
      }
    }
  }

  static final class Classified {
    @Advice.OnMethodEnter(suppress = Throwable.class)
    static CallRecord enter(@Advice.Origin("#m") String name) {
      return Calls.beginClassified(name);
    }
  }

  static final class DeviceSynchronize {
    @Advice.OnMethodEnter(suppress = Throwable.class)
    static CallRecord enter(@Advice.Origin("#m") String name) {
      CallRecord r = Calls.begin(CallKind.SYNC, name, 0L);
      Calls.place(r, Placement.DEVICE_SYNC);
      return r;
    }
  }

  static final class StreamSynchronize {
    @Advice.OnMethodEnter(suppress = Throwable.class)
    static CallRecord enter(@Advice.Origin("#m") String name, @Advice.Argument(0) NativePointerObject stream) {
      CallRecord r = Calls.begin(CallKind.SYNC, name, stream);
      Calls.place(r, Placement.STREAM_SYNC);
      return r;
    }
  }
}
