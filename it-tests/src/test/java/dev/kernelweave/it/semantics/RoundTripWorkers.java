package dev.kernelweave.it.semantics;

import static dev.kernelweave.it.semantics.Sequence.BYTES;
import static dev.kernelweave.it.semantics.Sequence.alloc;
import static jcuda.driver.JCudaDriver.cuCtxSetCurrent;
import static jcuda.driver.JCudaDriver.cuMemFree;

import jcuda.driver.CUcontext;
import jcuda.driver.CUdeviceptr;
import jcuda.driver.CUfunction;

/**
 * Threads of one context, each with a buffer of its own, making {@link Sequence#axpbRoundTrip}s on
 * the legacy stream: round trip {@code i} of worker {@code w} starts from {@code ramp(base + 100 w
 * + i % period)}. Each worker counts its round trips whose values came back wrong.
 */
final class RoundTripWorkers {

  final CUdeviceptr[] buffers;
  private final int[] wrong;
  private final Thread[] threads;

  private RoundTripWorkers(int count) {
    buffers = new CUdeviceptr[count];
    wrong = new int[count];
    threads = new Thread[count];
  }

  /** Allocates the buffers on this thread, then starts the workers. */
  static RoundTripWorkers start(CUcontext context, CUfunction axpb, int count, int iterations, int period, float base,
      long cycles) {
    RoundTripWorkers r = new RoundTripWorkers(count);
    for (int w = 0; w < count; w++) {
      int worker = w;
      CUdeviceptr x = alloc(BYTES);
      r.buffers[w] = x;
      r.threads[w] = new Thread(() -> {
        cuCtxSetCurrent(context);
        for (int i = 0; i < iterations; i++) {
          if (!Sequence.axpbRoundTrip(axpb, x, firstValue(base, worker, i, period), cycles)) {
            r.wrong[worker]++;
          }
        }
      }, "worker-" + w);
      r.threads[w].start();
    }
    return r;
  }

  /** The value round trip {@code i} of worker {@code worker} starts its ramp from. */
  static float firstValue(float base, int worker, int i, int period) {
    return base + 100 * worker + (i % period);
  }

  /** Waits for every worker to end. */
  void join() throws InterruptedException {
    for (Thread t : threads) {
      t.join();
    }
  }

  /** Worker {@code w}'s round trips that came back wrong; after {@link #join}. */
  int wrong(int w) {
    return wrong[w];
  }

  /** Frees the buffers; after {@link #join}. */
  void free() {
    for (CUdeviceptr x : buffers) {
      cuMemFree(x);
    }
  }
}
