package dev.kernelweave.interceptor;

import dev.kernelweave.call.CallRecord;
import dev.kernelweave.memory.AllocationTable;
import jcuda.driver.CUcontext;

/**
 * What one application thread reuses from call to call, so that intercepting a call allocates
 * nothing: its record, a scratch context handle, a lookup holder. Confined to its thread.
 */
final class CallThread {

  private static final ThreadLocal<CallThread> CURRENT = ThreadLocal.withInitial(CallThread::new);

  final CallRecord record = new CallRecord();
  final CUcontext scratchContext = new CUcontext();
  final AllocationTable.Allocation found = new AllocationTable.Allocation();
  final long id;
  final String name;
  /** Intercepted calls in progress on this thread; JCuda wrappers that call each other count once. */
  int depth;
  /** The context whose scheduling lock this thread holds for the call in progress, or null. */
  ContextScheduling locked;
  Placement placement = Placement.NONE;
  long startNano;

  private CallThread() {
    Thread t = Thread.currentThread();
    id = t.getId();
    name = t.getName();
  }

  static CallThread current() {
    return CURRENT.get();
  }
}
