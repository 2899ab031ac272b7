package dev.kernelweave.interceptor.driver;

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
import dev.kernelweave.interceptor.AllocationPadding;
import dev.kernelweave.interceptor.CallAdvice;
import dev.kernelweave.interceptor.CallRow;
import dev.kernelweave.interceptor.CallAccesses;
import dev.kernelweave.interceptor.Calls;
import dev.kernelweave.interceptor.Instrumentation;
import dev.kernelweave.interceptor.Modules;
import dev.kernelweave.interceptor.StagedCopies;
import dev.kernelweave.interceptor.UntimedEvents;
import dev.kernelweave.interceptor.IssuedByAgent;
import dev.kernelweave.interceptor.jcuda.JCudaPointers;
import dev.kernelweave.memory.MemoryKind;
import jcuda.Pointer;
import jcuda.driver.CUdeviceptr;
import jcuda.driver.CUfunction;
import jcuda.driver.CUmodule;
import jcuda.driver.CUstream;
import net.bytebuddy.asm.Advice;
import net.bytebuddy.description.type.TypeDescription;
import net.bytebuddy.matcher.ElementMatcher;
import net.bytebuddy.description.method.MethodDescription;

/**
 * {@code jcuda.driver.JCudaDriver}: launches, copies, memsets, allocations and frees,
 * synchronization, events, modules; every other {@code cu*} method has the row of its family in the
 * {@code CudaCallTable}, found by its name when woven.
 *
 * <p>Each advice finds its call's row by the id woven in ({@link CallRow}), hands over to {@link
 * Calls} in a few lines and suppresses every {@code Throwable} of its own: whatever happens inside
 * the agent, the application's call runs.
 */
public final class JCudaDriverInstrumentation implements Instrumentation {

  /** The functions with a row of their own: each has advice of its own, every other {@code cu*} its family's. */
  static final String[] DEDICATED = Instrumentation.functionsWithOwnRows(n -> n.startsWith("cu") && !n.startsWith("cuda"));

  @Override
  public ElementMatcher<? super TypeDescription> types() {
    return named("jcuda.driver.JCudaDriver");
  }

