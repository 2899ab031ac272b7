package dev.kernelweave.interceptor.cublas;

import dev.kernelweave.interceptor.jcuda.JCublasNatives;
import dev.kernelweave.interceptor.jcuda.JCudaNatives;
import dev.kernelweave.interceptor.jcuda.JCudaPointers;
import java.util.function.IntSupplier;
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
    return guarded(() -> JCublasNatives.createBlasHandle(handle));
  }

  @Override
  public int destroy(cublasHandle handle) {
    return guarded(() -> JCublasNatives.destroyBlasHandle(handle));
  }

  @Override
  public int setStream(cublasHandle handle, cudaStream_t stream) {
    return guarded(() -> JCublasNatives.setBlasStream(handle, stream));
  }

  @Override
  public int set(cublasHandle handle, BlasSetting setting, int value) {
    return guarded(() -> switch (setting) {
      case POINTER_MODE -> JCublasNatives.setBlasPointerMode(handle, value);
      case MATH_MODE -> JCublasNatives.setBlasMathMode(handle, value);
      case ATOMICS_MODE -> JCublasNatives.setBlasAtomicsMode(handle, value);
      case SM_COUNT_TARGET -> JCublasNatives.setBlasSmCountTarget(handle, value);
    });
  }

  @Override
  public int get(cublasHandle handle, BlasSetting setting, int[] value) {
    return guarded(() -> switch (setting) {
      case POINTER_MODE -> JCublasNatives.getBlasPointerMode(handle, value);
      case MATH_MODE -> JCublasNatives.getBlasMathMode(handle, value);
      case ATOMICS_MODE -> JCublasNatives.getBlasAtomicsMode(handle, value);
      case SM_COUNT_TARGET -> JCublasNatives.getBlasSmCountTarget(handle, value);
    });
  }

  @Override
  public int setWorkspace(cublasHandle handle, CUdeviceptr workspace, long bytes) {
    return guarded(() -> JCublasNatives.setBlasWorkspace(handle, workspace, bytes));
  }

  @Override
  public int allocate(CUdeviceptr pointer, long bytes) {
    return guarded(() -> JCudaNatives.allocate(pointer, bytes));
  }

  @Override
  public int free(CUdeviceptr pointer) {
    return guarded(() -> JCudaNatives.free(pointer));
  }

  @Override
  public int synchronize(cudaStream_t stream) {
    return guarded(() -> JCudaNatives.synchronizeStream(new CUstream(stream)));
  }

  @Override
  public int order(long waiting, long on) {
    return guarded(() -> orderByEvent(stream(waiting), stream(on)));
  }

  /** {@code waiting} waits for what is queued on {@code on} now, through an event made for it. */
  private static int orderByEvent(CUstream waiting, CUstream on) {
    CUevent event = new CUevent();
    int r = JCudaNatives.createEvent(event);
    if (r != 0) {
      return r;
    }
    r = JCudaNatives.recordEvent(event, on);
    if (r == 0) {
      r = JCudaNatives.waitEvent(waiting, event);
    }
    // The wait keeps what it needs of the event after it is destroyed.
    JCudaNatives.destroyEvent(event);
    return r;
  }

  /** {@code call}'s status, or {@link #UNAVAILABLE} where it throws: a call that could not be made. */
  private static int guarded(IntSupplier call) {
    try {
      return call.getAsInt();
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
