package dev.kernelweave.interceptor;

import dev.kernelweave.call.CallKind;
import dev.kernelweave.call.CallRecord;
import jcuda.NativePointerObject;
import net.bytebuddy.asm.Advice;

/**
 * Advice shared by every instrumentation: the end of a call, and the whole of a call the agent
 * knows only by its name. Referred to by name ({@link #END}, {@link #CLASSIFIED}).
 */
public final class CallAdvice {

  /** The exit advice of every call that needs nothing more than {@link Calls#end}. */
  public static final String END = CallAdvice.class.getName() + "$End";
  /** The enter advice of calls classified by name ({@link CallClassification}). */
  public static final String CLASSIFIED = CallAdvice.class.getName() + "$Classified";
  /** The enter advice of {@code cuCtxSynchronize} and {@code cudaDeviceSynchronize}. */
  public static final String DEVICE_SYNCHRONIZE = CallAdvice.class.getName() + "$DeviceSynchronize";
  /**
   * The enter advice of {@code cuStreamSynchronize(CUstream)} and {@code
   * cudaStreamSynchronize(cudaStream_t)}: the stream is the first argument.
   */
  public static final String STREAM_SYNCHRONIZE = CallAdvice.class.getName() + "$StreamSynchronize";

  private CallAdvice() {}

  static final class End {
    @Advice.OnMethodExit(onThrowable = Throwable.class, suppress = Throwable.class)
    static void exit(@Advice.Enter CallRecord r, @Advice.Return int result, @Advice.Thrown Throwable thrown) {
      Calls.end(r, result, thrown);
    }
  }

  static final class Classified {
    @Advice.OnMethodEnter(suppress = Throwable.class)
    static CallRecord enter(@Advice.Origin("#m") String name) {
      CallClassification c = CallClassification.of(name);
      CallRecord r = Calls.begin(c.kind(), name, 0L);
      Calls.place(r, c.placement());
      return r;
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
