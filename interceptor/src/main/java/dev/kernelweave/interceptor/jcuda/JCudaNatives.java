package dev.kernelweave.interceptor.jcuda;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import jcuda.driver.CUcontext;
import jcuda.driver.CUdeviceptr;
import jcuda.driver.CUevent;
import jcuda.driver.CUmodule;
import jcuda.driver.CUstream;
import jcuda.jcublas.cublasHandle;
import jcuda.runtime.cudaStream_t;

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
    static final MethodHandle STREAM_CREATE = find("cuStreamCreateNative", int.class, CUstream.class, int.class);
    static final MethodHandle EVENT_CREATE = find("cuEventCreateNative", int.class, CUevent.class, int.class);
    static final MethodHandle EVENT_RECORD = find("cuEventRecordNative", int.class, CUevent.class, CUstream.class);
    static final MethodHandle STREAM_WAIT_EVENT =
        find("cuStreamWaitEventNative", int.class, CUstream.class, CUevent.class, int.class);
    static final MethodHandle EVENT_SYNCHRONIZE = find("cuEventSynchronizeNative", int.class, CUevent.class);
    static final MethodHandle STREAM_DESTROY = find("cuStreamDestroyNative", int.class, CUstream.class);
    static final MethodHandle EVENT_DESTROY = find("cuEventDestroyNative", int.class, CUevent.class);
    static final MethodHandle MODULE_GET_GLOBAL =
        find("cuModuleGetGlobalNative", int.class, CUdeviceptr.class, long[].class, CUmodule.class, String.class);

    private static MethodHandle find(String name, Class<?> ret, Class<?>... params) {
      return findNative("jcuda.driver.JCudaDriver", name, ret, params);
    }
  }

  private static final class Blas {
    static final MethodHandle SET_STREAM = findNative("jcuda.jcublas.JCublas2", "cublasSetStreamNative",
        int.class, cublasHandle.class, cudaStream_t.class);
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

  /** Points a cuBLAS handle at a stream, without intercepting the call. */
  public static int setBlasStream(cublasHandle handle, cudaStream_t stream) {
    try {
      return (int) Blas.SET_STREAM.invokeExact(handle, stream);
    } catch (Throwable t) {
      throw rethrow(t);
    }
  }

  private static RuntimeException rethrow(Throwable t) {
    if (t instanceof RuntimeException r) {
      return r;
    }
    if (t instanceof Error e) {
      throw e;
    }
    return new IllegalStateException(t);
  }
}
