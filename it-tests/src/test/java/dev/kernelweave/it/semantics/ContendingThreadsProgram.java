package dev.kernelweave.it.semantics;

import static dev.kernelweave.it.semantics.Sequence.BYTES;
import static dev.kernelweave.it.semantics.Sequence.N;
import static jcuda.driver.JCudaDriver.cuCtxGetCurrent;
import static jcuda.driver.JCudaDriver.cuCtxSetCurrent;
import static jcuda.driver.JCudaDriver.cuMemAlloc;
import static jcuda.driver.JCudaDriver.cuMemFree;

import jcuda.driver.CUcontext;
import jcuda.driver.CUdeviceptr;
import jcuda.driver.CUfunction;

/**
 * Threads serving one context at once, as a thread pool of a Java service does: {@value #WORKERS}
 * threads each upload a buffer of their own, run one kernel on it and read it back, on the legacy
 * stream, about {@value #ITERATIONS} times in all, checking every result; then the main thread
 * reads each worker's buffer once more. Each iteration is one launch between two copies, a window no graph
 * pays for, and the threads wait for each other in the agent: where the agent hands the program
 * back ({@code handback=on}), it does so while the workers' calls are in flight, and every result
 * must still be CUDA's.
 */
public final class ContendingThreadsProgram {

  static final int WORKERS = 4;
  static final int ITERATIONS = 500;

  public static void main(String[] args) throws Exception {
    Sequence seq = Sequence.start(args, "contending");
    // About 500 iterations a worker in all, whatever the repetitions: enough calls for the agent to
    // judge the contention and then go on as written.
    int perWorker = Math.max(20, ITERATIONS / seq.reps);
    CUfunction axpb = Sequence.function(Sequence.loadSemantics(), "slow_axpb");
    CUcontext context = new CUcontext();
    cuCtxGetCurrent(context);
    seq.repeat(rep -> {
      float v = 3f + 10 * rep;
      int[] wrong = new int[WORKERS];
      CUdeviceptr[] buffers = new CUdeviceptr[WORKERS];
      Thread[] workers = new Thread[WORKERS];
      for (int w = 0; w < WORKERS; w++) {
        int worker = w;
        buffers[w] = new CUdeviceptr();
        cuMemAlloc(buffers[w], BYTES);
        CUdeviceptr x = buffers[w];
        workers[w] = new Thread(() -> {
          cuCtxSetCurrent(context);
          for (int i = 0; i < perWorker; i++) {
            if (!Sequence.axpbRoundTrip(axpb, x, v + 100 * worker + (i % 64), 0L)) {
              wrong[worker]++;
            }
          }
        }, "tenant-" + w);
        workers[w].start();
      }
      for (Thread t : workers) {
        t.join();
      }
      for (int w = 0; w < WORKERS; w++) {
        float[] last = Sequence.ramp(v + 100 * w + ((perWorker - 1) % 64));
        for (int j = 0; j < N; j++) {
          last[j] = 2f * last[j] + 1f;
        }
        seq.check(rep, "worker " + w + " results that differ", 0, wrong[w]);
        seq.check(rep, "worker " + w + " buffer at the end", Sequence.describe(last), Sequence.describe(Sequence.read(buffers[w])));
        cuMemFree(buffers[w]);
      }
    });
  }
}
