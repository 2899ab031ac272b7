package dev.kernelweave.it.semantics;

import static dev.kernelweave.it.semantics.Sequence.BYTES;
import static dev.kernelweave.it.semantics.Sequence.N;
import static dev.kernelweave.it.semantics.Sequence.alloc;
import static dev.kernelweave.it.semantics.Sequence.stream;
import static jcuda.driver.JCudaDriver.cuCtxGetCurrent;
import static jcuda.driver.JCudaDriver.cuCtxSetCurrent;

import dev.kernelweave.it.semantics.Sequence.Kernels;
import java.util.concurrent.CountDownLatch;
import jcuda.driver.CUcontext;
import jcuda.driver.CUdeviceptr;
import jcuda.driver.CUfunction;
import jcuda.driver.CUstream;

/**
 * The program ends with device work in flight, and a shutdown hook of its own reads the results:
 * a synchronous read in the hook completes, as CUDA orders it, all earlier work of the legacy and
 * blocking streams. One buffer per repetition, each filled and then scaled 20 times on a stream of
 * its own (what an agent may hold as a window of launches), none synchronized before the exit.
 * After a run of 16 launches (so that {@code engage=auto} schedules the rest):
 *
 * <ul>
 *   <li>{@code exit-main}: the main thread calls {@code System.exit} right after the launches.
 *   <li>{@code exit-other-thread}: another thread calls {@code System.exit} once the main thread,
 *       through a latch, says the launches are made; the main thread then waits forever.
 * </ul>
 */
public final class ExitProgram {

  public static void main(String[] args) throws Exception {
    Sequence seq = Sequence.start(args, "exit-main");
    Kernels kernels = Kernels.load();
    CUfunction slowFill = kernels.slowFill();
    CUfunction slowAxpb = kernels.slowAxpb();
    Sequence.engagingRun(slowFill);
    CUcontext context = new CUcontext();
    cuCtxGetCurrent(context);
    CUdeviceptr[] buffers = new CUdeviceptr[seq.reps];
    Runtime.getRuntime().addShutdownHook(new Thread(() -> {
      cuCtxSetCurrent(context);
      for (int rep = 0; rep < buffers.length; rep++) {
        float[] expected = Sequence.axpb(Sequence.ramp(rep), 1f, 20f);
        seq.check(rep, "read in the shutdown hook", Sequence.describe(expected), Sequence.describe(Sequence.read(buffers[rep])));
      }
      System.out.flush();
    }, "reads-at-exit"));
    for (int rep = 0; rep < buffers.length; rep++) {
      buffers[rep] = alloc(BYTES);
    }
    CountDownLatch launched = new CountDownLatch(1);
    if (seq.variant.equals("exit-other-thread")) {
      new Thread(() -> {
        try {
          launched.await();
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
        System.exit(0);
      }, "exits").start();
    } else if (!seq.variant.equals("exit-main")) {
      throw new IllegalArgumentException("unknown variant " + seq.variant);
    }
    for (int rep = 0; rep < buffers.length; rep++) {
      CUstream s = stream(0);
      seq.rc(rep, "slow_fill", 0, Sequence.launch(slowFill, s, buffers[rep], (float) rep, N, seq.cycles));
      for (int k = 0; k < 20; k++) {
        seq.rc(rep, "slow_axpb " + k, 0, Sequence.launch(slowAxpb, s, buffers[rep], 1f, 1f, N, seq.cycles / 20));
      }
    }
    System.out.flush();
    if (seq.variant.equals("exit-main")) {
      System.exit(0);
    }
    launched.countDown();
    Thread.sleep(Long.MAX_VALUE);
  }
}
