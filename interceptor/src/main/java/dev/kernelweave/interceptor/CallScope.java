package dev.kernelweave.interceptor;

import dev.kernelweave.call.CallRecord;
import dev.kernelweave.calltable.CudaCall;
import dev.kernelweave.memory.AllocationTable;
import dev.kernelweave.scheduler.Ticket;

/**
 * One intercepted call in progress: its record, and what the enter advice took for it (the
 * context's dispatch and the ticket that says whether its lock is held). The enter advice returns
 * it, the exit advice receives it and {@link Calls#end} releases everything, so no state travels
 * between the two through thread-locals. A failure inside the agent between the two releases what
 * was taken at once ({@link Calls#abandon}).
 *
 * <p>Reused call after call by one application thread; not thread-safe.
 */
final class CallScope extends CallRecord {

  /** The thread whose record this is, and through it the state the call is made in. */
  final CallThread thread;
  /**
   * The state's allocation table and the thread's scratch for looking it up: what each access of a
   * call reads, kept here one load away from the record.
   */
  final AllocationTable allocations;
  final AllocationTable.Allocation found;
  final Ticket ticket = new Ticket();
  /** The call's row of the {@code CudaCallTable}, set by {@link Calls#begin}. */
  CudaCall row;
  /** The context whose dispatch placed the call, or null when it was not placed. */
  ContextScheduling scheduling;
  long startNano;
  /** The agent gave up on this call: the rest of it passes through and it is not journaled. */
  boolean abandoned;
  /** The thread's current context to make current again when the call ends; 0 when it was not changed. */
  long restoreContext;

  CallScope(CallThread thread) {
    this.thread = thread;
    this.allocations = thread.state.allocations;
    this.found = thread.found;
  }

  /** Clears the record for a new call of {@code row}, made now on its thread. */
  void start(CudaCall row) {
    reset();
    this.row = row;
    scheduling = null;
    abandoned = false;
    restoreContext = 0;
    startNano = System.nanoTime();
    threadId = thread.id;
    threadName = thread.name;
  }
}
