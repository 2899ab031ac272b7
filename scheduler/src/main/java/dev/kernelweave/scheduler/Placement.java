package dev.kernelweave.interceptor;

/** How an intercepted call takes part in scheduling; each maps to one step of the scheduler's protocol. */
public enum Placement {
  /** Journaled only: host calls, module and handle management. */
  NONE,
  /** Device work with a stream parameter: runs on the lane the scheduler picks. */
  ASYNC,
  /** Device work that keeps its synchronous meaning: runs as written on the legacy stream, after its predecessors. */
  SYNC,
  /** A free: waits for the allocation's pending users. */
  FREE,
  /** Not understood: the host waits for everything before and after. */
  BARRIER,
  /** The application synchronized the whole device. */
  DEVICE_SYNC,
  /** The application synchronized one of its streams. */
  STREAM_SYNC,
  /** The application recorded an event on one of its streams. */
  EVENT_RECORD
}
