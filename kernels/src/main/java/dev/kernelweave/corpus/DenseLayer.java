package dev.kernelweave.corpus;

import static jcuda.jcublas.JCublas2.cublasSgemm;
import static jcuda.jcublas.cublasOperation.CUBLAS_OP_N;

import dev.kernelweave.kernels.Kernel;
import jcuda.Pointer;
import jcuda.driver.CUdeviceptr;
import jcuda.jcublas.cublasHandle;

/**
 * A dense layer as the corpus's networks write it: {@code cublasSgemm} of an out x in weight matrix
 * and a batch of columns on the default handle, then {@code corpus_bias_relu} in place on the
 * default stream. {@link CorpusMath#dense} computes the same on the CPU. Not thread-safe: one
 * program's thread applies it.
 *
 * @param batch columns of every layer's input and output
 */
record DenseLayer(cublasHandle handle, Kernel biasRelu, int batch) {

  private static final Pointer ONE = Pointer.to(new float[] {1.0f});
  private static final Pointer ZERO = Pointer.to(new float[] {0.0f});

  /** y = relu(weights x + bias) with the gain of {@code in} inputs: one GEMM, one launch. */
  void apply(CUdeviceptr weights, CUdeviceptr bias, CUdeviceptr x, CUdeviceptr y, int out, int in) {
    cublasSgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, out, batch, in, ONE, weights, out, x, in, ZERO, y, out);
    int n = out * batch;
    biasRelu.launch(CorpusProgram.blocks(n, 1024), CorpusProgram.THREADS, null, y, bias, CorpusMath.gain(in), out, n);
  }
}
