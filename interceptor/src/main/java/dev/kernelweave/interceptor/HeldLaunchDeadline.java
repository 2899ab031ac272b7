package dev.kernelweave.interceptor;

import dev.kernelweave.interceptor.jcuda.JCudaNatives;
import dev.kernelweave.scheduler.LaunchWindows;
import java.util.concurrent.locks.LockSupport;

/**
 * The deadline of held launches: a daemon thread issues what a context holds once the host has made
 * no launch in it for {@link #DEADLINE_NANOS} (any other call of the context would have issued it),
 * so that a launch never stays held waiting for a call that may not come: a program that launches,
 * then computes on the host, or ends without synchronizing, gets its launches run as without the
 * agent. The launches are issued under the context's lock, with the context current on this thread.
 *
 * <p>One per {@link AgentState}, watching its contexts. The thread starts with the first held
 * launch; while no context holds anything it looks again every {@link #DEADLINE_NANOS} for
 * {@link #LINGER_NANOS}, then parks without a timeout until {@link #startedHolding} wakes it; it
 * ends once the state stops scheduling. A launch held while it looks at that pace is still issued
 * at its deadline: the daemon sees it within one deadline and then waits only what is left of it.
 * Thread safety: {@link #startedHolding} may be called from any thread (under a context's lock);
 * the rest runs on the daemon.
 */
final class HeldLaunchDeadline implements Runnable {

  /** The longest a launch stays held with no further launch and no other call. */
  static final long DEADLINE_NANOS = LaunchWindows.PAUSE_NANOS;
  /**
   * How long the daemon keeps looking, at the deadline's pace, after it last saw launches held,
   * before it parks until a context holds some again.
   */
  static final long LINGER_NANOS = 100 * DEADLINE_NANOS;

  private final AgentState state;
  private volatile Thread thread;
  /** Set by the daemon before it parks with nothing to wait for; a new holder then unparks it. */
  private volatile boolean idle;
  /** When the daemon last saw launches held; its own. */
  private long lastHeldNanos;

  HeldLaunchDeadline(AgentState state) {
    this.state = state;
  }

  /** A context began to hold launches: make sure the daemon watches their deadline. */
  void startedHolding() {
    Thread t = thread;
    if (t == null) {
      start();
    } else if (idle) {
      LockSupport.unpark(t);
    }
  }

  private synchronized void start() {
    if (thread == null) {
      Thread t = new Thread(this, "kernelweave-held-launch-deadline");
      t.setDaemon(true);
      thread = t;
      t.start();
    }
  }

  @Override
  public void run() {
    long[] wait = new long[1];
    lastHeldNanos = System.nanoTime(); // started by a held launch
    while (state.scheduling) {
      try {
        wait[0] = Long.MAX_VALUE;
        state.contexts.forEach((context, cs) -> {
          if (cs.dispatch.holdingHint()) {
            JCudaNatives.makeCurrent(context);
            long left = cs.dispatch.issueIfIdle(DEADLINE_NANOS);
            if (left >= 0) {
              wait[0] = Math.min(wait[0], left);
            }
          }
        });
        if (wait[0] != Long.MAX_VALUE) {
          lastHeldNanos = System.nanoTime();
          LockSupport.parkNanos(wait[0]);
          continue;
        }
        if (System.nanoTime() - lastHeldNanos < LINGER_NANOS) {
          // A program that held launches a moment ago likely holds more soon: look again at the
          // deadline's pace rather than park for good, which would cost its thread an unpark
          // (a system call) at each window it begins.
          LockSupport.parkNanos(DEADLINE_NANOS);
          continue;
        }
        idle = true;
        // A context that began holding before idle was set did not unpark: look once more.
        if (!HeldWork.anyHolding(state)) {
          LockSupport.park();
        }
        idle = false;
      } catch (Throwable e) {
        state.fail(e);
        return;
      }
    }
  }
}
