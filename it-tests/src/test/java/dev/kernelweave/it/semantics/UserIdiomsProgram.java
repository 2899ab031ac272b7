package dev.kernelweave.it.semantics;

import static dev.kernelweave.it.semantics.Sequence.BYTES;
import static dev.kernelweave.it.semantics.Sequence.N;
import static dev.kernelweave.it.semantics.Sequence.NON_BLOCKING;
import static dev.kernelweave.it.semantics.Sequence.alloc;
import static dev.kernelweave.it.semantics.Sequence.allocHost;
import static dev.kernelweave.it.semantics.Sequence.axpb;
import static dev.kernelweave.it.semantics.Sequence.describe;
import static dev.kernelweave.it.semantics.Sequence.event;
import static dev.kernelweave.it.semantics.Sequence.launch;
import static dev.kernelweave.it.semantics.Sequence.ramp;
import static dev.kernelweave.it.semantics.Sequence.stream;
import static jcuda.driver.JCudaDriver.cuCtxSynchronize;
import static jcuda.driver.JCudaDriver.cuEventRecord;
import static jcuda.driver.JCudaDriver.cuEventSynchronize;
import static jcuda.driver.JCudaDriver.cuMemAllocManaged;
import static jcuda.driver.JCudaDriver.cuMemFree;
import static jcuda.driver.JCudaDriver.cuMemPrefetchAsync;
import static jcuda.driver.JCudaDriver.cuMemcpyDtoDAsync;
import static jcuda.driver.JCudaDriver.cuMemcpyDtoH;
import static jcuda.driver.JCudaDriver.cuMemcpyHtoD;
import static jcuda.driver.JCudaDriver.cuStreamQuery;
import static jcuda.driver.JCudaDriver.cuStreamSynchronize;
import static jcuda.driver.JCudaDriver.cuStreamWaitEvent;
import static jcuda.jcublas.JCublas2.cublasCreate;
import static jcuda.jcublas.JCublas2.cublasDestroy;
import static jcuda.jcublas.JCublas2.cublasGetMatrix;
import static jcuda.jcublas.JCublas2.cublasGetMatrixAsync;
import static jcuda.jcublas.JCublas2.cublasGetVector;
import static jcuda.jcublas.JCublas2.cublasGetVectorAsync;
import static jcuda.jcublas.JCublas2.cublasSetMatrix;
import static jcuda.jcublas.JCublas2.cublasSetStream;
import static jcuda.jcublas.JCublas2.cublasSetVector;
import static jcuda.jcublas.JCublas2.cublasSetVectorAsync;
import static jcuda.jcublas.JCublas2.cublasSgemm;
import static jcuda.jcublas.JCublas2.cublasSgemmBatched;
import static jcuda.jcublas.JCublas2.cublasSgemmStridedBatched;
import static jcuda.jcublas.cublasOperation.CUBLAS_OP_N;
import static jcuda.runtime.JCuda.cudaFree;
import static jcuda.runtime.JCuda.cudaMallocManaged;
import static jcuda.runtime.JCuda.cudaMemAttachGlobal;
import static jcuda.runtime.JCuda.cudaMemcpy;
import static jcuda.runtime.JCuda.cudaMemcpyAsync;

import java.nio.ByteOrder;
import java.util.Arrays;
import java.util.Map;
import jcuda.Pointer;
import jcuda.driver.CUdeviceptr;
import jcuda.driver.CUevent;
import jcuda.driver.CUmemAttach_flags;
import jcuda.driver.CUresult;
import jcuda.driver.CUstream;
import jcuda.jcublas.cublasHandle;
import jcuda.runtime.cudaMemcpyKind;
import jcuda.runtime.cudaStream_t;

