package dev.kernelweave.interceptor.jcuda;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.util.Objects;
import jcuda.Pointer;
import jcuda.driver.CUcontext;
import jcuda.driver.CUdevice;
import jcuda.driver.CUdeviceptr;
import jcuda.driver.CUevent;
import jcuda.driver.CUfunction;
import jcuda.driver.CUgraph;
import jcuda.driver.CUgraphExec;
import jcuda.driver.CUmodule;
import jcuda.driver.CUstream;

/**
 * The agent's own CUDA calls. They go straight to JCuda's private native methods, so they are
 * neither intercepted nor turned into exceptions by {@code setExceptionsEnabled}: an error the
 * agent's call meets (a sticky error from an earlier kernel, say) is left for the application's
 * own next call to report, exactly as it would without the agent.
 *
 * <p>Handles are looked up on first use, after the application has initialized JCuda. Thread-safe.
 */
public final class JCudaNatives {

  private JCudaNatives() {}

  private static final class Driver {
    static final MethodHandle CTX_GET_CURRENT = find("cuCtxGetCurrentNative", int.class, CUcontext.class);
    static final MethodHandle CTX_SYNCHRONIZE = find("cuCtxSynchronizeNative", int.class);
    static final MethodHandle PRIMARY_CTX_GET_STATE =
        find("cuDevicePrimaryCtxGetStateNative", int.class, CUdevice.class, int[].class, int[].class);
    static final MethodHandle STREAM_CREATE = find("cuStreamCreateNative", int.class, CUstream.class, int.class);
    static final MethodHandle STREAM_CREATE_WITH_PRIORITY =
        find("cuStreamCreateWithPriorityNative", int.class, CUstream.class, int.class, int.class);
    static final MethodHandle STREAM_PRIORITY_RANGE =
        find("cuCtxGetStreamPriorityRangeNative", int.class, int[].class, int[].class);
    static final MethodHandle EVENT_CREATE = find("cuEventCreateNative", int.class, CUevent.class, int.class);
    static final MethodHandle EVENT_RECORD = find("cuEventRecordNative", int.class, CUevent.class, CUstream.class);
    static final MethodHandle STREAM_WAIT_EVENT =
        find("cuStreamWaitEventNative", int.class, CUstream.class, CUevent.class, int.class);
    static final MethodHandle EVENT_SYNCHRONIZE = find("cuEventSynchronizeNative", int.class, CUevent.class);
    static final MethodHandle EVENT_QUERY = find("cuEventQueryNative", int.class, CUevent.class);
    static final MethodHandle EVENT_ELAPSED_TIME =
        find("cuEventElapsedTimeNative", int.class, float[].class, CUevent.class, CUevent.class);
    static final MethodHandle STREAM_DESTROY = find("cuStreamDestroyNative", int.class, CUstream.class);
    static final MethodHandle EVENT_DESTROY = find("cuEventDestroyNative", int.class, CUevent.class);
    static final MethodHandle MODULE_GET_GLOBAL =
        find("cuModuleGetGlobalNative", int.class, CUdeviceptr.class, long[].class, CUmodule.class, String.class);
    static final MethodHandle STREAM_SYNCHRONIZE = find("cuStreamSynchronizeNative", int.class, CUstream.class);
    static final MethodHandle STREAM_QUERY = find("cuStreamQueryNative", int.class, CUstream.class);
    static final MethodHandle MODULE_LOAD_DATA = find("cuModuleLoadDataNative", int.class, CUmodule.class, byte[].class);
    static final MethodHandle MODULE_GET_FUNCTION =
        find("cuModuleGetFunctionNative", int.class, CUfunction.class, CUmodule.class, String.class);
    static final MethodHandle MODULE_UNLOAD = find("cuModuleUnloadNative", int.class, CUmodule.class);
    static final MethodHandle STREAM_IS_CAPTURING =
        find("cuStreamIsCapturingNative", int.class, CUstream.class, int[].class);
    static final MethodHandle EXCHANGE_CAPTURE_MODE =
        find("cuThreadExchangeStreamCaptureModeNative", int.class, int[].class);
    static final MethodHandle MEM_ALLOC = find("cuMemAllocNative", int.class, CUdeviceptr.class, long.class);
    static final MethodHandle MEM_FREE = find("cuMemFreeNative", int.class, CUdeviceptr.class);
    static final MethodHandle MEM_ALLOC_HOST = find("cuMemAllocHostNative", int.class, Pointer.class, long.class);
    static final MethodHandle MEMCPY_HTOD_ASYNC =
        find("cuMemcpyHtoDAsyncNative", int.class, CUdeviceptr.class, Pointer.class, long.class, CUstream.class);
    static final MethodHandle MEMCPY_DTOH_ASYNC =
        find("cuMemcpyDtoHAsyncNative", int.class, Pointer.class, CUdeviceptr.class, long.class, CUstream.class);

