package dev.kernelweave.it.semantics;

import static dev.kernelweave.it.semantics.Sequence.BYTES;
import static dev.kernelweave.it.semantics.Sequence.N;
import static dev.kernelweave.it.semantics.Sequence.NON_BLOCKING;
import static dev.kernelweave.it.semantics.Sequence.alloc;
import static dev.kernelweave.it.semantics.Sequence.allocHost;
import static dev.kernelweave.it.semantics.Sequence.event;
import static dev.kernelweave.it.semantics.Sequence.stream;
import static jcuda.driver.JCudaDriver.CU_LAUNCH_PARAM_BUFFER_POINTER;
import static jcuda.driver.JCudaDriver.CU_LAUNCH_PARAM_BUFFER_SIZE;
import static jcuda.driver.JCudaDriver.CU_LAUNCH_PARAM_END;
import static jcuda.driver.JCudaDriver.cuCtxGetApiVersion;
import static jcuda.driver.JCudaDriver.cuCtxGetCurrent;
import static jcuda.driver.JCudaDriver.cuCtxGetLimit;
import static jcuda.driver.JCudaDriver.cuEventRecord;
import static jcuda.driver.JCudaDriver.cuLaunchKernel;
import static jcuda.driver.JCudaDriver.cuMemAlloc;
import static jcuda.driver.JCudaDriver.cuMemFree;
import static jcuda.driver.JCudaDriver.cuMemGetInfo;
import static jcuda.driver.JCudaDriver.cuMemcpyDtoH;
import static jcuda.driver.JCudaDriver.cuMemcpyDtoHAsync;
import static jcuda.driver.JCudaDriver.cuMemcpyHtoD;
import static jcuda.driver.JCudaDriver.cuMemcpyHtoDAsync;
import static jcuda.driver.JCudaDriver.cuStreamSynchronize;
import static jcuda.driver.JCudaDriver.cuStreamWaitEvent;
import static jcuda.jcublas.JCublas2.cublasCreate;
import static jcuda.jcublas.JCublas2.cublasDestroy;
import static jcuda.jcublas.JCublas2.cublasSdot;
import static jcuda.jcublas.JCublas2.cublasSetPointerMode;
import static jcuda.jcublas.JCublas2.cublasSetStream;
import static jcuda.jcublas.cublasPointerMode.CUBLAS_POINTER_MODE_DEVICE;
import static jcuda.jcublas.cublasPointerMode.CUBLAS_POINTER_MODE_HOST;
import static jcuda.runtime.JCuda.cudaDeviceSynchronize;
import static jcuda.runtime.JCuda.cudaMemcpyAsync;
import static jcuda.runtime.JCuda.cudaMemsetAsync;
import static jcuda.runtime.JCuda.cudaStreamCreateWithFlags;
import static jcuda.runtime.JCuda.cudaStreamDestroy;
import static jcuda.runtime.JCuda.cudaStreamNonBlocking;
import static jcuda.runtime.JCuda.cudaStreamQuery;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;
import java.util.Map;
import jcuda.Pointer;
import jcuda.driver.CUcontext;
import jcuda.driver.CUdeviceptr;
import jcuda.driver.CUevent;
import jcuda.driver.CUfunction;
import jcuda.driver.CUlimit;
import jcuda.driver.CUstream;
import jcuda.jcublas.cublasHandle;
import jcuda.runtime.cudaError;
import jcuda.runtime.cudaMemcpyKind;
import jcuda.runtime.cudaStream_t;

