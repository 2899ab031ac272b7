package dev.kernelweave.kernels.workloads;

import static jcuda.driver.JCudaDriver.cuMemcpyDtoH;
import static jcuda.driver.JCudaDriver.cuMemcpyHtoD;
import static jcuda.driver.JCudaDriver.cuStreamSynchronize;

import dev.kernelweave.kernels.CudaScope;
import dev.kernelweave.kernels.DeviceWorkload;
import dev.kernelweave.kernels.Kernel;
import dev.kernelweave.kernels.Outputs;
import dev.kernelweave.kernels.PinnedFloats;
import dev.kernelweave.kernels.Variant;
import dev.kernelweave.kernels.Workload;
import jcuda.Pointer;
import jcuda.driver.CUdeviceptr;
import jcuda.driver.CUstream;

/**
 * {@code pipeline} and {@code pipeline-async} on the GPU; see {@link PipelineProblem}. Every variant
 * starts from the inputs in Java arrays and ends with the results in host memory: what the serial
 * program pays to move its inputs, the others pay inside the timed run too.
 */
public abstract class Pipeline extends DeviceWorkload<PipelineProblem> {

  /**
   * The serial variant as its problem names it ({@code pipeline} or {@code pipeline-async}); the
   * tuned and graph twins are the same for both, since both compute the same batches.
   */
  public static Workload create(PipelineProblem problem, Variant variant) {
    return variant.create(
        problem, p -> p.isAsync() ? new OneStream(p) : new Serial(p), Tuned::new, Graph::new);
  }

  final float[][] inputs;
  private Kernel prepare;
  private Kernel smooth;
  private Kernel finish;
  CUdeviceptr[] in;
  private CUdeviceptr[] tmp;
  CUdeviceptr[] out;

  Pipeline(PipelineProblem problem) {
    super(problem);
    this.inputs = problem.inputs();
  }

  @Override
  protected void allocate(CudaScope.Module module) {
    prepare = module.kernel(PipelineProblem.PREPARE);
    smooth = module.kernel(PipelineProblem.SMOOTH);
    finish = module.kernel(PipelineProblem.FINISH);
    in = new CUdeviceptr[p.batches()];
    tmp = new CUdeviceptr[p.batches()];
    out = new CUdeviceptr[p.batches()];
    for (int b = 0; b < p.batches(); b++) {
      in[b] = cuda.floats(p.n());
      tmp[b] = cuda.floats(p.n());
      out[b] = cuda.floats(p.n());
    }
  }

  @Override
  public void reset() {
    // The inputs live in Java arrays that nothing modifies: nothing to put back.
  }

  /** The three kernels of batch {@code b}. */
  void launchCompute(int b, CUstream stream) {
    prepare.launch(p.blocks(), p.threads(), stream, in[b], tmp[b], p.n(), p.rounds());
    smooth.launch(p.blocks(), p.threads(), stream, tmp[b], out[b], p.n(), p.rounds());
    finish.launch(p.blocks(), p.threads(), stream, out[b], p.n(), p.rounds());
  }

  /**
   * Batch after batch: synchronous copies from and to Java arrays, kernels on the default stream.
   */
  static final class Serial extends Pipeline {
    private final float[][] results;

    Serial(PipelineProblem problem) {
      super(problem);
      results = new float[problem.batches()][problem.n()];
    }

    @Override
    public void run() {
      long bytes = (long) p.n() * Float.BYTES;
      for (int b = 0; b < p.batches(); b++) {
        cuMemcpyHtoD(in[b], Pointer.to(inputs[b]), bytes);
        launchCompute(b, null);
        cuMemcpyDtoH(Pointer.to(results[b]), out[b], bytes);
      }
    }

    @Override
    public byte[] output() {
      return Outputs.floats(results);
    }
  }

  /**
   * What the batches of both pinned variants share: a pinned region per batch for its input and
   * one for its result, and one batch's host work and queued GPU work.
   */
  abstract static class Pinned extends Pipeline {
    private PinnedFloats staged;
    private PinnedFloats results;

    Pinned(PipelineProblem problem) {
      super(problem);
    }

    @Override
    protected void setUpVariant() {
      staged = cuda.pinnedFloats(p.batches() * p.n());
      results = cuda.pinnedFloats(p.batches() * p.n());
      setUpStreams();
    }

    /** Creates the variant's streams. */
    abstract void setUpStreams();

    /**
     * Batch {@code b}: its input from the Java array into its pinned region (host work, which
     * overlaps the GPU's work on the batches queued before), then the copy in, the kernels and the
     * copy out, queued on {@code stream}.
     */
    void queueBatch(int b, CUstream stream) {
      stage(b);
      queueBatchWork(b, stream);
    }

    /** Batch {@code b}'s input from its Java array into its pinned region: host work. */
    final void stage(int b) {
      staged.put(b * p.n(), inputs[b]);
    }

    /** Batch {@code b}'s copy in, kernels and copy out, queued on {@code stream}. */
    final void queueBatchWork(int b, CUstream stream) {
      staged.copyToDevice(b * p.n(), in[b], p.n(), stream);
      launchCompute(b, stream);
      results.copyFromDevice(b * p.n(), out[b], p.n(), stream);
    }

    @Override
    public byte[] output() {
      return Outputs.floats(results.toArray());
    }
  }

  /**
   * {@code pipeline-async} as many programs already are: pinned memory, asynchronous copies and the
   * kernels all on one stream the program created ({@code cuStreamCreate} with flags 0, as the
   * CUDA guide's examples and most programs create one; the default stream is left to the other
   * workloads), and one synchronization after the last batch. The GPU runs the batches one after
   * another; only the host's staging overlaps it.
   */
  static final class OneStream extends Pinned {
    private CUstream stream;

    OneStream(PipelineProblem problem) {
      super(problem);
    }

    @Override
    void setUpStreams() {
      stream = cuda.blockingStream();
    }

    @Override
    public void run() {
      for (int b = 0; b < p.batches(); b++) {
        queueBatch(b, stream);
      }
      cuStreamSynchronize(stream);
    }
  }

  /**
   * A stream per batch: one batch's copies overlap other batches' kernels and copies in the other
   * direction.
   */
  static class Tuned extends Pinned {
    private CUstream[] streams;

    /** Per batch, issues its copy in, kernels and copy out on its stream. */
    private Runnable[] batchWork;

    Tuned(PipelineProblem problem) {
      super(problem);
    }

    @Override
    void setUpStreams() {
      streams = cuda.streams(p.batches());
      batchWork = issuingPerStream(streams, (stream, b) -> queueBatchWork(b, stream));
    }

    @Override
    public void run() {
      for (int b = 0; b < p.batches(); b++) {
        stage(b);
        batchWork[b].run();
      }
      for (CUstream stream : streams) {
        cuStreamSynchronize(stream);
      }
    }
  }

  /**
   * The tuned twin with each batch's copy in, kernels and copy out (between its pinned regions and
   * its device buffers, fixed for the run) as a graph captured once on the batch's stream. Each
   * batch is staged on the host and then its graph launched, as the tuned twin stages and then
   * queues: one graph of all the batches would have to wait for all the staging, where this lets
   * the GPU start on the first batch while the host stages the next.
   */
  static final class Graph extends Tuned implements GraphTwin {
    Graph(PipelineProblem problem) {
      super(problem);
    }
  }
}
