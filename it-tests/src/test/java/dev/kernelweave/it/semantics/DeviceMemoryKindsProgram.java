package dev.kernelweave.it.semantics;

import static dev.kernelweave.it.semantics.Sequence.BYTES;
import static dev.kernelweave.it.semantics.Sequence.DEVICE_MAP;
import static dev.kernelweave.it.semantics.Sequence.N;
import static dev.kernelweave.it.semantics.Sequence.NON_BLOCKING;
import static dev.kernelweave.it.semantics.Sequence.alloc;
import static dev.kernelweave.it.semantics.Sequence.allocHost;
import static dev.kernelweave.it.semantics.Sequence.event;
import static dev.kernelweave.it.semantics.Sequence.stream;
import static jcuda.driver.JCudaDriver.CU_STREAM_PER_THREAD;
import static jcuda.driver.JCudaDriver.cuCtxGetCurrent;
import static jcuda.driver.JCudaDriver.cuCtxSynchronize;
import static jcuda.driver.JCudaDriver.cuEventQuery;
import static jcuda.driver.JCudaDriver.cuEventRecord;
import static jcuda.driver.JCudaDriver.cuLaunchHostFunc;
import static jcuda.driver.JCudaDriver.cuMemAllocAsync;
import static jcuda.driver.JCudaDriver.cuMemFree;
import static jcuda.driver.JCudaDriver.cuMemFreeAsync;
import static jcuda.driver.JCudaDriver.cuMemHostAlloc;
import static jcuda.driver.JCudaDriver.cuMemHostGetDevicePointer;
import static jcuda.driver.JCudaDriver.cuMemcpy2D;
import static jcuda.driver.JCudaDriver.cuMemcpyDtoHAsync;
import static jcuda.driver.JCudaDriver.cuMemsetD2D32Async;
import static jcuda.driver.JCudaDriver.cuMemsetD32;
import static jcuda.driver.JCudaDriver.cuMemsetD32Async;
import static jcuda.driver.JCudaDriver.cuStreamSynchronize;
import static jcuda.driver.JCudaDriver.cuStreamWaitEvent;
import static jcuda.driver.JCudaDriver.cuStreamWaitValue32;
import static jcuda.driver.JCudaDriver.cuStreamWriteValue32;

import java.util.Arrays;
import java.util.concurrent.CountDownLatch;
import jcuda.Pointer;
import jcuda.driver.CUDA_MEMCPY2D;
import jcuda.driver.CUcontext;
import jcuda.driver.CUdeviceptr;
import jcuda.driver.CUevent;
import jcuda.driver.CUfunction;
import jcuda.driver.CUmemorytype;
import jcuda.driver.CUresult;
import jcuda.driver.CUstream;
import jcuda.driver.CUstreamWaitValue_flags;

/**
 * Memory and calls of the driver API that ordinary programs use beside plain allocations, each
 * variant a sequence whose every observation CUDA defines:
 *
 * <ul>
 *   <li>{@code mapped-query}: a slow kernel writes mapped page-locked memory through its device
 *       pointer; the host spins on {@code cuEventQuery} of an event recorded after it, then reads.
 *   <li>{@code async-alloc}: stream-ordered allocation: written on one stream, read and freed on
 *       another after an event wait, then a new allocation (often the same address) set and read.
 *   <li>{@code copy-2d}: a slow kernel on a blocking stream, then a synchronous {@code cuMemcpy2D}
 *       to a Java array, which the legacy stream orders after it.
 *   <li>{@code memset-2d}: a 2D memset on a second stream after an event of the kernel's stream.
 *   <li>{@code write-then-wait}, {@code wait-then-write}: stream memory operations: one stream writes
 *       a flag after a slow kernel, another waits for it before reading; in the second variant the
 *       wait is enqueued before the write, which CUDA allows.
 *   <li>{@code host-function-waits}: a host function on one stream waits until the host has read
 *       back the results of 20 kernels on another stream; the streams are independent, so the reads
 *       return while the host function waits.
 *   <li>{@code barrier-beside-host-function}: {@code host-function-waits} with blocking streams and a
 *       third stream writing a value between the kernels and the reads: the reads wait for their
 *       kernels, not for the write, which CUDA does not order before them.
 *   <li>{@code hand-back-blocking}, {@code hand-back-per-thread}: {@code host-function-waits} with
 *       blocking streams, the kernels on a stream of its own or the per-thread default stream, and a
 *       stream waiting for a value already written between the kernels and the reads, where the
 *       agent hands the program back: the reads, made as written, wait for their kernels and for nothing else, not
 *       for the host function.
 *   <li>{@code wait-beside-threads}: {@code wait-then-write} while three other threads upload, run
 *       a kernel and read back on the legacy stream in a loop, each checking every result.
 *   <li>{@code threads-event}: a thread records an event after a slow kernel; another thread, told
 *       by a latch, makes its stream wait for it and reads.
 * </ul>
 */
