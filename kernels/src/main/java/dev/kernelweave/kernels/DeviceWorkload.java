package dev.kernelweave.kernels;

import static jcuda.driver.JCudaDriver.cuGraphLaunch;

import java.util.function.ObjIntConsumer;
import jcuda.driver.CUgraphExec;
import jcuda.driver.CUstream;

/**
 * What the workloads share on the GPU: the problem, a {@link CudaScope} that owns everything
 * they create, and the order of set-up. A workload class holds the buffers and launches common to
 * its variants; its nested {@code Serial} and {@code Tuned} subclasses add only how they issue the
 * work: {@link #run}, their streams, events and host memory, and where the result lands. A {@code
 * Graph} twin is its {@code Tuned} twin marked {@link GraphTwin}: what the tuned twin issues
 * through {@link #issuing} it replays from graphs instead.
 *
 * @param <P> the workload's problem
 */
public abstract class DeviceWorkload<P extends Problem> implements Workload {

  protected final P p;

  /**
   * Owns every CUDA object the workload creates; null before {@link #setUp} and after {@link
   * #close}.
   */
  protected CudaScope cuda;

  /**
   * Where the variant copies the result back to, in a workload whose result is one device buffer:
   * a serial variant sets it in its constructor, the others in {@link #setUpVariant}. Null in a
   * workload whose output is laid out otherwise, which overrides {@link #output}.
   */
  protected HostResult result;

  protected DeviceWorkload(P problem) {
    this.p = problem;
  }

  @Override
  public P problem() {
    return p;
  }

  /** The floats of {@link #result}. */
  @Override
  public byte[] output() {
    return Outputs.floats(result.floats());
  }

  /**
   * Creates the scope, loads the problem's module, then {@link #allocate} and {@link
   * #setUpVariant}.
   */
  @Override
  public final void setUp() {
    cuda = new CudaScope();
    allocate(cuda.module(p.ptx()));
    setUpVariant();
  }

  /** Looks up the kernels and allocates the buffers both variants use. */
  protected abstract void allocate(CudaScope.Module module);

  /** Creates what only this variant uses: streams, events, handles, pinned memory. */
  protected void setUpVariant() {}

  /**
   * Marks the graph twin of a tuned variant: the same work, captured once at set-up into CUDA
   * graphs and launched every repetition, so that it differs from its tuned twin in nothing else.
   */
  protected interface GraphTwin {}

  /** Whether this variant replays its work from graphs: the graph twins. */
  protected final boolean replaysGraphs() {
    return this instanceof GraphTwin;
  }

  /** {@code queue}'s work on {@code stream} alone; see below. */
  protected final Runnable issuing(CUstream stream, Runnable queue) {
    return issuing(stream, new CUstream[0], queue);
  }

  /**
   * What issues {@code queue}'s work every repetition: {@code queue} itself, or in a graph twin a
   * launch on {@code origin} of its graph, captured now from {@code origin} with {@code forked}
   * forked from it (see {@link CudaScope#graph(CUstream, CUstream[], Runnable)}).
   */
  protected final Runnable issuing(CUstream origin, CUstream[] forked, Runnable queue) {
    if (!replaysGraphs()) {
      return queue;
    }
    CUgraphExec graph = cuda.graph(origin, forked, queue);
    return () -> cuGraphLaunch(graph, origin);
  }

  /**
   * Per stream of {@code streams}, what issues the work {@code queue} queues for unit {@code i} on
   * {@code streams[i]}: queued afresh, or in a graph twin a launch there of the unit's own graph,
   * all captured now (see {@link CudaScope#graphPerStream}).
   */
  protected final Runnable[] issuingPerStream(CUstream[] streams, ObjIntConsumer<CUstream> queue) {
    CUgraphExec[] graphs = replaysGraphs() ? cuda.graphPerStream(streams, queue) : null;
    Runnable[] issue = new Runnable[streams.length];
    for (int i = 0; i < streams.length; i++) {
      int unit = i;
      issue[i] =
          graphs != null
              ? () -> cuGraphLaunch(graphs[unit], streams[unit])
              : () -> queue.accept(streams[unit], unit);
    }
    return issue;
  }

  @Override
  public void close() {
    if (cuda != null) {
      CudaScope scope = cuda;
      cuda = null;
      scope.close();
    }
  }
}