/**
 * What JCuda's own samples and most users write, beside the agent's moved work, after a run of 17
 * launches (so that {@code engage=auto} schedules the rest):
 *
 * <ul>
 *   <li>{@code blas-vectors}: the cuBLAS helper copies. {@code cublasSetVector} from a Java array
 *       the program overwrites at once; {@code cublasGetVector} after a kernel on a blocking stream,
 *       which the helper's legacy-stream copy waits for; strided vectors ({@code incx = 2} on the
 *       device, {@code incy = 2} into the array); a {@code cublasSetVector} over a buffer a pending
 *       device copy still reads; {@code cublasSetMatrix} into a leading dimension wider than the
 *       rows, {@code cublasSgemm} on the legacy stream, a kernel on a blocking stream after it and
 *       {@code cublasGetMatrix}; and the asynchronous helpers on the handle's non-blocking stream,
 *       from and into page-locked memory and a Java array, joined by {@code cuStreamSynchronize}.
 *   <li>{@code blas-batched}: {@code cublasSgemmBatched} over arrays of device pointers the program
 *       filled, after kernels on a blocking stream wrote the matrices, then {@code
 *       cublasSgemmStridedBatched} on another stream after an event, read back by the helpers.
 *   <li>{@code managed}: memory from {@code cuMemAllocManaged} with {@code CU_MEM_ATTACH_HOST}
 *       (the flag with which JCuda gives the host a view of it), written and read by the host
 *       directly around kernels on a non-blocking, a blocking and the legacy stream, after {@code
 *       cuStreamSynchronize}, {@code cuEventSynchronize}, {@code cuCtxSynchronize} and a {@code
 *       cuStreamQuery} loop, and by synchronous and asynchronous copies.
 *   <li>{@code managed-runtime}: the same over {@code cudaMallocManaged}, which JCuda gives no host
 *       view, so the host reads and writes it by synchronous copies; then memory from {@code
 *       cuMemAllocManaged} prefetched to the device on a stream, written by a kernel and copied out
 *       on the same stream.
 * </ul>
 *
 * <p>Every matrix value is a small integer, exact in float whatever order cuBLAS sums in.
 */
public final class UserIdiomsProgram {

  /** The GEMM's sides: C (32 x 32) is N floats, so slow_axpb covers it. */
  private static final int SIDE = 32;
  /** The leading dimension A is stored with on the device, wider than its rows. */
  private static final int LDA = 40;

  public static void main(String[] args) throws Exception {
    Sequence seq = Sequence.start(args, "blas-vectors");
    Sequence.Kernels kernels = Sequence.Kernels.load();
    cublasHandle handle = new cublasHandle();
    if (seq.variant.startsWith("blas-")) {
      seq.rc("cublasCreate", cublasCreate(handle));
    }
    Sequence.engagingRun(kernels.slowFill());
    seq.repeat(7f, kernels, Map.of(
        "blas-vectors", (q, k, rep, v) -> {
          blasVectors(q, k, handle, rep, v);
          if (rep == q.reps - 1) {
            cublasDestroy(handle);
          }
        },
        "blas-batched", (q, k, rep, v) -> {
          blasBatched(q, k, handle, rep, v);
          if (rep == q.reps - 1) {
            cublasDestroy(handle);
          }
        },
        "managed", (q, k, rep, v) -> managed(q, k, rep, v, true),
        "managed-runtime", (q, k, rep, v) -> managed(q, k, rep, v, false)));
  }

  // ---- blas-vectors

