package dev.kernelweave.kernels.workloads;

import dev.kernelweave.kernels.Cuda;
import dev.kernelweave.kernels.CudaScope;
import dev.kernelweave.kernels.DeviceWorkload;
import dev.kernelweave.kernels.Kernel;
import dev.kernelweave.kernels.HostResult;
import dev.kernelweave.kernels.Variant;
import dev.kernelweave.kernels.Workload;
import jcuda.driver.CUdeviceptr;
import jcuda.driver.CUstream;

/** {@code chain} on the GPU; see {@link ChainProblem}. */
public abstract class Chain extends DeviceWorkload<ChainProblem> {

  public static Workload create(ChainProblem problem, Variant variant) {
    return variant.create(problem, Serial::new, Tuned::new, Graph::new);
  }

  private final float[] input;
  private Kernel step;
  CUdeviceptr x;

  Chain(ChainProblem problem) {
    super(problem);
    this.input = problem.input();
  }

  @Override
  protected void allocate(CudaScope.Module module) {
    step = module.kernel(ChainProblem.STEP);
    x = cuda.floats(p.n());
  }

  @Override
  public void reset() {
    Cuda.upload(x, input);
  }

  void launchSteps(CUstream stream) {
    for (int k = 0; k < p.length(); k++) {
      step.launch(p.blocks(), p.threads(), stream, x, p.n(), k, p.rounds());
    }
  }

  /** The chain on the default stream, then a synchronous copy. */
  static final class Serial extends Chain {
    Serial(ChainProblem problem) {
      super(problem);
      result = HostResult.array(problem.n());
    }

    @Override
    public void run() {
      launchSteps(null);
      result.copyFrom(x);
    }
  }

  /** What an expert does with nothing to overlap: one stream, an async copy into pinned memory. */
  static class Tuned extends Chain {
    private CUstream stream;

    /** Issues the chain on {@code stream}. */
    private Runnable issue;

    Tuned(ChainProblem problem) {
      super(problem);
    }

    @Override
    protected void setUpVariant() {
      stream = cuda.stream();
      result = HostResult.pinned(cuda.pinnedFloats(p.n()), stream);
      issue = issuing(stream, () -> launchSteps(stream));
    }

    @Override
    public void run() {
      issue.run();
      result.copyFrom(x);
    }
  }

  /**
   * The chain captured once into one graph and launched on the tuned twin's stream: nothing to
   * overlap, only the host's launches to save (one {@code cuGraphLaunch} for all the kernels).
   */
  static final class Graph extends Tuned implements GraphTwin {
    Graph(ChainProblem problem) {
      super(problem);
    }
  }
}
