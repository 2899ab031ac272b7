package dev.kernelweave.it.semantics;

import static dev.kernelweave.it.semantics.Sequence.BLOCKS;
import static dev.kernelweave.it.semantics.Sequence.BYTES;
import static dev.kernelweave.it.semantics.Sequence.N;
import static dev.kernelweave.it.semantics.Sequence.THREADS;
import static jcuda.driver.JCudaDriver.cuCtxCreate;
import static jcuda.driver.JCudaDriver.cuCtxDestroy;
import static jcuda.driver.JCudaDriver.cuCtxGetCurrent;
import static jcuda.driver.JCudaDriver.cuCtxSetCurrent;
import static jcuda.driver.JCudaDriver.cuCtxSynchronize;
import static jcuda.driver.JCudaDriver.cuDevicePrimaryCtxRelease;
import static jcuda.driver.JCudaDriver.cuEventCreate;
import static jcuda.driver.JCudaDriver.cuEventQuery;
import static jcuda.driver.JCudaDriver.cuEventRecord;
import static jcuda.driver.JCudaDriver.cuStreamCreate;
import static jcuda.driver.JCudaDriver.cuFuncSetAttribute;
import static jcuda.driver.JCudaDriver.cuLaunchKernel;
import static jcuda.driver.JCudaDriver.cuMemAlloc;
import static jcuda.driver.JCudaDriver.cuMemFree;
import static jcuda.driver.JCudaDriver.cuMemcpyPeer;
import static jcuda.driver.JCudaDriver.cuMemsetD32;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import jcuda.Pointer;
import jcuda.driver.CUcontext;
import jcuda.driver.CUdeviceptr;
import jcuda.driver.CUevent;
import jcuda.driver.CUresult;
import jcuda.driver.CUstream;
import jcuda.driver.CUstream_flags;
import jcuda.driver.CUfunction;
import jcuda.driver.CUfunction_attribute;

/**
 * Launches the agent holds for a graph (a window seen three times is held the fourth), then a call
 * that must find them issued, or must not find a launch held at all, as without the agent:
 *
 * <ul>
 *   <li>{@code sticky}: a kernel faults; once a synchronization returned the sticky error, the next
 *       launch of a known window returns it too (it must be made, not held);
 *   <li>{@code query}: a kernel faults while held; the program polls an event of earlier work, a call
 *       that never waits: it must see the sticky error once the kernel ran, as without the agent
 *       (held work is issued before any call that may report its error, and at a deadline);
 *   <li>{@code attribute}: a function's maximum dynamic shared memory is lowered; a configuration
 *       that launched before must now return CUDA's error (it must be made, not held);
 *   <li>{@code release}: the primary context released to zero (destroyed), retained again, and the
 *       same kernels launched: nothing of the old context (graphs, streams) may be used;
 *   <li>{@code thread-release}: a launch held when another thread, with no context current, releases
 *       the primary context for the last time: it must run before the context ends (the stand-in
 *       driver counts the kernels run when a context ends, {@code KW_CPU_DEVICE_KERNELS_FILE});
 *   <li>{@code peer}: a launch held in a second context, then a peer copy from it made in the
 *       primary context: the copy must find the launch done.
 * </ul>
 */
public final class HeldLaunchProgram {

  private static final int MAX_DYNAMIC_SHARED = CUfunction_attribute.CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES;
  /** More dynamic shared memory than a function may use by default (48 KiB). */
  private static final int LARGE_SHARED = 60_000;
  /** Iterations that make a window known: the next is held. */
  private static final int WARM = 3;

  public static void main(String[] args) throws Exception {
    Sequence seq = Sequence.start(args, "sticky");
    seq.repeat(rep -> {
      switch (seq.variant) {
        case "sticky" -> sticky(seq, rep);
        case "query" -> query(seq, rep);
        case "attribute" -> attribute(seq, rep);
        case "release" -> release(seq, rep);
        case "thread-release" -> threadRelease(seq, rep);
        case "peer" -> peer(seq, rep);
        default -> throw new IllegalArgumentException("unknown variant " + seq.variant);
      }
    });
  }

