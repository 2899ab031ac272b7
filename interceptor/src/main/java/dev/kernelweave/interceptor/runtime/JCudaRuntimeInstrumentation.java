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

import dev.kernelweave.call.CallRecord;
import dev.kernelweave.interceptor.AllocationAdvice;
import dev.kernelweave.interceptor.CallAdvice;
import dev.kernelweave.interceptor.CallRow;
import dev.kernelweave.interceptor.Calls;
import dev.kernelweave.interceptor.Instrumentation;
import jcuda.Pointer;
import jcuda.runtime.cudaStream_t;
import net.bytebuddy.asm.Advice;
import net.bytebuddy.description.type.TypeDescription;
import net.bytebuddy.matcher.ElementMatcher;

/**
 * {@code jcuda.runtime.JCuda}, the runtime API: allocations, copies, memsets, synchronization and
 * events; every other {@code cuda*} method has the row of its family in the {@code CudaCallTable}.
 */
public final class JCudaRuntimeInstrumentation implements Instrumentation {

  /** The functions with a row of their own: each has advice of its own, every other {@code cuda*} its family's. */
  static final String[] DEDICATED = Instrumentation.functionsWithOwnRows(n -> n.startsWith("cuda"));

  @Override
  public ElementMatcher<? super TypeDescription> types() {
    return named("jcuda.runtime.JCuda");
  }

  @Override
  public void advise(Visitor visitor) {
    visitor.visit(AllocationAdvice.DEVICE, namedOneOf("cudaMalloc", "cudaMallocManaged"));
    visitor.visit(CallAdvice.PLACED, AllocationAdvice.PINNED_HOST, namedOneOf("cudaMallocHost", "cudaHostAlloc"));
    visitor.visit(CallAdvice.PLACED, AllocationAdvice.PITCHED, named("cudaMallocPitch").and(takesArguments(4)));
    visitor.visitEndingCommonly(AllocationAdvice.FREE,
        namedOneOf("cudaFree", "cudaFreeHost", "cudaHostUnregister").and(takesArguments(1)));
    visitor.visitEndingCommonly("Copy", named("cudaMemcpy").and(takesArguments(4)));
    visitor.visitEndingCommonly("CopyAsync", named("cudaMemcpyAsync").and(takesArguments(5)));
    visitor.visitEndingCommonly(CallAdvice.MEMSET, named("cudaMemset").and(takesArguments(3)));
    visitor.visitEndingCommonly(CallAdvice.MEMSET_ASYNC, named("cudaMemsetAsync").and(takesArguments(4)));
    visitor.visitEndingCommonly(CallAdvice.PLACED, named("cudaDeviceSynchronize"));
    visitor.visitEndingCommonly(CallAdvice.PLACED_ON_STREAM, namedOneOf("cudaStreamSynchronize", "cudaStreamQuery",
        "cudaStreamBeginCapture", "cudaStreamEndCapture"));
    visitor.visitEndingCommonly(CallAdvice.WITH_EVENT,
        named("cudaEventRecord").and(takesArguments(2)).or(named("cudaStreamWaitEvent")));
    visitor.visit(CallAdvice.PLACED, "EventCreate", named("cudaEventCreate").and(takesArguments(1)));
    visitor.visit(CallAdvice.PLACED, "EventCreateWithFlags", named("cudaEventCreateWithFlags").and(takesArguments(2)));
    visitor.visitEndingCommonly(CallAdvice.EVENT_QUERY, named("cudaEventQuery").and(takesArguments(1)));
    visitor.visitEndingCommonly(CallAdvice.EVENT_ELAPSED_TIME, named("cudaEventElapsedTime").and(takesArguments(3)));
    visitor.visit(CallAdvice.PLACED, CallAdvice.DEVICE_RESET, named("cudaDeviceReset"));
    visitor.visit(CallAdvice.PLACED, CallAdvice.STREAM_CREATE, named("cudaStreamCreate").and(takesArguments(1)));
    visitor.visit(CallAdvice.PLACED, CallAdvice.STREAM_DESTROY, named("cudaStreamDestroy").and(takesArguments(1)));
    visitor.visit(CallAdvice.PLACED, CallAdvice.STREAM_CREATE_WITH_FLAGS,
        namedOneOf("cudaStreamCreateWithFlags", "cudaStreamCreateWithPriority"));
    visitor.visit(CallAdvice.PLACED, AllocationAdvice.PINNED_HOST, named("cudaHostRegister"));
    visitor.visitEndingCommonly(CallAdvice.ADD_CALLBACK, named("cudaStreamAddCallback").and(takesArguments(4))
        .and(isPublic()).and(isStatic()).and(not(isNative())));
    visitor.visitEndingCommonly(CallAdvice.STREAM_BARRIER_FIRST, named("cudaLaunchHostFunc")
        .and(isPublic()).and(isStatic()).and(not(isNative())));
    visitor.visitEndingCommonly(CallAdvice.STREAM_BARRIER_SECOND, named("cudaGraphLaunch").and(isPublic()).and(isStatic()).and(not(isNative())));
    visitor.visitEndingCommonly(CallAdvice.PLACED, isPublic().and(isStatic()).and(not(isNative())).and(returns(int.class))
        .and(nameStartsWith("cuda")).and(not(namedOneOf(DEDICATED))));
  }

