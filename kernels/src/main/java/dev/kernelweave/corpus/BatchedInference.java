package dev.kernelweave.corpus;

import dev.kernelweave.kernels.Cuda;
import dev.kernelweave.kernels.Kernel;
import dev.kernelweave.kernels.Outputs;
import dev.kernelweave.kernels.Seeded;
import dev.kernelweave.kernels.Size;
import jcuda.driver.CUdeviceptr;

/**
 * {@code batched-inference}: a server loop. Each request is copied in, goes through a shared hidden
 * layer and two heads (class labels by argmax, and an auxiliary output), and both results are read
 * back before the next request: a read-back per request. The two heads are independent, and so
 * is each request of the others, except that they reuse the same device buffers.
 */
final class BatchedInference extends CorpusProgram {

  static final String NAME = "batched-inference";

  private final int requests;
  private final int batch;
  private final int features;
  private final int hidden;
  private final int classes = 10;
  private final int aux;
  private final float[][] inputs;
  private final float[][] weights; // hidden, classes, aux
  private final float[][] biases;
  private final int[][] labels;
  private final float[][] auxiliary;
  private Kernel argmax;
  private DenseLayer dense;
  private CUdeviceptr[] dWeights;
  private CUdeviceptr[] dBiases;
  private CUdeviceptr dInput;
  private CUdeviceptr dHidden;
  private CUdeviceptr dScores;
  private CUdeviceptr dLabels;
  private CUdeviceptr dAux;

  BatchedInference(Size size) {
    super(NAME, size, "corpus_bias_relu", "corpus_argmax");
    requests = size == Size.CHECK ? 4 : 32;
    batch = size == Size.CHECK ? 8 : 128;
    features = size == Size.CHECK ? 32 : 512;
    hidden = size == Size.CHECK ? 32 : 512;
    aux = size == Size.CHECK ? 8 : 64;
    Seeded random = new Seeded(0x696e66L);
    LayerWeights model =
        LayerWeights.draw(random, new int[] {hidden, classes, aux}, new int[] {features, hidden, hidden});
    weights = model.weights();
    biases = model.biases();
    inputs = new float[requests][];
    for (int r = 0; r < requests; r++) {
      inputs[r] = random.eighths(features * batch);
    }
    labels = new int[requests][batch];
    auxiliary = new float[requests][aux * batch];
    describe(requests + " requests of " + batch + " samples of " + features + " features; hidden " + hidden
        + ", heads of " + classes + " classes and " + aux + " outputs");
  }

  @Override
  protected void allocate() {
    Kernel biasRelu = kernel("corpus_bias_relu");
    argmax = kernel("corpus_argmax");
    dense = new DenseLayer(cuda.cublas(null), biasRelu, batch);
    dWeights = new CUdeviceptr[3];
    dBiases = new CUdeviceptr[3];
    for (int l = 0; l < 3; l++) {
      dWeights[l] = upload(weights[l]);
      dBiases[l] = upload(biases[l]);
    }
    dInput = cuda.floats((long) features * batch);
    dHidden = cuda.floats((long) hidden * batch);
    dScores = cuda.floats((long) classes * batch);
    dLabels = cuda.floats(batch);
    dAux = cuda.floats((long) aux * batch);
  }

  private void dense(int l, CUdeviceptr x, CUdeviceptr y, int out, int in) {
    dense.apply(dWeights[l], dBiases[l], x, y, out, in);
  }

  @Override
  public void run() {
    for (int r = 0; r < requests; r++) {
      Cuda.upload(dInput, inputs[r]);
      dense(0, dInput, dHidden, hidden, features);
      dense(1, dHidden, dScores, classes, hidden);
      argmax.launch(blocks(batch, 1024), THREADS, null, dScores, dLabels, classes, batch);
      dense(2, dHidden, dAux, aux, hidden);
      Cuda.download(labels[r], dLabels);
      Cuda.download(auxiliary[r], dAux);
    }
  }

  @Override
  public byte[] output() {
    Outputs.Builder out = Outputs.builder(requests * (batch + aux * batch));
    for (int r = 0; r < requests; r++) {
      out.ints(labels[r]).floats(auxiliary[r]);
    }
    return out.toBytes();
  }

  @Override
  protected byte[] reference() {
    Outputs.Builder out = Outputs.builder(requests * (batch + aux * batch));
    for (float[] x : inputs) {
      float[] h = CorpusMath.dense(weights[0], biases[0], x, 0, hidden, batch, features);
      float[] s = CorpusMath.dense(weights[1], biases[1], h, 0, classes, batch, hidden);
      float[] a = CorpusMath.dense(weights[2], biases[2], h, 0, aux, batch, hidden);
      out.ints(CorpusMath.argmax(s, classes)).floats(a);
    }
    return out.toBytes();
  }
}
