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

/** {@code pipeline} on the GPU; see {@link PipelineProblem}. */
public abstract class Pipeline extends DeviceWorkload<PipelineProblem> {

  public static Workload create(PipelineProblem problem, Variant variant) {
    return variant == Variant.SERIAL ? new Serial(problem) : new Tuned(problem);
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
    public void reset() {
      // The inputs live in Java arrays that nothing modifies: nothing to put back.
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
      Outputs.Builder bytes = Outputs.builder(p.batches() * p.n());
      for (float[] result : results) {
        bytes.floats(result);
      }
      return bytes.toBytes();
    }
  }

  /**
   * A stream per batch, inputs and results in pinned memory, asynchronous copies: one batch's
   * copies overlap other batches' kernels and copies in the other direction.
   */
  static final class Tuned extends Pipeline {
    private CUstream[] streams;
    private PinnedFloats staged;
    private PinnedFloats results;

    Tuned(PipelineProblem problem) {
      super(problem);
    }

    @Override
    protected void setUpVariant() {
      streams = cuda.streams(p.batches());
      staged = cuda.pinnedFloats(p.batches() * p.n());
      results = cuda.pinnedFloats(p.batches() * p.n());
    }

    @Override
    public void reset() {
      for (int b = 0; b < p.batches(); b++) {
        staged.put(b * p.n(), inputs[b]);
      }
    }

    @Override
    public void run() {
      for (int b = 0; b < p.batches(); b++) {
        staged.copyToDevice(b * p.n(), in[b], p.n(), streams[b]);
        launchCompute(b, streams[b]);
        results.copyFromDevice(b * p.n(), out[b], p.n(), streams[b]);
      }
      for (CUstream stream : streams) {
        cuStreamSynchronize(stream);
      }
    }

    @Override
    public byte[] output() {
      return Outputs.floats(results.toArray());
    }
  }
}