  @Override
  public void advise(Instrumentation.Visitor visitor) {
    ElementMatcher.Junction<MethodDescription> api =
        isPublic().and(isStatic()).and(not(isNative())).and(returns(int.class)).and(nameStartsWith("cu"));
    visitor.visit("Launch", CallAdvice.END_OR_TAKEN_OVER, named("cuLaunchKernel").and(takesArguments(11)));
    visitor.visit("Copy", CallAdvice.END_OR_TAKEN_OVER,
        namedOneOf("cuMemcpyHtoD", "cuMemcpyDtoH", "cuMemcpyDtoD", "cuMemcpy").and(takesArguments(3)));
    visitor.visitEndingCommonly("CopyAsync", namedOneOf("cuMemcpyHtoDAsync", "cuMemcpyDtoHAsync", "cuMemcpyDtoDAsync",
        "cuMemcpyAsync").and(takesArguments(4)));
    visitor.visitEndingCommonly(CallAdvice.MEMSET, namedOneOf("cuMemsetD8", "cuMemsetD16", "cuMemsetD32").and(takesArguments(3)));
    visitor.visitEndingCommonly(CallAdvice.MEMSET_ASYNC,
        namedOneOf("cuMemsetD8Async", "cuMemsetD16Async", "cuMemsetD32Async").and(takesArguments(4)));
    visitor.visitEndingCommonly("Memset2D", namedOneOf("cuMemsetD2D8", "cuMemsetD2D16", "cuMemsetD2D32").and(takesArguments(5)));
    visitor.visitEndingCommonly("Memset2DAsync",
        namedOneOf("cuMemsetD2D8Async", "cuMemsetD2D16Async", "cuMemsetD2D32Async").and(takesArguments(6)));
    visitor.visit(AllocationAdvice.DEVICE, namedOneOf("cuMemAlloc", "cuMemAllocManaged"));
    visitor.visit(CallAdvice.PLACED, AllocationAdvice.PITCHED, named("cuMemAllocPitch"));
    visitor.visit(CallAdvice.PLACED, AllocationAdvice.PINNED_HOST, namedOneOf("cuMemAllocHost", "cuMemHostAlloc"));
    visitor.visitEndingCommonly(AllocationAdvice.FREE, namedOneOf("cuMemFree", "cuMemFreeHost", "cuMemHostUnregister"));
    visitor.visitEndingCommonly(CallAdvice.PLACED, named("cuCtxSynchronize"));
    visitor.visitEndingCommonly(CallAdvice.PLACED_ON_STREAM, namedOneOf("cuStreamSynchronize", "cuStreamQuery",
        "cuStreamBeginCapture", "cuStreamBeginCapture_v2", "cuStreamEndCapture"));
    visitor.visitEndingCommonly(CallAdvice.WITH_EVENT,
        namedOneOf("cuEventRecord", "cuEventRecordWithFlags", "cuStreamWaitEvent"));
    visitor.visit(CallAdvice.PLACED, ContextEndAdvice.CONTEXT_DESTROY, named("cuCtxDestroy"));
    visitor.visit(CallAdvice.PLACED, ContextEndAdvice.PRIMARY_RESET, named("cuDevicePrimaryCtxReset"));
    visitor.visit(CallAdvice.PLACED, ContextEndAdvice.PRIMARY_RETAIN, named("cuDevicePrimaryCtxRetain"));
    visitor.visit(CallAdvice.PLACED, ContextEndAdvice.PRIMARY_RELEASE, named("cuDevicePrimaryCtxRelease"));
    visitor.visit(CallAdvice.PLACED, "EventCreate", named("cuEventCreate").and(takesArguments(2)));
    visitor.visit(CallAdvice.PLACED, "ModuleLoadFile", named("cuModuleLoad"));
    visitor.visit(CallAdvice.PLACED, "ModuleLoadImage", namedOneOf("cuModuleLoadData", "cuModuleLoadDataEx"));
    visitor.visit(CallAdvice.PLACED, "ModuleUnload", named("cuModuleUnload"));
    visitor.visit(CallAdvice.PLACED, "GetFunction", named("cuModuleGetFunction"));
    visitor.visit(CallAdvice.PLACED, "GetGlobal", named("cuModuleGetGlobal"));
    visitor.visitEndingCommonly(CallAdvice.EVENT_QUERY, named("cuEventQuery").and(api));
    visitor.visitEndingCommonly(CallAdvice.EVENT_ELAPSED_TIME, named("cuEventElapsedTime").and(takesArguments(3)).and(api));
    visitor.visit(CallAdvice.PLACED, CallAdvice.STREAM_CREATE_WITH_FLAGS,
        namedOneOf("cuStreamCreate", "cuStreamCreateWithPriority"));
    visitor.visit(CallAdvice.PLACED, CallAdvice.STREAM_DESTROY, named("cuStreamDestroy").and(takesArguments(1)));
    visitor.visit(CallAdvice.PLACED, AllocationAdvice.PINNED_HOST, named("cuMemHostRegister"));
    visitor.visitEndingCommonly(CallAdvice.ADD_CALLBACK, named("cuStreamAddCallback").and(takesArguments(4)).and(api));
    visitor.visitEndingCommonly(CallAdvice.STREAM_BARRIER_FIRST, namedOneOf("cuLaunchHostFunc",
        "cuStreamWaitValue32", "cuStreamWaitValue64", "cuStreamWriteValue32", "cuStreamWriteValue64",
        "cuStreamBatchMemOp").and(api));
    visitor.visitEndingCommonly(CallAdvice.STREAM_BARRIER_SECOND, named("cuGraphLaunch").and(api));
    visitor.visit("AddressQuery", "AddressRange", named("cuMemGetAddressRange").and(takesArguments(3)));
    visitor.visit("AddressQuery", "PointerAttribute", named("cuPointerGetAttribute").and(takesArguments(3)));
    visitor.visitEndingCommonly(CallAdvice.PLACED, api.and(not(namedOneOf(DEDICATED))));
  }

  // ------------------------------------------------------------------ allocations

  /**
   * The enter of {@code cuMemGetAddressRange} and {@code cuPointerGetAttribute}, whose third argument
   * is the pointer asked about: the padding byte is asked about as the byte past the allocation.
   */
  static final class AddressQuery {
    @Advice.OnMethodEnter(suppress = Throwable.class)
    static CallRecord enter(@CallRow int row, @Advice.Origin("#m") String name,
        @Advice.Argument(value = 2, readOnly = false) CUdeviceptr pointer) {
      pointer = AllocationPadding.queriedPointer(pointer);
      return Calls.beginPlaced(row, name);
    }
  }

