package dev.kernelweave.interceptor.runtime;

import static net.bytebuddy.matcher.ElementMatchers.isNative;
import static net.bytebuddy.matcher.ElementMatchers.isPublic;
import static net.bytebuddy.matcher.ElementMatchers.isStatic;
import static net.bytebuddy.matcher.ElementMatchers.nameStartsWith;
import static net.bytebuddy.matcher.ElementMatchers.named;
import static net.bytebuddy.matcher.ElementMatchers.namedOneOf;
import static net.bytebuddy.matcher.ElementMatchers.not;
import static net.bytebuddy.matcher.ElementMatchers.returns;
import static net.bytebuddy.matcher.ElementMatchers.takesArguments;

import dev.kernelweave.call.AccessMode;
import dev.kernelweave.call.CallKind;
import dev.kernelweave.call.CallRecord;
import dev.kernelweave.interceptor.AllocationAdvice;
import dev.kernelweave.interceptor.CallAdvice;
import dev.kernelweave.interceptor.Calls;
import dev.kernelweave.interceptor.Instrumentation;
import dev.kernelweave.scheduler.Placement;
import jcuda.Pointer;
import jcuda.runtime.cudaStream_t;
import net.bytebuddy.asm.Advice;
import net.bytebuddy.description.type.TypeDescription;
import net.bytebuddy.matcher.ElementMatcher;

/**
 * {@code jcuda.runtime.JCuda}, the runtime API: allocations, copies, memsets, synchronization and
 * events; every other {@code cuda*} method is classified by name.
 */
public final class JCudaRuntimeInstrumentation implements Instrumentation {

  static final String[] DEDICATED = {
    "cudaMalloc", "cudaMallocManaged", "cudaMallocHost", "cudaHostAlloc", "cudaMallocPitch",
    "cudaFree", "cudaFreeHost", "cudaMemcpy", "cudaMemcpyAsync", "cudaMemset", "cudaMemsetAsync",
    "cudaDeviceSynchronize", "cudaStreamSynchronize", "cudaEventRecord", "cudaEventCreate", "cudaEventCreateWithFlags",
    "cudaStreamQuery", "cudaStreamWaitEvent", "cudaStreamBeginCapture", "cudaStreamEndCapture", "cudaDeviceReset",
    "cudaStreamCreate", "cudaStreamCreateWithFlags", "cudaStreamCreateWithPriority", "cudaHostRegister",
    "cudaHostUnregister", "cudaLaunchHostFunc", "cudaStreamAddCallback", "cudaGraphLaunch",
    "cudaEventQuery", "cudaEventElapsedTime",
  };

  @Override
  public ElementMatcher<? super TypeDescription> types() {
    return named("jcuda.runtime.JCuda");
  }

