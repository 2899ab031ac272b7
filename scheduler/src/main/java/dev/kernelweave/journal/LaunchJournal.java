package dev.kernelweave.journal;

import dev.kernelweave.call.CallRecord;

/**
 * Where every intercepted call is recorded. {@link #append} copies the record and returns without
 * touching the disk, so a slow or full disk never stalls a launch.
 *
 * <p>Thread-safe: any application thread may append.
 */
public interface LaunchJournal extends AutoCloseable {

  /** Records the call; the caller may reuse {@code call} as soon as this returns. */
  void append(CallRecord call);

  /**
   * Records how the run's scheduling went ({@link RunEnd}), to be written after every call appended
   * before {@link #close}; called once, just before it. A journal that cannot keep it ignores it.
   */
  default void endOfRun(RunEnd end) {}

  /** Writes what is pending and releases the files. */
  @Override
  void close();

  /** A journal that records nothing: {@code journal=off}. */
  LaunchJournal OFF = new LaunchJournal() {
    @Override
    public void append(CallRecord call) {}

    @Override
    public void close() {}
  };
}
