package dev.kernelweave.interceptor;

import dev.kernelweave.call.CallRecord;

/**
 * What an enter advice returns when the agent took the call over: it issued the call itself (a
 * staged copy, {@link StagedCopies}) or holds it to issue later (a launch in a window, see
 * {@code LaunchWindows}). The woven method then skips JCuda's call (the advice names this class in
 * {@code skipOn}) and the exit advice ends {@link #record} through {@link Calls#endIssuedByAgent},
 * which returns the result JCuda's call would have: success. One per thread, reused; confined to
 * its thread.
 */
public final class IssuedByAgent {

  /** The call taken over. */
  public CallRecord record;
  /** Whether the call is held: journaled once issued, not when it returns. */
  boolean held;
}
