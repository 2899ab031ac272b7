package dev.kernelweave.interceptor.observe;

/**
 * The agent's live totals over JMX, registered as {@value CallEvents#OBJECT_NAME} at the first CUDA
 * call: the numbers {@code inspect stats} prints from a journal, for the calls finished so far,
 * across every thread and context. Readable in JConsole, JDK Mission Control or any JMX client.
 *
 * <p>Each getter sums per-thread counters: cheap to read, never a lock on the application's
 * calls, and not a snapshot (see {@link SchedulingCounters}).
 */
public interface SchedulingMXBean {

  /** Intercepted calls. */
  long getCalls();

  /** Calls that returned an error code or threw. */
  long getFailedCalls();

  /** Kernel launches. */
  long getLaunches();

  /** cuBLAS routines. */
  long getBlasCalls();

  /** Copies between host and device or within the device. */
  long getCopies();

  /** Memsets of device memory. */
  long getMemsets();

  /** Context, device, stream and event synchronizations. */
  long getSynchronizations();

  long getBytesHostToDevice();

  long getBytesDeviceToHost();

  long getBytesDeviceToDevice();

  /** Distinct agent streams the calls ran on. */
  int getStreamsUsed();

  /** Waits of one agent stream for an event of another. */
  long getCrossStreamWaits();

  /** Events the agent recorded for a later call on another stream. */
  long getEventsRecorded();

  /** Calls where the host waited for the GPU: for writers, for a free, or for a barrier. */
  long getHostWaits();

  /** Host waits that covered fewer streams than the whole device. */
  long getHostWaitsNarrowed();

  /** Calls handled as a full barrier. */
  long getBarriers();

  /** Host time of the calls that waited, the waits included, in nanoseconds. */
  long getHostWaitNanos();
  /** Kernel launches the agent held and issued inside a replayed CUDA graph ({@code graphs=on}). */
  long getLaunchesReplayed();
}
