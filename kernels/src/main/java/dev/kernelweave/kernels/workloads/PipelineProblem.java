package dev.kernelweave.kernels.workloads;

import static dev.kernelweave.kernels.CpuMath.logistic;
import static dev.kernelweave.kernels.CpuMath.squash;
import static dev.kernelweave.kernels.CpuMath.stencil;

import dev.kernelweave.kernels.Outputs;
import dev.kernelweave.kernels.Problem;
import dev.kernelweave.kernels.Seeded;
import dev.kernelweave.kernels.Size;

/**
 * {@code pipeline}: {@code batches} independent batches, each copied in, computed by three kernels
 * over its own buffers and copied out. The output is every batch's result, batch after batch
 * ({@code batches x n} floats).
 *
 * <p>{@code pipeline-async} is the same batches, the same kernels and the same output, written the
 * way programs that already care about copies are: through pinned memory with asynchronous copies,
 * all on one stream of the program's own.
 *
 * @param name {@link #NAME} or {@link #ASYNC_NAME}: which of the two programs
 * @param batches batches
 * @param n floats per batch, in and out
 * @param blocks blocks per launch
 * @param threads threads per block
 * @param rounds logistic rounds per element in each kernel
 */
public record PipelineProblem(String name, int batches, int n, int blocks, int threads, int rounds)
    implements Problem {

  public static final String NAME = "pipeline";
  public static final String ASYNC_NAME = "pipeline-async";
  static final String PREPARE = "pipe_prepare";
  static final String SMOOTH = "pipe_smooth";
  static final String FINISH = "pipe_finish";

  public PipelineProblem {
    if (!NAME.equals(name) && !ASYNC_NAME.equals(name)) {
      throw new IllegalArgumentException("not a pipeline workload: " + name);
    }
    if (batches < 1 || n < 3 || blocks < 1 || threads < 1 || rounds < 0) {
      throw Problem.badSizes(PipelineProblem.class, name, batches, n, blocks, threads, rounds);
    }
  }

  /** {@code pipeline}: synchronous copies from and to Java arrays, on the default stream. */
  public static PipelineProblem of(Size size) {
    return sized(NAME, size);
  }

  /** {@code pipeline-async}: the same batches through pinned memory, on one stream. */
  public static PipelineProblem async(Size size) {
    return sized(ASYNC_NAME, size);
  }

  private static PipelineProblem sized(String name, Size size) {
    return size == Size.CHECK
        ? new PipelineProblem(name, 4, 16384, 16, 256, 4)
        : new PipelineProblem(name, 16, 262144, 64, 256, 8);
  }

  /** Whether this is {@code pipeline-async}. */
  public boolean isAsync() {
    return ASYNC_NAME.equals(name);
  }

  /** Every batch's input. */
  public float[][] inputs() {
    return new Seeded(0x706970656c696e65L).unit(batches, n);
  }

  @Override
  public String sizes() {
    return batches
        + " batches x (copy in "
        + n * 4
        + " bytes, 3 kernels, copy out "
        + n * 4
        + " bytes), "
        + n
        + " floats each, "
        + Problem.launches(blocks, threads, rounds)
        + (isAsync() ? "; pinned memory, asynchronous copies, one stream" : "");
  }

  @Override
  public ModuleKernels moduleKernels() {
    return new ModuleKernels("pipeline", PREPARE, SMOOTH, FINISH);
  }

  @Override
  public byte[] reference() {
    Outputs.Builder out = Outputs.builder(batches * n);
    for (float[] in : inputs()) {
      out.floats(compute(in, rounds));
    }
    return out.toBytes();
  }

  /** The three kernels on one batch. */
  static float[] compute(float[] in, int rounds) {
    int n = in.length;
    float[] tmp = new float[n];
    for (int i = 0; i < n; i++) {
      tmp[i] = logistic(squash(in[i]), rounds);
    }
    float[] out = new float[n];
    for (int i = 0; i < n; i++) {
      out[i] = logistic(squash(stencil(tmp, i)), rounds);
    }
    for (int i = 0; i < n; i++) {
      out[i] = logistic(squash(out[i]), rounds);
    }
    return out;
  }
}
