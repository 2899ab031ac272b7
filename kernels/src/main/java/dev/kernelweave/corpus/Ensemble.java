package dev.kernelweave.corpus;

import dev.kernelweave.kernels.Cuda;
import dev.kernelweave.kernels.Kernel;
import dev.kernelweave.kernels.Outputs;
import dev.kernelweave.kernels.Seeded;
import dev.kernelweave.kernels.Size;
import jcuda.driver.CUdeviceptr;

/**
 * {@code ensemble}: a two-model ensemble classifier. Each repetition uploads all samples, then per
 * batch runs two small models (each a GEMM, a bias and activation kernel, a second GEMM and its
 * activation), adds their scores, takes the argmax and reads the batch's labels back. The two
 * models of a batch are independent of each other.
 */
final class Ensemble extends CorpusProgram {

  static final String NAME = "ensemble";
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
  private Kernel add;
  private Kernel argmax;
  private DenseLayer dense;
  private CUdeviceptr dSamples;
  private CUdeviceptr[][] dWeights;
  private CUdeviceptr[][] dBiases;
  private CUdeviceptr[] dHidden;
  private CUdeviceptr[] dScores;
  private CUdeviceptr dSum;
  private CUdeviceptr dLabels;

  Ensemble(Size size) {
    super(NAME, size, "corpus_bias_relu", "corpus_add", "corpus_argmax");
    features = size == Size.CHECK ? 32 : 512;
    hidden = size == Size.CHECK ? 24 : 256;
    classes = 10;
    batches = size == Size.CHECK ? 3 : 16;
    batch = size == Size.CHECK ? 20 : 256;
    Seeded random = new Seeded(0x656e73L);
    samples = random.eighths(features * batch * batches);
    weights = new float[MODELS][2][];
    biases = new float[MODELS][2][];
    for (int m = 0; m < MODELS; m++) {
      weights[m][0] = random.eighths(hidden * features);
      biases[m][0] = random.eighths(hidden);
      weights[m][1] = random.eighths(classes * hidden);
      biases[m][1] = random.eighths(classes);
    }
    labels = new int[batch * batches];
    batchLabels = new int[batch];
    describe(batches + " batches of " + batch + " samples of " + features + " features; 2 models of "
        + hidden + " hidden units, " + classes + " classes");
  }

  @Override
  protected void allocate() {
    Kernel biasRelu = kernel("corpus_bias_relu");
    add = kernel("corpus_add");
    argmax = kernel("corpus_argmax");
    dense = new DenseLayer(cuda.cublas(null), biasRelu, batch);
    dSamples = cuda.floats(samples.length);
    dWeights = new CUdeviceptr[MODELS][2];
    dBiases = new CUdeviceptr[MODELS][2];
    dHidden = new CUdeviceptr[MODELS];
    dScores = new CUdeviceptr[MODELS];
    for (int m = 0; m < MODELS; m++) {
      for (int l = 0; l < 2; l++) {
        dWeights[m][l] = upload(weights[m][l]);
        dBiases[m][l] = upload(biases[m][l]);
      }
      dHidden[m] = cuda.floats((long) hidden * batch);
      dScores[m] = cuda.floats((long) classes * batch);
    }
    dSum = cuda.floats((long) classes * batch);
    dLabels = cuda.floats(batch);
  }

  private void layer(int m, int l, CUdeviceptr x, CUdeviceptr y, int out, int in) {
    dense.apply(dWeights[m][l], dBiases[m][l], x, y, out, in);
  }

  @Override
  public void run() {
    Cuda.upload(dSamples, samples);
    for (int b = 0; b < batches; b++) {
      CUdeviceptr x = dSamples.withByteOffset((long) b * features * batch * 4);
      for (int m = 0; m < MODELS; m++) {
        layer(m, 0, x, dHidden[m], hidden, features);
        layer(m, 1, dHidden[m], dScores[m], classes, hidden);
      }
      int n = classes * batch;
      add.launch(blocks(n, 1024), THREADS, null, dScores[0], dScores[1], dSum, n);
      argmax.launch(blocks(batch, 1024), THREADS, null, dSum, dLabels, classes, batch);
      Cuda.download(batchLabels, dLabels);
      System.arraycopy(batchLabels, 0, labels, b * batch, batch);
    }
  }

  @Override
  public byte[] output() {
    return Outputs.ints(labels);
  }

  @Override
  protected byte[] reference() {
    int[] expected = new int[labels.length];
    for (int b = 0; b < batches; b++) {
      float[][] scores = new float[MODELS][];
      for (int m = 0; m < MODELS; m++) {
        float[] h = CorpusMath.dense(weights[m][0], biases[m][0], samples, b * features * batch, hidden, batch, features);
        scores[m] = CorpusMath.dense(weights[m][1], biases[m][1], h, 0, classes, batch, hidden);
      }
      int[] l = CorpusMath.argmax(CorpusMath.add(scores[0], scores[1]), classes);
      System.arraycopy(l, 0, expected, b * batch, batch);
    }
    return Outputs.ints(expected);
  }
}
