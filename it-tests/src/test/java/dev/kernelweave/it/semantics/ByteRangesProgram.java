package dev.kernelweave.it.semantics;

import static dev.kernelweave.it.semantics.Sequence.N;
import static dev.kernelweave.it.semantics.Sequence.alloc;
import static dev.kernelweave.it.semantics.Sequence.allocHost;
import static dev.kernelweave.it.semantics.Sequence.event;
import static dev.kernelweave.it.semantics.Sequence.stream;
import static jcuda.driver.JCudaDriver.cuEventRecord;
import static jcuda.driver.JCudaDriver.cuMemcpyDtoD;
import static jcuda.driver.JCudaDriver.cuMemcpyDtoDAsync;
import static jcuda.driver.JCudaDriver.cuMemcpyDtoH;
import static jcuda.driver.JCudaDriver.cuMemcpyDtoHAsync;
import static jcuda.driver.JCudaDriver.cuMemsetD32Async;
import static jcuda.driver.JCudaDriver.cuStreamSynchronize;
import static jcuda.driver.JCudaDriver.cuStreamWaitEvent;

import java.util.Arrays;
import java.util.Map;
import jcuda.Pointer;
import jcuda.driver.CUdeviceptr;
import jcuda.driver.CUevent;
import jcuda.driver.CUfunction;
import jcuda.driver.CUstream;

/**
 * Kernels, copies and memsets on byte ranges of one allocation through pointers at offsets into it
 * ({@code CUdeviceptr.withByteOffset}), ranges that overlap, touch or straddle one another; the
 * expected contents are computed on the host step by step. After a run of 16 launches (so that
 * {@code engage=auto} schedules the rest):
 *
 * <ul>
 *   <li>{@code one-stream}: on one blocking stream, a fill of the first third, a device-to-device copy
 *       of it into the second third, a scale of the middle (half in each), a copy of a range across
 *       the second third's end into another buffer, a fill of the last third, a memset inside it, a
 *       scale across the second third's end, then a synchronous device-to-device copy on the legacy
 *       stream from the last third to the start; all read back.
 *   <li>{@code two-streams}: two non-blocking streams fill the two halves of a buffer; the second
 *       waits for an event of the first and scales a range across the boundary, then copies the
 *       buffer into page-locked memory and is synchronized.
 * </ul>
 */
public final class ByteRangesProgram {

  public static void main(String[] args) throws Exception {
    Sequence.repeatEngaged(args, "one-stream", 11f, Map.of(
        "one-stream", (q, k, rep, v) -> oneStream(q, rep, v, k.slowFill(), k.slowAxpb()),
        "two-streams", (q, k, rep, v) -> twoStreams(q, rep, v, k.slowFill(), k.slowAxpb())));
  }


  private static CUdeviceptr at(CUdeviceptr base, int floats) {
    return base.withByteOffset(4L * floats);
  }

  private static void fill(float[] host, int from, float value) {
    for (int i = 0; i < N; i++) {
      host[from + i] = value + i;
    }
  }

  private static void axpb(float[] host, int from, float a, float b) {
    for (int i = 0; i < N; i++) {
      host[from + i] = a * host[from + i] + b;
    }
  }

  private static String describe(float[] values) {
    return values[0] + ".." + values[values.length - 1] + " "
        + dev.kernelweave.it.agent.SmokePrograms.checksum(values).substring(0, 16);
  }

