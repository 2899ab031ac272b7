package dev.kernelweave.scheduler;

import dev.kernelweave.call.CallRecord;
import dev.kernelweave.call.PriorityClass;

/**
 * Whether the agent costs a context more than it gives back because several threads call through it
 * at once. The agent decides every call of a context, and issues the work it moves, under one lock,
 * so threads that CUDA would let call side by side wait for each other there. What the agent gives
 * back to such a program is mostly its graph replays, and a replay saves the host the launches of its
 * window: little where windows are short. So where, for {@link #PERIODS_IN_A_ROW} periods of {@link
 * #PERIOD} calls in a row, a quarter or more of the calls found the lock taken, the replayed windows
 * averaged fewer than {@link #LONG_WINDOW} launches, and no call asked for a priority, the check says
 * so ({@link #verdict}) and the interceptor hands the program back (its {@code
 * Engagement.disengage}): from then on every call runs as written, as fast as without the agent. One
 * thread never contends, so a single-threaded program is never handed back.
 *
 * <p>Measured on an H100 (a thread pool of 4 to 16 workers serving a small model, each request an
 * upload, two GEMMs, three kernels and two read-backs on the legacy stream): a quarter to a half of the
 * calls contended, windows of at most 5 launches, and the agent ran the service at half its speed.
 *
 * <p>Not thread-safe: {@link #entered} runs under the dispatch's lock; {@link #verdict} is volatile
 * and goes from null to a reason once.
 */
final class SharedContextCheck {

  /** Calls a period counts: enough that a quarter of them is not chance, few enough to decide early in a short run. */
  static final int PERIOD = 512;
  /** Periods that must say the same in a row: a first one may fall in the threads' start, before windows repeat. */
  static final int PERIODS_IN_A_ROW = 2;
  /** Launches per replayed window from which replays keep the agent: a graph of this many saves the host tens of microseconds. */
  static final int LONG_WINDOW = 8;

  private boolean enabled;
  private int calls;
  private int contended;
  private boolean prioritized;
  private long windowsAtPeriodStart;
  private long launchesAtPeriodStart;
  private int periodsSaying;
  private volatile String verdict;

  /** Starts counting; until then there is never a verdict (the agent's {@code handback=off}, the self-test's dispatch). Before the first call. */
  void enable() {
    enabled = true;
  }

  /**
   * Counts a call that took the lock to be decided.
   *
   * @param waited whether another thread held the lock when the call came
   * @param windowsReplayed the context's windows replayed as graphs so far
   * @param launchesReplayed the launches in them
   */
  void entered(CallRecord call, boolean waited, long windowsReplayed, long launchesReplayed) {
    if (!enabled || verdict != null) {
      return;
    }
    calls++;
    if (waited) {
      contended++;
    }
    if (call.priority != PriorityClass.NORMAL) {
      prioritized = true;
    }
    if (calls < PERIOD) {
      return;
    }
    long windows = windowsReplayed - windowsAtPeriodStart;
    long launches = launchesReplayed - launchesAtPeriodStart;
    boolean shortWindows = windows == 0 || launches < LONG_WINDOW * windows;
    boolean costs = !prioritized && contended * 4 >= calls && shortWindows;
    periodsSaying = costs ? periodsSaying + 1 : 0;
    if (periodsSaying >= PERIODS_IN_A_ROW) {
      verdict = "threads calling at once waited for each other in the agent (" + contended + " of the last " + calls
          + " calls) and its graphs replayed " + (windows == 0 ? "no window" : "windows of "
          + String.format("%.1f", (double) launches / windows) + " launches on average");
    }
    calls = 0;
    contended = 0;
    prioritized = false;
    windowsAtPeriodStart = windowsReplayed;
    launchesAtPeriodStart = launchesReplayed;
  }

  /** Null while the agent may keep the context; once it costs more than it gives, why. Any thread. */
  String verdict() {
    return verdict;
  }
}