  private static void blasVectors(Sequence seq, Sequence.Kernels k, cublasHandle handle, int rep, float v) {
    CUstream blocking = stream(0);
    CUstream nonBlocking = stream(NON_BLOCKING);
    CUdeviceptr a = alloc(BYTES);
    CUdeviceptr b = alloc(BYTES);
    CUdeviceptr c = alloc(BYTES);
    float[] in = ramp(v);
    seq.rc(rep, "cublasSetVector", 0, cublasSetVector(N, 4, Pointer.to(in), 1, a, 1));
    Arrays.fill(in, -7f);  // the helper copied it before returning
    seq.rc(rep, "slow_axpb a on a blocking stream", 0, launch(k.slowAxpb(), blocking, a, 2f, 1f, N, seq.cycles));
    float[] out = new float[N];
    seq.rc(rep, "cublasGetVector a", 0, cublasGetVector(N, 4, a, 1, Pointer.to(out), 1));
    float[] first = axpb(ramp(v), 2f, 1f);
    seq.check(rep, "a after the blocking stream's kernel", describe(first), describe(out));

    seq.rc(rep, "slow_fill b on the legacy stream", 0, launch(k.slowFill(), null, b, v + 3f, N, seq.cycles));
    float[] even = new float[N];
    seq.rc(rep, "cublasGetVector b, incx 2", 0, cublasGetVector(N / 2, 4, b, 2, Pointer.to(even), 1));
    float[] odd = new float[N];
    Arrays.fill(odd, -1f);
    seq.rc(rep, "cublasGetVector b + 1, incx 2, incy 2", 0,
        cublasGetVector(N / 2, 4, b.withByteOffset(4), 2, Pointer.to(odd), 2));
    float[] expectedEven = new float[N];
    float[] expectedOdd = new float[N];
    Arrays.fill(expectedOdd, -1f);
    for (int i = 0; i < N / 2; i++) {
      expectedEven[i] = v + 3f + 2 * i;
      expectedOdd[2 * i] = v + 3f + 2 * i + 1;
    }
    seq.check(rep, "b's even elements", describe(expectedEven), describe(even));
    seq.check(rep, "b's odd elements, every other slot", describe(expectedOdd), describe(odd));

    // A device copy of a on the blocking stream still reads it when the helper overwrites it.
    seq.rc(rep, "slow_axpb a again on the blocking stream", 0,
        launch(k.slowAxpb(), blocking, a, 1f, 0f, N, seq.cycles));
    seq.rc(rep, "cuMemcpyDtoDAsync c <- a", 0, cuMemcpyDtoDAsync(c, a, BYTES, blocking));
    seq.rc(rep, "cublasSetVector over a", 0, cublasSetVector(N, 4, Pointer.to(ramp(v + 50f)), 1, a, 1));
    seq.rc(rep, "cublasGetVector c", 0, cublasGetVector(N, 4, c, 1, Pointer.to(out), 1));
    seq.check(rep, "c, a's value before the helper overwrote it", describe(first), describe(out));
    seq.rc(rep, "cublasGetVector a", 0, cublasGetVector(N, 4, a, 1, Pointer.to(out), 1));
    seq.check(rep, "a overwritten", describe(ramp(v + 50f)), describe(out));

    gemm(seq, k, handle, blocking, rep);
    asyncHelpers(seq, k, handle, nonBlocking, rep, v);
    Sequence.release(a, b, c, blocking, nonBlocking);
  }

