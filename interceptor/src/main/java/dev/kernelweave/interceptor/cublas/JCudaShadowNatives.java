package dev.kernelweave.interceptor.cublas;

import dev.kernelweave.interceptor.jcuda.JCudaNatives;
import dev.kernelweave.interceptor.jcuda.JCudaPointers;
import jcuda.driver.CUdeviceptr;
import jcuda.driver.CUevent;
import jcuda.driver.CUstream;
import jcuda.jcublas.cublasHandle;
import jcuda.runtime.cudaStream_t;

/**
 * {@link ShadowNatives} through JCuda's natives: never intercepted, never throwing. A call that
 * cannot be made at all (JCuda without the native method, say) reports {@link #UNAVAILABLE}.
 * Thread-safe.
 */
enum JCudaShadowNatives implements ShadowNatives {
  INSTANCE;

  /** The status of a call that could not be made. */
  static final int UNAVAILABLE = -1;

  @Override
  public int create(cublasHandle handle) {
    try {
      return JCudaNatives.createBlasHandle(handle);
    } catch (Throwable e) {
      return UNAVAILABLE;
    }
  }

  @Override
  public int destroy(cublasHandle handle) {
    try {
      return JCudaNatives.destroyBlasHandle(handle);
    } catch (Throwable e) {
      return UNAVAILABLE;
    }
  }

  @Override
  public int setStream(cublasHandle handle, cudaStream_t stream) {
    try {
      return JCudaNatives.setBlasStream(handle, stream);
    } catch (Throwable e) {
      return UNAVAILABLE;
    }
  }

  @Override
  public int set(cublasHandle handle, BlasSetting setting, int value) {
    try {
      return switch (setting) {
        case POINTER_MODE -> JCudaNatives.setBlasPointerMode(handle, value);
        case MATH_MODE -> JCudaNatives.setBlasMathMode(handle, value);
        case ATOMICS_MODE -> JCudaNatives.setBlasAtomicsMode(handle, value);
        case SM_COUNT_TARGET -> JCudaNatives.setBlasSmCountTarget(handle, value);
      };
    } catch (Throwable e) {
      return UNAVAILABLE;
    }
  }

  @Override
  public int get(cublasHandle handle, BlasSetting setting, int[] value) {
    try {
      return switch (setting) {
        case POINTER_MODE -> JCudaNatives.getBlasPointerMode(handle, value);
        case MATH_MODE -> JCudaNatives.getBlasMathMode(handle, value);
        case ATOMICS_MODE -> JCudaNatives.getBlasAtomicsMode(handle, value);
        case SM_COUNT_TARGET -> JCudaNatives.getBlasSmCountTarget(handle, value);
      };
    } catch (Throwable e) {
      return UNAVAILABLE;
    }
  }

  @Override
  public int setWorkspace(cublasHandle handle, CUdeviceptr workspace, long bytes) {
    try {
      return JCudaNatives.setBlasWorkspace(handle, workspace, bytes);
    } catch (Throwable e) {
      return UNAVAILABLE;
    }
  }

  @Override
  public int allocate(CUdeviceptr pointer, long bytes) {
    try {
      return JCudaNatives.allocate(pointer, bytes);
    } catch (Throwable e) {
      return UNAVAILABLE;
    }
  }

  @Override
  public int free(CUdeviceptr pointer) {
    try {
      return JCudaNatives.free(pointer);
    } catch (Throwable e) {
      return UNAVAILABLE;
    }
  }

  @Override
  public int synchronize(cudaStream_t stream) {
    try {
      return JCudaNatives.synchronizeStream(new CUstream(stream));
    } catch (Throwable e) {
      return UNAVAILABLE;
    }
  }

  @Override
  public int order(long waiting, long on) {
    try {
      CUevent event = new CUevent();
      int r = JCudaNatives.createEvent(event);
      if (r != 0) {
        return r;
      }
      r = JCudaNatives.recordEvent(event, stream(on));
      if (r == 0) {
        r = JCudaNatives.waitEvent(stream(waiting), event);
      }
      // The wait keeps what it needs of the event after it is destroyed.
      JCudaNatives.destroyEvent(event);
      return r;
    } catch (Throwable e) {
      return UNAVAILABLE;
    }
  }

  private static CUstream stream(long address) {
    CUstream s = new CUstream();
    JCudaPointers.setNativePointer(s, address);
    return s;
  }
}
