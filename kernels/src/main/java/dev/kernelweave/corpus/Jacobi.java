package dev.kernelweave.corpus;

import dev.kernelweave.kernels.Cuda;
import dev.kernelweave.kernels.Kernel;
import dev.kernelweave.kernels.Outputs;
import dev.kernelweave.kernels.Seeded;
import dev.kernelweave.kernels.Size;
import jcuda.driver.CUdeviceptr;

/**
 * {@code jacobi}: Jacobi iteration for one diagonally dominant matrix and two right-hand sides.
 * Each sweep, for each right-hand side not yet converged: a Jacobi step, the squared size of the
 * change by a two-pass reduction, read back; the host stops a system once the change is below a
 * tolerance, and swaps the iterate buffers. The two systems are independent. The output is both
 * solutions and the number of sweeps each took.
 */
final class Jacobi extends CorpusProgram {

  static final String NAME = "jacobi";
  private static final int SYSTEMS = 2;
  private static final float TOLERANCE = 1e-10f;

  private final int n;
  private final int maxSweeps;
  private final int partialBlocks;
  private final float[] matrix;
  private final float[][] rhs;
  private final float[] zeros;
  private final float[][] solutions;
  private final int[] sweeps = new int[SYSTEMS];
  private Kernel jacobi;
  private TwoPassSum sumOfSquares;
  private CUdeviceptr dMatrix;
  private CUdeviceptr[] dRhs;
  private CUdeviceptr[][] dIterates; // [system][0 or 1]
  private CUdeviceptr[] dChange;
  private CUdeviceptr dPartials;
  private CUdeviceptr dResidual;

  Jacobi(Size size) {
    super(NAME, size, "corpus_jacobi", "corpus_square_partials", "corpus_sum");
    n = size == Size.CHECK ? 160 : 1024;
    maxSweeps = size == Size.CHECK ? 12 : 30;
    partialBlocks = blocks(n, 64);
    Seeded random = new Seeded(0x6a6163L);
    matrix = random.eighths(n * n);
    for (int i = 0; i < n; i++) {
      matrix[i * n + i] = n; // off-diagonal magnitudes sum to about n / 1.9: dominant
    }
    rhs = random.unit(SYSTEMS, n);
    zeros = new float[n];
    solutions = new float[SYSTEMS][n];
    describe(SYSTEMS + " right-hand sides of a " + n + " x " + n + " system, at most " + maxSweeps
        + " sweeps, a residual read back each");
  }

  @Override
  protected void allocate() {
    jacobi = kernel("corpus_jacobi");
    sumOfSquares = twoPassSum(partialBlocks);
    dMatrix = upload(matrix);
    dRhs = new CUdeviceptr[SYSTEMS];
    dIterates = new CUdeviceptr[SYSTEMS][2];
    dChange = new CUdeviceptr[SYSTEMS];
    for (int s = 0; s < SYSTEMS; s++) {
      dRhs[s] = cuda.floats(n);
      dIterates[s][0] = cuda.floats(n);
      dIterates[s][1] = cuda.floats(n);
      dChange[s] = cuda.floats(n);
    }
    dPartials = cuda.floats(partialBlocks);
    dResidual = cuda.floats(1);
  }

  @Override
  public void run() {
    CUdeviceptr[] x = new CUdeviceptr[SYSTEMS];
    CUdeviceptr[] next = new CUdeviceptr[SYSTEMS];
    boolean[] done = new boolean[SYSTEMS];
    for (int s = 0; s < SYSTEMS; s++) {
      Cuda.upload(dRhs[s], rhs[s]);
      Cuda.upload(dIterates[s][0], zeros);
      x[s] = dIterates[s][0];
      next[s] = dIterates[s][1];
      sweeps[s] = 0;
    }
    float[] residual = new float[1];
    for (int sweep = 0; sweep < maxSweeps; sweep++) {
      for (int s = 0; s < SYSTEMS; s++) {
        if (done[s]) {
          continue;
        }
        jacobi.launch(blocks(n, 1024), THREADS, null, dMatrix, dRhs[s], x[s], next[s], dChange[s], n);
        sumOfSquares.launch(dChange[s], n, dPartials, dResidual);
        Cuda.download(residual, dResidual);
        CUdeviceptr swap = x[s];
        x[s] = next[s];
        next[s] = swap;
        sweeps[s]++;
        done[s] = residual[0] < TOLERANCE;
      }
    }
    for (int s = 0; s < SYSTEMS; s++) {
      Cuda.download(solutions[s], x[s]);
    }
  }

  @Override
  public byte[] output() {
    return Outputs.builder(SYSTEMS * n + SYSTEMS).floats(solutions).ints(sweeps).toBytes();
  }

  @Override
  protected byte[] reference() {
    Outputs.Builder out = Outputs.builder(SYSTEMS * n + SYSTEMS);
    int[] expectedSweeps = new int[SYSTEMS];
    for (int s = 0; s < SYSTEMS; s++) {
      float[] x = new float[n];
      float[] change = new float[n];
      for (int sweep = 0; sweep < maxSweeps; sweep++) {
        x = CorpusMath.jacobi(matrix, rhs[s], x, change);
        expectedSweeps[s]++;
        if (CorpusMath.sumOfSquares(change, partialBlocks) < TOLERANCE) {
          break;
        }
      }
      out.floats(x);
    }
    return out.ints(expectedSweeps).toBytes();
  }
}
