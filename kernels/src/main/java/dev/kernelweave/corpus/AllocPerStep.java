package dev.kernelweave.corpus;

import static jcuda.driver.JCudaDriver.cuLaunchKernel;
import static jcuda.driver.JCudaDriver.cuMemAlloc;
import static jcuda.driver.JCudaDriver.cuMemFree;
import static jcuda.driver.JCudaDriver.cuMemcpyDtoH;
import static jcuda.driver.JCudaDriver.cuMemcpyHtoD;

import dev.kernelweave.kernels.Outputs;
import dev.kernelweave.kernels.Size;
import java.util.List;
import java.util.SplittableRandom;
import jcuda.Pointer;
import jcuda.driver.CUdeviceptr;
import jcuda.driver.CUfunction;

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
  private CUfunction logistic;
  private CUfunction squares;
  private CUfunction sum;

  AllocPerStep(Size size) {
    super(NAME, size);
    int count = size == Size.CHECK ? 5 : 16;
    SplittableRandom random = new SplittableRandom(0x616c6cL);
    items = new float[count][];
    results = new float[count][];
    for (int i = 0; i < count; i++) {
      int n = size == Size.CHECK ? 700 + 311 * i : (1 << 19) + 37_000 * i;
      items[i] = CorpusMath.unit(random, n);
      results[i] = new float[n];
    }
    sums = new float[count];
  }

  @Override
  protected String sizes() {
    return items.length + " items of " + items[0].length + " to " + items[items.length - 1].length
        + " floats, buffers allocated and freed for each";
  }

  @Override
  protected List<String> kernels() {
    return List.of("corpus_logistic", "corpus_square_partials", "corpus_sum");
  }

  @Override
  protected void allocate() {
    logistic = function("corpus_logistic");
    squares = function("corpus_square_partials");
    sum = function("corpus_sum");
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
      cuMemcpyHtoD(x, Pointer.to(items[i]), n * 4L);
      Pointer size = Pointer.to(new int[] {n});
      cuLaunchKernel(logistic, blocks(n, 1024), 1, 1, THREADS, 1, 1, 0, null,
          Pointer.to(Pointer.to(x), Pointer.to(y), Pointer.to(new int[] {ROUNDS}), size), null);
      cuLaunchKernel(squares, PARTIAL_BLOCKS, 1, 1, THREADS, 1, 1, 0, null,
          Pointer.to(Pointer.to(y), Pointer.to(partials), size), null);
      cuLaunchKernel(sum, 1, 1, 1, THREADS, 1, 1, 0, null,
          Pointer.to(Pointer.to(partials), Pointer.to(result), Pointer.to(new int[] {PARTIAL_BLOCKS})), null);
      cuMemcpyDtoH(Pointer.to(results[i]), y, n * 4L);
      cuMemcpyDtoH(Pointer.to(total), result, 4);
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
