package dev.kernelweave.kernels.workloads;

import static jcuda.driver.JCudaDriver.cuEventRecord;
import static jcuda.driver.JCudaDriver.cuStreamWaitEvent;

import dev.kernelweave.kernels.Cuda;
import dev.kernelweave.kernels.CudaScope;
import dev.kernelweave.kernels.DeviceWorkload;
import dev.kernelweave.kernels.HostResult;
import dev.kernelweave.kernels.Kernel;
import dev.kernelweave.kernels.PinnedFloats;
import dev.kernelweave.kernels.Variant;
import dev.kernelweave.kernels.Workload;
import jcuda.driver.CUdeviceptr;
import jcuda.driver.CUevent;
import jcuda.driver.CUstream;

/** {@code dynamic} on the GPU; see {@link DynamicProblem}. */
public abstract class Dynamic extends DeviceWorkload<DynamicProblem> {

  public static Workload create(DynamicProblem problem, Variant variant) {
    return variant.create(problem, Serial::new, Tuned::new, Graph::new);
  }

  private static final int K = DynamicProblem.TOP_K;

  private final DynamicProblem.Inputs inputs;
  private final float[] gates = DynamicProblem.gates();

  /** The experts picked in every iteration, as the host decided. */
  final int[] routes;

  private Kernel router;
  private Kernel expert;
  private Kernel combine;
  CUdeviceptr x;
  private CUdeviceptr routerWeights;
  CUdeviceptr scores;
  private CUdeviceptr[] expertWeights;

  /** Per expert, two buffers used in turn. */
  private CUdeviceptr[][] expertBuffers;

  Dynamic(DynamicProblem problem) {
    super(problem);
    this.inputs = problem.inputs();
    this.routes = new int[problem.iterations() * K];
  }

  @Override
  protected void allocate(CudaScope.Module module) {
    router = module.kernel(DynamicProblem.ROUTER);
    expert = module.kernel(DynamicProblem.EXPERT);
    combine = module.kernel(DynamicProblem.COMBINE);
    x = cuda.floats(p.n());
    routerWeights = cuda.floats((long) p.experts() * p.n());
    scores = cuda.floats(p.experts());
    expertWeights = new CUdeviceptr[p.experts()];
    expertBuffers = new CUdeviceptr[p.experts()][];
    for (int e = 0; e < p.experts(); e++) {
      expertWeights[e] = cuda.floats(p.n());
      expertBuffers[e] = new CUdeviceptr[] {cuda.floats(p.n()), cuda.floats(p.n())};
    }
  }

  @Override
  public void reset() {
    Cuda.upload(x, inputs.x());
    Cuda.upload(routerWeights, inputs.router());
    for (int e = 0; e < p.experts(); e++) {
      Cuda.upload(expertWeights[e], inputs.expertWeights()[e]);
    }
  }

  /** The picks of every iteration, then x. */
  @Override
  public byte[] output() {
    return p.output(routes, result.floats());
  }

  void launchRouter(CUstream stream) {
    router.launch(
        p.experts(), DynamicProblem.routerThreads(), stream, x, routerWeights, scores, p.n());
  }

  /** Records iteration {@code it}'s picks for the output and returns them. */
  int[] pick(int it, float[] scoresOnHost) {
    int[] picked = DynamicProblem.topK(scoresOnHost, K);
    System.arraycopy(picked, 0, routes, it * K, K);
    return picked;
  }

  /** Expert {@code e}'s chain. */
  void launchExpert(int e, CUstream stream) {
    CUdeviceptr[] buffers = expertBuffers[e];
    for (int k = 0; k < p.length(); k++) {
      CUdeviceptr in = k == 0 ? x : buffers[DynamicProblem.bufferAfter(k)];
      CUdeviceptr out = buffers[DynamicProblem.bufferAfter(k + 1)];
      expert.launch(
          p.blocks(), p.threads(), stream, x, in, expertWeights[e], out, p.n(), p.rounds());
    }
  }

  void launchCombine(int[] picked, CUstream stream) {
    Object[] args = new Object[1 + 2 * K + 1];
    args[0] = x;
    for (int j = 0; j < K; j++) {
      args[1 + j] = expertBuffers[picked[j]][DynamicProblem.bufferAfter(p.length())];
      args[1 + K + j] = gates[j];
    }
    args[1 + 2 * K] = p.n();
    combine.launch(p.blocks(), p.threads(), stream, args);
  }

  /** Everything on the default stream; synchronous copies into Java arrays. */
  static final class Serial extends Dynamic {
    private final float[] scoresOnHost;

    Serial(DynamicProblem problem) {
      super(problem);
      scoresOnHost = new float[problem.experts()];
      result = HostResult.array(problem.n());
    }

    @Override
    public void run() {
      for (int it = 0; it < p.iterations(); it++) {
        launchRouter(null);
        Cuda.download(scoresOnHost, scores);
        int[] picked = pick(it, scoresOnHost);
        for (int e : picked) {
          launchExpert(e, null);
        }
        launchCombine(picked, null);
      }
      result.copyFrom(x);
    }
  }

  /**
   * Router, read-back and combine on one stream; each picked expert on its own stream, the combine
   * waiting on each. The host's wait for the scores orders the experts after the previous combine
   * and that combine after the experts' earlier reads, so no other event is needed.
   */
  static class Tuned extends Dynamic {
    private CUstream main;
    private CUstream[] streams;
    private CUevent[] expertDone;
    private PinnedFloats scoresOnHost;
    private float[] scoresCopy;

    /** Per expert, issues its chain on its stream. */
    private Runnable[] expertChains;

    Tuned(DynamicProblem problem) {
      super(problem);
    }

    @Override
    protected void setUpVariant() {
      main = cuda.stream();
      streams = cuda.streams(p.experts());
      expertDone = cuda.events(p.experts());
      scoresOnHost = cuda.pinnedFloats(p.experts());
      result = HostResult.pinned(cuda.pinnedFloats(p.n()), main);
      scoresCopy = new float[p.experts()];
      expertChains = issuingPerStream(streams, (stream, e) -> launchExpert(e, stream));
    }

    @Override
    public void run() {
      for (int it = 0; it < p.iterations(); it++) {
        launchRouter(main);
        scoresOnHost.readBack(scores, main);
        scoresOnHost.get(0, scoresCopy, 0, p.experts());
        int[] picked = pick(it, scoresCopy);
        for (int e : picked) {
          expertChains[e].run();
          cuEventRecord(expertDone[e], streams[e]);
          cuStreamWaitEvent(main, expertDone[e], 0);
        }
        launchCombine(picked, main);
      }
      result.copyFrom(x);
    }
  }

  /**
   * The tuned twin with each expert's chain as a graph, captured once on the expert's stream and
   * launched there when the router picks it. The experts an iteration runs are known only once the
   * host has read the router's scores, so no graph can span the router, the read-back and the
   * experts; and the combine's arguments name the picked experts' outputs, one of C(16,4) = 1820
   * sets of 16 experts, so it is launched as a kernel rather than captured for every set. What the
   * graphs save is the host's launches of a chain's kernels: one {@code cuGraphLaunch} for {@code
   * length} launches.
   */
  static final class Graph extends Tuned implements GraphTwin {
    Graph(DynamicProblem problem) {
      super(problem);
    }
  }
}