  @Override
  public void advise(Visitor visitor) {
    visitor.visit(AllocationAdvice.DEVICE, namedOneOf("cudaMalloc", "cudaMallocManaged"));
    visitor.visit(AllocationAdvice.PINNED_HOST, namedOneOf("cudaMallocHost", "cudaHostAlloc"));
    visitor.visit(AllocationAdvice.PITCHED, named("cudaMallocPitch").and(takesArguments(4)));
    visitor.visitEndingCommonly(AllocationAdvice.FREE, namedOneOf("cudaFree", "cudaFreeHost").and(takesArguments(1)));
    visitor.visitEndingCommonly("Copy", named("cudaMemcpy").and(takesArguments(4)));
    visitor.visitEndingCommonly("CopyAsync", named("cudaMemcpyAsync").and(takesArguments(5)));
    visitor.visitEndingCommonly("Memset", named("cudaMemset").and(takesArguments(3)));
    visitor.visitEndingCommonly("MemsetAsync", named("cudaMemsetAsync").and(takesArguments(4)));
    visitor.visitEndingCommonly(CallAdvice.DEVICE_SYNCHRONIZE, named("cudaDeviceSynchronize"));
    visitor.visitEndingCommonly(CallAdvice.STREAM_SYNCHRONIZE, named("cudaStreamSynchronize"));
    visitor.visitEndingCommonly("EventRecord", named("cudaEventRecord").and(takesArguments(2)));
    visitor.visit("EventCreate", named("cudaEventCreate").and(takesArguments(1)));
    visitor.visit("EventCreateWithFlags", named("cudaEventCreateWithFlags").and(takesArguments(2)));
    visitor.visitEndingCommonly(CallAdvice.STREAM_QUERY, named("cudaStreamQuery"));
    visitor.visitEndingCommonly(CallAdvice.STREAM_WAIT_EVENT, named("cudaStreamWaitEvent"));
    visitor.visitEndingCommonly(CallAdvice.EVENT_QUERY, named("cudaEventQuery").and(takesArguments(1)));
    visitor.visitEndingCommonly(CallAdvice.EVENT_ELAPSED_TIME, named("cudaEventElapsedTime").and(takesArguments(3)));
    visitor.visitEndingCommonly(CallAdvice.CAPTURE_BEGIN, named("cudaStreamBeginCapture"));
    visitor.visitEndingCommonly(CallAdvice.CAPTURE_END, named("cudaStreamEndCapture"));
    visitor.visit(CallAdvice.DEVICE_RESET, named("cudaDeviceReset"));
    visitor.visit(CallAdvice.STREAM_CREATE, named("cudaStreamCreate").and(takesArguments(1)));
    visitor.visit(CallAdvice.STREAM_CREATE_WITH_FLAGS, namedOneOf("cudaStreamCreateWithFlags", "cudaStreamCreateWithPriority"));
    visitor.visit(CallAdvice.HOST_REGISTER, named("cudaHostRegister"));
    visitor.visitEndingCommonly(AllocationAdvice.FREE, named("cudaHostUnregister").and(takesArguments(1)));
    visitor.visitEndingCommonly("AddCallback", named("cudaStreamAddCallback").and(takesArguments(4))
        .and(isPublic()).and(isStatic()).and(not(isNative())));
    visitor.visitEndingCommonly("StreamBarrierFirst", named("cudaLaunchHostFunc")
        .and(isPublic()).and(isStatic()).and(not(isNative())));
    visitor.visitEndingCommonly("StreamBarrierSecond", named("cudaGraphLaunch").and(isPublic()).and(isStatic()).and(not(isNative())));
    visitor.visitEndingCommonly(CallAdvice.CLASSIFIED, isPublic().and(isStatic()).and(not(isNative())).and(returns(int.class))
        .and(nameStartsWith("cuda")).and(not(namedOneOf(DEDICATED))));
  }

  static final class Copy {
    @Advice.OnMethodEnter(suppress = Throwable.class)
    static CallRecord enter(@Advice.Argument(0) Pointer dst, @Advice.Argument(1) Pointer src,
        @Advice.Argument(2) long bytes, @Advice.Argument(3) int kind) {
      CallRecord r = Calls.begin(RuntimeCalls.copyKind(kind), "cudaMemcpy", 0L);
      RuntimeCalls.copy(r, dst, src, bytes, kind);
      Calls.place(r, Placement.SYNC);
      return r;
    }

  }

  static final class CopyAsync {
    @Advice.OnMethodEnter(suppress = Throwable.class)
    static CallRecord enter(@Advice.Argument(0) Pointer dst, @Advice.Argument(1) Pointer src,
        @Advice.Argument(2) long bytes, @Advice.Argument(3) int kind,
        @Advice.Argument(value = 4, readOnly = false) cudaStream_t stream) {
      CallRecord r = Calls.begin(RuntimeCalls.copyKind(kind), "cudaMemcpyAsync", stream);
      if (r != null) {
        RuntimeCalls.copy(r, dst, src, bytes, kind);
        r.returnsWhenDone = r.kind == CallKind.COPY_DEVICE_TO_HOST && Calls.pageable(dst);
        Calls.place(r, Placement.ASYNC);
        stream = Calls.runtimeStream(r, stream);
      }
      return r;
    }

  }

  static final class Memset {
    @Advice.OnMethodEnter(suppress = Throwable.class)
    static CallRecord enter(@Advice.Argument(0) Pointer dst, @Advice.Argument(2) long bytes) {
      CallRecord r = Calls.begin(CallKind.MEMSET, "cudaMemset", 0L);
      if (r != null) {
        r.bytes = bytes;
        Calls.device(r, dst, bytes, AccessMode.WRITE);
        Calls.place(r, Placement.SYNC);
      }
      return r;
    }

  }

