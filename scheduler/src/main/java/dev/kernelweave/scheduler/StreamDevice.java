package dev.kernelweave.scheduler;

import dev.kernelweave.call.PriorityClass;

/**
 * The handful of stream and event operations the scheduler itself issues, on lanes it numbers.
 * Lanes {@code 0 .. streams-1} are the agent's own non-blocking streams; lane {@code streams} is
 * the application's legacy default stream, where calls that keep their synchronous meaning run as
 * written.
 *
 * <p>Implemented over JCuda in the interceptor and simulated in tests. Implementations may throw;
 * the scheduler lets the exception through, and the interceptor then falls back to pass-through.
 * Called only while the scheduler's owner holds its lock.
 */
public interface StreamDevice {

  /** Creates the agent's stream for a pool lane; called once per lane, before its first use. */
  void createStream(int lane);

  /**
   * Creates the agent's stream for a pool lane of class {@code priority}, with the device's
   * matching stream priority (greatest for high, least for low, the default for normal). The
   * default ignores the class, which orders the same: right for devices that only model ordering.
   */
  default void createStream(int lane, PriorityClass priority) {
    createStream(lane);
  }

  /** Creates a pooled event; called once per event id, before its first use. Events need no timing. */
  void createEvent(int event);

  /** Records {@code event} on {@code lane}: it completes when all work issued there so far has. */
  void recordEvent(int event, int lane);

  /** Makes all later work on {@code lane} wait for the last recording of {@code event}; the host does not wait. */
  void waitEvent(int lane, int event);

  /**
   * Makes the application's own stream {@code appStream} (a handle as the application passed it:
   * 0 or 0x1 for the legacy stream, 0x2 for the calling thread's per-thread stream) wait for the
   * last recording of {@code event}; the host does not wait.
   */
  void waitEventOnAppStream(long appStream, int event);

  /**
   * Makes all later work on {@code lane} wait for the last recording of the application's event
   * {@code appEvent} (its handle); the host does not wait. The default waits on the host for the
   * whole device instead, which orders the same, only slower.
   */
  default void laneWaitsForAppEvent(int lane, long appEvent) {
    synchronizeDevice();
  }

  /**
   * Makes all later work on {@code lane} wait for all work issued until now on the application's
   * stream {@code appStream} (a handle; 0 or 0x1 for the legacy stream, which CUDA orders after
   * every blocking stream's work); the host does not wait. The default waits on the host for the
   * whole device instead, which orders the same, only slower.
   */
  default void laneFollowsAppStream(int lane, long appStream) {
    synchronizeDevice();
  }

  /**
   * Whether all work issued so far on the application's non-blocking stream {@code appStream} (a
   * handle) has completed, as {@code cuStreamQuery} tells; never called for a capturing stream. The
   * default does not know, and says no: the stream is then followed.
   */
  default boolean appStreamIdle(long appStream) {
    return false;
  }

  /**
   * Whether the application's stream {@code appStream} (a handle, never the legacy stream) is
   * capturing a graph now. The default says it is: the call then passes through as written.
   */
  default boolean appStreamCapturing(long appStream) {
    return true;
  }

  /**
   * The host waits for the last recording of {@code event}. Unlike the other methods, may be called
   * without the scheduler's lock: an event re-recorded meanwhile only makes the wait longer.
   */
  void synchronizeEvent(int event);

  /**
   * The host waits for all work issued on {@code lane} so far (for the legacy lane, with CUDA's
   * implicit ordering of the legacy stream). Like {@link #synchronizeEvent}, may be called without
   * the scheduler's lock. The scheduler asks for it where the position it needs is the lane's tail,
   * so that no event is recorded just to be waited for once; waiting for the whole device instead
   * is correct, only slower.
   */
  default void synchronizeLane(int lane) {
    synchronizeDevice();
  }

  /**
   * The host waits for all work issued on the application's stream {@code appStream} itself (a
   * handle, never the legacy stream). Like {@link #synchronizeEvent}, may be called without the
   * scheduler's lock. Waiting for the whole device instead is correct, only slower.
   */
  default void synchronizeAppStream(long appStream) {
    synchronizeDevice();
  }

  /** The host waits for all work on every stream of the context. */
  void synchronizeDevice();

  /**
   * Puts the calling thread in CUDA's relaxed stream-capture mode and returns its previous mode, so
   * that the agent's own waits for streams beside a capture are not prohibited by it
   * ({@code cuThreadExchangeStreamCaptureMode}). A device without captures does nothing.
   */
  default int relaxCaptureMode() {
    return 0;
  }

  /** Gives the calling thread back the capture mode {@link #relaxCaptureMode} returned. */
  default void restoreCaptureMode(int previous) {}

  /**
   * Creates timing event {@code timingEvent}, one that can be timed (unlike the pooled events), for
   * the sampled device times of windows ({@link WindowSamples}); ids count from 0, apart from the
   * pooled events'. Returns false where this device cannot time: nothing is sampled then.
   */
  default boolean createTimingEvent(int timingEvent) {
    return false;
  }

  /** Records timing event {@code timingEvent} on {@code lane}. */
  default void recordTimingEvent(int timingEvent, int lane) {}

  /**
   * The device's nanoseconds from timing event {@code start} to timing event {@code end}, both
   * recorded, once both have completed; {@link #NOT_YET} while either has not, {@link #UNREADABLE}
   * where they cannot be read (an error of the context). Never waits, and never throws: a sample is
   * worth no failure of the agent.
   */
  default long elapsedNanos(int start, int end) {
    return UNREADABLE;
  }

  /** {@link #elapsedNanos}: not completed yet. */
  long NOT_YET = -1;
  /** {@link #elapsedNanos}: will never be read. */
  long UNREADABLE = -2;
}