  /** slow_fill then slow_axpb (doubles) on x, read back: {@link #WARM} times, a known window. */
  private static void warm(Sequence seq, int rep, String p, CUfunction fill, CUfunction axpb, CUdeviceptr x,
      float value, int shared) {
    for (int it = 0; it < WARM; it++) {
      seq.rc(rep, p + "slow_fill " + it, 0, Sequence.launch(fill, null, x, value, N, seq.cycles));
      seq.rc(rep, p + "slow_axpb " + it, 0, launch(axpb, shared, x, 2f, 0f, N, seq.cycles));
      seq.check(rep, p + "x " + it, Sequence.describe(doubled(value)), Sequence.describe(Sequence.read(x)));
    }
  }

  /**
   * Allocates x (zeros) and a flag (clear), and makes {trap_if, slow_axpb} a known window; then sets
   * the flag, so that the next trap_if faults. Returns x and the flag.
   */
  private static CUdeviceptr[] armFault(Sequence seq, int rep, CUfunction trap, CUfunction axpb) {
    CUdeviceptr x = new CUdeviceptr();
    CUdeviceptr flag = new CUdeviceptr();
    seq.rc(rep, "cuMemAlloc x", 0, cuMemAlloc(x, BYTES));
    seq.rc(rep, "cuMemAlloc flag", 0, cuMemAlloc(flag, 4));
    seq.rc(rep, "cuMemsetD32 x", 0, cuMemsetD32(x, 0, N));
    seq.rc(rep, "cuMemsetD32 flag", 0, cuMemsetD32(flag, 0, 1));
    for (int it = 0; it < WARM; it++) {
      seq.rc(rep, "trap_if " + it, 0, Sequence.launch(trap, null, x, flag, N, seq.cycles));
      seq.rc(rep, "slow_axpb " + it, 0, Sequence.launch(axpb, null, x, 1f, 0f, N, seq.cycles));
      float[] expected = new float[N];
      Arrays.fill(expected, it + 1);
      seq.check(rep, "x " + it, Sequence.describe(expected), Sequence.describe(Sequence.read(x)));
    }
    seq.rc(rep, "cuMemsetD32 flag to fault", 0, cuMemsetD32(flag, 1, 1));
    return new CUdeviceptr[] {x, flag};
  }

  /**
   * After a fault the process's CUDA is unusable: a GPU returns the sticky error from every later
   * call, a reset included, until the process ends. The program ends here, once the fault has been
   * observed: one repetition each way.
   */
  private static void endAfterFault() {
    System.out.flush();
    System.exit(0);
  }

  private static void sticky(Sequence seq, int rep) throws Exception {
    CUfunction trap = Sequence.function(Sequence.loadSemantics(), "trap_if");
    CUfunction axpb = Sequence.function(Sequence.loadSemantics(), "slow_axpb");
    CUdeviceptr[] armed = armFault(seq, rep, trap, axpb);
    CUdeviceptr x = armed[0];
    CUdeviceptr flag = armed[1];
    seq.rc(rep, "trap_if faulting", 0, Sequence.launch(trap, null, x, flag, N, seq.cycles));
    seq.rc(rep, "slow_axpb after the fault", 0, Sequence.launch(axpb, null, x, 1f, 0f, N, seq.cycles));
    seq.check(rep, "cuCtxSynchronize returned an error", true, cuCtxSynchronize() != 0);
    seq.check(rep, "the next launch returned the sticky error", true,
        Sequence.launch(trap, null, x, flag, N, seq.cycles) != 0);
    endAfterFault();
  }

