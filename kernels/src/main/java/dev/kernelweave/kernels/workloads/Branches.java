package dev.kernelweave.kernels.workloads;

import static jcuda.driver.JCudaDriver.cuEventRecord;
import static jcuda.driver.JCudaDriver.cuStreamWaitEvent;

import dev.kernelweave.kernels.Cuda;
import dev.kernelweave.kernels.CudaScope;
import dev.kernelweave.kernels.DeviceWorkload;
import dev.kernelweave.kernels.HostResult;
import dev.kernelweave.kernels.Kernel;
import dev.kernelweave.kernels.Variant;
import dev.kernelweave.kernels.Workload;
import jcuda.driver.CUdeviceptr;
import jcuda.driver.CUevent;
import jcuda.driver.CUstream;

/** {@code branches} on the GPU; see {@link BranchesProblem}. */
public abstract class Branches extends DeviceWorkload<BranchesProblem> {

  public static Workload create(BranchesProblem problem, Variant variant) {
    return variant.create(problem, Serial::new, Tuned::new, Graph::new);
  }

  private final BranchesProblem.Inputs inputs;
  private Kernel step;
  private Kernel join;
  private CUdeviceptr weights;

  /** Per chain, two buffers used in turn. */
  private CUdeviceptr[][] buffers;

  CUdeviceptr joined;

  Branches(BranchesProblem problem) {
    super(problem);
    this.inputs = problem.inputs();
  }

  @Override
  protected void allocate(CudaScope.Module module) {
    step = module.kernel(BranchesProblem.STEP);
    join = module.kernel(BranchesProblem.JOIN);
    weights = cuda.floats(p.n());
    buffers = new CUdeviceptr[p.chains()][];
    for (int c = 0; c < p.chains(); c++) {
      buffers[c] = new CUdeviceptr[] {cuda.floats(p.n()), cuda.floats(p.n())};
    }
    joined = cuda.floats(p.n());
  }

  /** Creates what the variant needs besides the buffers. */
  @Override
  public void reset() {
    Cuda.upload(weights, inputs.weights());
    for (int c = 0; c < p.chains(); c++) {
      Cuda.upload(buffers[c][BranchesProblem.bufferAfter(0)], inputs.initial()[c]);
    }
  }

  /** Kernel {@code k} of chain {@code c}. */
  void launchStep(int c, int k, CUstream stream) {
    CUdeviceptr in = buffers[c][BranchesProblem.bufferAfter(k)];
    CUdeviceptr out = buffers[c][BranchesProblem.bufferAfter(k + 1)];
    step.launch(p.blocks(), p.threads(), stream, in, weights, out, p.n(), k, p.rounds());
  }

  void launchJoin(CUstream stream) {
    Object[] args = new Object[p.chains() + 2];
    for (int c = 0; c < p.chains(); c++) {
      args[c] = buffers[c][BranchesProblem.bufferAfter(p.length())];
    }
    args[p.chains()] = joined;
    args[p.chains() + 1] = p.n();
    join.launch(p.blocks(), p.threads(), stream, args);
  }

  /** Each chain in turn on the default stream, then the join, then a synchronous copy. */
  static final class Serial extends Branches {
    Serial(BranchesProblem problem) {
      super(problem);
      result = HostResult.array(problem.n());
    }

    @Override
    public void run() {
      for (int c = 0; c < p.chains(); c++) {
        for (int k = 0; k < p.length(); k++) {
          launchStep(c, k, null);
        }
      }
      launchJoin(null);
      result.copyFrom(joined);
    }
  }

  /**
   * A stream per chain; the join waits on the last kernel of every other chain and runs on chain
   * 0's stream, which then copies the result into pinned memory.
   */
  static class Tuned extends Branches {
    private CUstream[] streams;
    private CUevent[] chainDone;

    /** Issues the chains and the join. */
    private Runnable issue;

    Tuned(BranchesProblem problem) {
      super(problem);
    }

    @Override
    protected void setUpVariant() {
      streams = cuda.streams(p.chains());
      chainDone = cuda.events(p.chains());
      result = HostResult.pinned(cuda.pinnedFloats(p.n()), joinStream());
      issue = issuing(joinStream(), streams, this::queueChainsAndJoin);
    }

    /** The stream the join, and the copy of its result, run on. */
    private CUstream joinStream() {
      return streams[0];
    }

    /** Every chain on its stream, then the join on {@link #joinStream} after all of them. */
    private void queueChainsAndJoin() {
      for (int c = 0; c < p.chains(); c++) {
        for (int k = 0; k < p.length(); k++) {
          launchStep(c, k, streams[c]);
        }
        if (c > 0) {
          cuEventRecord(chainDone[c], streams[c]);
          cuStreamWaitEvent(joinStream(), chainDone[c], 0);
        }
      }
      launchJoin(joinStream());
    }

    @Override
    public void run() {
      issue.run();
      result.copyFrom(joined);
    }
  }

  /**
   * The tuned twin's chains and join captured once into one graph (the 15 other chains' streams
   * forked from the join stream and joined back by the chains' events), launched on the join
   * stream every repetition; the copy of the result into pinned memory and the host's wait follow
   * it on that stream, outside the graph.
   */
  static final class Graph extends Tuned implements GraphTwin {
    Graph(BranchesProblem problem) {
      super(problem);
    }
  }
}
