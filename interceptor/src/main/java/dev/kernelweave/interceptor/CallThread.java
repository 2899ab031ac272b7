package dev.kernelweave.interceptor;

import dev.kernelweave.interceptor.jcuda.JCudaNatives;
import dev.kernelweave.memory.AllocationTable;
import jcuda.driver.CUcontext;

/**
 * What one application thread reuses from call to call, so that intercepting a call allocates
 * nothing: its record, a scratch context handle, a lookup holder. Confined to its thread.
 */
final class CallThread {

  private static final ThreadLocal<CallThread> CURRENT = ThreadLocal.withInitial(CallThread::new);

  final CallScope record = new CallScope();
  final CUcontext scratchContext = new CUcontext();
  final AllocationTable.Allocation found = new AllocationTable.Allocation();
  /** What the enter advice of a call the agent took over hands to its exit. */
  final IssuedByAgent takenOver = new IssuedByAgent();
  final long id;
  final String name;
  /** Intercepted calls in progress on this thread; JCuda wrappers that call each other count once. */
  int depth;
  /** The thread's current context as last asked of the driver; 0 when unknown or none. */
  long context;
  /** {@link Interception#contextEpoch} when {@link #context} was asked. */
  int contextEpoch;

  private CallThread() {
    Thread t = Thread.currentThread();
    id = t.getId();
    name = t.getName();
  }

  static CallThread current() {
    return CURRENT.get();
  }

  /**
   * The thread's current context. Asked of the driver once and kept until a call that may change
   * it ({@link #forgetContext}); while there is none, asked again at each call, since the runtime
   * API makes one current on its own.
   */
  long context() {
    long c = context;
    int epoch = Interception.contextEpoch;
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

  /** After a call that may have changed the thread's current context. */
  void forgetContext() {
    context = 0;
  }
}
