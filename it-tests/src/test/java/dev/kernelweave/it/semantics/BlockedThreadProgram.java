package dev.kernelweave.it.semantics;

import static dev.kernelweave.it.semantics.Sequence.BYTES;
import static dev.kernelweave.it.semantics.Sequence.alloc;
import static dev.kernelweave.it.semantics.Sequence.allocHost;
import static dev.kernelweave.it.semantics.Sequence.stream;
import static jcuda.driver.JCudaDriver.cuCtxGetCurrent;
import static jcuda.driver.JCudaDriver.cuCtxSetCurrent;
import static jcuda.driver.JCudaDriver.cuCtxSynchronize;
import static jcuda.driver.JCudaDriver.cuLaunchHostFunc;
import static jcuda.driver.JCudaDriver.cuMemFree;
import static jcuda.driver.JCudaDriver.cuMemcpyDtoH;
import static jcuda.driver.JCudaDriver.cuMemcpyDtoHAsync;
import static jcuda.driver.JCudaDriver.cuMemcpyHtoD;
import static jcuda.driver.JCudaDriver.cuStreamCreate;
import static jcuda.driver.JCudaDriver.cuStreamSynchronize;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import jcuda.Pointer;
import jcuda.driver.CUcontext;
import jcuda.driver.CUdeviceptr;
import jcuda.driver.CUfunction;
import jcuda.driver.CUstream;

/**
 * Sequence 10: several threads on one context. Thread 0 enqueues a host function on a blocking
 * stream that waits (at most {@code --timeout-ms}) until the other threads have enqueued their work,
 * then makes a synchronous {@code cuMemcpyDtoH} into page-locked memory, which (on the legacy
 * stream) waits for that host function. While it is blocked there the other threads launch and copy
 * on their own non-blocking streams: those calls only enqueue, so they return whatever thread 0
 * waits for, the host function sees it, and thread 0's copy completes. Then the other threads
 * synchronize their streams and check their results.
 *
 * <p>What the host function waits for is the other threads' calls returning, not their work
 * running: CUDA does not promise that two streams run concurrently (streams share the device's
 * hardware queues). Nor does it promise that one thread's asynchronous call returns while another
 * thread waits in a synchronous copy: on an H100 with driver 580 it does not (the host function
 * times out without the agent). So whether the host function saw the other threads is checked only
 * with {@code --calls-never-block true} (the stand-in driver, where a call that waits is the
 * agent's doing); elsewhere it is printed as a note, and the results and the end of the wait are
 * what is checked.
 * No thread makes a call that may synchronize the whole context while the host function holds the
 * GPU: allocations (page-locked ones above all), frees and the first launch of a kernel (lazy module
 * loading) happen before the host function is enqueued or after the other threads are done.
 */
public final class BlockedThreadProgram {

  private static final int OTHERS = 2;
  private static final int KERNELS = 8;

  public static void main(String[] args) throws Exception {
    Sequence seq = Sequence.start(args, "threads");
    CUfunction slowFill = Sequence.function(Sequence.loadSemantics(), "slow_fill");
    CUfunction slowAxpb = Sequence.function(Sequence.loadSemantics(), "slow_axpb");
    CUcontext context = new CUcontext();
    cuCtxGetCurrent(context);
    loadBoth(slowFill, slowAxpb);
    seq.repeat(rep -> {
      CountDownLatch blocking = new CountDownLatch(1);
      CountDownLatch othersEnqueued = new CountDownLatch(OTHERS);
      AtomicBoolean sawOthers = new AtomicBoolean();
      String[] results = new String[OTHERS];
      float[] yValues = Sequence.ramp(rep);
      float[][] yBack = new float[1][];
      Thread blocked = new Thread(() -> {
        cuCtxSetCurrent(context);
        CUstream s = stream(0);
        CUdeviceptr y = alloc(BYTES);
        cuMemcpyHtoD(y, Pointer.to(yValues), BYTES);
        // Into page-locked memory, not a Java array: JCuda holds a Java array's elements for the
        // whole copy, and no thread of the JVM could allocate (collect) until the copy returned.
        Pointer pinned = allocHost(BYTES);
        cuLaunchHostFunc(s, data -> {
          try {
            sawOthers.set(othersEnqueued.await(seq.timeoutMs, TimeUnit.MILLISECONDS));
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
          }
        }, null);
        blocking.countDown();
        cuMemcpyDtoH(pinned, y, BYTES);
        yBack[0] = Sequence.floats(pinned);
        Sequence.release(pinned, y, s);
      }, "blocked");
      Thread[] others = new Thread[OTHERS];
      for (int t = 0; t < OTHERS; t++) {
        int id = t;
        others[t] = new Thread(() -> {
          cuCtxSetCurrent(context);
          CUstream s = new CUstream();
          cuStreamCreate(s, 1);  // CU_STREAM_NON_BLOCKING: nothing waits for the legacy stream
          CUdeviceptr x = alloc(BYTES);
          Pointer pinned = allocHost(BYTES);
          try {
            blocking.await();
            Thread.sleep(20);  // let thread 0 enter its copy
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
          }
          int codes = Sequence.launch(slowFill, s, x, 10f * id, Sequence.N, seq.cycles / KERNELS);
          for (int k = 0; k < KERNELS; k++) {
            codes |= Sequence.launch(slowAxpb, s, x, 1f, 1f, Sequence.N, seq.cycles / KERNELS);
          }
          codes |= cuMemcpyDtoHAsync(pinned, x, BYTES, s);
          othersEnqueued.countDown();
          codes |= cuStreamSynchronize(s);
          results[id] = codes + " " + Sequence.describe(Sequence.floats(pinned));
          Sequence.release(pinned, x, s);
        }, "other-" + t);
      }
      blocked.start();
      for (Thread t : others) {
        t.start();
      }
      blocked.join();
      for (Thread t : others) {
        t.join();
      }
      if (seq.callsNeverBlock) {
        seq.check(rep, "the host function saw the other threads enqueue", true, sawOthers.get());
      } else {
        System.out.println("note rep " + rep + " the host function saw the other threads enqueue " + sawOthers.get());
      }
      for (int t = 0; t < OTHERS; t++) {
        seq.check(rep, "thread " + (t + 1), "0 " + Sequence.describe(Sequence.ramp(10f * t + KERNELS)), results[t]);
      }
      seq.check(rep, "blocked thread's copy", Sequence.describe(yValues), Sequence.describe(yBack[0]));
    });
  }

  /**
   * Launches both kernels once, one block, and waits: with lazy module loading a kernel's first
   * launch may synchronize the context, which must not happen while the host function blocks.
   */
  private static void loadBoth(CUfunction slowFill, CUfunction slowAxpb) {
    CUdeviceptr scratch = alloc(BYTES);
    Sequence.launch(slowFill, null, scratch, 0f, Sequence.N, 1L);
    Sequence.launch(slowAxpb, null, scratch, 1f, 1f, Sequence.N, 1L);
    cuCtxSynchronize();
    cuMemFree(scratch);
  }
}
