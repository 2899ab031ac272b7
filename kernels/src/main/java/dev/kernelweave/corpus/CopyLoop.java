package dev.kernelweave.corpus;

import dev.kernelweave.kernels.Cuda;
import dev.kernelweave.kernels.Kernel;
import dev.kernelweave.kernels.Seeded;
import dev.kernelweave.kernels.Size;
import jcuda.driver.CUdeviceptr;

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
  private final HostArrays arrays;
  private Kernel logistic;
  private CUdeviceptr[] x;
  private CUdeviceptr[] y;

  CopyLoop(Size size) {
    super(NAME, size, "corpus_logistic");
    channels = 4;
    n = size == Size.CHECK ? 3000 : 1 << 21;
    arrays = HostArrays.of(new Seeded(0x636f7079L).unit(channels, n), n);
    describe(channels + " channels of " + n + " floats, copied in and out each repetition");
  }

  @Override
  protected void allocate() {
    logistic = kernel("corpus_logistic");
    x = new CUdeviceptr[channels];
    y = new CUdeviceptr[channels];
    for (int c = 0; c < channels; c++) {
      x[c] = cuda.floats(n);
      y[c] = cuda.floats(n);
    }
  }

  @Override
  public void run() {
    for (int c = 0; c < channels; c++) {
      Cuda.upload(x[c], arrays.in()[c]);
      logistic.launch(blocks(n, 1024), THREADS, null, x[c], y[c], ROUNDS, n);
      Cuda.download(arrays.out()[c], y[c]);
    }
  }

  @Override
  public byte[] output() {
    return arrays.output();
  }

  @Override
  protected byte[] reference() {
    return arrays.reference(x -> CorpusMath.logistic(x, ROUNDS));
  }
}