  static final class MemsetAsync {
    @Advice.OnMethodEnter(suppress = Throwable.class)
    static CallRecord enter(@Advice.Argument(0) Pointer dst, @Advice.Argument(2) long bytes,
        @Advice.Argument(value = 3, readOnly = false) cudaStream_t stream) {
      CallRecord r = Calls.begin(CallKind.MEMSET, "cudaMemsetAsync", stream);
      if (r != null) {
        r.bytes = bytes;
        Calls.device(r, dst, bytes, AccessMode.WRITE);
        Calls.place(r, Placement.ASYNC);
        stream = Calls.runtimeStream(r, stream);
      }
      return r;
    }

  }

  static final class EventRecord {
    @Advice.OnMethodEnter(suppress = Throwable.class)
    static CallRecord enter(@Advice.Argument(0) jcuda.NativePointerObject event, @Advice.Argument(1) cudaStream_t stream) {
      CallRecord r = Calls.begin(CallKind.EVENT, "cudaEventRecord", stream);
      if (r != null) {
        r.appEvent = dev.kernelweave.interceptor.jcuda.JCudaPointers.nativePointer(event);
        r.timedEvent = dev.kernelweave.interceptor.UntimedEvents.timed(r.appEvent);
        Calls.place(r, Placement.EVENT_RECORD);
      }
      return r;
    }

  }


  /** {@code cudaEventCreate}: a timed event, whatever its handle meant before. */
  static final class EventCreate {
    @Advice.OnMethodEnter(suppress = Throwable.class)
    static CallRecord enter() {
      return Calls.begin(CallKind.EVENT, "cudaEventCreate", 0L);
    }

    @Advice.OnMethodExit(onThrowable = Throwable.class, suppress = Throwable.class)
    static void exit(@Advice.Enter CallRecord r, @Advice.Argument(0) jcuda.NativePointerObject event,
        @Advice.Return int result, @Advice.Thrown Throwable thrown) {
      dev.kernelweave.interceptor.UntimedEvents.endCreate(r, event, 0, result, thrown);
    }
  }

  /** {@code cudaEventCreateWithFlags}: notes whether the new event may be timed. */
  static final class EventCreateWithFlags {
    @Advice.OnMethodEnter(suppress = Throwable.class)
    static CallRecord enter() {
      return Calls.begin(CallKind.EVENT, "cudaEventCreateWithFlags", 0L);
    }

    @Advice.OnMethodExit(onThrowable = Throwable.class, suppress = Throwable.class)
    static void exit(@Advice.Enter CallRecord r, @Advice.Argument(0) jcuda.NativePointerObject event,
        @Advice.Argument(1) int flags, @Advice.Return int result, @Advice.Thrown Throwable thrown) {
      dev.kernelweave.interceptor.UntimedEvents.endCreate(r, event, flags, result, thrown);
    }
  }

  /**
   * {@code cudaStreamAddCallback}: a barrier like {@link StreamBarrierFirst}, whose callback still
   * receives the application's stream when the call runs on the agent's.
   */
  static final class AddCallback {
    @Advice.OnMethodEnter(suppress = Throwable.class)
    static CallRecord enter(@Advice.Origin("#m") String name,
        @Advice.Argument(value = 0, readOnly = false) cudaStream_t stream,
        @Advice.Argument(value = 1, readOnly = false) jcuda.runtime.cudaStreamCallback callback) {
      cudaStream_t appStream = stream;
      CallRecord r = Calls.beginStreamBarrier(name, stream);
      stream = Calls.runtimeStream(r, stream);
      callback = dev.kernelweave.interceptor.StreamCallbacks.forApplication(callback, appStream, stream != appStream);
      return r;
    }
  }

  /** Host functions and graph launches, as in the driver API: barriers enqueued on an agent stream. */
  static final class StreamBarrierFirst {
    @Advice.OnMethodEnter(suppress = Throwable.class)
    static CallRecord enter(@Advice.Origin("#m") String name,
        @Advice.Argument(value = 0, readOnly = false) cudaStream_t stream) {
      CallRecord r = Calls.beginStreamBarrier(name, stream);
      stream = Calls.runtimeStream(r, stream);
      return r;
    }
  }

  /** {@link StreamBarrierFirst} for {@code cudaGraphLaunch(graphExec, stream)}. */
  static final class StreamBarrierSecond {
    @Advice.OnMethodEnter(suppress = Throwable.class)
    static CallRecord enter(@Advice.Origin("#m") String name,
        @Advice.Argument(value = 1, readOnly = false) cudaStream_t stream) {
      CallRecord r = Calls.beginStreamBarrier(name, stream);
      stream = Calls.runtimeStream(r, stream);
      return r;
    }
  }
}