    private static MethodHandle find(String name, Class<?> ret, Class<?>... params) {
      return findNative("jcuda.driver.JCudaDriver", name, ret, params);
    }
  }

  /** Launches and graphs, for held launches; looked up when the first window is issued. */
  private static final class Graphs {
    static final MethodHandle LAUNCH_KERNEL = find("cuLaunchKernelNative", int.class, CUfunction.class,
        int.class, int.class, int.class, int.class, int.class, int.class, int.class, CUstream.class,
        Pointer.class, Pointer.class);
    static final MethodHandle BEGIN_CAPTURE = find("cuStreamBeginCaptureNative", int.class, CUstream.class, int.class);
    static final MethodHandle END_CAPTURE = find("cuStreamEndCaptureNative", int.class, CUstream.class, CUgraph.class);
    static final MethodHandle INSTANTIATE =
        find("cuGraphInstantiateNative", int.class, CUgraphExec.class, CUgraph.class, long.class);
    static final MethodHandle LAUNCH_GRAPH = find("cuGraphLaunchNative", int.class, CUgraphExec.class, CUstream.class);
    static final MethodHandle DESTROY_EXEC = find("cuGraphExecDestroyNative", int.class, CUgraphExec.class);
    static final MethodHandle DESTROY_GRAPH = find("cuGraphDestroyNative", int.class, CUgraph.class);
    static final MethodHandle SET_CURRENT = find("cuCtxSetCurrentNative", int.class, CUcontext.class);

    private static MethodHandle find(String name, Class<?> ret, Class<?>... params) {
      return findNative("jcuda.driver.JCudaDriver", name, ret, params);
    }
  }

  private static final class Runtime {
    static final MethodHandle MALLOC = find("cudaMallocNative", int.class, Pointer.class, long.class);
    static final MethodHandle GET_LAST_ERROR = find("cudaGetLastErrorNative", int.class);
    static final MethodHandle PEEK_AT_LAST_ERROR = find("cudaPeekAtLastErrorNative", int.class);

    private static MethodHandle find(String name, Class<?> ret, Class<?>... params) {
      return findNative("jcuda.runtime.JCuda", name, ret, params);
    }
  }

  /**
   * Looks up the driver calls' handles now, off the program's threads, calling no CUDA function:
   * cold, each costs the JVM about a millisecond of code generation, which the first scheduled
   * calls paid (1.7 ms in an H200's hand-over). The runtime API's and cuBLAS's wait for their use.
   */
  public static void lookUpHandles() {
    Objects.requireNonNull(Driver.CTX_GET_CURRENT); // initializes its holder: all of its handles
    Objects.requireNonNull(Graphs.SET_CURRENT);
  }

  static MethodHandle findNative(String className, String name, Class<?> ret, Class<?>... params) {
    try {
      Class<?> owner = Class.forName(className, false, JCudaNatives.class.getClassLoader());
      MethodHandles.Lookup lookup = MethodHandles.privateLookupIn(owner, MethodHandles.lookup());
      return lookup.findStatic(owner, name, MethodType.methodType(ret, params));
    } catch (ReflectiveOperationException e) {
      throw new IllegalStateException("JCuda has no " + className + "." + name + ": an unsupported JCuda version?", e);
    }
  }