public final class DeviceMemoryKindsProgram {

  public static void main(String[] args) throws Exception {
    Sequence seq = Sequence.start(args, "wait-then-write");
    CUfunction slowFill = Sequence.function(Sequence.loadSemantics(), "slow_fill");
    seq.repeat(rep -> {
      float v = 3f + 10 * rep;
      switch (seq.variant) {
        case "mapped-query" -> mappedQuery(seq, slowFill, rep, v);
        case "async-alloc" -> asyncAlloc(seq, slowFill, rep, v);
        case "copy-2d" -> copy2d(seq, slowFill, rep, v);
        case "memset-2d" -> memset2d(seq, slowFill, rep, v);
        case "write-then-wait", "wait-then-write" ->
            streamMemoryOperations(seq, slowFill, rep, v, seq.variant.equals("wait-then-write"));
        case "threads-event" -> threadsEvent(seq, slowFill, rep, v);
        case "host-function-waits" -> hostFunctionWaits(seq, slowFill, rep, v);
        case "wait-beside-threads" -> waitBesideThreads(seq, slowFill, rep, v);
        case "barrier-beside-host-function" -> hostFunctionBesideAStreamValue(seq, slowFill, rep, v, false, false);
        case "hand-back-blocking", "hand-back-per-thread" ->
            hostFunctionBesideAStreamValue(seq, slowFill, rep, v, seq.variant.equals("hand-back-per-thread"), true);
        default -> throw new IllegalArgumentException("unknown variant " + seq.variant);
      }
    });
  }

  private static void mappedQuery(Sequence seq, CUfunction slowFill, int rep, float v) {
    Pointer host = new Pointer();
    seq.rc(rep, "cuMemHostAlloc", 0, cuMemHostAlloc(host, BYTES, DEVICE_MAP));
    CUdeviceptr d = new CUdeviceptr();
    seq.rc(rep, "cuMemHostGetDevicePointer", 0, cuMemHostGetDevicePointer(d, host, 0));
    Sequence.fill(host, -1f);
    CUstream s = stream(NON_BLOCKING);
    CUevent e = event(0);
    seq.rc(rep, "slow_fill", 0, Sequence.launch(slowFill, s, d, v, N, seq.cycles));
    seq.rc(rep, "cuEventRecord", 0, cuEventRecord(e, s));
    long deadline = System.nanoTime() + seq.timeoutMs * 1_000_000L;
    int code;
    while ((code = cuEventQuery(e)) == CUresult.CUDA_ERROR_NOT_READY && System.nanoTime() < deadline) {
      Thread.onSpinWait();
    }
    seq.rc(rep, "cuEventQuery", 0, code);
    seq.check(rep, "mapped memory", Sequence.describe(Sequence.ramp(v)), Sequence.describe(Sequence.floats(host)));
    Sequence.release(e, s, host);
  }

  private static void asyncAlloc(Sequence seq, CUfunction slowFill, int rep, float v) {
    CUstream s1 = stream(NON_BLOCKING);
    CUstream s2 = stream(NON_BLOCKING);
    Pointer pinned = allocHost(BYTES);
    CUevent e = event(0);
    CUdeviceptr p = new CUdeviceptr();
    seq.rc(rep, "cuMemAllocAsync", 0, cuMemAllocAsync(p, BYTES, s1));
    seq.rc(rep, "slow_fill", 0, Sequence.launch(slowFill, s1, p, v, N, seq.cycles));
    cuEventRecord(e, s1);
    cuStreamWaitEvent(s2, e, 0);
    seq.rc(rep, "cuMemcpyDtoHAsync", 0, cuMemcpyDtoHAsync(pinned, p, BYTES, s2));
    seq.rc(rep, "cuMemFreeAsync", 0, cuMemFreeAsync(p, s2));
    seq.rc(rep, "cuStreamSynchronize", 0, cuStreamSynchronize(s2));
    seq.check(rep, "first allocation", Sequence.describe(Sequence.ramp(v)), Sequence.describe(Sequence.floats(pinned)));
    CUdeviceptr q = new CUdeviceptr();
    seq.rc(rep, "cuMemAllocAsync again", 0, cuMemAllocAsync(q, BYTES, s1));
    seq.rc(rep, "cuMemsetD32Async", 0, cuMemsetD32Async(q, Float.floatToRawIntBits(v + 0.5f), N, s1));
    seq.rc(rep, "cuMemcpyDtoHAsync again", 0, cuMemcpyDtoHAsync(pinned, q, BYTES, s1));
    seq.rc(rep, "cuMemFreeAsync again", 0, cuMemFreeAsync(q, s1));
    seq.rc(rep, "cuStreamSynchronize again", 0, cuStreamSynchronize(s1));
    float[] set = new float[N];
    Arrays.fill(set, v + 0.5f);
    seq.check(rep, "second allocation", Sequence.describe(set), Sequence.describe(Sequence.floats(pinned)));
    Sequence.release(e, pinned, s1, s2);
  }

