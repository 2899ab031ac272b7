package dev.kernelweave.interceptor;

import dev.kernelweave.call.CallKind;
import dev.kernelweave.call.CallRecord;
import dev.kernelweave.interceptor.jcuda.JCudaNatives;
import dev.kernelweave.scheduler.Dispatch;
import java.util.function.Predicate;

/**
 * When the launches contexts hold ({@code LaunchWindows}) must be issued beyond their own context's
 * placed calls: before calls that are not placed but may report an error or touch memory, before
 * any call while several contexts are in use, before calls that reach into or end another context;
 * and how a sticky error stops holding. Every method may be called from any thread; each context's
 * windows are used under its dispatch's lock.
 */
final class HeldWork {

  private HeldWork() {}

  /**
   * Whether a call of this kind may report an asynchronous error of its context or observe device
   * memory, so that nothing held may stay held across it, even where it needs no placement (an
   * allocation, an event query, a module load): launches and routines are offered to the windows
   * instead, host queries and the current context's calls see neither.
   */
  static boolean reportsOrObserves(CallKind kind) {
    return kind != CallKind.LAUNCH && kind != CallKind.BLAS && kind != CallKind.HOST && kind != CallKind.CONTEXT;
  }

  /**
   * Issues what the call's context holds before the call, or what every context holds while several
   * are in use (the call may name memory of another context: CUDA's addresses are unified). Placed
   * calls would issue their own context's anyway; this also covers the calls that are not placed.
   */
  static void issueBefore(AgentState state, CallRecord r) {
    if (!state.scheduling) {
      return;
    }
    if (state.contexts.size() > 1) { // one context's call may observe another's memory
      issueInEveryContext(state, false);
      return;
    }
    ContextScheduling cs = r.context == 0 ? null : state.contexts.get(r.context);
    if (cs != null && cs.dispatch.holdingHint()) {
      cs.dispatch.endWindow();
    }
  }

  /**
   * Issues what every context holds, each with that context current on the calling thread (made
   * current again as it was afterwards), before a call that may observe memory of a context other than
   * its own (a peer copy, an event of another context, any call while several contexts are in use)
   * or end a context from any thread (a destroy, a reset, the primary context's last release).
   *
   * @param complete also wait until every context's work is done, held or already issued: a peer
   *     copy is serialized with all pending work of the contexts it touches, and a context's end
   *     completes its work, but the agent's lanes are non-blocking streams that neither would wait for
   */
  static void issueInEveryContext(AgentState state, boolean complete) {
    if (!state.scheduling || !complete && !anyHolding(state)) {
      return;
    }
    inEveryContext(state, cs -> {
      if (cs.dispatch.holdingHint()) {
        cs.dispatch.endWindow();
      }
      if (complete) {
        JCudaNatives.synchronizeContext();
      }
    });
  }

  /**
   * Hands every context back to the program when the agent stops scheduling ({@code
   * Engagement#disengage}): what it holds is issued and its streams follow the agent's work,
   * device-side. A context that fails (destroyed since) is passed over: nothing of it is left.
   */
  static void handBackEveryContext(AgentState state) {
    inEveryContext(state, cs -> {
      try {
        cs.dispatch.handOverToTheProgram();
      } catch (Throwable e) {
        AgentLog.debug("a context could not be handed back to the program: " + e);
      }
    });
  }

  /** Runs {@code action} for every context with that context current, and the caller's current again afterwards. */
  private static void inEveryContext(AgentState state, java.util.function.Consumer<ContextScheduling> action) {
    long current = JCudaNatives.currentContext(new jcuda.driver.CUcontext());
    try {
      state.contexts.forEach((context, cs) -> {
        JCudaNatives.makeCurrent(context);
        action.accept(cs);
      });
    } finally {
      JCudaNatives.makeCurrent(current);
    }
  }

  /** Whether any context may hold launches now ({@code Dispatch#holdingHint}), read without locks. */
  static boolean anyHolding(AgentState state) {
    return anyContext(state, Dispatch::holdingHint);
  }

  /** Whether a stream of any context captures a graph now, which a hand-back's joins could break. */
  static boolean anyCapturing(AgentState state) {
    return anyContext(state, Dispatch::capturing);
  }

  private static boolean anyContext(AgentState state, Predicate<Dispatch> test) {
    boolean[] any = {false};
    state.contexts.forEach((context, cs) -> any[0] |= test.test(cs.dispatch));
    return any[0];
  }

  /**
   * A call of {@code context} returned a sticky error: the context issues what it holds and holds no
   * more, so that every later launch is made at once and returns the error as CUDA would.
   */
  static void stickyError(AgentState state, long context, int code) {
    ContextScheduling cs = state.contexts.get(context);
    if (cs != null) {
      cs.dispatch.stopHolding("the context returned CUDA error " + code);
    }
  }
}