  /** The calling thread's current context handle, 0 when there is none. */
  public static long currentContext(CUcontext scratch) {
    try {
      int r = (int) Driver.CTX_GET_CURRENT.invokeExact(scratch);
      return r == 0 ? JCudaPointers.nativePointer(scratch) : 0;
    } catch (Throwable t) {
      throw rethrow(t);
    }
  }

  /** Whether the primary context of {@code device} is active (retained, not destroyed); true when unknown. */
  public static boolean primaryContextActive(CUdevice device) {
    int[] flags = {0};
    int[] active = {1};
    try {
      int r = (int) Driver.PRIMARY_CTX_GET_STATE.invokeExact(device, flags, active);
      return r != 0 || active[0] != 0;
    } catch (Throwable t) {
      throw rethrow(t);
    }
  }

  public static int synchronizeContext() {
    try {
      return (int) Driver.CTX_SYNCHRONIZE.invokeExact();
    } catch (Throwable t) {
      throw rethrow(t);
    }
  }

  /** Creates a stream with {@code CU_STREAM_NON_BLOCKING}, so it never waits for the legacy default stream. */
  public static int createNonBlockingStream(CUstream stream) {
    try {
      return (int) Driver.STREAM_CREATE.invokeExact(stream, 1);
    } catch (Throwable t) {
      throw rethrow(t);
    }
  }

  /** Creates a {@code CU_STREAM_NON_BLOCKING} stream with the given stream priority (lower numbers run first). */
  public static int createNonBlockingStream(CUstream stream, int priority) {
    try {
      return (int) Driver.STREAM_CREATE_WITH_PRIORITY.invokeExact(stream, 1, priority);
    } catch (Throwable t) {
      throw rethrow(t);
    }
  }

  /** {@code cuCtxGetStreamPriorityRange} of the current context: {@code least[0]} and {@code greatest[0]}. */
  public static int streamPriorityRange(int[] least, int[] greatest) {
    try {
      return (int) Driver.STREAM_PRIORITY_RANGE.invokeExact(least, greatest);
    } catch (Throwable t) {
      throw rethrow(t);
    }
  }

  /** Creates an event with {@code CU_EVENT_DISABLE_TIMING}: cheaper to record and wait on. */
  public static int createEvent(CUevent event) {
    try {
      return (int) Driver.EVENT_CREATE.invokeExact(event, 2);
    } catch (Throwable t) {
      throw rethrow(t);
    }
  }

  public static int recordEvent(CUevent event, CUstream stream) {
    try {
      return (int) Driver.EVENT_RECORD.invokeExact(event, stream);
    } catch (Throwable t) {
      throw rethrow(t);
    }
  }

  public static int waitEvent(CUstream stream, CUevent event) {
    try {
      return (int) Driver.STREAM_WAIT_EVENT.invokeExact(stream, event, 0);
    } catch (Throwable t) {
      throw rethrow(t);
    }
  }

  /** {@code cuEventCreate} with timing ({@code CU_EVENT_DEFAULT}), for sampled device times. */
  public static int createTimingEvent(CUevent event) {
    try {
      return (int) Driver.EVENT_CREATE.invokeExact(event, 0);
    } catch (Throwable t) {
      throw rethrow(t);
    }
  }

  public static int queryEvent(CUevent event) {
    try {
      return (int) Driver.EVENT_QUERY.invokeExact(event);
    } catch (Throwable t) {
      throw rethrow(t);
    }
  }

  public static int elapsedTime(float[] millis, CUevent start, CUevent end) {
    try {
      return (int) Driver.EVENT_ELAPSED_TIME.invokeExact(millis, start, end);
    } catch (Throwable t) {
      throw rethrow(t);
    }
  }

  public static int synchronizeEvent(CUevent event) {
    try {
      return (int) Driver.EVENT_SYNCHRONIZE.invokeExact(event);
    } catch (Throwable t) {
      throw rethrow(t);
    }
  }


  public static int destroyStream(CUstream stream) {
    try {
      return (int) Driver.STREAM_DESTROY.invokeExact(stream);
    } catch (Throwable t) {
      throw rethrow(t);
    }
  }

