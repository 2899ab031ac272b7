package dev.kernelweave.corpus;

import static jcuda.driver.JCudaDriver.cuMemAlloc;
import static jcuda.driver.JCudaDriver.cuMemFree;

import dev.kernelweave.kernels.Cuda;
import dev.kernelweave.kernels.Kernel;
import dev.kernelweave.kernels.Outputs;
import dev.kernelweave.kernels.Seeded;
import dev.kernelweave.kernels.Size;
import jcuda.driver.CUdeviceptr;

/**
 * {@code alloc-per-step}: a program that allocates and frees device memory for every item it
 * processes. Items of different sizes: for each, {@code cuMemAlloc} its buffers, copy it in, an
 * elementwise kernel and a two-pass sum of squares, copy the result and the sum back, {@code
 * cuMemFree}. The items are independent.
 */
final class AllocPerStep extends CorpusProgram {

  static final String NAME = "alloc-per-step";
  private static final int ROUNDS = 6;
  private static final int PARTIAL_BLOCKS = 32;

  private final float[][] items;
  private final float[][] results;
  private final float[] sums;
  private Kernel logistic;
  private TwoPassSum sumOfSquares;

  AllocPerStep(Size size) {
    super(NAME, size, "corpus_logistic", "corpus_square_partials", "corpus_sum");
    int count = size == Size.CHECK ? 5 : 16;
    Seeded random = new Seeded(0x616c6cL);
    items = new float[count][];
    results = new float[count][];
    for (int i = 0; i < count; i++) {
      int n = size == Size.CHECK ? 700 + 311 * i : (1 << 19) + 37_000 * i;
      items[i] = random.unit(n);
      results[i] = new float[n];
    }
    sums = new float[count];
    describe(items.length + " items of " + items[0].length + " to " + items[items.length - 1].length
        + " floats, buffers allocated and freed for each");
  }

  @Override
  protected void allocate() {
    logistic = kernel("corpus_logistic");
    sumOfSquares = twoPassSum(PARTIAL_BLOCKS);
  }

  @Override
  public void run() {
    float[] total = new float[1];
    for (int i = 0; i < items.length; i++) {
      int n = items[i].length;
      CUdeviceptr x = new CUdeviceptr();
      CUdeviceptr y = new CUdeviceptr();
      CUdeviceptr partials = new CUdeviceptr();
      CUdeviceptr result = new CUdeviceptr();
      cuMemAlloc(x, n * 4L);
      cuMemAlloc(y, n * 4L);
      cuMemAlloc(partials, PARTIAL_BLOCKS * 4L);
      cuMemAlloc(result, 4);
      Cuda.upload(x, items[i]);
      logistic.launch(blocks(n, 1024), THREADS, null, x, y, ROUNDS, n);
      sumOfSquares.launch(y, n, partials, result);
      Cuda.download(results[i], y);
      Cuda.download(total, result);
      sums[i] = total[0];
      cuMemFree(x);
      cuMemFree(y);
      cuMemFree(partials);
      cuMemFree(result);
    }
  }

  private int words() {
    int words = sums.length;
    for (float[] r : results) {
      words += r.length;
    }
    return words;
  }

  @Override
  public byte[] output() {
    Outputs.Builder out = Outputs.builder(words());
    for (float[] r : results) {
      out.floats(r);
    }
    return out.floats(sums).toBytes();
  }

  @Override
  protected byte[] reference() {
    Outputs.Builder out = Outputs.builder(words());
    float[] expectedSums = new float[sums.length];
    for (int i = 0; i < items.length; i++) {
      float[] y = CorpusMath.logistic(items[i], ROUNDS);
      expectedSums[i] = CorpusMath.sumOfSquares(y, PARTIAL_BLOCKS);
      out.floats(y);
    }
    return out.floats(expectedSums).toBytes();
  }
}
