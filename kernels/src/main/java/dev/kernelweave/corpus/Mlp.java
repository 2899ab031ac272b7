package dev.kernelweave.corpus;

import dev.kernelweave.kernels.Cuda;
import dev.kernelweave.kernels.Kernel;
import dev.kernelweave.kernels.Seeded;
import dev.kernelweave.kernels.Size;
import java.util.Arrays;
import jcuda.driver.CUdeviceptr;

/**
 * {@code mlp}: a multi-layer perceptron on JCublas2, each layer a {@code cublasSgemm} and a bias
 * and activation kernel. Each repetition copies two micro-batches in from Java arrays, runs them
 * through the layers one after the other, and copies both outputs back: the micro-batches are
 * independent. Inputs and weights are multiples of 1/8, so the products are exact (see {@link
 * CorpusMath#gemm}).
 */
final class Mlp extends CorpusProgram {

  static final String NAME = "mlp";

  private final int[] widths;
  private final int batch;
  private final int microBatches = 2;
  private final float[][] weights;
  private final float[][] biases;
  private final HostArrays arrays;
  private DenseLayer dense;
  private CUdeviceptr[] dWeights;
  private CUdeviceptr[] dBiases;
  private CUdeviceptr[][] activations;

  Mlp(Size size) {
    super(NAME, size, "corpus_bias_relu");
    widths = size == Size.CHECK ? new int[] {48, 64, 64, 16} : new int[] {1024, 1024, 1024, 256};
    batch = size == Size.CHECK ? 24 : 1024;
    Seeded random = new Seeded(0x6d6c70L);
    int layers = widths.length - 1;
    LayerWeights model = LayerWeights.draw(random, Arrays.copyOfRange(widths, 1, widths.length),
        Arrays.copyOf(widths, layers));
    weights = model.weights();
    biases = model.biases();
    float[][] inputs = new float[microBatches][];
    for (int b = 0; b < microBatches; b++) {
      inputs[b] = random.eighths(widths[0] * batch);
    }
    arrays = HostArrays.of(inputs, widths[layers] * batch);
    describe(microBatches + " micro-batches of " + batch + " through layers " + Arrays.toString(widths));
  }

  @Override
  protected void allocate() {
    Kernel biasRelu = kernel("corpus_bias_relu");
    dense = new DenseLayer(cuda.cublas(null), biasRelu, batch);
    int layers = widths.length - 1;
    dWeights = new CUdeviceptr[layers];
    dBiases = new CUdeviceptr[layers];
    for (int l = 0; l < layers; l++) {
      dWeights[l] = cuda.floats(weights[l].length);
      dBiases[l] = cuda.floats(biases[l].length);
      Cuda.upload(dWeights[l], weights[l]);
      Cuda.upload(dBiases[l], biases[l]);
    }
    activations = new CUdeviceptr[microBatches][widths.length];
    for (int b = 0; b < microBatches; b++) {
      for (int l = 0; l < widths.length; l++) {
        activations[b][l] = cuda.floats((long) widths[l] * batch);
      }
    }
  }

  @Override
  public void run() {
    int layers = widths.length - 1;
    for (int b = 0; b < microBatches; b++) {
      Cuda.upload(activations[b][0], arrays.in()[b]);
      for (int l = 0; l < layers; l++) {
        dense.apply(dWeights[l], dBiases[l], activations[b][l], activations[b][l + 1], widths[l + 1], widths[l]);
      }
      Cuda.download(arrays.out()[b], activations[b][layers]);
    }
  }

  @Override
  public byte[] output() {
    return arrays.output();
  }

  @Override
  protected byte[] reference() {
    return arrays.reference(x -> {
      float[] a = x;
      for (int l = 0; l < widths.length - 1; l++) {
        a = CorpusMath.dense(weights[l], biases[l], a, 0, widths[l + 1], batch, widths[l]);
      }
      return a;
    });
  }
}
