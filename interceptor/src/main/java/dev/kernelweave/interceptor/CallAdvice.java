package dev.kernelweave.interceptor;

import dev.kernelweave.call.CallRecord;
import jcuda.NativePointerObject;
import jcuda.Pointer;
import net.bytebuddy.asm.Advice;
import net.bytebuddy.implementation.bytecode.assign.Assigner;

/**
 * Advice shared by every instrumentation, in a few shapes that find their call's row of the {@code
 * CudaCallTable} by the id woven in ({@link CallRow}): what the call is, where it is placed and what
 * it means for held launches is the row's. Referred to by name ({@link #END}, {@link #PLACED}...).
 */
public final class CallAdvice {

  /** The exit advice of every call that needs nothing more than {@link Calls#end}. */
  public static final String END = CallAdvice.class.getName() + "$End";
  /** The exit advice of calls whose enter advice may take them over ({@link IssuedByAgent}). */
  public static final String END_OR_TAKEN_OVER = CallAdvice.class.getName() + "$EndOrTakenOver";
  /** The enter advice of a call whose arguments the agent needs none of: begun and placed as its row says. */
  public static final String PLACED = CallAdvice.class.getName() + "$Placed";
  /**
   * The enter advice of a call on the stream in its first argument that stays there (a
   * synchronization, a query, a capture), placed as its row says.
   */
  public static final String PLACED_ON_STREAM = CallAdvice.class.getName() + "$PlacedOnStream";
  /** The enter advice of a call on a stream with an event, in its first two arguments, in the order its row says. */
  public static final String WITH_EVENT = CallAdvice.class.getName() + "$WithEvent";
  /** The enter advice of a synchronous memset: pointer, value, count ({@code cuMemsetD8}, {@code cudaMemset}). */
  public static final String MEMSET = CallAdvice.class.getName() + "$Memset";
  /** An asynchronous memset of either API: pointer, value, count, stream. */
  public static final String MEMSET_ASYNC = CallAdvice.class.getName() + "$MemsetAsync";
  /**
   * Calls on a stream the agent cannot see into (host functions, stream memory operations), which
   * their rows make barriers enqueued on one of the agent's streams: the stream is the first argument.
   */
  public static final String STREAM_BARRIER_FIRST = CallAdvice.class.getName() + "$StreamBarrierFirst";
  /** {@link #STREAM_BARRIER_FIRST} with the stream second: {@code cuGraphLaunch(graphExec, stream)}. */
  public static final String STREAM_BARRIER_SECOND = CallAdvice.class.getName() + "$StreamBarrierSecond";
  /**
   * {@code cuStreamAddCallback}, {@code cudaStreamAddCallback}: a barrier like {@link
   * #STREAM_BARRIER_FIRST}, whose callback still receives the application's stream when the call
   * runs on the agent's.
   */
  public static final String ADD_CALLBACK = CallAdvice.class.getName() + "$AddCallback";
  /** {@code cuEventQuery}, {@code cudaEventQuery}: the event is the first argument. */
  public static final String EVENT_QUERY = CallAdvice.class.getName() + "$EventQuery";
  /** {@code cuEventElapsedTime}, {@code cudaEventElapsedTime}: time, start, end. */
  public static final String EVENT_ELAPSED_TIME = CallAdvice.class.getName() + "$EventElapsedTime";
  /** The exit of {@code cuDevicePrimaryCtxReset}'s runtime twin, {@code cudaDeviceReset}. */
  public static final String DEVICE_RESET = CallAdvice.class.getName() + "$DeviceReset";
  /** The exit of a stream creation with flags as the second argument. */
  public static final String STREAM_CREATE_WITH_FLAGS = CallAdvice.class.getName() + "$StreamCreateWithFlags";
  /** The exit of {@code cuStreamDestroy(CUstream)} and {@code cudaStreamDestroy(cudaStream_t)}. */
  public static final String STREAM_DESTROY = CallAdvice.class.getName() + "$StreamDestroy";
  /** The exit of {@code cudaStreamCreate(cudaStream_t)}: a blocking stream. */
  public static final String STREAM_CREATE = CallAdvice.class.getName() + "$StreamCreate";

  private CallAdvice() {}

  static final class Placed {
    @Advice.OnMethodEnter(suppress = Throwable.class)
    static CallRecord enter(@CallRow int row, @Advice.Origin("#m") String name) {
      return Calls.beginPlaced(row, name);
    }
  }

  static final class PlacedOnStream {
    @Advice.OnMethodEnter(suppress = Throwable.class)
    static CallRecord enter(@CallRow int row, @Advice.Origin("#m") String name,
        @Advice.Argument(0) NativePointerObject stream) {
      return Calls.beginPlaced(row, name, stream);
    }
  }

  static final class WithEvent {
    @Advice.OnMethodEnter(suppress = Throwable.class)
    static CallRecord enter(@CallRow int row, @Advice.Origin("#m") String name,
        @Advice.Argument(0) NativePointerObject first, @Advice.Argument(1) NativePointerObject second) {
      return Calls.beginWithEvent(row, name, first, second);
    }
  }

