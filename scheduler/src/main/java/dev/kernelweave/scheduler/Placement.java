package dev.kernelweave.scheduler;

/**
 * How an intercepted call takes part in scheduling, decided by the interceptor from the call alone;
 * {@link Dispatch} maps each to the scheduler's steps. The comments say what CUDA promises for the
 * call, which is what the agent must keep.
 */
public enum Placement {
  /** Journaled only: host calls, module and handle management. */
  NONE,
  /** Device work with a stream parameter: runs on the lane the scheduler picks, after its predecessors. */
  ASYNC,
  /**
   * Device work issued as written on the legacy default stream. A synchronous copy to or from host
   * memory also blocks the host until all earlier legacy-stream and blocking-stream work is done.
   */
  SYNC,
  /**
   * A synchronous host-to-device copy whose source the agent copied into a buffer of its own, so
   * that the program may reuse its memory at once: runs asynchronously on the lane the scheduler
   * picks, after its predecessors (device-side). As CUDA completes earlier legacy-stream and
   * blocking-stream work before such a call returns, the host first waits for the pending work of
   * those streams whose effect it can see. A large copy that would wait for nothing runs as
   * {@link #SYNC} instead ({@link Dispatch#STAGED_WHEN_IDLE_BYTES}).
   */
  STAGED,
  /**
   * A synchronous device-to-host copy into the program's memory that the agent queues on the legacy
   * lane into a page-locked buffer of its own, after everything the synchronous copy would follow
   * (device-side, as {@link #SYNC} does), then waits for outside the lock
   * ({@link Dispatch#awaitStagedRead}) and copies into the program's memory before the call returns.
   * One round trip to the device instead of a host wait and then the copy; the host still returns
   * only once everything CUDA completes before such a call is complete.
   */
  STAGED_READ,
  /** A free: the host waits for the allocation's pending users. */
  FREE,
  /** Not understood and with no stream to order it on: the host waits for everything before and after. */
  BARRIER,
  /** The application synchronized the whole context. */
  DEVICE_SYNC,
  /** The application synchronized one of its streams. */
  STREAM_SYNC,
  /** The application asked whether one of its streams is idle: answered at once, never waited for. */
  STREAM_QUERY,
  /** The application recorded an event on one of its streams. */
  EVENT_RECORD,
  /** The application made one of its streams wait for an event. */
  STREAM_WAIT_EVENT,
  /** A stream begins capturing a graph: everything passes through untouched until the capture ends. */
  CAPTURE_BEGIN,
  /** A stream's capture ended. */
  CAPTURE_END
}
