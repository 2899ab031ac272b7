package dev.kernelweave.it.semantics;

import static dev.kernelweave.it.semantics.Sequence.BYTES;
import static dev.kernelweave.it.semantics.Sequence.N;
import static dev.kernelweave.it.semantics.Sequence.alloc;
import static jcuda.driver.JCudaDriver.CU_STREAM_PER_THREAD;
import static jcuda.driver.JCudaDriver.cuCtxSetCurrent;
import static jcuda.driver.JCudaDriver.cuMemFree;
import static jcuda.driver.JCudaDriver.cuMemcpyDtoHAsync;
import static jcuda.driver.JCudaDriver.cuMemcpyHtoDAsync;
import static jcuda.driver.JCudaDriver.cuStreamSynchronize;

import jcuda.Pointer;
import jcuda.driver.CUcontext;
import jcuda.driver.CUdeviceptr;
import jcuda.driver.CUfunction;
import jcuda.driver.CUstream;

/**
 * Threads of one context, each with a buffer of its own, making round trips through {@code slow_axpb}
 * on a stream of the {@link Streams} chosen: round trip {@code i} of worker {@code w} starts from
 * {@code ramp(base + 100 w + i % period)}. Each worker counts its round trips whose values came back
 * wrong.
 */
final class RoundTripWorkers {

  /** The stream each worker's round trips run on. */
  enum Streams {
    /** The legacy stream, with synchronous copies ({@link Sequence#axpbRoundTrip}). */
    LEGACY,
    /**
     * The worker's per-thread default stream, with asynchronous copies through page-locked memory
     * and a {@code cuStreamSynchronize} before the values are read.
     */
    PER_THREAD,
    /** A blocking stream of the worker's own, as {@link #PER_THREAD} otherwise. */
    BLOCKING;

    /** The name of the program variant that runs on these streams. */
    String variant() {
      return this == LEGACY ? "contending" : "contending-" + name().toLowerCase().replace('_', '-');
    }
  }

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
    return start(context, axpb, Streams.LEGACY, count, iterations, period, base, cycles);
  }

  /** Allocates the buffers on this thread, then starts the workers, on {@code streams}. */
  static RoundTripWorkers start(CUcontext context, CUfunction axpb, Streams streams, int count, int iterations,
      int period, float base, long cycles) {
    RoundTripWorkers r = new RoundTripWorkers(count);
    for (int w = 0; w < count; w++) {
      int worker = w;
      CUdeviceptr x = alloc(BYTES);
      r.buffers[w] = x;
      r.threads[w] = new Thread(() -> {
        cuCtxSetCurrent(context);
        if (streams == Streams.LEGACY) {
          for (int i = 0; i < iterations; i++) {
            if (!Sequence.axpbRoundTrip(axpb, x, firstValue(base, worker, i, period), cycles)) {
              r.wrong[worker]++;
            }
          }
          return;
        }
        CUstream stream = streams == Streams.PER_THREAD ? CU_STREAM_PER_THREAD : Sequence.stream(0);
        Pointer in = Sequence.allocHost(BYTES);
        Pointer out = Sequence.allocHost(BYTES);
        for (int i = 0; i < iterations; i++) {
          float first = firstValue(base, worker, i, period);
          Sequence.fill(out, Float.NaN);
          float[] ramp = Sequence.ramp(first);
          Sequence.write(in, ramp);
          cuMemcpyHtoDAsync(x, in, BYTES, stream);
          Sequence.launch(axpb, stream, x, 2f, 1f, N, cycles);
          cuMemcpyDtoHAsync(out, x, BYTES, stream);
          cuStreamSynchronize(stream);
          if (!java.util.Arrays.equals(Sequence.axpb(ramp, 2f, 1f), Sequence.floats(out))) {
            r.wrong[worker]++;
          }
        }
        Sequence.release(in, out);
        if (streams == Streams.BLOCKING) {
          Sequence.release(stream);
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
