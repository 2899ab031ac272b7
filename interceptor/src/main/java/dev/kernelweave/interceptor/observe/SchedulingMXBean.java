package dev.kernelweave.interceptor.observe;

/**
 * The agent's live totals over JMX, registered as {@value CallEvents#OBJECT_NAME} at the first CUDA
 * call: the numbers {@code inspect stats} prints from a journal, for the calls finished so far,
 * across every thread and context. Readable in JConsole, JDK Mission Control or any JMX client,
 * which show each attribute's {@link AttributeDescription}.
 *
 * <p>Kernel launches and cuBLAS calls are counted apart, replayed ones too: {@code LaunchesReplayed}
 * is at most {@code Launches}, {@code BlasCallsReplayed} at most {@code BlasCalls}.
 *
 * <p>Each getter sums per-thread counters: cheap to read, never a lock on the application's
 * calls, and not a snapshot (see {@link SchedulingCounters}).
 */
public interface SchedulingMXBean {

  /** The bean's own description in JMX clients. */
  String DESCRIPTION = "KernelWeave: the intercepted CUDA calls finished so far and how the agent scheduled them";

  @AttributeDescription("Intercepted CUDA calls of every kind: launches, cuBLAS calls, copies, memsets, "
      + "synchronizations, allocations and the rest")
  long getCalls();

  @AttributeDescription("Intercepted calls that returned a CUDA error code or threw")
  long getFailedCalls();

  @AttributeDescription("Kernel launches through the driver or runtime API; cuBLAS calls are not counted here")
  long getLaunches();

  @AttributeDescription("cuBLAS calls (cublas* routines); the kernels they start inside cuBLAS are not counted in Launches")
  long getBlasCalls();

  @AttributeDescription("Copies from host to device, device to host and device to device")
  long getCopies();

  @AttributeDescription("Memsets of device memory")
  long getMemsets();

  @AttributeDescription("Context, device, stream and event synchronizations")
  long getSynchronizations();

  @AttributeDescription("Bytes copied from host to device memory")
  long getBytesHostToDevice();

  @AttributeDescription("Bytes copied from device to host memory")
  long getBytesDeviceToHost();

  @AttributeDescription("Bytes copied between device allocations")
  long getBytesDeviceToDevice();

  @AttributeDescription("Distinct agent streams that calls ran on")
  int getStreamsUsed();

  @AttributeDescription("Waits of one agent stream for an event recorded on another, to keep a dependency")
  long getCrossStreamWaits();

  @AttributeDescription("Events the agent recorded after a call for a later call on another stream")
  long getEventsRecorded();

  @AttributeDescription("Calls at which the host waited for the GPU: for the writers of what it reads, for a free, "
      + "or at a barrier")
  long getHostWaits();

  @AttributeDescription("Host waits that covered fewer streams than the whole device")
  long getHostWaitsNarrowed();

  @AttributeDescription("Calls handled as a full barrier: every stream waited for, as for a call the agent cannot analyse")
  long getBarriers();

  @AttributeDescription("Host time of the calls that waited for the GPU, the waits included, in nanoseconds")
  long getHostWaitNanos();

  @AttributeDescription("Kernel launches the agent held and issued inside a replayed CUDA graph (graphs=on); "
      + "at most Launches")
  long getLaunchesReplayed();

  @AttributeDescription("cuBLAS calls the agent held and issued inside a replayed CUDA graph (graphs=on); "
      + "at most BlasCalls")
  long getBlasCallsReplayed();
}
