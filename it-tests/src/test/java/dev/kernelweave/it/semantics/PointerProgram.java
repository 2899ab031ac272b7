package dev.kernelweave.it.semantics;

import static dev.kernelweave.it.semantics.Sequence.BLOCKS;
import static dev.kernelweave.it.semantics.Sequence.BYTES;
import static dev.kernelweave.it.semantics.Sequence.N;
import static dev.kernelweave.it.semantics.Sequence.NON_BLOCKING;
import static dev.kernelweave.it.semantics.Sequence.THREADS;
import static dev.kernelweave.it.semantics.Sequence.alloc;
import static dev.kernelweave.it.semantics.Sequence.stream;
import static jcuda.driver.JCudaDriver.cuCtxSynchronize;
import static jcuda.driver.JCudaDriver.cuLaunchKernel;
import static jcuda.driver.JCudaDriver.cuMemFree;
import static jcuda.driver.JCudaDriver.cuMemHostGetDevicePointer;
import static jcuda.driver.JCudaDriver.cuMemHostRegister;
import static jcuda.driver.JCudaDriver.cuMemHostUnregister;
import static jcuda.driver.JCudaDriver.cuMemcpyDtoH;
import static jcuda.driver.JCudaDriver.cuMemcpyHtoD;
import static jcuda.driver.JCudaDriver.cuStreamDestroy;
import static jcuda.driver.JCudaDriver.cuStreamSynchronize;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import jcuda.Pointer;
import jcuda.Sizeof;
import jcuda.driver.CUdeviceptr;
import jcuda.driver.CUfunction;
import jcuda.driver.CUmodule;
import jcuda.driver.CUstream;

/**
 * Issue 23, holes 5, 14, 15 and 16: what a kernel may do with the pointers it is given, each on one
 * non-blocking stream {@code s}, so that only stream order (kept by the memory the agent sees
 * touched) puts one launch after another.
 *
 * <ul>
 *   <li>{@code --variant printf}: eight kernels that only print, one line each; stream order is the
 *       order of the lines (the test compares them with those printed without the agent).
 *   <li>{@code --variant packed}: {@code packed_fill} writes through the pointer at offset 4 of a
 *       structure passed by value ({@code packed, aligned(4)}); {@code add_one} then reads it.
 *   <li>{@code --variant end}: two registered host buffers, Y starting where X ends; {@code
 *       fill_before} given Y's start (X's end) writes X backwards; {@code add_one} then reads X.
 *   <li>{@code --variant difference}: {@code fill_through_difference(a, b)} writes b as
 *       {@code a[(b - a) + i]}; {@code add_one} then reads b.
 * </ul>
 *
 * <p>Each memory variant ends with {@code cuStreamSynchronize(s)} and a read of {@code add_one}'s
 * output: the filled values plus one.
 */
public final class PointerProgram {

  private static final int PAGE = 4096;

  public static void main(String[] args) throws Exception {
    Sequence seq = Sequence.start(args, "printf");
    CUmodule module = Sequence.load("/ptx/pointers.ptx");
    CUfunction addOne = Sequence.function(module, "add_one");
    switch (seq.variant) {
      case "printf" -> printf(seq, Sequence.function(module, "print_launch"));
      case "packed" -> packed(seq, Sequence.function(module, "packed_fill"), addOne);
      case "end" -> end(seq, Sequence.function(module, "fill_before"), addOne);
      case "difference" -> difference(seq, Sequence.function(module, "fill_through_difference"), addOne);
      default -> throw new IllegalArgumentException("variant printf, packed, end or difference: " + seq.variant);
    }
  }

  private static void printf(Sequence seq, CUfunction printLaunch) throws Exception {
    seq.repeat(rep -> {
      CUstream s = stream(NON_BLOCKING);
      for (int launch = 0; launch < 8; launch++) {
        int code = cuLaunchKernel(printLaunch, 1, 1, 1, 32, 1, 1, 0, s,
            Pointer.to(Pointer.to(new int[] {rep}), Pointer.to(new int[] {launch})), null);
        if (code != 0) seq.rc(rep, "print_launch", 0, code);
      }
      if (cuStreamSynchronize(s) != 0) seq.rc(rep, "cuStreamSynchronize", 0, 1);
      cuStreamDestroy(s);
    });
  }

  /** Launches a kernel that fills {@code target} with {@code value + i}, on {@code s}. */
  private interface Fill {
    int launch(CUstream s, CUdeviceptr target, float value);
  }

  /** Each repetition: {@code fill} on {@code s}, then {@code add_one} reading its target, then their result. */
  private static void fillThenAddOne(Sequence seq, String kernel, CUfunction addOne, Fill fill) throws Exception {
    seq.repeat(rep -> {
      CUstream s = stream(NON_BLOCKING);
      CUdeviceptr target = stale();
      CUdeviceptr out = stale();
      settle(seq, rep);
      float value = 10f * rep + 3f;
      seq.rc(rep, kernel, 0, fill.launch(s, target, value));
      seq.rc(rep, "add_one", 0, Sequence.launch(addOne, s, out, target, N));
      seq.rc(rep, "cuStreamSynchronize", 0, cuStreamSynchronize(s));
      seq.check(rep, "out", Sequence.describe(Sequence.ramp(value + 1f)), Sequence.describe(Sequence.read(out)));
      Sequence.release(out, target, s);
    });
  }