/**
 * Contract probes that call what the stand-in driver does not have (cublasSdot, the runtime API,
 * {@code extra} launch arguments, cuMemGetInfo and the context's limits): a GPU runs them. After a
 * run of 17 launches (so that {@code engage=auto} schedules the rest):
 *
 * <ul>
 *   <li>{@code blas-dot}: {@code cublasSdot} on the handle's non-blocking stream right after kernels
 *       write its vectors there; in host pointer mode the result is in the Java array when the call
 *       returns (no synchronization); in device pointer mode it lands in device memory that another
 *       stream scales after an event, read back.
 *   <li>{@code runtime-mix}: a runtime non-blocking stream ({@code cudaStreamCreateWithFlags}) used
 *       by driver launches, {@code cudaMemsetAsync}, {@code cudaMemcpyAsync} device to page-locked
 *       host and device to device (JCuda refuses {@code cudaMemcpyDefault} itself), a
 *       {@code cudaStreamQuery} loop as the only wait, then {@code cudaDeviceSynchronize}.
 *   <li>{@code launch-extra}: launches whose arguments come as one buffer in {@code extra}
 *       ({@code CU_LAUNCH_PARAM_BUFFER_POINTER}), among ordinary launches on two streams joined by an
 *       event and on the legacy stream.
 *   <li>{@code memory-info}: {@code cuMemGetInfo}, {@code cuCtxGetApiVersion} and {@code cuCtxGetLimit}
 *       answer as without the agent; then one allocation of all but 512 MiB of the free memory
 *       succeeds, and launches, memsets and pageable copies on three streams go on beside it.
 * </ul>
 */
public final class ContractGpuProbesProgram {

  /** Elements of the dot products: every partial sum is an integer below 2^24, exact in float. */
  private static final int DOT_N = 64;

  public static void main(String[] args) throws Exception {
    Sequence seq = Sequence.start(args, "blas-dot");
    Sequence.Kernels kernels = Sequence.Kernels.load();
    cublasHandle handle = new cublasHandle();
    if (seq.variant.equals("blas-dot")) {
      seq.rc("cublasCreate", cublasCreate(handle));
    }
    Sequence.engagingRun(kernels.slowFill());
    seq.repeat(31f, kernels, Map.of(
        "blas-dot", (q, k, rep, v) -> {
          blasDot(q, k, handle, rep, v);
          if (rep == q.reps - 1) {
            cublasDestroy(handle);
          }
        },
        "runtime-mix", ContractGpuProbesProgram::runtimeMix,
        "launch-extra", ContractGpuProbesProgram::launchExtra,
        "memory-info", ContractGpuProbesProgram::memoryInfo));
  }

  // ---- blas-dot

  private static void blasDot(Sequence seq, Sequence.Kernels k, cublasHandle handle, int rep, float v) {
    CUstream s = stream(NON_BLOCKING);
    CUstream s2 = stream(NON_BLOCKING);
    CUevent e = event(0);
    CUdeviceptr x = alloc(BYTES);
    CUdeviceptr y = alloc(BYTES);
    CUdeviceptr result = alloc(4);
    Pointer pinned = allocHost(BYTES);
    seq.rc(rep, "cublasSetStream", 0, cublasSetStream(handle, new cudaStream_t(s)));
    seq.rc(rep, "cublasSetPointerMode host", 0, cublasSetPointerMode(handle, CUBLAS_POINTER_MODE_HOST));
    seq.rc(rep, "slow_fill x", 0, Sequence.launch(k.slowFill(), s, x, v, N, seq.cycles));
    seq.rc(rep, "slow_fill y", 0, Sequence.launch(k.slowFill(), s, y, 1f, N, seq.cycles));
    float[] host = {-1f};
    seq.rc(rep, "cublasSdot host mode", 0, cublasSdot(handle, DOT_N, x, 1, y, 1, Pointer.to(host)));
    float expected = 0f;
    for (int i = 0; i < DOT_N; i++) {
      expected += (v + i) * (1f + i);
    }
    seq.check(rep, "dot in the Java array at return", expected, host[0]);
    seq.rc(rep, "slow_axpb x", 0, Sequence.launch(k.slowAxpb(), s, x, 2f, 0f, N, seq.cycles));
    seq.rc(rep, "cublasSetPointerMode device", 0, cublasSetPointerMode(handle, CUBLAS_POINTER_MODE_DEVICE));
    seq.rc(rep, "cublasSdot device mode", 0, cublasSdot(handle, DOT_N, x, 1, y, 1, result));
    seq.rc(rep, "cublasSetPointerMode host again", 0, cublasSetPointerMode(handle, CUBLAS_POINTER_MODE_HOST));
    seq.rc(rep, "cuEventRecord", 0, cuEventRecord(e, s));
    seq.rc(rep, "cuStreamWaitEvent s2", 0, cuStreamWaitEvent(s2, e, 0));
    seq.rc(rep, "slow_axpb result on s2", 0, Sequence.launch(k.slowAxpb(), s2, result, 1f, 1f, 1, seq.cycles));
    seq.rc(rep, "cuMemcpyDtoHAsync on s2", 0, cuMemcpyDtoHAsync(pinned, result, 4, s2));
    seq.rc(rep, "cuStreamSynchronize s2", 0, cuStreamSynchronize(s2));
    seq.check(rep, "dot in device memory, plus one", 2f * expected + 1f,
        pinned.getByteBuffer(0, 4).order(ByteOrder.nativeOrder()).getFloat(0));
    float[] again = {-1f};
    seq.rc(rep, "cublasSdot host mode again", 0, cublasSdot(handle, DOT_N, x, 1, y, 1, Pointer.to(again)));
    seq.check(rep, "second dot in the Java array at return", 2f * expected, again[0]);
    seq.rc(rep, "cuStreamSynchronize s", 0, cuStreamSynchronize(s));
    seq.rc(rep, "cublasSetStream default", 0, cublasSetStream(handle, new cudaStream_t()));
    Sequence.release(pinned, x, y, result, e, s, s2);
  }

