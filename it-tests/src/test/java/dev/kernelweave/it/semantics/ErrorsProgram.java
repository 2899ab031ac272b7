package dev.kernelweave.it.semantics;

import static dev.kernelweave.it.semantics.Sequence.BLOCKS;
import static dev.kernelweave.it.semantics.Sequence.BYTES;
import static dev.kernelweave.it.semantics.Sequence.N;
import static dev.kernelweave.it.semantics.Sequence.THREADS;
import static dev.kernelweave.it.semantics.Sequence.alloc;
import static dev.kernelweave.it.semantics.Sequence.allocHost;
import static dev.kernelweave.it.semantics.Sequence.stream;
import static jcuda.driver.JCudaDriver.cuLaunchKernel;
import static jcuda.driver.JCudaDriver.cuMemcpyDtoD;
import static jcuda.driver.JCudaDriver.cuMemcpyDtoH;
import static jcuda.driver.JCudaDriver.cuMemcpyDtoHAsync;
import static jcuda.driver.JCudaDriver.cuMemcpyHtoD;
import static jcuda.driver.JCudaDriver.cuMemcpyHtoDAsync;
import static jcuda.driver.JCudaDriver.cuMemsetD32Async;
import static jcuda.driver.JCudaDriver.cuStreamSynchronize;

import java.util.Map;
import jcuda.Pointer;
import jcuda.driver.CUdeviceptr;
import jcuda.driver.CUfunction;
import jcuda.driver.CUstream;

/**
 * Calls CUDA refuses at once (a bad launch configuration, copies and memsets past the end of an
 * allocation) among good work: each must return an error, the same code with the agent as without
 * it (the return codes are printed), and the good work around it must run as written. After a run of
 * 16 launches (so that {@code engage=auto} schedules the rest):
 *
 * <ul>
 *   <li>{@code bad-launch}: 20 launches of one kernel in a row on a stream (what the agent may hold
 *       and replay as a graph), then launches of the same kernel with 2048 threads a block, with a
 *       grid of 0 blocks, and with 64 KiB of dynamic shared memory, then good launches again: every
 *       good launch's values read back.
 *   <li>{@code bad-copy}: a synchronous upload from a Java array, a synchronous read into one, an
 *       asynchronous upload from and read into page-locked memory, a device-to-device copy and a
 *       memset, each 4 bytes past the end of the allocation; then good copies and a kernel.
 * </ul>
 */
public final class ErrorsProgram {

  public static void main(String[] args) throws Exception {
    Sequence.repeatEngaged(args, "bad-launch", 13f, Map.of(
        "bad-launch", (q, k, rep, v) -> badLaunch(q, rep, v, k.slowFill(), k.slowAxpb()),
        "bad-copy", (q, k, rep, v) -> badCopy(q, rep, v, k.slowAxpb())));
  }


  private static int launch(CUfunction f, int blocks, int threads, int shared, CUstream s, CUdeviceptr y, float a,
      float b, long cycles) {
    Pointer params = Pointer.to(Pointer.to(y), Pointer.to(new float[] {a}), Pointer.to(new float[] {b}),
        Pointer.to(new int[] {N}), Pointer.to(new long[] {cycles}));
    return cuLaunchKernel(f, blocks, 1, 1, threads, 1, 1, shared, s, params, null);
  }

  /** The code of a call CUDA must refuse, printed; and whether it was refused. */
  private static void refused(Sequence seq, int rep, String call, int code) {
    seq.rc(call, code);
    seq.check(rep, call + " refused", true, code != 0);
  }

  private static void badLaunch(Sequence seq, int rep, float v, CUfunction slowFill, CUfunction slowAxpb) {
    CUstream s = stream(0);
    CUdeviceptr y = alloc(BYTES);
    seq.rc(rep, "slow_fill", 0, Sequence.launch(slowFill, s, y, v, N, seq.cycles));
    float[] expected = Sequence.ramp(v);
    for (int k = 0; k < 20; k++) {
      seq.rc(rep, "slow_axpb " + k, 0, launch(slowAxpb, BLOCKS, THREADS, 0, s, y, 1f, 1f, seq.cycles / 20));
    }
    for (int i = 0; i < N; i++) {
      expected[i] += 20f;
    }
    refused(seq, rep, "slow_axpb with 2048 threads a block", launch(slowAxpb, 1, 2048, 0, s, y, 100f, 100f, 0L));
    refused(seq, rep, "slow_axpb with no block", launch(slowAxpb, 0, THREADS, 0, s, y, 100f, 100f, 0L));
    refused(seq, rep, "slow_axpb with 64 KiB of dynamic shared memory",
        launch(slowAxpb, BLOCKS, THREADS, 64 * 1024, s, y, 100f, 100f, 0L));
    for (int k = 0; k < 3; k++) {
      seq.rc(rep, "slow_axpb after " + k, 0, launch(slowAxpb, BLOCKS, THREADS, 0, s, y, 2f, 0f, seq.cycles / 20));
    }
    for (int i = 0; i < N; i++) {
      expected[i] *= 8f;
    }
    seq.rc(rep, "cuStreamSynchronize", 0, cuStreamSynchronize(s));
    seq.check(rep, "y", Sequence.describe(expected), Sequence.describe(Sequence.read(y)));
    Sequence.release(y, s);
  }

  private static void badCopy(Sequence seq, int rep, float v, CUfunction slowAxpb) {
    CUstream s = stream(0);
    CUdeviceptr a = alloc(BYTES);
    CUdeviceptr b = alloc(BYTES);
    Pointer pinned = allocHost(BYTES + 4);
    float[] big = new float[N + 1];
    float[] in = Sequence.ramp(v);
    seq.rc(rep, "cuMemcpyHtoD", 0, cuMemcpyHtoD(a, Pointer.to(in), BYTES));
    refused(seq, rep, "cuMemcpyHtoD past the end", cuMemcpyHtoD(a, Pointer.to(big), BYTES + 4));
    refused(seq, rep, "cuMemcpyDtoH past the end", cuMemcpyDtoH(Pointer.to(big), a, BYTES + 4));
    refused(seq, rep, "cuMemcpyHtoDAsync past the end", cuMemcpyHtoDAsync(a, pinned, BYTES + 4, s));
    refused(seq, rep, "cuMemcpyDtoHAsync past the end", cuMemcpyDtoHAsync(pinned, a, BYTES + 4, s));
    refused(seq, rep, "cuMemcpyDtoD past the end", cuMemcpyDtoD(b, a, BYTES + 4));
    refused(seq, rep, "cuMemsetD32Async past the end", cuMemsetD32Async(a, 0, N + 1, s));
    seq.rc(rep, "slow_axpb", 0, Sequence.launch(slowAxpb, s, a, 2f, 1f, N, seq.cycles));
    seq.rc(rep, "cuMemcpyDtoD", 0, cuMemcpyDtoD(b, a, BYTES));
    float[] expected = Sequence.axpb(Sequence.ramp(v), 2f, 1f);
    seq.check(rep, "a", Sequence.describe(expected), Sequence.describe(Sequence.read(a)));
    seq.check(rep, "b", Sequence.describe(expected), Sequence.describe(Sequence.read(b)));
    cuStreamSynchronize(s);
    Sequence.release(pinned, a, b, s);
  }
}
