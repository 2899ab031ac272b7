package dev.kernelweave.corpus;

import static jcuda.driver.JCudaDriver.cuCtxGetCurrent;
import static jcuda.driver.JCudaDriver.cuCtxSetCurrent;

import dev.kernelweave.kernels.Cuda;
import dev.kernelweave.kernels.Kernel;
import dev.kernelweave.kernels.Outputs;
import dev.kernelweave.kernels.Seeded;
import dev.kernelweave.kernels.Size;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import jcuda.driver.CUcontext;
import jcuda.driver.CUdeviceptr;

/**
 * {@code tenants}: an inference service whose worker threads serve the same small model at once,
 * as a Java service does with a thread pool: each worker has a cuBLAS handle and buffers of its
 * own, shares the model's weights, and per request copies the request in, applies two dense layers
 * (a GEMM and a bias-and-ReLU kernel each) and an argmax, and reads the labels and scores back, all
 * on the default stream. One repetition is every worker serving its requests; the workers' requests are
 * independent of each other, and each worker's are ordered by its reuse of its buffers.
 */
final class Tenants extends CorpusProgram {

  static final String NAME = "tenants";

  private final int workers;
  private final int requests;
  private final int batch;
  private final int features;
  private final int hidden;
  private final int classes = 10;
  private final float[][] weights; // hidden, classes
  private final float[][] biases;
  private final float[][][] inputs; // [worker][request]
  private final int[][][] labels;
  private final float[][][] scores;
  private Kernel argmax;
  private CUcontext context;
  private CUdeviceptr[] dWeights;
  private CUdeviceptr[] dBiases;
  private Worker[] state;
  private ExecutorService pool;

  /** Each request's time, from its copy in to its last read-back, of the latest repetition. */
  private final long[][] requestNanos;

  Tenants(Size size) {
    this(size, size == Size.CHECK ? 3 : 8, size == Size.CHECK ? 2 : 8);
  }

  /** The program at {@code size}'s shapes with {@code workers} threads serving {@code requests} each per repetition. */
  Tenants(Size size, int workers, int requests) {
    super(NAME, size, "corpus_bias_relu", "corpus_argmax");
    this.workers = workers;
    this.requests = requests;
    requestNanos = new long[workers][requests];
    batch = size == Size.CHECK ? 4 : 16;
    features = size == Size.CHECK ? 24 : 256;
    hidden = size == Size.CHECK ? 16 : 256;
    Seeded random = new Seeded(0x74656eL);
    LayerWeights model = LayerWeights.draw(random, new int[] {hidden, classes}, new int[] {features, hidden});
    weights = model.weights();
    biases = model.biases();
    inputs = new float[workers][requests][];
    labels = new int[workers][requests][batch];
    scores = new float[workers][requests][classes * batch];
    for (int w = 0; w < workers; w++) {
      for (int r = 0; r < requests; r++) {
        inputs[w][r] = random.eighths(features * batch);
      }
    }
    describe(workers + " worker threads, each " + requests + " requests of " + batch + " samples of " + features
        + " features; hidden " + hidden + ", " + classes + " classes");
  }

  /** What one worker thread owns. */
  private record Worker(DenseLayer dense, CUdeviceptr input, CUdeviceptr hidden, CUdeviceptr scores,
      CUdeviceptr labels) {}

  @Override
  protected void allocate() {
    Kernel biasRelu = kernel("corpus_bias_relu");
    argmax = kernel("corpus_argmax");
    context = new CUcontext();
    cuCtxGetCurrent(context);
    dWeights = new CUdeviceptr[2];
    dBiases = new CUdeviceptr[2];
    for (int l = 0; l < 2; l++) {
      dWeights[l] = upload(weights[l]);
      dBiases[l] = upload(biases[l]);
    }
    state = new Worker[workers];
    for (int w = 0; w < workers; w++) {
      state[w] = new Worker(new DenseLayer(cuda.cublas(null), biasRelu, batch), cuda.floats((long) features * batch),
          cuda.floats((long) hidden * batch), cuda.floats((long) classes * batch), cuda.floats(batch));
    }
    AtomicInteger made = new AtomicInteger();
    pool = Executors.newFixedThreadPool(workers, task -> {
      Thread t = new Thread(task, "tenant-" + made.getAndIncrement());
      t.setDaemon(true);
      return t;
    });
  }

  @Override
  protected void release() {
    if (pool != null) {
      pool.shutdownNow();
      pool = null;
    }
  }

  private void serve(int w) {
    cuCtxSetCurrent(context);
    Worker s = state[w];
    for (int r = 0; r < requests; r++) {
      long start = System.nanoTime();
      Cuda.upload(s.input(), inputs[w][r]);
      s.dense().apply(dWeights[0], dBiases[0], s.input(), s.hidden(), hidden, features);
      s.dense().apply(dWeights[1], dBiases[1], s.hidden(), s.scores(), classes, hidden);
      argmax.launch(blocks(batch, 1024), THREADS, null, s.scores(), s.labels(), classes, batch);
      Cuda.download(labels[w][r], s.labels());
      Cuda.download(scores[w][r], s.scores());
      requestNanos[w][r] = System.nanoTime() - start;
    }
  }

  /** Each request's time in the latest repetition, from its copy in to its last read-back, in nanoseconds. */
  long[] requestNanos() {
    long[] all = new long[workers * requests];
    for (int w = 0; w < workers; w++) {
      System.arraycopy(requestNanos[w], 0, all, w * requests, requests);
    }
    return all;
  }

  @Override
  public void run() {
    List<Future<?>> served = new ArrayList<>(workers);
    for (int w = 0; w < workers; w++) {
      int worker = w;
      served.add(pool.submit(() -> serve(worker)));
    }
    for (Future<?> f : served) {
      try {
        f.get();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("interrupted while the workers served", e);
      } catch (ExecutionException e) {
        throw new IllegalStateException("a worker failed: " + e.getCause(), e.getCause());
      }
    }
  }

  @Override
  public byte[] output() {
    Outputs.Builder out = Outputs.builder(workers * requests * (batch + classes * batch));
    for (int w = 0; w < workers; w++) {
      for (int r = 0; r < requests; r++) {
        out.ints(labels[w][r]).floats(scores[w][r]);
      }
    }
    return out.toBytes();
  }

  @Override
  protected byte[] reference() {
    Outputs.Builder out = Outputs.builder(workers * requests * (batch + classes * batch));
    for (float[][] worker : inputs) {
      for (float[] x : worker) {
        float[] h = CorpusMath.dense(weights[0], biases[0], x, 0, hidden, batch, features);
        float[] s = CorpusMath.dense(weights[1], biases[1], h, 0, classes, batch, hidden);
        out.ints(CorpusMath.argmax(s, classes)).floats(s);
      }
    }
    return out.toBytes();
  }
}
