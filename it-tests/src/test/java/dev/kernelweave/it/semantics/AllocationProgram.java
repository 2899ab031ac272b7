package dev.kernelweave.it.semantics;

import static jcuda.driver.JCudaDriver.cuMemAlloc;
import static jcuda.driver.JCudaDriver.cuMemFree;
import static jcuda.driver.JCudaDriver.cuMemGetAddressRange;
import static jcuda.driver.JCudaDriver.cuPointerGetAttribute;

import jcuda.CudaException;
import jcuda.Pointer;
import jcuda.driver.CUdeviceptr;
import jcuda.driver.CUpointer_attribute;
import jcuda.driver.JCudaDriver;

/**
 * What a program learns of its own allocations, which the agent makes a byte larger than asked to
 * keep one buffer's end apart from the next one's start.
 *
 * <ul>
 *   <li>{@code --variant range}: allocations of several sizes; {@code cuMemGetAddressRange} from an
 *       interior pointer and {@code cuPointerGetAttribute(CU_POINTER_ATTRIBUTE_RANGE_SIZE)} give
 *       the base and the size asked for.
 *   <li>{@code --variant full} (and {@code full-exceptions}, with JCuda's exceptions on): one
 *       allocation of {@value #FULL} bytes, run where the device has exactly that much memory (the
 *       stand-in's {@code KW_CPU_DEVICE_MEMORY}): CUDA gives it; a second byte after it does not fit.
 * </ul>
 */
public final class AllocationProgram {

  /** Bytes the {@code full} variants allocate: as large as the agent pads. */
  static final long FULL = 1L << 20;

  public static void main(String[] args) throws Exception {
    Sequence seq = Sequence.start(args, "range");
    switch (seq.variant) {
      case "range" -> seq.repeat(rep -> range(seq, rep));
      case "full" -> seq.repeat(rep -> full(seq, rep));
      case "full-exceptions" -> {
        JCudaDriver.setExceptionsEnabled(true);
        seq.repeat(rep -> full(seq, rep));
      }
      default -> throw new IllegalArgumentException("variant range, full or full-exceptions: " + seq.variant);
    }
  }

  private static void range(Sequence seq, int rep) {
    for (long size : new long[] {100, 4096, 65536, 1L << 20, 3L << 20}) {
      CUdeviceptr buffer = new CUdeviceptr();
      seq.rc(rep, "cuMemAlloc(" + size + ")", 0, cuMemAlloc(buffer, size));
      CUdeviceptr base = new CUdeviceptr();
      long[] rangeSize = {-1};
      seq.rc(rep, "cuMemGetAddressRange", 0, cuMemGetAddressRange(base, rangeSize, buffer.withByteOffset(size / 2)));
      seq.check(rep, "range of " + size + " starts at the allocation", true, base.equals(buffer));
      seq.check(rep, "range size of " + size, size, rangeSize[0]);
      long[] attribute = {-1};
      seq.rc(rep, "cuPointerGetAttribute", 0, cuPointerGetAttribute(Pointer.to(attribute),
          CUpointer_attribute.CU_POINTER_ATTRIBUTE_RANGE_SIZE, buffer));
      seq.check(rep, "range size attribute of " + size, size, attribute[0]);
      seq.rc(rep, "cuMemFree", 0, cuMemFree(buffer));
    }
  }

  private static void full(Sequence seq, int rep) {
    CUdeviceptr buffer = new CUdeviceptr();
    seq.rc(rep, "cuMemAlloc(" + FULL + ")", 0, allocate(buffer, FULL));
    CUdeviceptr more = new CUdeviceptr();
    seq.rc(rep, "cuMemAlloc(1) when full", 2, allocate(more, 1));
    seq.rc(rep, "cuMemFree", 0, cuMemFree(buffer));
  }

  /** {@code cuMemAlloc}'s result, or 2 for JCuda's exception for {@code CUDA_ERROR_OUT_OF_MEMORY}. */
  private static int allocate(CUdeviceptr buffer, long size) {
    try {
      return cuMemAlloc(buffer, size);
    } catch (CudaException e) {
      return e.getMessage().contains("CUDA_ERROR_OUT_OF_MEMORY") ? 2 : -1;
    }
  }
}