  /** {@code cudaMemcpy}: the direction is the {@code cudaMemcpyKind} argument ({@link RuntimeCalls#copy}). */
  static final class Copy {
    @Advice.OnMethodEnter(suppress = Throwable.class)
    static CallRecord enter(@CallRow int row, @Advice.Argument(0) Pointer dst, @Advice.Argument(1) Pointer src,
        @Advice.Argument(2) long bytes, @Advice.Argument(3) int kind) {
      CallRecord r = Calls.begin(row, "cudaMemcpy", 0L);
      RuntimeCalls.copy(r, dst, src, bytes, kind);
      Calls.placeAsRowSays(r);
      return r;
    }
  }

  static final class CopyAsync {
    @Advice.OnMethodEnter(suppress = Throwable.class)
    static CallRecord enter(@CallRow int row, @Advice.Argument(0) Pointer dst, @Advice.Argument(1) Pointer src,
        @Advice.Argument(2) long bytes, @Advice.Argument(3) int kind,
        @Advice.Argument(value = 4, readOnly = false) cudaStream_t stream) {
      CallRecord r = Calls.begin(row, "cudaMemcpyAsync", stream);
      RuntimeCalls.copy(r, dst, src, bytes, kind);
      Calls.placeAsRowSays(r);
      stream = Calls.runtimeStream(r, stream);
      return r;
    }
  }

  /** {@code cudaEventCreate}: a timed event, whatever its handle meant before. */
  static final class EventCreate {
    @Advice.OnMethodExit(onThrowable = Throwable.class, suppress = Throwable.class)
    static void exit(@Advice.Enter CallRecord r, @Advice.Argument(0) jcuda.NativePointerObject event,
        @Advice.Return int result, @Advice.Thrown Throwable thrown) {
      dev.kernelweave.interceptor.UntimedEvents.endCreate(r, event, 0, result, thrown);
    }
  }

  /** {@code cudaEventCreateWithFlags}: notes whether the new event may be timed. */
  static final class EventCreateWithFlags {
    @Advice.OnMethodExit(onThrowable = Throwable.class, suppress = Throwable.class)
    static void exit(@Advice.Enter CallRecord r, @Advice.Argument(0) jcuda.NativePointerObject event,
        @Advice.Argument(1) int flags, @Advice.Return int result, @Advice.Thrown Throwable thrown) {
      dev.kernelweave.interceptor.UntimedEvents.endCreate(r, event, flags, result, thrown);
    }
  }
}
