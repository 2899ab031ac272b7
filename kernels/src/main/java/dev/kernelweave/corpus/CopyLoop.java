package dev.kernelweave.corpus;

import static jcuda.driver.JCudaDriver.cuLaunchKernel;
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
 * {@code copy-loop}: a copy-bound loop over Java arrays. Each repetition, for each of a few
 * channels: copy the channel's array to the GPU, one elementwise kernel, copy the result back, all
 * synchronous. The channels are independent of each other.
 */
final class CopyLoop extends CorpusProgram {

  static final String NAME = "copy-loop";
  private static final int ROUNDS = 8;

  private final int channels;
  private final int n;
  private final float[][] inputs;
  private final float[][] results;
  private CUfunction logistic;
  private CUdeviceptr[] x;
  private CUdeviceptr[] y;

  CopyLoop(Size size) {
    super(NAME, size);
    channels = 4;
    n = size == Size.CHECK ? 3000 : 1 << 21;
    SplittableRandom random = new SplittableRandom(0x636f7079L);
    inputs = new float[channels][];
    results = new float[channels][n];
    for (int c = 0; c < channels; c++) {
      inputs[c] = CorpusMath.unit(random, n);
    }
  }

  @Override
  protected String sizes() {
    return channels + " channels of " + n + " floats, copied in and out each repetition";
  }

  @Override
  protected List<String> kernels() {
    return List.of("corpus_logistic");
  }

  @Override
  protected void allocate() {
    logistic = function("corpus_logistic");
    x = new CUdeviceptr[channels];
    y = new CUdeviceptr[channels];
    for (int c = 0; c < channels; c++) {
      x[c] = cuda.floats(n);
      y[c] = cuda.floats(n);
    }
  }

  @Override
  public void run() {
    long bytes = (long) n * Float.BYTES;
    for (int c = 0; c < channels; c++) {
      cuMemcpyHtoD(x[c], Pointer.to(inputs[c]), bytes);
      Pointer args = Pointer.to(Pointer.to(x[c]), Pointer.to(y[c]), Pointer.to(new int[] {ROUNDS}), Pointer.to(new int[] {n}));
      cuLaunchKernel(logistic, blocks(n, 1024), 1, 1, THREADS, 1, 1, 0, null, args, null);
      cuMemcpyDtoH(Pointer.to(results[c]), y[c], bytes);
    }
  }

  @Override
  public byte[] output() {
    Outputs.Builder out = Outputs.builder(channels * n);
    for (float[] r : results) {
      out.floats(r);
    }
    return out.toBytes();
  }

  @Override
  protected byte[] reference() {
    Outputs.Builder out = Outputs.builder(channels * n);
    for (float[] in : inputs) {
      out.floats(CorpusMath.logistic(in, ROUNDS));
    }
    return out.toBytes();
  }
}
