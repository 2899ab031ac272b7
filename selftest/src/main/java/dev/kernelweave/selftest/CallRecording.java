package dev.kernelweave.selftest;

import dev.kernelweave.call.AccessMode;
import dev.kernelweave.call.CallKind;
import dev.kernelweave.call.CallRecord;
import dev.kernelweave.calltable.CudaCall;
import dev.kernelweave.calltable.CudaCallTable;
import dev.kernelweave.calltable.Operand;
import dev.kernelweave.memory.AllocationTable;
import dev.kernelweave.scheduler.Dispatch;
import dev.kernelweave.scheduler.GraphDevice;
import dev.kernelweave.scheduler.LaunchWindows;
import dev.kernelweave.scheduler.Ticket;
import dev.kernelweave.scheduler.WindowJudging;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * One run of a {@link ProgramRunner}: the program, the target, the dispatch (none for the serial
 * reference), the allocations and observations so far, and the interceptor's side of each call: its
 * {@link CallRecord} started from its row of the {@link CudaCallTable}, its accesses, its placement
 * by the dispatch, and its counting once complete. The runner makes the program's calls on top of
 * it.
 *
 * <p>Not thread-safe: a run makes one call at a time, on one thread.
 */
abstract class CallRecording implements LaunchWindows.Listener {
  final Program program;
  final ProgramTarget target;
  final Dispatch scheduler;
  /** Where the mutant is {@link Mutant#KERNEL_RANGE_FROM_POINTER}, a kernel parameter's range is taken from its pointer on. */
  final Mutant mutant;
  final Ticket ticket = new Ticket();
  /** The rows every call is placed by. */
  final CudaCallTable calls;
  final int legacy;
  /** Whether calls carry their thread's class ({@link Program#priorityOf}). */
  final boolean priorities;
  final AllocationTable table = new AllocationTable();
  final AllocationTable.Allocation found = new AllocationTable.Allocation();
  final Map<Integer, Long> devices = new TreeMap<>();
  final Map<Integer, Integer> elements = new TreeMap<>();
  final Map<Integer, Long> hosts = new TreeMap<>();
  final Map<Integer, Integer> hostElements = new TreeMap<>();
  final List<Observation> observations = new ArrayList<>();
  final List<CallRecord> records = new ArrayList<>();
  /** The row of the call {@link #start} began last. */
  CudaCall currentRow;
  final RunStats stats = new RunStats();
  CallRecord current;
  /** The runner's page-locked memory for staged reads, allocated at the first; 0 before. */
  long staging;
  long constant;
  long seq;
  int index;
  /**
   * Set once the dispatch handed the program back ({@link Dispatch#handOverToTheProgram}): from then
   * on the calls the interceptor makes as written run on their own streams, untracked; allocations,
   * streams and constants are still tracked, as the interceptor tracks them.
   */
  boolean asWritten;

  /** Whether calls run as written: every call of the serial reference, the calls after a hand-back. */
  boolean untracked() {
    return scheduler == null || asWritten;
  }

  /** The lane of a call made as written on {@code stream}: the legacy lane in the reference, the stream's own after a hand-back. */
  int asWrittenLane(long stream) {
    return scheduler == null ? legacy : target.appStreamLane(stream);
  }

  CallRecording(Program program, ProgramTarget target, boolean scheduled, GraphDevice graphs, Mutant mutant,
      int normalStreams, int classLanes, WindowJudging judging) {
    this.program = program;
    this.target = target;
    this.scheduler = !scheduled ? null
        : new Dispatch(target, normalStreams, classLanes, mutant.rules(), graphs, graphs == null ? null : this);
    this.priorities = classLanes > 0;
    if (this.scheduler != null && this.scheduler.windows() != null) {
      // A program's windows must not depend on how fast this host runs it: no pause ever ends one.
      this.scheduler.windows().useClock(() -> 0L);
      this.scheduler.windows().judge(judging);
      // Every graph-capturing run merges what it may: a wrong merge shows against the serial run.
      this.scheduler.windows().mergeLaunches(true);
    }
    this.mutant = mutant;
    this.calls = mutant.rules().table();
    this.legacy = target.streams();
  }

  @Override
  public void issued(CallRecord call) {
    stats.note(call, legacy);
    stats.noteHeld();
  }

  @Override
  public void stopped(String why) {}

