package dev.kernelweave.it.semantics;

import static dev.kernelweave.it.semantics.Sequence.N;
import static jcuda.driver.JCudaDriver.cuCtxGetCurrent;

import jcuda.driver.CUcontext;
import jcuda.driver.CUfunction;

/**
 * Threads serving one context at once, as a thread pool of a Java service does: {@value #WORKERS}
 * threads each upload a buffer of their own, run one kernel on it and read it back, on the legacy
 * stream ({@code contending}), their per-thread default streams ({@code contending-per-thread}) or a
 * blocking stream each ({@code contending-blocking}), about {@value #ITERATIONS} times in all,
 * checking every result; then the main thread
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
    RoundTripWorkers.Streams streams = java.util.Arrays.stream(RoundTripWorkers.Streams.values())
        .filter(s -> s.variant().equals(seq.variant)).findFirst()
        .orElseThrow(() -> new IllegalArgumentException("unknown variant " + seq.variant));
    CUfunction axpb = Sequence.function(Sequence.loadSemantics(), "slow_axpb");
    CUcontext context = new CUcontext();
    cuCtxGetCurrent(context);
    seq.repeat(rep -> {
      float v = 3f + 10 * rep;
      RoundTripWorkers workers = RoundTripWorkers.start(context, axpb, streams, WORKERS, perWorker, 64, v, 0L);
      workers.join();
      for (int w = 0; w < WORKERS; w++) {
        float[] last = Sequence.ramp(RoundTripWorkers.firstValue(v, w, perWorker - 1, 64));
        for (int j = 0; j < N; j++) {
          last[j] = 2f * last[j] + 1f;
        }
        seq.check(rep, "worker " + w + " results that differ", 0, workers.wrong(w));
        seq.check(rep, "worker " + w + " buffer at the end", Sequence.describe(last),
            Sequence.describe(Sequence.read(workers.buffers[w])));
      }
      workers.free();
    });
  }
}