  private static void oneStream(Sequence seq, int rep, float v, CUfunction slowFill, CUfunction slowAxpb) {
    CUstream s = stream(0);
    CUdeviceptr a = alloc(4L * 3 * N);
    CUdeviceptr b = alloc(4L * N);
    float[] expected = new float[3 * N];
    float[] expectedB = new float[N];
    // The allocation starts with NaNs on the stand-in and anything on a GPU: set it first.
    seq.rc(rep, "cuMemsetD32Async whole", 0, cuMemsetD32Async(a, Float.floatToRawIntBits(-1f), 3 * N, s));
    Arrays.fill(expected, -1f);
    seq.rc(rep, "slow_fill [0, N)", 0, Sequence.launch(slowFill, s, a, v, N, seq.cycles));
    fill(expected, 0, v);
    seq.rc(rep, "cuMemcpyDtoDAsync [0, N) to [N, 2N)", 0, cuMemcpyDtoDAsync(at(a, N), a, 4L * N, s));
    System.arraycopy(expected, 0, expected, N, N);
    seq.rc(rep, "slow_axpb [N/2, 3N/2)", 0, Sequence.launch(slowAxpb, s, at(a, N / 2), 2f, 1f, N, seq.cycles));
    axpb(expected, N / 2, 2f, 1f);
    int from = 2 * N - N / 4;
    seq.rc(rep, "cuMemcpyDtoDAsync [7N/4, 11N/4) to b", 0, cuMemcpyDtoDAsync(b, at(a, from), 4L * N, s));
    // What the copy reads of the last third is still -1: the fill below comes after it.
    System.arraycopy(expected, from, expectedB, 0, N);
    seq.rc(rep, "slow_fill [2N, 3N)", 0, Sequence.launch(slowFill, s, at(a, 2 * N), v + 5, N, seq.cycles));
    fill(expected, 2 * N, v + 5);
    seq.rc(rep, "cuMemsetD32Async [2N+100, 2N+110)", 0,
        cuMemsetD32Async(at(a, 2 * N + 100), Float.floatToRawIntBits(7f), 10, s));
    Arrays.fill(expected, 2 * N + 100, 2 * N + 110, 7f);
    seq.rc(rep, "slow_axpb [3N/2, 5N/2)", 0, Sequence.launch(slowAxpb, s, at(a, 3 * N / 2), 1f, 1f, N, seq.cycles));
    axpb(expected, 3 * N / 2, 1f, 1f);
    seq.rc(rep, "cuMemcpyDtoD [2N, 2N+N/4) to [0, N/4)", 0, cuMemcpyDtoD(a, at(a, 2 * N), 4L * (N / 4)));
    System.arraycopy(expected, 2 * N, expected, 0, N / 4);
    float[] back = new float[3 * N];
    seq.rc(rep, "cuMemcpyDtoH a", 0, cuMemcpyDtoH(Pointer.to(back), a, 4L * 3 * N));
    seq.check(rep, "a", describe(expected), describe(back));
    float[] backB = new float[N];
    seq.rc(rep, "cuMemcpyDtoH b", 0, cuMemcpyDtoH(Pointer.to(backB), b, 4L * N));
    seq.check(rep, "b", describe(expectedB), describe(backB));
    Sequence.release(a, b, s);
  }

  private static void twoStreams(Sequence seq, int rep, float v, CUfunction slowFill, CUfunction slowAxpb) {
    CUstream s1 = stream(1);
    CUstream s2 = stream(1);
    CUevent e = event(0);
    CUdeviceptr c = alloc(4L * 2 * N);
    Pointer pinned = allocHost(4L * 2 * N);
    float[] expected = new float[2 * N];
    seq.rc(rep, "slow_fill [0, N) on s1", 0, Sequence.launch(slowFill, s1, c, v, N, seq.cycles));
    fill(expected, 0, v);
    seq.rc(rep, "slow_fill [N, 2N) on s2", 0, Sequence.launch(slowFill, s2, at(c, N), v + 3, N, seq.cycles));
    fill(expected, N, v + 3);
    seq.rc(rep, "cuEventRecord s1", 0, cuEventRecord(e, s1));
    seq.rc(rep, "cuStreamWaitEvent s2", 0, cuStreamWaitEvent(s2, e, 0));
    seq.rc(rep, "slow_axpb [N/2, 3N/2) on s2", 0, Sequence.launch(slowAxpb, s2, at(c, N / 2), -1f, 0.5f, N, seq.cycles));
    axpb(expected, N / 2, -1f, 0.5f);
    seq.rc(rep, "cuMemcpyDtoHAsync on s2", 0, cuMemcpyDtoHAsync(pinned, c, 4L * 2 * N, s2));
    seq.rc(rep, "cuStreamSynchronize s2", 0, cuStreamSynchronize(s2));
    float[] back = new float[2 * N];
    pinned.getByteBuffer(0, 4L * 2 * N).order(java.nio.ByteOrder.nativeOrder()).asFloatBuffer().get(back);
    seq.check(rep, "c", describe(expected), describe(back));
    cuStreamSynchronize(s1);
    Sequence.release(e, pinned, c, s1, s2);
  }
}