  private static void query(Sequence seq, int rep) throws Exception {
    CUfunction trap = Sequence.function(Sequence.loadSemantics(), "trap_if");
    CUfunction axpb = Sequence.function(Sequence.loadSemantics(), "slow_axpb");
    CUfunction fill = Sequence.function(Sequence.loadSemantics(), "slow_fill");
    CUdeviceptr y = new CUdeviceptr();
    seq.rc(rep, "cuMemAlloc y", 0, cuMemAlloc(y, BYTES));
    CUdeviceptr[] armed = armFault(seq, rep, trap, axpb);
    CUstream s = new CUstream();
    seq.rc(rep, "cuStreamCreate", 0, cuStreamCreate(s, CUstream_flags.CU_STREAM_NON_BLOCKING));
    CUevent event = new CUevent();
    seq.rc(rep, "cuEventCreate", 0, cuEventCreate(event, 0));
    seq.rc(rep, "slow_fill on s", 0, Sequence.launch(fill, s, y, 1f, N, seq.cycles));
    seq.rc(rep, "cuEventRecord on s", 0, cuEventRecord(event, s));
    seq.rc(rep, "trap_if faulting", 0, Sequence.launch(trap, null, armed[0], armed[1], N, seq.cycles));
    // Poll, as a program that overlaps host work would: the fault must show, as without the agent.
    long until = System.nanoTime() + seq.timeoutMs * 1_000_000L;
    int code;
    do {
      code = cuEventQuery(event);
    } while ((code == 0 || code == CUresult.CUDA_ERROR_NOT_READY) && System.nanoTime() < until);
    seq.check(rep, "a query saw the sticky error", true, code != 0 && code != CUresult.CUDA_ERROR_NOT_READY);
    endAfterFault();
  }

  private static void attribute(Sequence seq, int rep) throws Exception {
    CUfunction fill = Sequence.function(Sequence.loadSemantics(), "slow_fill");
    CUfunction axpb = Sequence.function(Sequence.loadSemantics(), "slow_axpb");
    CUdeviceptr x = new CUdeviceptr();
    seq.rc(rep, "cuMemAlloc", 0, cuMemAlloc(x, BYTES));
    seq.rc(rep, "cuFuncSetAttribute 64 KiB", 0, cuFuncSetAttribute(axpb, MAX_DYNAMIC_SHARED, 64 * 1024));
    float value = 10f * rep;
    warm(seq, rep, "", fill, axpb, x, value, LARGE_SHARED);
    seq.rc(rep, "cuFuncSetAttribute 16 KiB", 0, cuFuncSetAttribute(axpb, MAX_DYNAMIC_SHARED, 16 * 1024));
    // The window's launches again, arguments and all: held where the window is known.
    seq.rc(rep, "slow_fill after the change", 0, Sequence.launch(fill, null, x, value, N, seq.cycles));
    seq.check(rep, "slow_axpb with more shared memory than allowed now returned an error", true,
        launch(axpb, LARGE_SHARED, x, 2f, 0f, N, seq.cycles) != 0);
    seq.check(rep, "x filled, not doubled", Sequence.describe(Sequence.ramp(value)),
        Sequence.describe(Sequence.read(x)));
    seq.rc(rep, "cuMemFree", 0, cuMemFree(x));
  }

  private static void release(Sequence seq, int rep) throws Exception {
    for (int phase = 0; phase < 2; phase++) {
      String p = "phase " + phase + ": ";
      CUfunction fill = Sequence.function(Sequence.loadSemantics(), "slow_fill");
      CUfunction axpb = Sequence.function(Sequence.loadSemantics(), "slow_axpb");
      CUdeviceptr x = new CUdeviceptr();
      seq.rc(rep, p + "cuMemAlloc", 0, cuMemAlloc(x, BYTES));
      warm(seq, rep, p, fill, axpb, x, 100f * rep + phase, 0);
      seq.rc(rep, p + "cuMemFree", 0, cuMemFree(x));
      if (phase == 0) {
        // The only retain is released: the primary context is destroyed with all it held.
        seq.rc(rep, "cuDevicePrimaryCtxRelease", 0, cuDevicePrimaryCtxRelease(seq.device));
        seq.retainPrimary();
      }
    }
  }