  /**
   * Fills a launch's record as the interceptor does from {@code cuLaunchKernel}: the function, one
   * block of {@link SelfTestKernel#BLOCK} threads per that many elements, and the parameters in the
   * kernel's layout, 8-byte pointers then 4-byte integers.
   */
  void parameters(CallRecord call, long function, int n, long[] pointers, int... integers) {
    call.function = function;
    call.gridX = SelfTestKernel.blocks(n);
    call.gridY = 1;
    call.gridZ = 1;
    call.blockX = SelfTestKernel.BLOCK;
    call.blockY = 1;
    call.blockZ = 1;
    call.sharedMemBytes = 0;
    for (long p : pointers) {
      call.addParam(p, 8);
    }
    for (int v : integers) {
      call.addParam(v, 4);
    }
  }

  /** A launch the windows held: not made now, and counted once they issue it. */
  void held() {
    current = null;
  }

  /** The lane the real call runs on: the dispatch's choice, or the application's own stream. */
  int laneOf(int chosen, long appStream) {
    return chosen >= 0 ? chosen : target.appStreamLane(appStream);
  }

  void syncContext(int thread) {
    if (untracked()) {
      target.synchronizeDevice();
      return;
    }
    CallRecord call = start(Math.max(thread, 0), CudaCallTable.CONTEXT_SYNCHRONIZE, 0);
    place(call);
    target.synchronizeDevice();
    scheduler.exit(call, true, ticket);
  }

  long address(Op.At at) {
    return devices.get(at.buf()) + 4L * at.offset();
  }

  /** The address of float {@code offset} of host allocation {@code host}. */
  long hostAddress(int host, int offset) {
    return hosts.get(host) + 4L * offset;
  }

  /** Places the call as its row says. */
  int place(CallRecord call) {
    return scheduler.enter(call, rowOf().placement(), ticket);
  }

  /** Places a launch as its row says: offered to the windows where it may be held, else {@link #place}d. */
  int placeLaunch(CallRecord call) {
    return rowOf().mayBeHeld() ? scheduler.enterLaunch(call, ticket) : place(call);
  }

  /** The row of the call made now: the runner makes one call at a time. */
  CudaCall rowOf() {
    return currentRow;
  }

  CallRecord start(int thread, int rowId, long appStream) {
    finishCall();
    while (records.size() <= thread) {
      records.add(new CallRecord());
    }
    CallRecord call = records.get(thread);
    call.reset();
    call.seq = ++seq;
    call.threadId = thread;
    if (priorities) {
      call.priority = program.priorityOf(thread);
    }
    CudaCall row = calls.row(rowId);
    currentRow = row;
    row.describe(call);
    call.name = row.name();
    call.appStream = appStream;
    // A quarter of the launches, picked by sequence number, are placed as brief calls (small
    // cuBLAS routines) are: whatever lane that picks, the waits must keep every result.
    call.brief = row.kind() == CallKind.LAUNCH && (Long.hashCode(seq * 0x9E3779B97F4A7C15L) & 3) == 0;
    current = call;
    return call;
  }

  /** Counts the decisions of the call made last, once it is complete. */
  void finishCall() {
    if (current != null) {
      stats.note(current, legacy);
      current = null;
    }
  }

  /**
   * Adds a kernel's pointer parameter as the interceptor does: its whole allocation, since a kernel
   * may index back from an interior pointer ({@link SelfTestKernel#FILL_BACKWARD} does).
   */
  void kernelPointer(CallRecord call, long pointer, AccessMode mode) {
    access(call, pointer, mutant == Mutant.KERNEL_RANGE_FROM_POINTER ? 0 : AllocationTable.WHOLE_ALLOCATION, mode);
  }

  /**
   * Adds what the call's row says its operands touch, as the interceptor does: argument 0 at
   * {@code first}, argument 1 at {@code second}; 0 stands for a Java array, which orders nothing.
   */
  void touches(CallRecord call, long first, long second, long bytes) {
    CudaCall row = rowOf();
    call.bytes = bytes;
    for (int k = 0; k < row.operandCount(); k++) {
      Operand o = row.operand(k);
      long address = o.argument() == 0 ? first : second;
      if (address != 0) {
        access(call, address, bytes, o.access());
      }
    }
  }

  /** Adds an access as the interceptor does: the allocation holding the address, or unknown memory. */
  void access(CallRecord call, long address, long size, AccessMode mode) {
    if (!table.addAccess(call, address, size, mode, found)) {
      call.touchesUnknownMemory = true;
    }
  }
}