  // ---- runtime-mix

  private static void runtimeMix(Sequence seq, Sequence.Kernels k, int rep, float v) {
    cudaStream_t rs = new cudaStream_t();
    seq.rc(rep, "cudaStreamCreateWithFlags", 0, cudaStreamCreateWithFlags(rs, cudaStreamNonBlocking));
    CUstream cs = new CUstream(rs);
    CUdeviceptr d = alloc(BYTES);
    CUdeviceptr d2 = alloc(BYTES);
    Pointer pinned = allocHost(BYTES);
    Sequence.fill(pinned, -1f);
    seq.rc(rep, "cudaMemsetAsync", 0, cudaMemsetAsync(d, 0, BYTES, rs));
    seq.rc(rep, "slow_axpb on the runtime stream", 0, Sequence.launch(k.slowAxpb(), cs, d, 1f, v, N, seq.cycles));
    seq.rc(rep, "cudaMemcpyAsync device to pinned", 0,
        cudaMemcpyAsync(pinned, d, BYTES, cudaMemcpyKind.cudaMemcpyDeviceToHost, rs));
    long deadline = System.nanoTime() + seq.timeoutMs * 1_000_000L;
    int code;
    while ((code = cudaStreamQuery(rs)) == cudaError.cudaErrorNotReady && System.nanoTime() < deadline) {
      Thread.onSpinWait();
    }
    seq.rc(rep, "cudaStreamQuery", 0, code);
    float[] all = new float[N];
    Arrays.fill(all, v);
    seq.check(rep, "pinned after the query loop", Sequence.describe(all), Sequence.describe(Sequence.floats(pinned)));
    seq.rc(rep, "slow_fill on the runtime stream", 0, Sequence.launch(k.slowFill(), cs, d, v + 1f, N, seq.cycles));
    seq.rc(rep, "cudaMemcpyAsync device to device", 0,
        cudaMemcpyAsync(d2, d, BYTES, cudaMemcpyKind.cudaMemcpyDeviceToDevice, rs));
    seq.rc(rep, "slow_axpb d2 on the runtime stream", 0, Sequence.launch(k.slowAxpb(), cs, d2, 2f, 0f, N, seq.cycles));
    seq.rc(rep, "cudaDeviceSynchronize", 0, cudaDeviceSynchronize());
    seq.check(rep, "d2", Sequence.describe(Sequence.axpb(Sequence.ramp(v + 1f), 2f, 0f)),
        Sequence.describe(Sequence.read(d2)));
    seq.rc(rep, "cudaStreamDestroy", 0, cudaStreamDestroy(rs));
    Sequence.release(pinned, d, d2);
  }