  /** {@code cuMemGetAddressRange}: the size the program asked for, where the agent padded the allocation. */
  static final class AddressRange {
    @Advice.OnMethodExit(onThrowable = Throwable.class, suppress = Throwable.class)
    static void exit(@Advice.Enter CallRecord r, @Advice.Argument(1) long[] size,
        @Advice.Argument(2) CUdeviceptr pointer, @Advice.Return int result, @Advice.Thrown Throwable thrown) {
      if (thrown == null && result == 0 && size != null && size.length > 0) {
        size[0] = AllocationPadding.visibleRangeSize(JCudaPointers.address(pointer), size[0]);
      }
      Calls.end(r, result, thrown);
    }
  }

  /** {@code cuPointerGetAttribute}: {@code CU_POINTER_ATTRIBUTE_RANGE_SIZE} as {@link AddressRange} answers it. */
  static final class PointerAttribute {
    @Advice.OnMethodExit(onThrowable = Throwable.class, suppress = Throwable.class)
    static void exit(@Advice.Enter CallRecord r, @Advice.Argument(0) Pointer data, @Advice.Argument(1) int attribute,
        @Advice.Argument(2) CUdeviceptr pointer, @Advice.Return int result, @Advice.Thrown Throwable thrown) {
      if (thrown == null && result == 0 && attribute == AllocationPadding.RANGE_SIZE_ATTRIBUTE) {
        AllocationPadding.correctRangeSizeAttribute(data, JCudaPointers.address(pointer));
      }
      Calls.end(r, result, thrown);
    }
  }

  // ------------------------------------------------------------------ launches

  /**
   * {@code cuLaunchKernel}: placed on a lane, or held in the context's window ({@code
   * LaunchWindows}), JCuda's call then skipped and success returned.
   */
  static final class Launch {
    @Advice.OnMethodEnter(suppress = Throwable.class, skipOn = IssuedByAgent.class)
    static Object enter(@CallRow int row,
        @Advice.Argument(0) CUfunction f,
        @Advice.Argument(1) int gridX, @Advice.Argument(2) int gridY, @Advice.Argument(3) int gridZ,
        @Advice.Argument(4) int blockX, @Advice.Argument(5) int blockY, @Advice.Argument(6) int blockZ,
        @Advice.Argument(7) int sharedMem,
        @Advice.Argument(value = 8, readOnly = false) CUstream stream,
        @Advice.Argument(9) Pointer params, @Advice.Argument(10) Pointer extra) {
      CallRecord r = Calls.begin(row, "cuLaunchKernel", stream);
      if (r != null) {
        r.gridX = gridX; r.gridY = gridY; r.gridZ = gridZ;
        r.blockX = blockX; r.blockY = blockY; r.blockZ = blockZ;
        r.sharedMemBytes = sharedMem;
        CallAccesses.launch(r, Modules.kernel(f), params, extra);
        r.function = JCudaPointers.nativePointer(f);
        IssuedByAgent held = Calls.placeLaunch(r);
        if (held != null) {
          return held;
        }
        stream = Calls.stream(r, stream);
      }
      return r;
    }
  }

  // ------------------------------------------------------------------ copies and memsets

  /**
   * The synchronous copies: staged and issued by the agent where their rows allow and it can be
   * ({@link StagedCopies}), JCuda's call then skipped; otherwise as their rows say.
   */
  static final class Copy {
    @Advice.OnMethodEnter(suppress = Throwable.class, skipOn = IssuedByAgent.class)
    static Object enter(@CallRow int row, @Advice.Origin("#m") String name, @Advice.Argument(0) Pointer dst,
        @Advice.Argument(1) Pointer src, @Advice.Argument(2) long bytes) {
      CallRecord r = Calls.begin(row, name, 0L);
      CallAccesses.touches(r, dst, src, bytes);
      return StagedCopies.copy(r, dst, src, bytes);
    }
  }

  /** Every asynchronous copy: destination, source, bytes, stream; the row says which side is where. */
  static final class CopyAsync {
    @Advice.OnMethodEnter(suppress = Throwable.class)
    static CallRecord enter(@CallRow int row, @Advice.Origin("#m") String name, @Advice.Argument(0) Pointer dst,
        @Advice.Argument(1) Pointer src, @Advice.Argument(2) long bytes,
        @Advice.Argument(value = 3, readOnly = false) CUstream stream) {
      CallRecord r = Calls.begin(row, name, stream);
      CallAccesses.touches(r, dst, src, bytes);
      Calls.placeAsRowSays(r);
      stream = Calls.stream(r, stream);
      return r;
    }
  }