  public static int destroyEvent(CUevent event) {
    try {
      return (int) Driver.EVENT_DESTROY.invokeExact(event);
    } catch (Throwable t) {
      throw rethrow(t);
    }
  }

  /**
   * The address and size of a module's {@code .global} or {@code .const} variable, without
   * intercepting the call: the CUDA result, 0 when found.
   */
  public static int moduleGlobal(CUdeviceptr address, long[] bytes, CUmodule module, String name) {
    try {
      return (int) Driver.MODULE_GET_GLOBAL.invokeExact(address, bytes, module, name);
    } catch (Throwable t) {
      throw rethrow(t);
    }
  }

  /**
   * Loads a module of the agent's own from a NUL-terminated image, in the current context, without
   * intercepting the call: the program's module table never sees it.
   */
  public static int loadModule(CUmodule module, byte[] image) {
    try {
      return (int) Driver.MODULE_LOAD_DATA.invokeExact(module, image);
    } catch (Throwable t) {
      throw rethrow(t);
    }
  }

  /** A function of a module the agent loaded, without intercepting the call. */
  public static int moduleFunction(CUfunction function, CUmodule module, String name) {
    try {
      return (int) Driver.MODULE_GET_FUNCTION.invokeExact(function, module, name);
    } catch (Throwable t) {
      throw rethrow(t);
    }
  }

  public static int unloadModule(CUmodule module) {
    try {
      return (int) Driver.MODULE_UNLOAD.invokeExact(module);
    } catch (Throwable t) {
      throw rethrow(t);
    }
  }

  /** {@code cuStreamIsCapturing}: {@code status[0]} is 0 when the stream is not capturing. */
  public static int isCapturing(CUstream stream, int[] status) {
    try {
      return (int) Driver.STREAM_IS_CAPTURING.invokeExact(stream, status);
    } catch (Throwable t) {
      throw rethrow(t);
    }
  }

  /** {@code cuThreadExchangeStreamCaptureMode}: sets the calling thread's mode to {@code mode[0]}, returns the old one there. */
  public static int exchangeCaptureMode(int[] mode) {
    try {
      return (int) Driver.EXCHANGE_CAPTURE_MODE.invokeExact(mode);
    } catch (Throwable t) {
      throw rethrow(t);
    }
  }

  public static int synchronizeStream(CUstream stream) {
    try {
      return (int) Driver.STREAM_SYNCHRONIZE.invokeExact(stream);
    } catch (Throwable t) {
      throw rethrow(t);
    }
  }

  /** CUDA_SUCCESS when all of the stream's work has completed, CUDA_ERROR_NOT_READY while some runs. */
  public static int queryStream(CUstream stream) {
    try {
      return (int) Driver.STREAM_QUERY.invokeExact(stream);
    } catch (Throwable t) {
      throw rethrow(t);
    }
  }

  /** Allocates device memory of the agent's own, in the current context; the agent's tables never see it. */
  public static int allocate(CUdeviceptr pointer, long bytes) {
    try {
      return (int) Driver.MEM_ALLOC.invokeExact(pointer, bytes);
    } catch (Throwable t) {
      throw rethrow(t);
    }
  }

  /** The runtime API's {@code cudaMalloc}, as the application would make it, but not intercepted. */
  public static int runtimeAllocate(Pointer pointer, long bytes) {
    try {
      return (int) Runtime.MALLOC.invokeExact(pointer, bytes);
    } catch (Throwable t) {
      throw rethrow(t);
    }
  }

  /** The runtime API's last error of the calling thread, left as it is. */
  public static int runtimePeekAtLastError() {
    try {
      return (int) Runtime.PEEK_AT_LAST_ERROR.invokeExact();
    } catch (Throwable t) {
      throw rethrow(t);
    }
  }

  /** The runtime API's last error of the calling thread, which it resets to success. */
  public static int runtimeGetLastError() {
    try {
      return (int) Runtime.GET_LAST_ERROR.invokeExact();
    } catch (Throwable t) {
      throw rethrow(t);
    }
  }

