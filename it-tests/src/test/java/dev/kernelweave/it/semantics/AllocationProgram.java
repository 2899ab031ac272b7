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
 *   <li>{@code --variant past}: the byte just past an allocation belongs to no allocation of the
 *       program's that it knows: {@code cuMemGetAddressRange} and {@code cuPointerGetAttribute} never
 *       name the allocation it follows (CUDA says nothing of what else may lie there).
 *   <li>{@code --variant full} (and {@code full-exceptions}, with JCuda's exceptions on): one
 *       allocation of {@value #FULL} bytes, run where the device has exactly that much memory (the
 *       stand-in's {@code KW_CPU_DEVICE_MEMORY}): CUDA gives it; a second byte after it does not fit.
 * </ul>
 */
public final class AllocationProgram {

  private static final int RANGE_START = CUpointer_attribute.CU_POINTER_ATTRIBUTE_RANGE_START_ADDR;

  /** Bytes the {@code full} variants allocate: the largest size the agent pads (a multiple of 256 below 1 MiB). */
  static final long FULL = (1L << 20) - 256;

  public static void main(String[] args) throws Exception {
    Sequence seq = Sequence.start(args, "range");
    switch (seq.variant) {
      case "range" -> seq.repeat(rep -> range(seq, rep));
      case "past" -> seq.repeat(rep -> past(seq, rep));
      case "full" -> seq.repeat(rep -> full(seq, rep));
      case "full-exceptions" -> {
        JCudaDriver.setExceptionsEnabled(true);
        seq.repeat(rep -> full(seq, rep));
      }
      default -> throw new IllegalArgumentException("variant range, past, full or full-exceptions: " + seq.variant);
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

  private static void past(Sequence seq, int rep) {
    for (long size : new long[] {100, 256, 4096, 65536, (1L << 20) - 256, 1L << 20}) {
      CUdeviceptr buffer = new CUdeviceptr();
      seq.rc(rep, "cuMemAlloc(" + size + ")", 0, cuMemAlloc(buffer, size));
      CUdeviceptr past = buffer.withByteOffset(size);
      CUdeviceptr base = new CUdeviceptr();
      int range = cuMemGetAddressRange(base, new long[1], past);
      seq.check(rep, "the byte past " + size + " in its range", false, range == 0 && base.equals(buffer));
      long[] own = {0};
      seq.rc(rep, "cuPointerGetAttribute", 0, cuPointerGetAttribute(Pointer.to(own), RANGE_START, buffer));
      long[] start = {0};
      int attribute = cuPointerGetAttribute(Pointer.to(start), RANGE_START, past);
      seq.check(rep, "the byte past " + size + " starts its range", false, attribute == 0 && start[0] == own[0]);
      System.err.println("past " + size + ": cuMemGetAddressRange " + range + ", cuPointerGetAttribute " + attribute);
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
