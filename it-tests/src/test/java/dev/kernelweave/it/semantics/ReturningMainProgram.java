package dev.kernelweave.it.semantics;

import static dev.kernelweave.it.semantics.Sequence.BYTES;
import static dev.kernelweave.it.semantics.Sequence.N;
import static dev.kernelweave.it.semantics.Sequence.NON_BLOCKING;
import static dev.kernelweave.it.semantics.Sequence.alloc;
import static dev.kernelweave.it.semantics.Sequence.allocHost;
import static dev.kernelweave.it.semantics.Sequence.stream;
import static jcuda.driver.JCudaDriver.cuCtxGetCurrent;
import static jcuda.driver.JCudaDriver.cuCtxSetCurrent;
import static jcuda.driver.JCudaDriver.cuMemcpyDtoHAsync;
import static jcuda.driver.JCudaDriver.cuStreamSynchronize;

import java.util.concurrent.CountDownLatch;
import jcuda.Pointer;
import jcuda.driver.CUcontext;
import jcuda.driver.CUdeviceptr;
import jcuda.driver.CUstream;

/**
 * A program that ends the ordinary way, without {@code System.exit}: its main thread leaves launches
 * pending on a non-blocking stream and returns; a (non-daemon) worker thread, let go by the main
 * thread's last act, launches on a stream of its own, reads both results back and prints them; the
 * JVM then ends by itself, with exit code 0. With the agent the process must end the same way (no
 * thread of the agent's may keep it alive) and print the same lines.
 *
 * <p>Variant {@code main-returns}; {@code --reps} rounds, all launched by the main thread before it
 * returns.
 */
public final class ReturningMainProgram {

  public static void main(String[] args) throws Exception {
    Sequence seq = Sequence.start(args, "main-returns");
    Sequence.Kernels k = Sequence.Kernels.load();
    Sequence.engagingRun(k.slowFill());
    CUcontext context = new CUcontext();
    cuCtxGetCurrent(context);
    int rounds = Math.min(seq.reps, 8);
    CUstream s = stream(NON_BLOCKING);
    CUdeviceptr[] xs = new CUdeviceptr[rounds];
    for (int r = 0; r < rounds; r++) {
      xs[r] = alloc(BYTES);
      seq.rc(r, "slow_fill on the main thread", 0, Sequence.launch(k.slowFill(), s, xs[r], 7f * r, N, seq.cycles));
      seq.rc(r, "slow_axpb on the main thread", 0, Sequence.launch(k.slowAxpb(), s, xs[r], 2f, 1f, N, seq.cycles));
    }
    CountDownLatch mainDone = new CountDownLatch(1);
    Thread worker = new Thread(() -> {
      try {
        mainDone.await();
        cuCtxSetCurrent(context);
        CUstream own = stream(NON_BLOCKING);
        Pointer pinned = allocHost(BYTES);
        CUdeviceptr y = alloc(BYTES);
        seq.rc(0, "slow_fill on the worker", 0, Sequence.launch(k.slowFill(), own, y, 5f, N, seq.cycles));
        seq.rc(0, "cuStreamSynchronize main's stream on the worker", 0, cuStreamSynchronize(s));
        for (int r = 0; r < rounds; r++) {
          seq.check(r, "x read on the worker", Sequence.describe(Sequence.axpb(Sequence.ramp(7f * r), 2f, 1f)),
              Sequence.describe(Sequence.read(xs[r])));
        }
        cuMemcpyDtoHAsync(pinned, y, BYTES, own);
        seq.rc(0, "cuStreamSynchronize own", 0, cuStreamSynchronize(own));
        seq.check(0, "y read on the worker", Sequence.describe(Sequence.ramp(5f)), Sequence.describe(Sequence.floats(pinned)));
        System.out.println("result the worker ends");
        System.out.flush();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }, "worker");
    worker.start();
    System.out.println("result main returns");
    System.out.flush();
    mainDone.countDown();
  }
}
