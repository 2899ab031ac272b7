package dev.kernelweave.corpus;

import static jcuda.driver.JCudaDriver.cuCtxGetCurrent;
import static jcuda.driver.JCudaDriver.cuCtxSetCurrent;

import dev.kernelweave.kernels.Cuda;
import dev.kernelweave.kernels.Kernel;
import dev.kernelweave.kernels.Seeded;
import dev.kernelweave.kernels.Size;
import java.util.concurrent.atomic.AtomicReference;
import jcuda.driver.CUcontext;
import jcuda.driver.CUdeviceptr;

/**
 * {@code two-threads}: two Java threads sharing one context, each running its own job on the
 * default stream: copy its array in, a few elementwise kernels, copy the result back. The jobs are
 * independent; each repetition starts both threads and joins them.
 */
final class TwoThreads extends CorpusProgram {

  static final String NAME = "two-threads";
  private static final int JOBS = 2;
  private static final int ROUNDS = 4;

  private final int n;
  private final int kernels;
  private final HostArrays arrays;
  private Kernel logistic;
  private CUcontext context;
  private CUdeviceptr[] dA;
  private CUdeviceptr[] dB;

  TwoThreads(Size size) {
    super(NAME, size, "corpus_logistic");
    n = size == Size.CHECK ? 2500 : 1 << 21;
    kernels = size == Size.CHECK ? 4 : 8;
    arrays = HostArrays.of(new Seeded(0x746872L).unit(JOBS, n), n);
    describe(JOBS + " threads, each " + n + " floats in, " + kernels + " kernels, out");
  }

  @Override
  protected void allocate() {
    logistic = kernel("corpus_logistic");
    context = new CUcontext();
    cuCtxGetCurrent(context);
    dA = new CUdeviceptr[JOBS];
    dB = new CUdeviceptr[JOBS];
    for (int j = 0; j < JOBS; j++) {
      dA[j] = cuda.floats(n);
      dB[j] = cuda.floats(n);
    }
  }

  private void job(int j) {
    cuCtxSetCurrent(context);
    Cuda.upload(dA[j], arrays.in()[j]);
    for (int k = 0; k < kernels; k++) {
      CUdeviceptr from = k % 2 == 0 ? dA[j] : dB[j];
      CUdeviceptr to = k % 2 == 0 ? dB[j] : dA[j];
      logistic.launch(blocks(n, 1024), THREADS, null, from, to, ROUNDS, n);
    }
    Cuda.download(arrays.out()[j], kernels % 2 == 0 ? dA[j] : dB[j]);
  }

  @Override
  public void run() {
    AtomicReference<Throwable> failure = new AtomicReference<>();
    Thread[] threads = new Thread[JOBS];
    for (int j = 0; j < JOBS; j++) {
      int job = j;
      threads[j] = new Thread(() -> {
        try {
          job(job);
        } catch (Throwable t) {
          failure.compareAndSet(null, t);
        }
      }, "corpus-job-" + j);
      threads[j].start();
    }
    for (Thread t : threads) {
      try {
        t.join();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("interrupted while waiting for the jobs", e);
      }
    }
    if (failure.get() != null) {
      throw new IllegalStateException("a job failed: " + failure.get(), failure.get());
    }
  }

  @Override
  public byte[] output() {
    return arrays.output();
  }

  @Override
  protected byte[] reference() {
    // Each kernel maps every element ROUNDS times: one after another, they map it kernels * ROUNDS
    // times, the same float operations in the same order.
    return arrays.reference(x -> CorpusMath.logistic(x, kernels * ROUNDS));
  }
}
