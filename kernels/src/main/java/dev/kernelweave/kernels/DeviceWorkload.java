package dev.kernelweave.kernels;

/**
 * What the workloads share on the GPU: the problem, a {@link CudaScope} that owns everything
 * they create, and the order of set-up. A workload class holds the buffers and launches common to
 * its variants; its nested {@code Serial} and {@code Tuned} subclasses add only how they issue the
 * work: {@link #run}, their streams, events and host memory, and where the result lands.
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

  protected DeviceWorkload(P problem) {
    this.p = problem;
  }

  @Override
  public P problem() {
    return p;
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

  @Override
  public void close() {
    if (cuda != null) {
      CudaScope scope = cuda;
      cuda = null;
      scope.close();
    }
  }
}
