package dev.kernelweave.interceptor;

/**
 * Each application thread's {@link CallThread}, for one {@link AgentState}: the one thread-local of
 * the call path, owned here so that a fresh state starts with fresh thread records.
 *
 * <p>Thread-safe: {@link #current} may be called from any thread and returns that thread's own
 * record.
 */
final class CallThreads {

  private final AgentState state;
  /**
   * Each thread's reused record: a thread-local, since the record is what makes a call allocate
   * nothing, and a thread must find its own without a lock. A class rather than {@code
   * ThreadLocal.withInitial}: made with the state at the agent's start, where the first lambda
   * would cost its bootstrap.
   */
  private final ThreadLocal<CallThread> own = new ThreadLocal<>() {
    @Override
    protected CallThread initialValue() {
      return new CallThread(state);
    }
  };
  /**
   * The record of the thread that called last. Most programs call CUDA from one thread, whose calls
   * then skip the thread-local lookup (a probe through a map crowded with the libraries' own thread
   * locals, several times a call). Racy by design: a thread that finds another thread's record here,
   * or none, looks its own up and leaves it here; an entry is only used after comparing its final
   * {@link CallThread#owner}, which every thread sees as constructed.
   */
  private CallThread lastCaller;

  CallThreads(AgentState state) {
    this.state = state;
  }

  /** The calling thread's record. Allocation-free after the thread's first call. */
  CallThread current() {
    CallThread last = lastCaller;
    if (last != null && last.isOwnedBy(Thread.currentThread())) {
      return last;
    }
    CallThread mine = own.get();
    lastCaller = mine;
    return mine;
  }
}