  private static void packed(Sequence seq, CUfunction packedFill, CUfunction addOne) throws Exception {
    fillThenAddOne(seq, "packed_fill", addOne, (s, target, value) -> {
      byte[] struct = ByteBuffer.allocate(12).order(ByteOrder.LITTLE_ENDIAN).putInt(N).putLong(address(target))
          .array();
      return cuLaunchKernel(packedFill, BLOCKS, 1, 1, THREADS, 1, 1, 0, s,
          Pointer.to(Pointer.to(struct), Pointer.to(new float[] {value})), null);
    });
  }

  private static void end(Sequence seq, CUfunction fillBefore, CUfunction addOne) throws Exception {
    seq.repeat(rep -> {
      CUstream s = stream(NON_BLOCKING);
      // X and Y: two registrations of one page each, Y starting where X ends.
      ByteBuffer pages = ByteBuffer.allocateDirect(3 * PAGE).alignedSlice(PAGE).order(ByteOrder.nativeOrder());
      ByteBuffer x = pages.slice(0, PAGE).order(ByteOrder.nativeOrder());
      ByteBuffer y = pages.slice(PAGE, PAGE).order(ByteOrder.nativeOrder());
      x.asFloatBuffer().put(Sequence.ramp(-5000f));
      y.asFloatBuffer().put(Sequence.ramp(-9000f));
      seq.rc(rep, "cuMemHostRegister x", 0, cuMemHostRegister(Pointer.to(x), PAGE, 0));
      seq.rc(rep, "cuMemHostRegister y", 0, cuMemHostRegister(Pointer.to(y), PAGE, 0));
      CUdeviceptr xDevice = new CUdeviceptr();
      CUdeviceptr yDevice = new CUdeviceptr();
      seq.rc(rep, "cuMemHostGetDevicePointer x", 0, cuMemHostGetDevicePointer(xDevice, Pointer.to(x), 0));
      seq.rc(rep, "cuMemHostGetDevicePointer y", 0, cuMemHostGetDevicePointer(yDevice, Pointer.to(y), 0));
      seq.check(rep, "y starts where x ends", true, address(xDevice) + PAGE == address(yDevice));
      CUdeviceptr out = stale();
      settle(seq, rep);
      float value = 10f * rep + 3f;
      seq.rc(rep, "fill_before", 0, Sequence.launch(fillBefore, s, yDevice, value, N));
      seq.rc(rep, "add_one", 0, Sequence.launch(addOne, s, out, xDevice, N));
      seq.rc(rep, "cuStreamSynchronize", 0, cuStreamSynchronize(s));
      float[] expected = new float[N];
      for (int i = 0; i < N; i++) expected[i] = value + (N - 1 - i) + 1f; // X[i] = value + (N - 1 - i)
      seq.check(rep, "out", Sequence.describe(expected), Sequence.describe(Sequence.read(out)));
      float[] yAfter = new float[N];
      y.asFloatBuffer().get(yAfter);
      seq.check(rep, "y", Sequence.describe(Sequence.ramp(-9000f)), Sequence.describe(yAfter));
      seq.rc(rep, "cuMemHostUnregister x", 0, cuMemHostUnregister(Pointer.to(x)));
      seq.rc(rep, "cuMemHostUnregister y", 0, cuMemHostUnregister(Pointer.to(y)));
      Sequence.release(out, s);
    });
  }

  private static void difference(Sequence seq, CUfunction fillThroughDifference, CUfunction addOne)
      throws Exception {
    CUdeviceptr a = stale(); // its address only: the kernel writes the target through it
    fillThenAddOne(seq, "fill_through_difference", addOne,
        (s, target, value) -> Sequence.launch(fillThroughDifference, s, a, target, value, N));
  }

  /**
   * Waits for the set-up copies: a synchronous copy from pageable memory may still be writing the
   * device when it returns, and nothing orders a non-blocking stream after it.
   */
  private static void settle(Sequence seq, int rep) {
    seq.rc(rep, "cuCtxSynchronize", 0, cuCtxSynchronize());
  }

  /** A buffer of {@link Sequence#N} floats holding a ramp no kernel writes. */
  private static CUdeviceptr stale() {
    CUdeviceptr p = alloc(BYTES);
    cuMemcpyHtoD(p, Pointer.to(Sequence.ramp(-5000f)), BYTES);
    return p;
  }

  /** The address a device pointer holds, as a kernel sees it: through device memory, as JCuda passes it. */
  private static long address(CUdeviceptr pointer) {
    CUdeviceptr cell = alloc(Sizeof.POINTER);
    cuMemcpyHtoD(cell, Pointer.to(pointer), Sizeof.POINTER);
    long[] value = new long[1];
    cuMemcpyDtoH(Pointer.to(value), cell, Sizeof.POINTER);
    cuMemFree(cell);
    return value[0];
  }
}