  private static void copy2d(Sequence seq, CUfunction slowFill, int rep, float v) {
    CUdeviceptr a = alloc(BYTES);
    CUstream s = stream(0);
    seq.rc(rep, "slow_fill", 0, Sequence.launch(slowFill, s, a, v, N, seq.cycles));
    float[] host = new float[N];
    CUDA_MEMCPY2D c = new CUDA_MEMCPY2D();
    c.srcMemoryType = CUmemorytype.CU_MEMORYTYPE_DEVICE;
    c.srcDevice = a;
    c.srcPitch = 1024;
    c.dstMemoryType = CUmemorytype.CU_MEMORYTYPE_HOST;
    c.dstHost = Pointer.to(host);
    c.dstPitch = 1024;
    c.WidthInBytes = 1024;
    c.Height = BYTES / 1024;
    seq.rc(rep, "cuMemcpy2D", 0, cuMemcpy2D(c));
    seq.check(rep, "2D copy", Sequence.describe(Sequence.ramp(v)), Sequence.describe(host));
    Sequence.release(a, s);
  }

  private static void memset2d(Sequence seq, CUfunction slowFill, int rep, float v) {
    CUdeviceptr a = alloc(BYTES);
    CUstream s1 = stream(NON_BLOCKING);
    CUstream s2 = stream(NON_BLOCKING);
    CUevent e = event(0);
    seq.rc(rep, "slow_fill", 0, Sequence.launch(slowFill, s1, a, v, N, seq.cycles));
    cuEventRecord(e, s1);
    cuStreamWaitEvent(s2, e, 0);
    // Rows of 256 floats: the first 128 of each set to 2.
    seq.rc(rep, "cuMemsetD2D32Async", 0, cuMemsetD2D32Async(a, 1024, Float.floatToRawIntBits(2f), 128, 4, s2));
    seq.rc(rep, "cuStreamSynchronize", 0, cuStreamSynchronize(s2));
    float[] expected = Sequence.ramp(v);
    for (int r = 0; r < 4; r++) {
      for (int c = 0; c < 128; c++) {
        expected[r * 256 + c] = 2f;
      }
    }
    seq.check(rep, "2D memset over the kernel's values", Sequence.describe(expected), Sequence.describe(Sequence.read(a)));
    Sequence.release(e, a, s1, s2);
  }

  private static void streamMemoryOperations(Sequence seq, CUfunction slowFill, int rep, float v, boolean waitFirst) {
    CUdeviceptr a = alloc(BYTES);
    CUdeviceptr flag = alloc(4);
    cuMemsetD32(flag, 0, 1);
    cuCtxSynchronize(); // the memset is asynchronous, and the two non-blocking streams do not follow it
    Pointer pinned = allocHost(BYTES);
    CUstream producer = stream(NON_BLOCKING);
    CUstream consumer = stream(NON_BLOCKING);
    if (waitFirst) {
      seq.rc(rep, "cuStreamWaitValue32", 0,
          cuStreamWaitValue32(consumer, flag, 1, CUstreamWaitValue_flags.CU_STREAM_WAIT_VALUE_GEQ));
    }
    seq.rc(rep, "slow_fill", 0, Sequence.launch(slowFill, producer, a, v, N, seq.cycles));
    seq.rc(rep, "cuStreamWriteValue32", 0, cuStreamWriteValue32(producer, flag, 1, 0));
    if (!waitFirst) {
      seq.rc(rep, "cuStreamWaitValue32", 0,
          cuStreamWaitValue32(consumer, flag, 1, CUstreamWaitValue_flags.CU_STREAM_WAIT_VALUE_GEQ));
    }
    seq.rc(rep, "cuMemcpyDtoHAsync", 0, cuMemcpyDtoHAsync(pinned, a, BYTES, consumer));
    seq.rc(rep, "cuStreamSynchronize", 0, cuStreamSynchronize(consumer));
    seq.check(rep, "read after the flag", Sequence.describe(Sequence.ramp(v)), Sequence.describe(Sequence.floats(pinned)));
    cuStreamSynchronize(producer);
    Sequence.release(pinned, a, flag, producer, consumer);
  }