  // ---- launch-extra

  private static void launchExtra(Sequence seq, Sequence.Kernels k, int rep, float v) {
    CUstream s1 = stream(NON_BLOCKING);
    CUstream s2 = stream(NON_BLOCKING);
    CUevent e = event(0);
    CUdeviceptr a = alloc(BYTES);
    CUdeviceptr b = alloc(BYTES);
    Pointer pinned = allocHost(BYTES);
    seq.rc(rep, "slow_fill a by extra on s1", 0, extraLaunch(k.slowFill(), s1, a, v, null, N, seq.cycles));
    seq.rc(rep, "slow_axpb a on s1", 0, Sequence.launch(k.slowAxpb(), s1, a, 2f, 1f, N, seq.cycles));
    seq.rc(rep, "cuEventRecord", 0, cuEventRecord(e, s1));
    seq.rc(rep, "cuStreamWaitEvent s2", 0, cuStreamWaitEvent(s2, e, 0));
    seq.rc(rep, "slow_axpb a by extra on s2", 0, extraLaunch(k.slowAxpb(), s2, a, 1f, 3f, N, seq.cycles));
    seq.rc(rep, "cuMemcpyDtoHAsync on s2", 0, cuMemcpyDtoHAsync(pinned, a, BYTES, s2));
    seq.rc(rep, "cuStreamSynchronize s2", 0, cuStreamSynchronize(s2));
    seq.check(rep, "a", Sequence.describe(Sequence.axpb(Sequence.axpb(Sequence.ramp(v), 2f, 1f), 1f, 3f)),
        Sequence.describe(Sequence.floats(pinned)));
    seq.rc(rep, "slow_fill b by extra on the legacy stream", 0,
        extraLaunch(k.slowFill(), null, b, v + 4f, null, N, seq.cycles));
    seq.check(rep, "b", Sequence.describe(Sequence.ramp(v + 4f)), Sequence.describe(Sequence.read(b)));
    Sequence.release(pinned, a, b, e, s1, s2);
  }

  /** The one argument buffer and size every {@code extra} launch uses, overwritten after each. */
  private static final byte[] EXTRA_ARGS = new byte[32];
  private static final long[] EXTRA_SIZE = {0};

  /**
   * slow_fill {@code (float*, float, int, long long)} or slow_axpb {@code (float*, float, float, int,
   * long long)} (when {@code b} is not null) with its arguments laid out in one buffer, as
   * {@code extra} passes them; the buffer is reused (scribbled over) as soon as the launch returns.
   */
  private static int extraLaunch(CUfunction f, CUstream stream, CUdeviceptr out, float a, Float b, int n, long cycles) {
    ByteBuffer args = ByteBuffer.wrap(EXTRA_ARGS, 0, b == null ? 24 : 32).order(ByteOrder.nativeOrder());
    args.putLong(0, address(out));
    args.putFloat(8, a);
    if (b == null) {
      args.putInt(12, n);
      args.putLong(16, cycles);
    } else {
      args.putFloat(12, b);
      args.putInt(16, n);
      args.putLong(24, cycles);
    }
    EXTRA_SIZE[0] = b == null ? 24 : 32;
    Pointer extra = Pointer.to(CU_LAUNCH_PARAM_BUFFER_POINTER, Pointer.to(EXTRA_ARGS), CU_LAUNCH_PARAM_BUFFER_SIZE,
        Pointer.to(EXTRA_SIZE), CU_LAUNCH_PARAM_END);
    int code = cuLaunchKernel(f, Sequence.BLOCKS, 1, 1, Sequence.THREADS, 1, 1, 0, stream, null, extra);
    // The driver copied the arguments: the program reuses the buffer at once.
    Arrays.fill(EXTRA_ARGS, (byte) 0x7F);
    EXTRA_SIZE[0] = 0;
    return code;
  }

