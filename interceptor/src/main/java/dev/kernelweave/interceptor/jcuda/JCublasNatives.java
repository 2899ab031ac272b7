package dev.kernelweave.interceptor.jcuda;

import static dev.kernelweave.interceptor.jcuda.JCudaNatives.rethrow;

import java.lang.invoke.MethodHandle;
import jcuda.Pointer;
import jcuda.jcublas.cublasHandle;
import jcuda.runtime.cudaStream_t;

/**
 * The agent's own cuBLAS handle calls, made on the agent's own handles only, never on the
 * application's. As {@link JCudaNatives}'s, they go straight to JCuda's private native methods:
 * neither intercepted nor turned into exceptions. Looked up on first use. Thread-safe.
 */
public final class JCublasNatives {

  private JCublasNatives() {}

  private static final class Blas {
    static final MethodHandle CREATE = find("cublasCreateNative", cublasHandle.class);
    static final MethodHandle DESTROY = find("cublasDestroyNative", cublasHandle.class);
    static final MethodHandle SET_STREAM = find("cublasSetStreamNative", cublasHandle.class, cudaStream_t.class);
    static final MethodHandle SET_WORKSPACE =
        find("cublasSetWorkspaceNative", cublasHandle.class, Pointer.class, long.class);
    static final MethodHandle SET_POINTER_MODE = find("cublasSetPointerModeNative", cublasHandle.class, int.class);
    static final MethodHandle SET_MATH_MODE = find("cublasSetMathModeNative", cublasHandle.class, int.class);
    static final MethodHandle SET_ATOMICS_MODE = find("cublasSetAtomicsModeNative", cublasHandle.class, int.class);
    static final MethodHandle SET_SM_COUNT_TARGET = find("cublasSetSmCountTargetNative", cublasHandle.class, int.class);
    static final MethodHandle GET_POINTER_MODE = find("cublasGetPointerModeNative", cublasHandle.class, int[].class);
    static final MethodHandle GET_MATH_MODE = find("cublasGetMathModeNative", cublasHandle.class, int[].class);
    static final MethodHandle GET_ATOMICS_MODE = find("cublasGetAtomicsModeNative", cublasHandle.class, int[].class);
    static final MethodHandle GET_SM_COUNT_TARGET =
        find("cublasGetSmCountTargetNative", cublasHandle.class, Pointer.class);

    private static MethodHandle find(String name, Class<?>... params) {
      return JCudaNatives.findNative("jcuda.jcublas.JCublas2", name, int.class, params);
    }
  }

  public static int createBlasHandle(cublasHandle handle) {
    try {
      return (int) Blas.CREATE.invokeExact(handle);
    } catch (Throwable t) {
      throw rethrow(t);
    }
  }

  public static int destroyBlasHandle(cublasHandle handle) {
    try {
      return (int) Blas.DESTROY.invokeExact(handle);
    } catch (Throwable t) {
      throw rethrow(t);
    }
  }

  /** Points a cuBLAS handle at a stream (which also puts it back on cuBLAS's default workspace). */
  public static int setBlasStream(cublasHandle handle, cudaStream_t stream) {
    try {
      return (int) Blas.SET_STREAM.invokeExact(handle, stream);
    } catch (Throwable t) {
      throw rethrow(t);
    }
  }

  public static int setBlasWorkspace(cublasHandle handle, Pointer workspace, long bytes) {
    try {
      return (int) Blas.SET_WORKSPACE.invokeExact(handle, workspace, bytes);
    } catch (Throwable t) {
      throw rethrow(t);
    }
  }

  public static int setBlasPointerMode(cublasHandle handle, int mode) {
    try {
      return (int) Blas.SET_POINTER_MODE.invokeExact(handle, mode);
    } catch (Throwable t) {
      throw rethrow(t);
    }
  }

  public static int setBlasMathMode(cublasHandle handle, int mode) {
    try {
      return (int) Blas.SET_MATH_MODE.invokeExact(handle, mode);
    } catch (Throwable t) {
      throw rethrow(t);
    }
  }

  public static int setBlasAtomicsMode(cublasHandle handle, int mode) {
    try {
      return (int) Blas.SET_ATOMICS_MODE.invokeExact(handle, mode);
    } catch (Throwable t) {
      throw rethrow(t);
    }
  }

  public static int setBlasSmCountTarget(cublasHandle handle, int target) {
    try {
      return (int) Blas.SET_SM_COUNT_TARGET.invokeExact(handle, target);
    } catch (Throwable t) {
      throw rethrow(t);
    }
  }

  /** Reads a handle's pointer mode into {@code mode[0]}; reading changes nothing. */
  public static int getBlasPointerMode(cublasHandle handle, int[] mode) {
    try {
      return (int) Blas.GET_POINTER_MODE.invokeExact(handle, mode);
    } catch (Throwable t) {
      throw rethrow(t);
    }
  }

  public static int getBlasMathMode(cublasHandle handle, int[] mode) {
    try {
      return (int) Blas.GET_MATH_MODE.invokeExact(handle, mode);
    } catch (Throwable t) {
      throw rethrow(t);
    }
  }

  public static int getBlasAtomicsMode(cublasHandle handle, int[] mode) {
    try {
      return (int) Blas.GET_ATOMICS_MODE.invokeExact(handle, mode);
    } catch (Throwable t) {
      throw rethrow(t);
    }
  }

  public static int getBlasSmCountTarget(cublasHandle handle, int[] target) {
    try {
      return (int) Blas.GET_SM_COUNT_TARGET.invokeExact(handle, Pointer.to(target));
    } catch (Throwable t) {
      throw rethrow(t);
    }
  }
}
