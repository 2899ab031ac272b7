package dev.kernelweave.corpus;

import dev.kernelweave.kernels.Cuda;
import dev.kernelweave.kernels.Kernel;
import dev.kernelweave.kernels.Outputs;
import dev.kernelweave.kernels.Seeded;
import dev.kernelweave.kernels.Size;
import jcuda.driver.CUdeviceptr;

/**
 * {@code power-iteration}: the dominant eigenvalue of two matrices by power iteration, side by side.
 * Each step, for each matrix: y = A x, the squared norm of y by a two-pass reduction, read back as
 * one float; the host takes its square root and launches x = y / |y|. The two matrices' iterations
 * are independent. The output is both final vectors and every step's norm.
 */
final class PowerIteration extends CorpusProgram {

  static final String NAME = "power-iteration";
  private static final int MATRICES = 2;

  private final int n;
  private final int steps;
  private final int partialBlocks;
  private final float[][] matrices;
  private final float[] start;
  private final float[][] vectors;
  private final float[] norms;
  private Kernel matvec;
  private TwoPassSum sumOfSquares;
  private Kernel scale;
  private CUdeviceptr[] dMatrices;
  private CUdeviceptr[] dX;
  private CUdeviceptr[] dY;
  private CUdeviceptr dPartials;
  private CUdeviceptr dNorm;

  PowerIteration(Size size) {
    super(NAME, size, "corpus_matvec", "corpus_square_partials", "corpus_sum", "corpus_scale");
    n = size == Size.CHECK ? 200 : 1024;
    steps = size == Size.CHECK ? 5 : 16;
    partialBlocks = blocks(n, 64);
    Seeded random = new Seeded(0x706f77L);
    matrices = random.unit(MATRICES, n * n);
    start = random.unit(n);
    vectors = new float[MATRICES][n];
    norms = new float[MATRICES * steps];
    describe(MATRICES + " matrices of " + n + " x " + n + ", " + steps + " steps, a norm read back each");
  }

  @Override
  protected void allocate() {
    matvec = kernel("corpus_matvec");
    sumOfSquares = twoPassSum(partialBlocks);
    scale = kernel("corpus_scale");
    dMatrices = new CUdeviceptr[MATRICES];
    dX = new CUdeviceptr[MATRICES];
    dY = new CUdeviceptr[MATRICES];
    for (int m = 0; m < MATRICES; m++) {
      dMatrices[m] = upload(matrices[m]);
      dX[m] = cuda.floats(n);
      dY[m] = cuda.floats(n);
    }
    dPartials = cuda.floats(partialBlocks);
    dNorm = cuda.floats(1);
  }

  @Override
  public void run() {
    for (int m = 0; m < MATRICES; m++) {
      Cuda.upload(dX[m], start);
    }
    float[] norm = new float[1];
    for (int s = 0; s < steps; s++) {
      for (int m = 0; m < MATRICES; m++) {
        matvec.launch(blocks(n, 1024), THREADS, null, dMatrices[m], dX[m], dY[m], n);
        sumOfSquares.launch(dY[m], n, dPartials, dNorm);
        Cuda.download(norm, dNorm);
        norms[s * MATRICES + m] = (float) Math.sqrt(norm[0]);
        float inverse = 1.0f / norms[s * MATRICES + m];
        scale.launch(blocks(n, 1024), THREADS, null, dY[m], dX[m], inverse, n);
      }
    }
    for (int m = 0; m < MATRICES; m++) {
      Cuda.download(vectors[m], dX[m]);
    }
  }

  @Override
  public byte[] output() {
    return Outputs.floats(vectors, norms);
  }

  @Override
  protected byte[] reference() {
    float[][] x = new float[MATRICES][];
    float[] expectedNorms = new float[norms.length];
    for (int m = 0; m < MATRICES; m++) {
      x[m] = start.clone();
      for (int s = 0; s < steps; s++) {
        float[] y = CorpusMath.matvec(matrices[m], x[m]);
        float norm = (float) Math.sqrt(CorpusMath.sumOfSquares(y, partialBlocks));
        expectedNorms[s * MATRICES + m] = norm;
        x[m] = CorpusMath.scale(y, 1.0f / norm);
      }
    }
    return Outputs.floats(x, expectedNorms);
  }
}
