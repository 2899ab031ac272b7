package dev.kernelweave.interceptor;

import dev.kernelweave.memory.AllocationTable;
import dev.kernelweave.scheduler.OrderingRules;

/**
 * The interceptor's entry points for the agent and the driver's advice, on this class loader's
 * {@link AgentState}: activation, shutdown, call milestones and the ends of contexts. Holds no state
 * of its own; the agent calls these (reflectively, on the copies of the interceptor's classes in
 * other class loaders) without naming the state.
 */
public final class Interception {

  private Interception() {}

  /** Activates interception with these settings; calls before this pass through untouched. */
  public static void activate(InterceptorSettings newSettings) {
    AgentState.current().activate(newSettings);
  }

  /**
   * Makes the program's device work and host waits run as written, untracked, until {@link #engage},
   * until {@code afterCalls} such calls (0: no count), or, where {@code onLaunchRuns}, until a run of
   * launches in a row that a graph pays for; see {@link Engagement}. Called after {@link
   * #activate}, before the program's first call.
   */
  public static void deferEngagement(long afterCalls, boolean onLaunchRuns) {
    AgentState.current().engagement.defer(afterCalls, onLaunchRuns);
  }

  /**
   * {@code engage=auto}: defers engagement until the program shows that scheduling pays for the
   * tracked path's cost, by a run of launches in a row that a graph pays for, or by
   * being long ({@link Engagement#CALLS_OF_A_LONG_PROGRAM} calls made as written).
   */
  public static void deferEngagementUntilItPays() {
    deferEngagement(Engagement.CALLS_OF_A_LONG_PROGRAM, true);
  }

  /**
   * Runs {@code action} once, on the thread that engages the agent where engagement was deferred,
   * inside that thread's call; it must not throw, nor make CUDA calls.
   */
  public static void whenEngaged(Runnable action) {
    AgentState.current().engagement.whenEngaged(action);
  }

  /**
   * Runs {@code action} once, inside the program's {@code calls}th call made as written before
   * the agent engages, on that call's thread; never where the agent engages before it. It must not
   * throw, nor make CUDA calls.
   */
  public static void atCallMadeAsWritten(long calls, Runnable action) {
    AgentState.current().engagement.atCallMadeAsWritten(calls, action);
  }

  /**
   * Runs {@code action} once, on the thread that stops the agent scheduling for good (a stream's wait
   * for a value in memory, or threads contending); it must not throw, nor make CUDA calls.
   */
  public static void whenHandedBack(Runnable action) {
    AgentState.current().engagement.whenHandedBack(action);
  }

  /** Starts tracking and scheduling every call, if not yet; {@code why} goes to the debug log. Any thread. */
  public static void engage(String why) {
    AgentState.current().engagement.engage(why);
  }

  /**
   * Writes every call journaled so far and closes the journal, from the agent's exit work (after
   * the application's shutdown hooks where the JDK allows it); calls after this are not journaled,
   * and a journal not opened yet never will be: Chronicle must not start while the JVM exits.
   */
  public static void shutdown() {
    AgentState.current().shutdown();
  }

  /**
   * Runs {@code action} once, as the program's call number {@code call} (counted from 1, across
   * threads) begins, on that call's thread; it must not throw, nor make CUDA calls.
   */
  public static void atCall(long call, Runnable action) {
    AgentState.current().milestones.at(call, action);
  }

  /**
   * The orderings kept and the call table calls are placed by: the settings' (see {@link
   * InterceptorSettings#rules}), {@link OrderingRules#CUDA} before activation. The classes that
   * keep them in a constant read them at their first use, which is after activation in the agent.
   */
  static OrderingRules rules() {
    InterceptorSettings s = AgentState.current().settings;
    return s == null ? OrderingRules.CUDA : s.rules();
  }

  /** The allocation table, for tests and the self-test on a GPU. */
  public static AllocationTable allocations() {
    return AgentState.current().allocations;
  }

  /** The program retained the primary context of {@code device}. */
  public static void primaryRetained(long device, long context) {
    AgentState.current().primaryRetained(device, context);
  }

  /**
   * The primary context of {@code device} was destroyed (reset, or released for the last time): its
   * scheduler, streams, events, graphs and buffers are gone with it, and a context retained again,
   * even under the same handle, starts fresh.
   */
  public static void primaryEnded(long device) {
    AgentState.current().primaryEnded(device);
  }

  /** Forgets a destroyed context's scheduler; its streams went with it. */
  public static void contextDestroyed(long context) {
    AgentState.current().contextDestroyed(context);
  }
}
