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
  private CUfunction advance;
  private CUdeviceptr[] dPopulations;

  HostSteps(Size size) {
    super(NAME, size);
    n = size == Size.CHECK ? 2000 : 1 << 21;
    steps = size == Size.CHECK ? 6 : 24;
    SplittableRandom random = new SplittableRandom(0x686f73L);
    initial = new float[POPULATIONS][];
    for (int p = 0; p < POPULATIONS; p++) {
      initial[p] = CorpusMath.unit(random, n);
    }
    results = new float[POPULATIONS][n];
    rates = new float[POPULATIONS * steps];
  }

  @Override
  protected String sizes() {
    return POPULATIONS + " populations of " + n + " floats, " + steps + " steps, a sample of " + SAMPLE
        + " read back after each";
  }

  @Override
  protected List<String> kernels() {
    return List.of("corpus_advance");
  }

  @Override
  protected void allocate() {
    advance = function("corpus_advance");
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
      cuMemcpyHtoD(dPopulations[p], Pointer.to(initial[p]), n * 4L);
      rate[p] = 3.7f;
    }
    for (int s = 0; s < steps; s++) {
      for (int p = 0; p < POPULATIONS; p++) {
        cuLaunchKernel(advance, blocks(n, 1024), 1, 1, THREADS, 1, 1, 0, null,
            Pointer.to(Pointer.to(dPopulations[p]), Pointer.to(new float[] {rate[p]}), Pointer.to(new int[] {n})), null);
        cuMemcpyDtoH(Pointer.to(sample), dPopulations[p], SAMPLE * 4L);
        rate[p] = nextRate(sample);
        rates[s * POPULATIONS + p] = rate[p];
      }
    }
    for (int p = 0; p < POPULATIONS; p++) {
      cuMemcpyDtoH(Pointer.to(results[p]), dPopulations[p], n * 4L);
    }
  }

  @Override
  public byte[] output() {
    return Outputs.builder(POPULATIONS * n + rates.length).floats(results[0]).floats(results[1]).floats(rates).toBytes();
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
    return Outputs.builder(POPULATIONS * n + rates.length).floats(x[0]).floats(x[1]).floats(expectedRates).toBytes();
  }
}
