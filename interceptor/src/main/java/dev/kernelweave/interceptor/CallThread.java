package dev.kernelweave.interceptor;

import dev.kernelweave.call.PriorityClass;
import dev.kernelweave.call.ThreadPriorities;
import dev.kernelweave.interceptor.jcuda.JCudaNatives;
import dev.kernelweave.memory.AllocationTable;
import jcuda.driver.CUcontext;

/**
 * What one application thread reuses from call to call, so that intercepting a call allocates
 * nothing: its record, a scratch context handle, a lookup holder. Found through {@link
 * CallThreads#current}, or from a call's record ({@link CallScope#thread}). Confined to its thread.
 */
final class CallThread {

  /** The state this thread's calls are made in. */
  final AgentState state;
  final CallScope record;
  final CUcontext scratchContext = new CUcontext();
  /** Scratch for one launch parameter's bytes, read where a proof depends on its value. */
  final byte[] parameterWord = new byte[8];
  final AllocationTable.Allocation found = new AllocationTable.Allocation();
  /** What the enter advice of a call the agent took over hands to its exit. */
  final IssuedByAgent takenOver = new IssuedByAgent();
  private final Thread owner;
  final long id;
  final String name;
  /** Intercepted calls in progress on this thread; JCuda wrappers that call each other count once. */
  int depth;
  /** In a call made as written before the agent engaged ({@link Engagement}); cleared at its end. */
  boolean asWritten;
  /** Intercepted calls inside that call, whose ends are not its end. */
  int asWrittenNested;
  /** The context of the thread's last call made as written, already known to the {@link Engagement}. */
  long asWrittenContext;
  /** Launches made as written since the thread's last host wait. */
  int asWrittenLaunchRun;
  /** In a sampled call made as written that {@link Engagement}'s count of calls in progress holds. */
  boolean asWrittenInProgress;
  /** The thread's current context as last asked of the driver; 0 when unknown or none. */
  long context;
  /** {@link AgentState#contextEpoch} when {@link #context} was asked. */
  int contextEpoch;
  /** The class of the thread's calls, resolved for {@link #resolvedName} and {@link #resolvedJavaPriority}. */
  private PriorityClass priority = PriorityClass.NORMAL;
  private String resolvedName;
  private int resolvedJavaPriority = -1;
  private ThreadPriorities resolvedBy;

  CallThread(AgentState state) {
    this.state = state;
    this.record = new CallScope(this);
    Thread t = Thread.currentThread();
    owner = t;
    id = t.getId();
    name = t.getName();
  }

  /** The calling thread's record, in the current state; for tests and calls that carry no record. */
  static CallThread current() {
    return AgentState.current().threads.current();
  }

  boolean isOwnedBy(Thread t) {
    return owner == t;
  }

  /**
   * The thread's current context. Asked of the driver once and kept until a call that may change
   * it ({@link #forgetContext}); while there is none, asked again at each call, since the runtime
   * API makes one current on its own.
   */
  long context() {
    long c = context;
    int epoch = state.contextEpoch;
    if (epoch != contextEpoch) {
      contextEpoch = epoch;
      c = 0;
    }
    if (c == 0) {
      try {
        c = JCudaNatives.currentContext(scratchContext);
      } catch (Throwable e) {
        c = 0;
      }
      context = c;
    }
    return c;
  }

  /**
   * The class of the thread's calls under {@code rules}: resolved once, and again only when the
   * thread's name (by identity) or Java priority changed since. Allocates nothing on the way.
   */
  PriorityClass priority(ThreadPriorities rules) {
    if (!rules.enabled()) {
      return PriorityClass.NORMAL;
    }
    String name = owner.getName();
    int javaPriority = owner.getPriority();
    if (name != resolvedName || javaPriority != resolvedJavaPriority || rules != resolvedBy) {
      priority = rules.classOf(name, javaPriority);
      resolvedName = name;
      resolvedJavaPriority = javaPriority;
      resolvedBy = rules;
    }
    return priority;
  }

  /** After a call that may have changed the thread's current context. */
  void forgetContext() {
    context = 0;
  }
}
