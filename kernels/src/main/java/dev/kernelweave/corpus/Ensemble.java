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
 * {@code ensemble}: a two-model ensemble classifier. Each repetition uploads all samples, then per
 * batch runs two small models (each a GEMM, a bias and activation kernel, a second GEMM and its
 * activation), adds their scores, takes the argmax and reads the batch's labels back. The two
 * models of a batch are independent of each other.
 */
final class Ensemble extends CorpusProgram {

  static final String NAME = "ensemble";
  private static final Pointer ONE = Pointer.to(new float[] {1.0f});
  private static final Pointer ZERO = Pointer.to(new float[] {0.0f});
  private static final int MODELS = 2;

  private final int features;
  private final int hidden;
  private final int classes;
  private final int batches;
  private final int batch;
  private final float[] samples;
  private final float[][][] weights; // [model][layer]
  private final float[][][] biases;
  private final int[] labels;
  private final int[] batchLabels;
  private CUfunction biasRelu;
  private CUfunction add;
  private CUfunction argmax;
  private cublasHandle handle;
  private CUdeviceptr dSamples;
  private CUdeviceptr[][] dWeights;
  private CUdeviceptr[][] dBiases;
  private CUdeviceptr[] dHidden;
  private CUdeviceptr[] dScores;
  private CUdeviceptr dSum;
  private CUdeviceptr dLabels;

  Ensemble(Size size) {
    super(NAME, size);
    features = size == Size.CHECK ? 32 : 512;
    hidden = size == Size.CHECK ? 24 : 256;
    classes = 10;
    batches = size == Size.CHECK ? 3 : 16;
    batch = size == Size.CHECK ? 20 : 256;
    SplittableRandom random = new SplittableRandom(0x656e73L);
    samples = CorpusMath.eighths(random, features * batch * batches);
    weights = new float[MODELS][2][];
    biases = new float[MODELS][2][];
    for (int m = 0; m < MODELS; m++) {
      weights[m][0] = CorpusMath.eighths(random, hidden * features);
      biases[m][0] = CorpusMath.eighths(random, hidden);
      weights[m][1] = CorpusMath.eighths(random, classes * hidden);
      biases[m][1] = CorpusMath.eighths(random, classes);
    }
    labels = new int[batch * batches];
    batchLabels = new int[batch];
  }

  @Override
  protected String sizes() {
    return batches + " batches of " + batch + " samples of " + features + " features; 2 models of "
        + hidden + " hidden units, " + classes + " classes";
  }

  @Override
  protected List<String> kernels() {
    return List.of("corpus_bias_relu", "corpus_add", "corpus_argmax");
  }

  @Override
  protected void allocate() {
    biasRelu = function("corpus_bias_relu");
    add = function("corpus_add");
    argmax = function("corpus_argmax");
    handle = cuda.cublas(null);
    dSamples = cuda.floats(samples.length);
    dWeights = new CUdeviceptr[MODELS][2];
    dBiases = new CUdeviceptr[MODELS][2];
    dHidden = new CUdeviceptr[MODELS];
    dScores = new CUdeviceptr[MODELS];
    for (int m = 0; m < MODELS; m++) {
      for (int l = 0; l < 2; l++) {
        dWeights[m][l] = cuda.floats(weights[m][l].length);
        cuMemcpyHtoD(dWeights[m][l], Pointer.to(weights[m][l]), weights[m][l].length * 4L);
        dBiases[m][l] = cuda.floats(biases[m][l].length);
        cuMemcpyHtoD(dBiases[m][l], Pointer.to(biases[m][l]), biases[m][l].length * 4L);
      }
      dHidden[m] = cuda.floats((long) hidden * batch);
      dScores[m] = cuda.floats((long) classes * batch);
    }
    dSum = cuda.floats((long) classes * batch);
    dLabels = cuda.floats(batch);
  }

  private void layer(int m, int l, CUdeviceptr x, CUdeviceptr y, int out, int in) {
    cublasSgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, out, batch, in, ONE, dWeights[m][l], out, x, in, ZERO, y, out);
    int n = out * batch;
    cuLaunchKernel(biasRelu, blocks(n, 1024), 1, 1, THREADS, 1, 1, 0, null,
        Pointer.to(Pointer.to(y), Pointer.to(dBiases[m][l]), Pointer.to(new float[] {CorpusMath.gain(in)}),
            Pointer.to(new int[] {out}), Pointer.to(new int[] {n})), null);
  }

  @Override
  public void run() {
    cuMemcpyHtoD(dSamples, Pointer.to(samples), samples.length * 4L);
    for (int b = 0; b < batches; b++) {
      CUdeviceptr x = dSamples.withByteOffset((long) b * features * batch * 4);
      for (int m = 0; m < MODELS; m++) {
        layer(m, 0, x, dHidden[m], hidden, features);
        layer(m, 1, dHidden[m], dScores[m], classes, hidden);
      }
      int n = classes * batch;
      cuLaunchKernel(add, blocks(n, 1024), 1, 1, THREADS, 1, 1, 0, null,
          Pointer.to(Pointer.to(dScores[0]), Pointer.to(dScores[1]), Pointer.to(dSum), Pointer.to(new int[] {n})), null);
      cuLaunchKernel(argmax, blocks(batch, 1024), 1, 1, THREADS, 1, 1, 0, null,
          Pointer.to(Pointer.to(dSum), Pointer.to(dLabels), Pointer.to(new int[] {classes}), Pointer.to(new int[] {batch})), null);
      cuMemcpyDtoH(Pointer.to(batchLabels), dLabels, batch * 4L);
      System.arraycopy(batchLabels, 0, labels, b * batch, batch);
    }
  }

  @Override
  public byte[] output() {
    return Outputs.builder(labels.length).ints(labels).toBytes();
  }

  @Override
  protected byte[] reference() {
    int[] expected = new int[labels.length];
    for (int b = 0; b < batches; b++) {
      float[][] scores = new float[MODELS][];
      for (int m = 0; m < MODELS; m++) {
        float[] h = CorpusMath.biasRelu(
            CorpusMath.gemm(weights[m][0], 0, samples, b * features * batch, hidden, batch, features), biases[m][0], hidden, features);
        scores[m] = CorpusMath.biasRelu(CorpusMath.gemm(weights[m][1], 0, h, 0, classes, batch, hidden), biases[m][1], classes, hidden);
      }
      int[] l = CorpusMath.argmax(CorpusMath.add(scores[0], scores[1]), classes);
      System.arraycopy(l, 0, expected, b * batch, batch);
    }
    return Outputs.builder(expected.length).ints(expected).toBytes();
  }
}