  public static int free(CUdeviceptr pointer) {
    try {
      return (int) Driver.MEM_FREE.invokeExact(pointer);
    } catch (Throwable t) {
      throw rethrow(t);
    }
  }

  /**
   * Allocates page-locked host memory of the agent's own, in the current context; the agent's tables
   * never see it. It lives as long as the context.
   */
  public static int allocateHost(Pointer pointer, long bytes) {
    try {
      return (int) Driver.MEM_ALLOC_HOST.invokeExact(pointer, bytes);
    } catch (Throwable t) {
      throw rethrow(t);
    }
  }

  /** An asynchronous copy from the agent's page-locked memory to device memory, on {@code stream}. */
  public static int copyToDeviceAsync(CUdeviceptr destination, Pointer source, long bytes, CUstream stream) {
    try {
      return (int) Driver.MEMCPY_HTOD_ASYNC.invokeExact(destination, source, bytes, stream);
    } catch (Throwable t) {
      throw rethrow(t);
    }
  }

  public static int copyToHostAsync(Pointer destination, CUdeviceptr source, long bytes, CUstream stream) {
    try {
      return (int) Driver.MEMCPY_DTOH_ASYNC.invokeExact(destination, source, bytes, stream);
    } catch (Throwable t) {
      throw rethrow(t);
    }
  }

  public static int launchKernel(CUfunction f, int gridX, int gridY, int gridZ, int blockX, int blockY,
      int blockZ, int sharedMem, CUstream stream, Pointer kernelParams) {
    try {
      return (int) Graphs.LAUNCH_KERNEL.invokeExact(f, gridX, gridY, gridZ, blockX, blockY, blockZ, sharedMem,
          stream, kernelParams, (Pointer) null);
    } catch (Throwable t) {
      throw rethrow(t);
    }
  }

  /** Begins capturing {@code stream} in {@code CU_STREAM_CAPTURE_MODE_THREAD_LOCAL}: other threads are unaffected. */
  public static int beginCapture(CUstream stream) {
    try {
      return (int) Graphs.BEGIN_CAPTURE.invokeExact(stream, 1);
    } catch (Throwable t) {
      throw rethrow(t);
    }
  }

  public static int endCapture(CUstream stream, CUgraph graph) {
    try {
      return (int) Graphs.END_CAPTURE.invokeExact(stream, graph);
    } catch (Throwable t) {
      throw rethrow(t);
    }
  }

  public static int instantiateGraph(CUgraphExec exec, CUgraph graph) {
    try {
      return (int) Graphs.INSTANTIATE.invokeExact(exec, graph, 0L);
    } catch (Throwable t) {
      throw rethrow(t);
    }
  }

  public static int launchGraph(CUgraphExec exec, CUstream stream) {
    try {
      return (int) Graphs.LAUNCH_GRAPH.invokeExact(exec, stream);
    } catch (Throwable t) {
      throw rethrow(t);
    }
  }

  public static int destroyGraphExec(CUgraphExec exec) {
    try {
      return (int) Graphs.DESTROY_EXEC.invokeExact(exec);
    } catch (Throwable t) {
      throw rethrow(t);
    }
  }

  public static int destroyGraph(CUgraph graph) {
    try {
      return (int) Graphs.DESTROY_GRAPH.invokeExact(graph);
    } catch (Throwable t) {
      throw rethrow(t);
    }
  }

  /**
   * Makes the context with handle {@code context} current on the calling thread. Takes a handle, not
   * a {@code CUcontext}, so that callers need not see JCuda's classes.
   */
  public static int makeCurrent(long context) {
    CUcontext c = new CUcontext();
    JCudaPointers.setNativePointer(c, context);
    try {
      return (int) Graphs.SET_CURRENT.invokeExact(c);
    } catch (Throwable t) {
      throw rethrow(t);
    }
  }

  static RuntimeException rethrow(Throwable t) {
    if (t instanceof RuntimeException r) {
      return r;
    }
    if (t instanceof Error e) {
      throw e;
    }
    return new IllegalStateException(t);
  }
}
