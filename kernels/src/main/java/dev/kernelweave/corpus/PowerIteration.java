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
  private CUfunction matvec;
  private CUfunction squares;
  private CUfunction sum;
  private CUfunction scale;
  private CUdeviceptr[] dMatrices;
  private CUdeviceptr[] dX;
  private CUdeviceptr[] dY;
  private CUdeviceptr dPartials;
  private CUdeviceptr dNorm;

  PowerIteration(Size size) {
    super(NAME, size);
    n = size == Size.CHECK ? 200 : 1024;
    steps = size == Size.CHECK ? 5 : 16;
    partialBlocks = blocks(n, 64);
    SplittableRandom random = new SplittableRandom(0x706f77L);
    matrices = new float[MATRICES][];
    for (int m = 0; m < MATRICES; m++) {
      matrices[m] = CorpusMath.unit(random, n * n);
    }
    start = CorpusMath.unit(random, n);
    vectors = new float[MATRICES][n];
    norms = new float[MATRICES * steps];
  }

  @Override
  protected String sizes() {
    return MATRICES + " matrices of " + n + " x " + n + ", " + steps + " steps, a norm read back each";
  }

  @Override
  protected List<String> kernels() {
    return List.of("corpus_matvec", "corpus_square_partials", "corpus_sum", "corpus_scale");
  }

  @Override
  protected void allocate() {
    matvec = function("corpus_matvec");
    squares = function("corpus_square_partials");
    sum = function("corpus_sum");
    scale = function("corpus_scale");
    dMatrices = new CUdeviceptr[MATRICES];
    dX = new CUdeviceptr[MATRICES];
    dY = new CUdeviceptr[MATRICES];
    for (int m = 0; m < MATRICES; m++) {
      dMatrices[m] = cuda.floats((long) n * n);
      cuMemcpyHtoD(dMatrices[m], Pointer.to(matrices[m]), (long) n * n * 4);
      dX[m] = cuda.floats(n);
      dY[m] = cuda.floats(n);
    }
    dPartials = cuda.floats(partialBlocks);
    dNorm = cuda.floats(1);
  }

  @Override
  public void run() {
    Pointer size = Pointer.to(new int[] {n});
    for (int m = 0; m < MATRICES; m++) {
      cuMemcpyHtoD(dX[m], Pointer.to(start), n * 4L);
    }
    float[] norm = new float[1];
    for (int s = 0; s < steps; s++) {
      for (int m = 0; m < MATRICES; m++) {
        cuLaunchKernel(matvec, blocks(n, 1024), 1, 1, THREADS, 1, 1, 0, null,
            Pointer.to(Pointer.to(dMatrices[m]), Pointer.to(dX[m]), Pointer.to(dY[m]), size), null);
        cuLaunchKernel(squares, partialBlocks, 1, 1, THREADS, 1, 1, 0, null,
            Pointer.to(Pointer.to(dY[m]), Pointer.to(dPartials), size), null);
        cuLaunchKernel(sum, 1, 1, 1, THREADS, 1, 1, 0, null,
            Pointer.to(Pointer.to(dPartials), Pointer.to(dNorm), Pointer.to(new int[] {partialBlocks})), null);
        cuMemcpyDtoH(Pointer.to(norm), dNorm, 4);
        norms[s * MATRICES + m] = (float) Math.sqrt(norm[0]);
        float inverse = 1.0f / norms[s * MATRICES + m];
        cuLaunchKernel(scale, blocks(n, 1024), 1, 1, THREADS, 1, 1, 0, null,
            Pointer.to(Pointer.to(dY[m]), Pointer.to(dX[m]), Pointer.to(new float[] {inverse}), size), null);
      }
    }
    for (int m = 0; m < MATRICES; m++) {
      cuMemcpyDtoH(Pointer.to(vectors[m]), dX[m], n * 4L);
    }
  }

  @Override
  public byte[] output() {
    return Outputs.builder(MATRICES * n + norms.length).floats(vectors[0]).floats(vectors[1]).floats(norms).toBytes();
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
    return Outputs.builder(MATRICES * n + norms.length).floats(x[0]).floats(x[1]).floats(expectedNorms).toBytes();
  }
}
