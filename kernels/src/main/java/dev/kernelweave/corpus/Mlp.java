package dev.kernelweave.corpus;

import static jcuda.driver.JCudaDriver.cuLaunchKernel;
import static jcuda.driver.JCudaDriver.cuMemcpyDtoH;
import static jcuda.driver.JCudaDriver.cuMemcpyHtoD;
import static jcuda.jcublas.JCublas2.cublasSgemm;
import static jcuda.jcublas.cublasOperation.CUBLAS_OP_N;

import dev.kernelweave.kernels.Outputs;
import dev.kernelweave.kernels.Size;
import java.util.List;
import java.util.SplittableRandom;
import jcuda.Pointer;
import jcuda.driver.CUdeviceptr;
import jcuda.driver.CUfunction;
import jcuda.jcublas.cublasHandle;

/**
 * {@code mlp}: a multi-layer perceptron on JCublas2, each layer a {@code cublasSgemm} and a bias
 * and activation kernel. Each repetition copies two micro-batches in from Java arrays, runs them
 * through the layers one after the other, and copies both outputs back: the micro-batches are
 * independent. Inputs and weights are multiples of 1/8, so the products are exact (see {@link
 * CorpusMath#gemm}).
 */
final class Mlp extends CorpusProgram {

  static final String NAME = "mlp";
  private static final Pointer ONE = Pointer.to(new float[] {1.0f});
  private static final Pointer ZERO = Pointer.to(new float[] {0.0f});

  private final int[] widths;
  private final int batch;
  private final int microBatches = 2;
  private final float[][] weights;
  private final float[][] biases;
  private final float[][] inputs;
  private final float[][] results;
  private CUfunction biasRelu;
  private cublasHandle handle;
  private CUdeviceptr[] dWeights;
  private CUdeviceptr[] dBiases;
  private CUdeviceptr[][] activations;

  Mlp(Size size) {
    super(NAME, size);
    widths = size == Size.CHECK ? new int[] {48, 64, 64, 16} : new int[] {1024, 1024, 1024, 256};
    batch = size == Size.CHECK ? 24 : 1024;
    SplittableRandom random = new SplittableRandom(0x6d6c70L);
    int layers = widths.length - 1;
    weights = new float[layers][];
    biases = new float[layers][];
    for (int l = 0; l < layers; l++) {
      weights[l] = CorpusMath.eighths(random, widths[l + 1] * widths[l]);
      biases[l] = CorpusMath.eighths(random, widths[l + 1]);
    }
    inputs = new float[microBatches][];
    results = new float[microBatches][widths[layers] * batch];
    for (int b = 0; b < microBatches; b++) {
      inputs[b] = CorpusMath.eighths(random, widths[0] * batch);
    }
  }

  @Override
  protected String sizes() {
    return microBatches + " micro-batches of " + batch + " through layers " + java.util.Arrays.toString(widths);
  }

  @Override
  protected List<String> kernels() {
    return List.of("corpus_bias_relu");
  }

  @Override
  protected void allocate() {
    biasRelu = function("corpus_bias_relu");
    handle = cuda.cublas(null);
    int layers = widths.length - 1;
    dWeights = new CUdeviceptr[layers];
    dBiases = new CUdeviceptr[layers];
    for (int l = 0; l < layers; l++) {
      dWeights[l] = cuda.floats(weights[l].length);
      dBiases[l] = cuda.floats(biases[l].length);
      cuMemcpyHtoD(dWeights[l], Pointer.to(weights[l]), weights[l].length * 4L);
      cuMemcpyHtoD(dBiases[l], Pointer.to(biases[l]), biases[l].length * 4L);
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
      cuMemcpyHtoD(activations[b][0], Pointer.to(inputs[b]), inputs[b].length * 4L);
      for (int l = 0; l < layers; l++) {
        int out = widths[l + 1];
        int in = widths[l];
        cublasSgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, out, batch, in, ONE, dWeights[l], out,
            activations[b][l], in, ZERO, activations[b][l + 1], out);
        int n = out * batch;
        Pointer args = Pointer.to(Pointer.to(activations[b][l + 1]), Pointer.to(dBiases[l]),
            Pointer.to(new float[] {CorpusMath.gain(in)}), Pointer.to(new int[] {out}), Pointer.to(new int[] {n}));
        cuLaunchKernel(biasRelu, blocks(n, 1024), 1, 1, THREADS, 1, 1, 0, null, args, null);
      }
      cuMemcpyDtoH(Pointer.to(results[b]), activations[b][layers], results[b].length * 4L);
    }
  }

  @Override
  public byte[] output() {
    return Outputs.builder(microBatches * results[0].length).floats(results[0]).floats(results[1]).toBytes();
  }

  @Override
  protected byte[] reference() {
    Outputs.Builder out = Outputs.builder(microBatches * results[0].length);
    for (float[] x : inputs) {
      float[] a = x;
      for (int l = 0; l < widths.length - 1; l++) {
        a = CorpusMath.biasRelu(CorpusMath.gemm(weights[l], 0, a, 0, widths[l + 1], batch, widths[l]), biases[l], widths[l + 1], widths[l]);
      }
      out.floats(a);
    }
    return out.toBytes();
  }
}