  static final class Memset {
    @Advice.OnMethodEnter(suppress = Throwable.class)
    static CallRecord enter(@CallRow int row, @Advice.Origin("#m") String name, @Advice.Argument(0) Pointer dst,
        @Advice.Argument(2) long count) {
      return Calls.memset(row, name, dst, count, 0, null);
    }
  }

  // Stream arguments typed dynamically: CUstream in the driver API, cudaStream_t in the runtime's.

  static final class MemsetAsync {
    @Advice.OnMethodEnter(suppress = Throwable.class)
    static CallRecord enter(@CallRow int row, @Advice.Origin("#m") String name, @Advice.Argument(0) Pointer dst,
        @Advice.Argument(2) long count,
        @Advice.Argument(value = 3, readOnly = false, typing = Assigner.Typing.DYNAMIC) Object stream) {
      CallRecord r = Calls.memset(row, name, dst, count, 0, (NativePointerObject) stream);
      stream = Calls.streamOfItsApi(r, stream);
      return r;
    }
  }

  static final class StreamBarrierFirst {
    @Advice.OnMethodEnter(suppress = Throwable.class)
    static CallRecord enter(@CallRow int row, @Advice.Origin("#m") String name,
        @Advice.Argument(value = 0, readOnly = false, typing = Assigner.Typing.DYNAMIC) Object stream) {
      CallRecord r = Calls.beginPlaced(row, name, (NativePointerObject) stream);
      stream = Calls.streamOfItsApi(r, stream);
      return r;
    }
  }

  static final class StreamBarrierSecond {
    @Advice.OnMethodEnter(suppress = Throwable.class)
    static CallRecord enter(@CallRow int row, @Advice.Origin("#m") String name,
        @Advice.Argument(value = 1, readOnly = false, typing = Assigner.Typing.DYNAMIC) Object stream) {
      CallRecord r = Calls.beginPlaced(row, name, (NativePointerObject) stream);
      stream = Calls.streamOfItsApi(r, stream);
      return r;
    }
  }

  static final class AddCallback {
    @Advice.OnMethodEnter(suppress = Throwable.class)
    static CallRecord enter(@CallRow int row, @Advice.Origin("#m") String name,
        @Advice.Argument(value = 0, readOnly = false, typing = Assigner.Typing.DYNAMIC) Object stream,
        @Advice.Argument(value = 1, readOnly = false, typing = Assigner.Typing.DYNAMIC) Object callback) {
      Object appStream = stream;
      CallRecord r = Calls.beginPlaced(row, name, (NativePointerObject) stream);
      stream = Calls.streamOfItsApi(r, stream);
      callback = StreamCallbacks.forApplication(callback, appStream, stream != appStream);
      return r;
    }
  }

  static final class EventQuery {
    @Advice.OnMethodEnter(suppress = Throwable.class)
    static CallRecord enter(@CallRow int row, @Advice.Origin("#m") String name,
        @Advice.Argument(0) NativePointerObject event) {
      CallRecord r = Calls.beginPlaced(row, name);
      Calls.awaitEventCompletedForHost(r, event);
      return r;
    }
  }

  static final class EventElapsedTime {
    @Advice.OnMethodEnter(suppress = Throwable.class)
    static CallRecord enter(@CallRow int row, @Advice.Origin("#m") String name,
        @Advice.Argument(1) NativePointerObject start, @Advice.Argument(2) NativePointerObject end) {
      CallRecord r = Calls.beginPlaced(row, name);
      Calls.awaitEventCompletedForHost(r, start);
      Calls.awaitEventCompletedForHost(r, end);
      return r;
    }
  }

  static final class DeviceReset {
    @Advice.OnMethodExit(onThrowable = Throwable.class, suppress = Throwable.class)
    static void exit(@Advice.Enter CallRecord r, @Advice.Return int result, @Advice.Thrown Throwable thrown) {
      Calls.endContextReset(r, result, thrown);
    }
  }

  static final class StreamCreateWithFlags {
    @Advice.OnMethodExit(onThrowable = Throwable.class, suppress = Throwable.class)
    static void exit(@Advice.Enter CallRecord r, @Advice.Argument(0) NativePointerObject stream,
        @Advice.Argument(1) int flags, @Advice.Return int result, @Advice.Thrown Throwable thrown) {
      Calls.endStreamCreate(r, stream, (flags & 1) != 0, result, thrown);
    }
  }

  static final class StreamCreate {
    @Advice.OnMethodExit(onThrowable = Throwable.class, suppress = Throwable.class)
    static void exit(@Advice.Enter CallRecord r, @Advice.Argument(0) NativePointerObject stream,
        @Advice.Return int result, @Advice.Thrown Throwable thrown) {
      Calls.endStreamCreate(r, stream, false, result, thrown);
    }
  }

  static final class StreamDestroy {
    @Advice.OnMethodExit(onThrowable = Throwable.class, suppress = Throwable.class)
    static void exit(@Advice.Enter CallRecord r, @Advice.Argument(0) NativePointerObject stream,
        @Advice.Return int result, @Advice.Thrown Throwable thrown) {
      Calls.endStreamDestroy(r, stream, result, thrown);
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
}