  private static void threadRelease(Sequence seq, int rep) throws Exception {
    CUfunction fill = Sequence.function(Sequence.loadSemantics(), "slow_fill");
    CUfunction axpb = Sequence.function(Sequence.loadSemantics(), "slow_axpb");
    CUdeviceptr x = new CUdeviceptr();
    seq.rc(rep, "cuMemAlloc", 0, cuMemAlloc(x, BYTES));
    warm(seq, rep, "", fill, axpb, x, 5f * rep, 0);
    seq.rc(rep, "slow_fill before the release", 0, Sequence.launch(fill, null, x, 5f * rep, N, seq.cycles));
    int[] released = {-1};
    Thread other = new Thread(() -> released[0] = cuDevicePrimaryCtxRelease(seq.device), "releases");
    other.start();
    other.join();
    seq.rc(rep, "cuDevicePrimaryCtxRelease on a thread with no context", 0, released[0]);
    seq.check(rep, "kernels run when the context ended", kernelsRunExpected(rep), kernelsRun());
    seq.retainPrimary();
  }

  /** What the stand-in driver wrote when the context ended: every kernel of every repetition so far. */
  private static String kernelsRunExpected(int rep) {
    return System.getenv("KW_CPU_DEVICE_KERNELS_FILE") == null ? "unknown" : Integer.toString((rep + 1) * (2 * WARM + 1));
  }

  private static String kernelsRun() throws Exception {
    String file = System.getenv("KW_CPU_DEVICE_KERNELS_FILE");
    return file == null ? "unknown" : Files.readString(Path.of(file)).trim();
  }

  private static void peer(Sequence seq, int rep) throws Exception {
    CUcontext primary = new CUcontext();
    seq.rc(rep, "cuCtxGetCurrent", 0, cuCtxGetCurrent(primary));
    CUcontext other = new CUcontext();
    seq.rc(rep, "cuCtxCreate", 0, cuCtxCreate(other, 0, seq.device));
    CUfunction fill = Sequence.function(Sequence.loadSemantics(), "slow_fill");
    CUfunction axpb = Sequence.function(Sequence.loadSemantics(), "slow_axpb");
    CUdeviceptr x = new CUdeviceptr();
    seq.rc(rep, "cuMemAlloc in the other context", 0, cuMemAlloc(x, BYTES));
    float value = 3f * rep;
    warm(seq, rep, "", fill, axpb, x, value, 0);
    seq.rc(rep, "slow_fill before the peer copy", 0, Sequence.launch(fill, null, x, value, N, seq.cycles));
    seq.rc(rep, "cuCtxSetCurrent primary", 0, cuCtxSetCurrent(primary));
    CUdeviceptr y = new CUdeviceptr();
    seq.rc(rep, "cuMemAlloc in the primary context", 0, cuMemAlloc(y, BYTES));
    seq.rc(rep, "cuMemcpyPeer", 0, cuMemcpyPeer(y, primary, x, other, BYTES));
    seq.check(rep, "y: filled, not yet doubled", Sequence.describe(Sequence.ramp(value)),
        Sequence.describe(Sequence.read(y)));
    seq.rc(rep, "cuMemFree y", 0, cuMemFree(y));
    seq.rc(rep, "cuCtxSetCurrent other", 0, cuCtxSetCurrent(other));
    seq.rc(rep, "cuMemFree x", 0, cuMemFree(x));
    seq.rc(rep, "cuCtxDestroy", 0, cuCtxDestroy(other));
    seq.rc(rep, "cuCtxSetCurrent primary again", 0, cuCtxSetCurrent(primary));
  }

  private static float[] doubled(float value) {
    float[] v = Sequence.ramp(value);
    for (int i = 0; i < N; i++) {
      v[i] *= 2f;
    }
    return v;
  }

  /** {@link Sequence#launch} with {@code shared} bytes of dynamic shared memory. */
  private static int launch(CUfunction f, int shared, Object... args) {
    Pointer[] params = new Pointer[args.length];
    for (int i = 0; i < args.length; i++) {
      Object a = args[i];
      params[i] = a instanceof CUdeviceptr p ? Pointer.to(p)
          : a instanceof Float v ? Pointer.to(new float[] {v})
          : a instanceof Integer v ? Pointer.to(new int[] {v})
          : Pointer.to(new long[] {(Long) a});
    }
    return cuLaunchKernel(f, BLOCKS, 1, 1, THREADS, 1, 1, shared, null, Pointer.to(params), null);
  }
}
