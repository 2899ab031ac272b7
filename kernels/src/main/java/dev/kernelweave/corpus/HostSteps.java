package dev.kernelweave.corpus;

import dev.kernelweave.kernels.Cuda;
import dev.kernelweave.kernels.Kernel;
import dev.kernelweave.kernels.Outputs;
import dev.kernelweave.kernels.Seeded;
import dev.kernelweave.kernels.Size;
import jcuda.driver.CUdeviceptr;

/**
 * {@code host-steps}: host computation between launches. Two populations evolve step by step; after
 * each step of a population the host reads a sample of it back, computes its mean in Java and from
 * it the rate of that population's next step. The two populations are independent.
 */
final class HostSteps extends CorpusProgram {

  static final String NAME = "host-steps";
  private static final int POPULATIONS = 2;
  private static final int SAMPLE = 256;

  private final int n;
  private final int steps;
  private final float[][] initial;
  private final float[][] results;
  private final float[] rates;
  private final float[] sample = new float[SAMPLE];
  private Kernel advance;
  private CUdeviceptr[] dPopulations;

  HostSteps(Size size) {
    super(NAME, size, "corpus_advance");
    n = size == Size.CHECK ? 2000 : 1 << 21;
    steps = size == Size.CHECK ? 6 : 24;
    initial = new Seeded(0x686f73L).unit(POPULATIONS, n);
    results = new float[POPULATIONS][n];
    rates = new float[POPULATIONS * steps];
    describe(POPULATIONS + " populations of " + n + " floats, " + steps + " steps, a sample of " + SAMPLE
        + " read back after each");
  }

  @Override
  protected void allocate() {
    advance = kernel("corpus_advance");
    dPopulations = new CUdeviceptr[POPULATIONS];
    for (int p = 0; p < POPULATIONS; p++) {
      dPopulations[p] = cuda.floats(n);
    }
  }

  /** The next rate from a sample's mean: in [3.6, 3.9], where the map stays in (0, 1). */
  static float nextRate(float[] sample) {
    float total = 0.0f;
    for (float v : sample) {
      total += v;
    }
    return 3.6f + 0.3f * (total / sample.length);
  }

  @Override
  public void run() {
    float[] rate = new float[POPULATIONS];
    for (int p = 0; p < POPULATIONS; p++) {
      Cuda.upload(dPopulations[p], initial[p]);
      rate[p] = 3.7f;
    }
    for (int s = 0; s < steps; s++) {
      for (int p = 0; p < POPULATIONS; p++) {
        advance.launch(blocks(n, 1024), THREADS, null, dPopulations[p], rate[p], n);
        Cuda.download(sample, dPopulations[p]);
        rate[p] = nextRate(sample);
        rates[s * POPULATIONS + p] = rate[p];
      }
    }
    for (int p = 0; p < POPULATIONS; p++) {
      Cuda.download(results[p], dPopulations[p]);
    }
  }

  @Override
  public byte[] output() {
    return Outputs.floats(results, rates);
  }

  @Override
  protected byte[] reference() {
    float[][] x = new float[POPULATIONS][];
    float[] expectedRates = new float[rates.length];
    for (int p = 0; p < POPULATIONS; p++) {
      x[p] = initial[p].clone();
      float rate = 3.7f;
      for (int s = 0; s < steps; s++) {
        CorpusMath.advance(x[p], rate);
        rate = nextRate(java.util.Arrays.copyOf(x[p], SAMPLE));
        expectedRates[s * POPULATIONS + p] = rate;
      }
    }
    return Outputs.floats(x, expectedRates);
  }
}
