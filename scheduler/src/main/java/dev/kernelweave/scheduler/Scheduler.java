package dev.kernelweave.scheduler;

import dev.kernelweave.call.CallRecord;

/**
 * Decides, for one CUDA context, on which stream each call runs and what it must wait for, from
 * the device memory the calls touch.
 *
 * <p>The application issues its calls one after another; this class keeps, per allocation slot,
 * the last writer and the readers since, and makes each call follow exactly the calls it depends
 * on: read-after-write, write-after-read and write-after-write. A call with one predecessor whose
 * lane it can extend stays on that lane (chains stay on one stream); independent calls spread over
 * the pool; a predecessor on another lane costs one {@code waitEvent} on the newest needed event of
 * that lane, and an event is recorded only when such a wait needs it. The host never waits on the
 * launch path.
 *
 * <p>Protocol, per call (the interceptor and the simulator's program runner follow it alike):
 * <ul>
 *   <li>device work with a stream parameter: {@code lane = beforeAsyncWork(call)}, issue the real
 *       call on {@code lane}, then {@code afterWork(call, succeeded)};
 *   <li>device work that keeps its synchronous meaning (a synchronous copy, a memset without a
 *       stream): {@code beforeSyncWork(call)}, issue the real call as written on the legacy default
 *       stream, then {@code afterWork(call, succeeded)};
 *   <li>a free: {@code beforeFree(call)} (the host waits for the allocation's pending users), the
 *       real free, then {@code afterFree(call)};
 *   <li>anything not understood: {@code beforeBarrier(call)}, the real call, {@code afterBarrier(call)};
 *   <li>{@code cuCtxSynchronize}, {@code cudaDeviceSynchronize}: the real call, then
 *       {@code afterDeviceSynchronize()};
 *   <li>{@code cuStreamSynchronize(s)}: {@code beforeStreamSynchronize(call)}, then the real call;
 *   <li>{@code cuEventRecord(e, s)}: {@code lane = beforeEventRecord(call)}, the real call on
 *       {@code lane}, then {@code afterWork(call, succeeded)}.
 * </ul>
 * Each {@code before...} fills the call's decision fields ({@code stream}, {@code predecessors},
 * {@code eventRecorded}, {@code hostWaited}, {@code barrier}) for the journal.
 *
 * <p>Not thread-safe: one scheduler per context, and its owner holds a lock from {@code before...}
 * until the matching {@code after...}, so that the order in which calls are decided is the order in
 * which they reach the device.
 */
public final class Scheduler {

  /** Streams per context when the option {@code streams} is not given. */
  public static final int DEFAULT_STREAMS = 16;

  /**
   * @param device the stream and event operations to issue
   * @param streams the number of pool lanes, at least 1
   * @param mutant {@link Mutant#NONE}, or a deliberately broken variant for the fuzz
   */
  public Scheduler(StreamDevice device, int streams, Mutant mutant) {
    throw new UnsupportedOperationException("not built yet");
  }

  /** The lane index of the application's legacy default stream: {@code streams}. */
  public int legacyLane() {
    throw new UnsupportedOperationException("not built yet");
  }

  /**
   * Places device work that has a stream parameter: computes its predecessors from the call's
   * accesses, picks a pool lane, issues the waits it needs. A call with
   * {@code touchesUnknownMemory} becomes a barrier and runs on the legacy lane.
   *
   * @return the lane to issue the real call on
   */
  public int beforeAsyncWork(CallRecord call) {
    throw new UnsupportedOperationException("not built yet");
  }

  /**
   * Prepares device work that runs as written on the legacy default stream and keeps its
   * synchronous meaning: makes the legacy lane wait for the call's predecessors only.
   */
  public void beforeSyncWork(CallRecord call) {
    throw new UnsupportedOperationException("not built yet");
  }

  /** Records a placed call in the history once the real call returned; a failed call leaves none. */
  public void afterWork(CallRecord call, boolean succeeded) {
    throw new UnsupportedOperationException("not built yet");
  }

  /** The host waits for every pending user of the allocation the call frees (its first access). */
  public void beforeFree(CallRecord call) {
    throw new UnsupportedOperationException("not built yet");
  }

  /** Forgets the freed allocation's history, so that a new allocation in its slot starts fresh. */
  public void afterFree(CallRecord call) {
    throw new UnsupportedOperationException("not built yet");
  }

  /** The host waits for all work, before a call the agent does not understand. */
  public void beforeBarrier(CallRecord call) {
    throw new UnsupportedOperationException("not built yet");
  }

  /** The host waits for whatever the opaque call queued anywhere; all history is complete. */
  public void afterBarrier(CallRecord call) {
    throw new UnsupportedOperationException("not built yet");
  }

  /** Everything issued so far has completed (the application synchronized the device). */
  public void afterDeviceSynchronize() {
    throw new UnsupportedOperationException("not built yet");
  }

  /**
   * The host waits for every call the application issued on {@code call.appStream}, wherever that
   * work went, and for nothing else.
   */
  public void beforeStreamSynchronize(CallRecord call) {
    throw new UnsupportedOperationException("not built yet");
  }

  /**
   * Chooses the lane on which the application's event for {@code call.appStream} is recorded, after
   * making it wait for every call the application issued on that stream.
   */
  public int beforeEventRecord(CallRecord call) {
    throw new UnsupportedOperationException("not built yet");
  }
}