  /** A device pointer's value, as JCuda passes it: written to device memory as a pointer, read back as a long. */
  private static long address(CUdeviceptr p) {
    CUdeviceptr scratch = alloc(8);
    cuMemcpyHtoD(scratch, Pointer.to(p), 8);
    long[] value = {0};
    cuMemcpyDtoH(Pointer.to(value), scratch, 8);
    cuMemFree(scratch);
    return value[0];
  }

  // ---- memory-info

  private static void memoryInfo(Sequence seq, Sequence.Kernels k, int rep, float v) {
    long[] free = {0};
    long[] total = {0};
    seq.rc(rep, "cuMemGetInfo", 0, cuMemGetInfo(free, total));
    CUcontext ctx = new CUcontext();
    cuCtxGetCurrent(ctx);
    int[] version = {0};
    seq.rc(rep, "cuCtxGetApiVersion", 0, cuCtxGetApiVersion(ctx, version));
    System.out.println("result rep " + rep + " api version " + version[0]);
    for (int limit : new int[] {CUlimit.CU_LIMIT_STACK_SIZE, CUlimit.CU_LIMIT_PRINTF_FIFO_SIZE,
        CUlimit.CU_LIMIT_MALLOC_HEAP_SIZE}) {
      long[] value = {-1};
      int code = cuCtxGetLimit(value, limit);
      System.out.println("result rep " + rep + " limit " + limit + " returned " + code + " value " + value[0]);
    }
    long big = (free[0] - (512L << 20)) & ~((2L << 20) - 1);
    CUdeviceptr huge = new CUdeviceptr();
    seq.rc(rep, "cuMemAlloc of all but 512 MiB of the free memory", 0, cuMemAlloc(huge, big));
    CUstream[] streams = {stream(NON_BLOCKING), stream(NON_BLOCKING), stream(0)};
    CUdeviceptr[] xs = new CUdeviceptr[streams.length];
    for (int j = 0; j < streams.length; j++) {
      xs[j] = alloc(BYTES);
      float[] in = Sequence.ramp(v + j);
      seq.rc(rep, "cuMemcpyHtoDAsync pageable " + j, 0, cuMemcpyHtoDAsync(xs[j], Pointer.to(in), BYTES, streams[j]));
      seq.rc(rep, "slow_axpb " + j, 0, Sequence.launch(k.slowAxpb(), streams[j], xs[j], 2f, 1f, N, seq.cycles));
      seq.rc(rep, "slow_axpb huge " + j, 0,
          Sequence.launch(k.slowAxpb(), streams[j], huge.withByteOffset(j * BYTES), 1f, 1f, N, seq.cycles));
    }
    for (int j = 0; j < streams.length; j++) {
      float[] out = new float[N];
      seq.rc(rep, "cuMemcpyDtoHAsync pageable " + j, 0, cuMemcpyDtoHAsync(Pointer.to(out), xs[j], BYTES, streams[j]));
      seq.rc(rep, "cuStreamSynchronize " + j, 0, cuStreamSynchronize(streams[j]));
      seq.check(rep, "x " + j, Sequence.describe(Sequence.axpb(Sequence.ramp(v + j), 2f, 1f)), Sequence.describe(out));
    }
    float[] head = new float[N];
    seq.rc(rep, "cuMemcpyHtoD huge", 0, cuMemcpyHtoD(huge, Pointer.to(Sequence.ramp(v)), BYTES));
    seq.rc(rep, "slow_axpb huge on the legacy stream", 0, Sequence.launch(k.slowAxpb(), null, huge, 3f, 0f, N, seq.cycles));
    seq.rc(rep, "cuMemcpyDtoH huge", 0, cuMemcpyDtoH(Pointer.to(head), huge, BYTES));
    seq.check(rep, "huge", Sequence.describe(Sequence.axpb(Sequence.ramp(v), 3f, 0f)), Sequence.describe(head));
    for (int j = 0; j < streams.length; j++) {
      Sequence.release(xs[j], streams[j]);
    }
    seq.rc(rep, "cuMemFree huge", 0, cuMemFree(huge));
  }
}
