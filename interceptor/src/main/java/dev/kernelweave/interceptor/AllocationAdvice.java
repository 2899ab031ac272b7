package dev.kernelweave.interceptor;

import dev.kernelweave.call.CallRecord;
import dev.kernelweave.interceptor.jcuda.JCudaPointers;
import dev.kernelweave.memory.MemoryKind;
import jcuda.Pointer;
import net.bytebuddy.asm.Advice;

/**
 * Allocations and frees, the same for the driver API ({@code cuMemAlloc(CUdeviceptr, long)}) and
 * the runtime API ({@code cudaMalloc(Pointer, long)}): the pointer is the first argument, the size
 * the second, and a device pointer is a {@link Pointer}. Referred to by name.
 */
public final class AllocationAdvice {

  /** {@code cuMemAlloc}, {@code cuMemAllocManaged}, {@code cudaMalloc}, {@code cudaMallocManaged}. */
  public static final String DEVICE = AllocationAdvice.class.getName() + "$Device";
  /**
   * {@code cuMemAllocHost}, {@code cuMemHostAlloc}, {@code cudaMallocHost}, {@code cudaHostAlloc}, and
   * {@code cuMemHostRegister}, {@code cudaHostRegister}, whose memory is page-locked as theirs is: an exit.
   */
  public static final String PINNED_HOST = AllocationAdvice.class.getName() + "$PinnedHost";
  /** {@code cuMemAllocPitch}, {@code cudaMallocPitch}: pointer, pitch array, width, height. An exit. */
  public static final String PITCHED = AllocationAdvice.class.getName() + "$Pitched";
  /** {@code cuMemFree}, {@code cuMemFreeHost}, {@code cudaFree}, {@code cudaFreeHost}. */
  public static final String FREE = AllocationAdvice.class.getName() + "$Free";

  private AllocationAdvice() {}

  /**
   * Asks CUDA for a padded size ({@link AllocationPadding}); the program's size argument is
   * restored before the call returns, and a padded try that ran out of memory is made again as asked.
   */
  static final class Device {
    @Advice.OnMethodEnter(suppress = Throwable.class)
    static CallRecord enter(@CallRow int row, @Advice.Origin("#m") String name,
        @Advice.Argument(value = 1, readOnly = false) long size,
        @Advice.Local("asked") long asked, @Advice.Local("lastError") int lastError) {
      asked = size;
      lastError = AllocationPadding.lastErrorBefore(name, size);
      size = AllocationPadding.padded(name, size);
      return Calls.begin(row, name, 0L);
    }

    @Advice.OnMethodExit(onThrowable = Throwable.class, suppress = Throwable.class)
    static void exit(@Advice.Enter CallRecord r, @Advice.Origin("#m") String name,
        @Advice.Argument(0) Pointer ptr, @Advice.Argument(value = 1, readOnly = false) long size,
        @Advice.Local("asked") long asked, @Advice.Local("lastError") int lastError,
        @Advice.Return(readOnly = false) int result, @Advice.Thrown(readOnly = false) Throwable thrown) {
      boolean padded = size != asked;
      if (padded) {
        size = asked;
        if (AllocationPadding.ranOutOfMemory(result, thrown)) {
          padded = false;
          int retried = AllocationPadding.retryAsAsked(name, ptr, asked, lastError);
          if (retried == 0 || thrown == null) {
            result = retried;
            thrown = null;
          }
        }
      }
      if (r != null && thrown == null && result == 0) {
        r.bytes = size;
        long address = JCudaPointers.address(ptr);
        AllocationPadding.allocated(address, size, padded);
        CallAccesses.allocated(r, address, size, name.endsWith("Managed") ? MemoryKind.MANAGED : MemoryKind.DEVICE);
      }
      Calls.end(r, result, thrown);
    }
  }

  /** The exit of a page-locked allocation or registration; its enter is {@link CallAdvice#PLACED}. */
  static final class PinnedHost {
    @Advice.OnMethodExit(onThrowable = Throwable.class, suppress = Throwable.class)
    static void exit(@Advice.Enter CallRecord r, @Advice.Argument(0) Pointer ptr, @Advice.Argument(1) long size,
        @Advice.Return int result, @Advice.Thrown Throwable thrown) {
      if (r != null && thrown == null && result == 0) {
        r.bytes = size;
        CallAccesses.allocated(r, JCudaPointers.address(ptr), size, MemoryKind.PINNED_HOST);
      }
      Calls.end(r, result, thrown);
    }
  }

  /** The exit of a pitched allocation; its enter is {@link CallAdvice#PLACED}. */
  static final class Pitched {
    @Advice.OnMethodExit(onThrowable = Throwable.class, suppress = Throwable.class)
    static void exit(@Advice.Enter CallRecord r, @Advice.Argument(0) Pointer ptr, @Advice.Argument(1) long[] pitch,
        @Advice.Argument(3) long height, @Advice.Return int result, @Advice.Thrown Throwable thrown) {
      if (r != null && thrown == null && result == 0) {
        r.bytes = pitch[0] * height;
        CallAccesses.allocated(r, JCudaPointers.address(ptr), r.bytes, MemoryKind.DEVICE);
      }
      Calls.end(r, result, thrown);
    }
  }

  /** A free waits for the allocation's pending users ({@link Calls#free}). */
  static final class Free {
    @Advice.OnMethodEnter(suppress = Throwable.class)
    static CallRecord enter(@CallRow int row, @Advice.Origin("#m") String name, @Advice.Argument(0) Pointer ptr) {
      return Calls.free(row, name, ptr);
    }
  }
}