  static final class Memset2D {
    @Advice.OnMethodEnter(suppress = Throwable.class)
    static CallRecord enter(@CallRow int row, @Advice.Origin("#m") String name, @Advice.Argument(0) Pointer dst,
        @Advice.Argument(1) long pitch, @Advice.Argument(4) long height) {
      return Calls.memset(row, name, dst, pitch, height, null);
    }
  }

  static final class Memset2DAsync {
    @Advice.OnMethodEnter(suppress = Throwable.class)
    static CallRecord enter(@CallRow int row, @Advice.Origin("#m") String name, @Advice.Argument(0) Pointer dst,
        @Advice.Argument(1) long pitch, @Advice.Argument(4) long height,
        @Advice.Argument(value = 5, readOnly = false) CUstream stream) {
      CallRecord r = Calls.memset(row, name, dst, pitch, height, stream);
      stream = Calls.stream(r, stream);
      return r;
    }
  }

  // ------------------------------------------------------------------ events

  /** {@code cuEventCreate}: notes whether the new event may be timed ({@link UntimedEvents}). */
  static final class EventCreate {
    @Advice.OnMethodExit(onThrowable = Throwable.class, suppress = Throwable.class)
    static void exit(@Advice.Enter CallRecord r, @Advice.Argument(0) jcuda.driver.CUevent event,
        @Advice.Argument(1) int flags, @Advice.Return int result, @Advice.Thrown Throwable thrown) {
      UntimedEvents.endCreate(r, event, flags, result, thrown);
    }
  }

  // ------------------------------------------------------------------ modules

  static final class ModuleLoadFile {
    @Advice.OnMethodExit(onThrowable = Throwable.class, suppress = Throwable.class)
    static void exit(@Advice.Enter CallRecord r, @Advice.Argument(0) CUmodule module,
        @Advice.Argument(1) String fileName, @Advice.Return int result, @Advice.Thrown Throwable thrown) {
      Modules.endLoadFile(r, module, fileName, result, thrown);
    }
  }

  static final class ModuleLoadImage {
    @Advice.OnMethodExit(onThrowable = Throwable.class, suppress = Throwable.class)
    static void exit(@Advice.Enter CallRecord r, @Advice.Argument(0) CUmodule module,
        @Advice.Argument(1) Object image, @Advice.Return int result, @Advice.Thrown Throwable thrown) {
      Modules.endLoadImage(r, module, image, result, thrown);
    }
  }

  static final class ModuleUnload {
    @Advice.OnMethodExit(onThrowable = Throwable.class, suppress = Throwable.class)
    static void exit(@Advice.Enter CallRecord r, @Advice.Argument(0) CUmodule module,
        @Advice.Return int result, @Advice.Thrown Throwable thrown) {
      Modules.endUnload(r, module, result, thrown);
    }
  }

  static final class GetFunction {
    @Advice.OnMethodExit(onThrowable = Throwable.class, suppress = Throwable.class)
    static void exit(@Advice.Enter CallRecord r, @Advice.Argument(0) CUfunction function,
        @Advice.Argument(1) CUmodule module, @Advice.Argument(2) String name,
        @Advice.Return int result, @Advice.Thrown Throwable thrown) {
      if (r != null) {
        r.kernel = name;
        if (thrown == null && result == 0) {
          Modules.functionFound(function, module, name);
        }
      }
      Calls.end(r, result, thrown);
    }
  }

  static final class GetGlobal {
    @Advice.OnMethodExit(onThrowable = Throwable.class, suppress = Throwable.class)
    static void exit(@Advice.Enter CallRecord r, @Advice.Argument(0) CUdeviceptr ptr,
        @Advice.Argument(1) long[] bytes, @Advice.Return int result, @Advice.Thrown Throwable thrown) {
      if (r != null && thrown == null && result == 0 && ptr != null) {
        long size = bytes != null && bytes.length > 0 ? bytes[0] : 1;
        CallAccesses.allocated(r, JCudaPointers.address(ptr), size, MemoryKind.MODULE_GLOBAL);
      }
      Calls.end(r, result, thrown);
    }
  }
}
