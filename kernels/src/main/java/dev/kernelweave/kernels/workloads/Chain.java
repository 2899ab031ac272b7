package dev.kernelweave.kernels.workloads;

import static jcuda.driver.JCudaDriver.cuStreamSynchronize;

import dev.kernelweave.kernels.Cuda;
import dev.kernelweave.kernels.CudaScope;
import dev.kernelweave.kernels.Kernel;
import dev.kernelweave.kernels.Outputs;
import dev.kernelweave.kernels.PinnedFloats;
import dev.kernelweave.kernels.Variant;
import dev.kernelweave.kernels.Workload;
import jcuda.driver.CUdeviceptr;
import jcuda.driver.CUstream;

/** {@code chain} on the GPU; see {@link ChainProblem}. */
public abstract class Chain implements Workload {

  public static Workload create(ChainProblem problem, Variant variant) {
    return variant == Variant.SERIAL ? new Serial(problem) : new Tuned(problem);
  }

  final ChainProblem p;
  private final float[] input;
  CudaScope cuda;
  private Kernel step;
  CUdeviceptr x;

  Chain(ChainProblem problem) {
    this.p = problem;
    this.input = problem.input();
  }

  @Override
  public ChainProblem problem() {
    return p;
  }

  @Override
  public void setUp() {
    cuda = new CudaScope();
    step = cuda.module(p.ptx()).kernel(ChainProblem.STEP);
    x = cuda.floats(p.n());
    setUpStreams();
  }

  abstract void setUpStreams();

  @Override
  public void reset() {
    Cuda.upload(x, input);
  }

  void launchSteps(CUstream stream) {
    for (int k = 0; k < p.length(); k++) {
      step.launch(p.blocks(), p.threads(), stream, x, p.n(), k, p.rounds());
    }
  }

  @Override
  public void close() {
    if (cuda != null) {
      cuda.close();
    }
  }

  /** The chain on the default stream, then a synchronous copy. */
  static final class Serial extends Chain {
    private final float[] result;

    Serial(ChainProblem problem) {
      super(problem);
      result = new float[problem.n()];
    }

    @Override
    void setUpStreams() {}

    @Override
    public void run() {
      launchSteps(null);
      Cuda.download(result, x);
    }

    @Override
    public byte[] output() {
      return Outputs.floats(result);
    }
  }

  /** What an expert does with nothing to overlap: one stream, an async copy into pinned memory. */
  static final class Tuned extends Chain {
    private CUstream stream;
    private PinnedFloats result;

    Tuned(ChainProblem problem) {
      super(problem);
    }

    @Override
    void setUpStreams() {
      stream = cuda.stream();
      result = cuda.pinnedFloats(p.n());
    }

    @Override
    public void run() {
      launchSteps(stream);
      result.copyFromDevice(0, x, p.n(), stream);
      cuStreamSynchronize(stream);
    }

    @Override
    public byte[] output() {
      return Outputs.floats(result.toArray());
    }
  }
}