  /** cublasSetMatrix into a wider leading dimension, Sgemm on the legacy stream, a kernel, cublasGetMatrix. */
  private static void gemm(Sequence seq, Sequence.Kernels k, cublasHandle handle, CUstream blocking, int rep) {
    CUdeviceptr matA = alloc(4L * LDA * SIDE);
    CUdeviceptr matB = alloc(BYTES);
    CUdeviceptr matC = alloc(BYTES);
    float[] hostA = new float[SIDE * SIDE];
    float[] hostB = new float[SIDE * SIDE];
    for (int col = 0; col < SIDE; col++) {
      for (int row = 0; row < SIDE; row++) {
        hostA[row + col * SIDE] = (row + col + rep) % 5;
        hostB[row + col * SIDE] = (row * col + rep) % 3;
      }
    }
    seq.rc(rep, "cublasSetMatrix A, lda 40", 0, cublasSetMatrix(SIDE, SIDE, 4, Pointer.to(hostA), SIDE, matA, LDA));
    seq.rc(rep, "cublasSetMatrix B", 0, cublasSetMatrix(SIDE, SIDE, 4, Pointer.to(hostB), SIDE, matB, SIDE));
    seq.rc(rep, "cublasSetStream legacy", 0, cublasSetStream(handle, new cudaStream_t()));
    float[] one = {1f};
    float[] zero = {0f};
    seq.rc(rep, "cublasSgemm on the legacy stream", 0, cublasSgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, SIDE, SIDE, SIDE,
        Pointer.to(one), matA, LDA, matB, SIDE, Pointer.to(zero), matC, SIDE));
    seq.rc(rep, "slow_axpb C on a blocking stream", 0, launch(k.slowAxpb(), blocking, matC, 2f, 1f, N, seq.cycles));
    float[] hostC = new float[SIDE * SIDE];
    seq.rc(rep, "cublasGetMatrix C", 0, cublasGetMatrix(SIDE, SIDE, 4, matC, SIDE, Pointer.to(hostC), SIDE));
    seq.check(rep, "2 A B + 1", describe(axpb(product(hostA, hostB), 2f, 1f)), describe(hostC));
    Sequence.release(matA, matB, matC);
  }

  /** The asynchronous helpers on the handle's non-blocking stream. */
  private static void asyncHelpers(Sequence seq, Sequence.Kernels k, cublasHandle handle, CUstream s, int rep,
      float v) {
    cudaStream_t rs = new cudaStream_t(s);
    CUdeviceptr x = alloc(BYTES);
    Pointer pinnedIn = allocHost(BYTES);
    Pointer pinnedOut = allocHost(BYTES);
    pinnedIn.getByteBuffer(0, BYTES).order(ByteOrder.nativeOrder()).asFloatBuffer().put(ramp(v + 9f));
    Sequence.fill(pinnedOut, -1f);
    seq.rc(rep, "cublasSetStream non-blocking", 0, cublasSetStream(handle, rs));
    seq.rc(rep, "cublasSetVectorAsync from page-locked memory", 0, cublasSetVectorAsync(N, 4, pinnedIn, 1, x, 1, rs));
    seq.rc(rep, "slow_axpb x on the stream", 0, launch(k.slowAxpb(), s, x, 3f, 0f, N, seq.cycles));
    seq.rc(rep, "cublasGetVectorAsync into page-locked memory", 0,
        cublasGetVectorAsync(N, 4, x, 1, pinnedOut, 1, rs));
    seq.rc(rep, "slow_axpb x again on the stream", 0, launch(k.slowAxpb(), s, x, 1f, 1f, N, seq.cycles));
    float[] matrix = new float[N];
    seq.rc(rep, "cublasGetMatrixAsync into a Java array", 0,
        cublasGetMatrixAsync(SIDE, SIDE, 4, x, SIDE, Pointer.to(matrix), SIDE, rs));
    seq.rc(rep, "cuStreamSynchronize", 0, cuStreamSynchronize(s));
    float[] tripled = axpb(ramp(v + 9f), 3f, 0f);
    seq.check(rep, "x tripled, in page-locked memory", describe(tripled), describe(Sequence.floats(pinnedOut)));
    seq.check(rep, "x tripled plus one, in the Java array", describe(axpb(tripled, 1f, 1f)), describe(matrix));
    seq.rc(rep, "cublasSetStream legacy again", 0, cublasSetStream(handle, new cudaStream_t()));
    Sequence.release(pinnedIn, pinnedOut, x);
  }

  // ---- blas-batched

  private static final int BATCH = 4;

  /**
   * Batched GEMMs: {@code cublasSgemmBatched} on the legacy stream over matrices a blocking stream's
   * kernels wrote, named through device arrays of pointers; then {@code cublasSgemmStridedBatched}
   * on the handle's non-blocking stream after an event of that blocking stream, and one product
   * scaled on the blocking stream before the reads.
   */
  private static void blasBatched(Sequence seq, Sequence.Kernels k, cublasHandle handle, int rep, float v) {
    CUstream blocking = stream(0);
    CUstream nonBlocking = stream(NON_BLOCKING);
    CUevent e = event(0);
    CUdeviceptr as = alloc(BYTES * BATCH);
    CUdeviceptr bs = alloc(BYTES * BATCH);
    CUdeviceptr cs = alloc(BYTES * BATCH);
    CUdeviceptr strided = alloc(BYTES * BATCH);
    CUdeviceptr[] arrays = {alloc(8L * BATCH), alloc(8L * BATCH), alloc(8L * BATCH)};
    float[][] hostB = new float[BATCH][];
    for (int i = 0; i < BATCH; i++) {
      for (int j = 0; j < 3; j++) {
        CUdeviceptr base = j == 0 ? as : j == 1 ? bs : cs;
        // The pointer's value itself, as a program fills an array of device pointers.
        seq.rc(rep, "cuMemcpyHtoD pointer " + j + "," + i, 0,
            cuMemcpyHtoD(arrays[j].withByteOffset(8L * i), Pointer.to(base.withByteOffset(BYTES * i)), 8));
      }
      seq.rc(rep, "slow_fill A" + i + " on a blocking stream", 0,
          launch(k.slowFill(), blocking, as.withByteOffset(BYTES * i), v + i, N, seq.cycles / 4));
      hostB[i] = new float[N];
      for (int x = 0; x < N; x++) {
        hostB[i][x] = (x * 7 + i + rep) % 3;
      }
      seq.rc(rep, "cublasSetMatrix B" + i, 0,
          cublasSetMatrix(SIDE, SIDE, 4, Pointer.to(hostB[i]), SIDE, bs.withByteOffset(BYTES * i), SIDE));
    }
    seq.rc(rep, "cublasSetStream legacy", 0, cublasSetStream(handle, new cudaStream_t()));
    float[] one = {1f};
    float[] zero = {0f};
    seq.rc(rep, "cublasSgemmBatched on the legacy stream", 0, cublasSgemmBatched(handle, CUBLAS_OP_N, CUBLAS_OP_N,
        SIDE, SIDE, SIDE, Pointer.to(one), arrays[0], SIDE, arrays[1], SIDE, Pointer.to(zero), arrays[2], SIDE, BATCH));
    seq.rc(rep, "slow_axpb C2 on the blocking stream", 0,
        launch(k.slowAxpb(), blocking, cs.withByteOffset(BYTES * 2), 2f, 1f, N, seq.cycles));
    seq.rc(rep, "cuEventRecord", 0, cuEventRecord(e, blocking));
    seq.rc(rep, "cuStreamWaitEvent non-blocking", 0, cuStreamWaitEvent(nonBlocking, e, 0));
    seq.rc(rep, "cublasSetStream non-blocking", 0, cublasSetStream(handle, new cudaStream_t(nonBlocking)));
    float[] two = {2f};
    seq.rc(rep, "cublasSgemmStridedBatched on the non-blocking stream", 0, cublasSgemmStridedBatched(handle,
        CUBLAS_OP_N, CUBLAS_OP_N, SIDE, SIDE, SIDE, Pointer.to(two), cs, SIDE, N, bs, SIDE, N, Pointer.to(zero),
        strided, SIDE, N, BATCH));
    float[][] expectedC = new float[BATCH][];
    for (int i = 0; i < BATCH; i++) {
      float[] a = ramp(v + i);
      expectedC[i] = product(a, hostB[i]);
      if (i == 2) {
        expectedC[i] = axpb(expectedC[i], 2f, 1f);
      }
    }
    float[] out = new float[N];
    for (int i = 0; i < BATCH; i++) {
      seq.rc(rep, "cublasGetMatrix C" + i, 0,
          cublasGetMatrix(SIDE, SIDE, 4, cs.withByteOffset(BYTES * i), SIDE, Pointer.to(out), SIDE));
      seq.check(rep, "C" + i, describe(expectedC[i]), describe(out));
    }
    seq.rc(rep, "cuStreamSynchronize non-blocking", 0, cuStreamSynchronize(nonBlocking));
    for (int i = 0; i < BATCH; i++) {
      seq.rc(rep, "cublasGetVector strided product " + i, 0,
          cublasGetVector(N, 4, strided.withByteOffset(BYTES * i), 1, Pointer.to(out), 1));
      seq.check(rep, "2 C" + i + " B" + i, describe(axpb(product(expectedC[i], hostB[i]), 2f, 0f)), describe(out));
    }
    seq.rc(rep, "cublasSetStream legacy again", 0, cublasSetStream(handle, new cudaStream_t()));
    Sequence.release(as, bs, cs, strided, arrays[0], arrays[1], arrays[2], e, blocking, nonBlocking);
  }

  /** The column-major product of two {@link #SIDE}-square matrices. */
  private static float[] product(float[] a, float[] b) {
    float[] c = new float[SIDE * SIDE];
    for (int col = 0; col < SIDE; col++) {
      for (int row = 0; row < SIDE; row++) {
        float sum = 0f;
        for (int p = 0; p < SIDE; p++) {
          sum += a[row + p * SIDE] * b[p + col * SIDE];
        }
        c[row + col * SIDE] = sum;
      }
    }
    return c;
  }

  // ---- managed, managed-runtime

  /**
   * The sequence over managed memory: {@code driver}, from {@code cuMemAllocManaged} with {@code
   * CU_MEM_ATTACH_HOST}, which JCuda gives a host view (its buffer); else from {@code
   * cudaMallocManaged}, which it does not, read and written by synchronous copies.
   */
  private static void managed(Sequence seq, Sequence.Kernels k, int rep, float v, boolean driver) {
    CUstream s = stream(NON_BLOCKING);
    CUstream blocking = stream(0);
    CUevent e = event(0);
    Pointer m = allocManaged(seq, rep, driver);
    Pointer m2 = allocManaged(seq, rep, driver);
    CUdeviceptr d = alloc(BYTES);

    write(seq, rep, m, ramp(v), driver);
    seq.rc(rep, "slow_axpb m on a non-blocking stream", 0, launch(k.slowAxpb(), s, m, 2f, 1f, N, seq.cycles));
    seq.rc(rep, "cuStreamSynchronize", 0, cuStreamSynchronize(s));
    seq.check(rep, "m after the stream's synchronize", describe(axpb(ramp(v), 2f, 1f)), read(seq, rep, m, driver));

    write(seq, rep, m, ramp(v + 1f), driver);
    seq.rc(rep, "slow_axpb m again", 0, launch(k.slowAxpb(), s, m, 1f, 1f, N, seq.cycles));
    seq.rc(rep, "cuEventRecord", 0, cuEventRecord(e, s));
    seq.rc(rep, "cuEventSynchronize", 0, cuEventSynchronize(e));
    seq.check(rep, "m after the event's synchronize", describe(axpb(ramp(v + 1f), 1f, 1f)),
        read(seq, rep, m, driver));

    seq.rc(rep, "slow_fill m2 on a blocking stream", 0, launch(k.slowFill(), blocking, m2, v + 2f, N, seq.cycles));
    seq.rc(rep, "slow_axpb m2 on the legacy stream", 0, launch(k.slowAxpb(), null, m2, 2f, 0f, N, seq.cycles));
    seq.rc(rep, "cuCtxSynchronize", 0, cuCtxSynchronize());
    seq.check(rep, "m2 after the context's synchronize", describe(axpb(ramp(v + 2f), 2f, 0f)),
        read(seq, rep, m2, driver));

    seq.rc(rep, "synchronous copy into m", 0, copyIn(m, ramp(v + 3f), driver));
    // A copy from pageable memory may still be writing when it returns: a blocking stream follows it.
    seq.rc(rep, "slow_axpb m after the copy", 0, launch(k.slowAxpb(), blocking, m, 1f, 5f, N, seq.cycles));
    long deadline = System.nanoTime() + seq.timeoutMs * 1_000_000L;
    int code;
    while ((code = cuStreamQuery(blocking)) == CUresult.CUDA_ERROR_NOT_READY && System.nanoTime() < deadline) {
      Thread.onSpinWait();
    }
    seq.rc(rep, "cuStreamQuery", 0, code);
    seq.check(rep, "m after the query loop", describe(axpb(ramp(v + 3f), 1f, 5f)), read(seq, rep, m, driver));

    seq.rc(rep, "slow_fill d", 0, launch(k.slowFill(), s, d, v + 4f, N, seq.cycles));
    seq.rc(rep, "asynchronous copy m2 <- d", 0, driver ? cuMemcpyDtoDAsync((CUdeviceptr) m2, d, BYTES, s)
        : cudaMemcpyAsync(m2, d, BYTES, cudaMemcpyKind.cudaMemcpyDeviceToDevice, new cudaStream_t(s)));
    seq.rc(rep, "cuEventRecord after the copy", 0, cuEventRecord(e, s));
    seq.rc(rep, "cuStreamWaitEvent blocking", 0, cuStreamWaitEvent(blocking, e, 0));
    seq.rc(rep, "slow_axpb m2 on the blocking stream", 0, launch(k.slowAxpb(), blocking, m2, 3f, 0f, N, seq.cycles));
    float[] out = new float[N];
    seq.rc(rep, "synchronous copy out of m2", 0, copyOut(out, m2, driver));
    seq.check(rep, "m2 copied out synchronously", describe(axpb(ramp(v + 4f), 3f, 0f)), describe(out));
    if (driver) {
      seq.check(rep, "m2 read by the host", describe(out), read(seq, rep, m2, true));
    } else {
      prefetched(seq, k, s, d, rep, v);
    }
    seq.rc(rep, "free m", 0, driver ? cuMemFree((CUdeviceptr) m) : cudaFree(m));
    seq.rc(rep, "free m2", 0, driver ? cuMemFree((CUdeviceptr) m2) : cudaFree(m2));
    Sequence.release(d, e, s, blocking);
  }

  /** Managed memory of the driver API prefetched to the device on a stream, then written by a kernel there. */
  private static void prefetched(Sequence seq, Sequence.Kernels k, CUstream s, CUdeviceptr d, int rep, float v) {
    CUdeviceptr md = new CUdeviceptr();
    seq.rc(rep, "cuMemAllocManaged", 0, cuMemAllocManaged(md, BYTES, CUmemAttach_flags.CU_MEM_ATTACH_GLOBAL));
    seq.rc(rep, "cuMemcpyHtoD into it", 0, cuMemcpyHtoD(md, Pointer.to(ramp(v + 5f)), BYTES));
    seq.rc(rep, "cuMemPrefetchAsync to the device", 0, cuMemPrefetchAsync(md, BYTES, seq.device, s));
    seq.rc(rep, "slow_axpb md", 0, launch(k.slowAxpb(), s, md, 2f, 2f, N, seq.cycles));
    seq.rc(rep, "cuMemcpyDtoDAsync d <- md", 0, cuMemcpyDtoDAsync(d, md, BYTES, s));
    seq.rc(rep, "cuStreamSynchronize after the copy", 0, cuStreamSynchronize(s));
    seq.check(rep, "md through d", describe(axpb(ramp(v + 5f), 2f, 2f)), describe(Sequence.read(d)));
    cuMemFree(md);
  }

  private static Pointer allocManaged(Sequence seq, int rep, boolean driver) {
    if (driver) {
      CUdeviceptr m = new CUdeviceptr();
      seq.rc(rep, "cuMemAllocManaged", 0, cuMemAllocManaged(m, BYTES, CUmemAttach_flags.CU_MEM_ATTACH_HOST));
      return m;
    }
    Pointer m = new Pointer();
    seq.rc(rep, "cudaMallocManaged", 0, cudaMallocManaged(m, BYTES, cudaMemAttachGlobal));
    return m;
  }

  /** A synchronous copy of {@link Sequence#BYTES} from a Java array into managed memory. */
  private static int copyIn(Pointer m, float[] values, boolean driver) {
    return driver ? cuMemcpyHtoD((CUdeviceptr) m, Pointer.to(values), BYTES)
        : cudaMemcpy(m, Pointer.to(values), BYTES, cudaMemcpyKind.cudaMemcpyHostToDevice);
  }

  /** A synchronous copy of {@link Sequence#BYTES} from managed memory into a Java array. */
  private static int copyOut(float[] values, Pointer m, boolean driver) {
    return driver ? cuMemcpyDtoH(Pointer.to(values), (CUdeviceptr) m, BYTES)
        : cudaMemcpy(Pointer.to(values), m, BYTES, cudaMemcpyKind.cudaMemcpyDeviceToHost);
  }

  private static void write(Sequence seq, int rep, Pointer m, float[] values, boolean driver) {
    if (driver) {
      m.getByteBuffer(0, BYTES).order(ByteOrder.nativeOrder()).asFloatBuffer().put(0, values);
    } else {
      seq.rc(rep, "cudaMemcpy into managed memory", 0, copyIn(m, values, false));
    }
  }

  private static String read(Sequence seq, int rep, Pointer m, boolean driver) {
    float[] values = new float[N];
    if (driver) {
      m.getByteBuffer(0, BYTES).order(ByteOrder.nativeOrder()).asFloatBuffer().get(0, values);
    } else {
      seq.rc(rep, "cudaMemcpy out of managed memory", 0, copyOut(values, m, false));
    }
    return describe(values);
  }
}