  private static void threadsEvent(Sequence seq, CUfunction slowFill, int rep, float v) throws Exception {
    CUdeviceptr a = alloc(BYTES);
    CUevent e = event(0);
    CUcontext context = new CUcontext();
    cuCtxGetCurrent(context);
    CountDownLatch recorded = new CountDownLatch(1);
    float[][] seen = new float[1][];
    Sequence.Worker reader = new Sequence.Worker("reader", context, () -> {
      CUstream s = stream(NON_BLOCKING);
      Pointer pinned = allocHost(BYTES);
      recorded.await();
      cuStreamWaitEvent(s, e, 0);
      cuMemcpyDtoHAsync(pinned, a, BYTES, s);
      cuStreamSynchronize(s);
      seen[0] = Sequence.floats(pinned);
      Sequence.release(pinned, s);
    });
    CUstream s = stream(NON_BLOCKING);
    seq.rc(rep, "slow_fill", 0, Sequence.launch(slowFill, s, a, v, N, seq.cycles));
    seq.rc(rep, "cuEventRecord", 0, cuEventRecord(e, s));
    recorded.countDown();
    reader.join();
    seq.check(rep, "read on the other thread", Sequence.describe(Sequence.ramp(v)), Sequence.describe(seen[0]));
    cuStreamSynchronize(s);
    Sequence.release(e, a, s);
  }

  private static void hostFunctionWaits(Sequence seq, CUfunction slowFill, int rep, float v) throws Exception {
    CUstream waiting = stream(NON_BLOCKING);
    CUstream working = stream(NON_BLOCKING);
    Sequence.Gate readBack = seq.new Gate();
    seq.rc(rep, "cuLaunchHostFunc", 0, cuLaunchHostFunc(waiting, data -> readBack.await(), null));
    Pointer pinned = allocHost(BYTES);
    CUdeviceptr[] buffers = seq.fillAndReadBackTwenty(rep, slowFill, working, pinned, v);
    readBack.open();
    seq.rc(rep, "cuStreamSynchronize waiting", 0, cuStreamSynchronize(waiting));
    seq.check(rep, "the host function was let go by the host", true, readBack.released());
    for (CUdeviceptr b : buffers) {
      cuMemFree(b);
    }
    Sequence.release(pinned, waiting, working);
  }

  /**
   * A host function on a blocking stream waits until the host has read back 20 kernels of another
   * ({@code working}); between the kernels and the reads a third stream writes a value ({@code
   * handBack} false), or waits for one already written, which hands the program back.
   */
  private static void hostFunctionBesideAStreamValue(Sequence seq, CUfunction slowFill, int rep, float v,
      boolean perThread, boolean handBack) {
    CUdeviceptr flag = alloc(4);
    cuMemsetD32(flag, handBack ? 1 : 0, 1); // a wait for 1 returns at once: only the hand-back is wanted of it
    cuCtxSynchronize();
    CUstream waiting = stream(0);
    CUstream working = perThread ? CU_STREAM_PER_THREAD : stream(0);
    CUstream valued = stream(NON_BLOCKING);
    Sequence.Gate readBack = seq.new Gate();
    seq.rc(rep, "cuLaunchHostFunc", 0, cuLaunchHostFunc(waiting, data -> readBack.await(), null));
    Pointer pinned = allocHost(BYTES);
    CUdeviceptr[] buffers = seq.fillAndReadBackTwenty(rep, slowFill, working, pinned, v, () -> {
      if (handBack) {
        seq.rc(rep, "cuStreamWaitValue32", 0,
            cuStreamWaitValue32(valued, flag, 1, CUstreamWaitValue_flags.CU_STREAM_WAIT_VALUE_GEQ));
      } else {
        seq.rc(rep, "cuStreamWriteValue32", 0, cuStreamWriteValue32(valued, flag, 1, 0));
      }
    });
    readBack.open();
    seq.rc(rep, "cuStreamSynchronize waiting", 0, cuStreamSynchronize(waiting));
    seq.check(rep, "the host function was let go by the host", true, readBack.released());
    for (CUdeviceptr b : buffers) {
      cuMemFree(b);
    }
    cuStreamSynchronize(valued);
    Sequence.release(pinned, flag, waiting, valued);
    if (!perThread) {
      Sequence.release(working);
    }
  }

  private static void waitBesideThreads(Sequence seq, CUfunction slowFill, int rep, float v) throws Exception {
    CUfunction slowAxpb = Sequence.function(Sequence.loadSemantics(), "slow_axpb");
    CUcontext context = new CUcontext();
    cuCtxGetCurrent(context);
    // Allocated and freed here: a free on the stand-in completes all queued work, which cannot
    // finish while the wait's write is still to be queued by this thread.
    RoundTripWorkers workers = RoundTripWorkers.start(context, slowAxpb, 3, 30, 30, v, seq.cycles / 100);
    streamMemoryOperations(seq, slowFill, rep, v, true);
    workers.join();
    workers.free();
    for (int w = 0; w < 3; w++) {
      seq.check(rep, "worker " + w + " results that differ", 0, workers.wrong(w));
    }
  }
}
