package dev.kernelweave.interceptor;

import dev.kernelweave.interceptor.jcuda.JCudaNatives;
import jcuda.driver.CUevent;
import dev.kernelweave.call.AccessMode;
import dev.kernelweave.call.CallKind;
import dev.kernelweave.call.CallRecord;
import dev.kernelweave.calltable.CudaCall;
import dev.kernelweave.calltable.CudaCallTable;
import dev.kernelweave.calltable.HostBlocking;
import dev.kernelweave.calltable.Operand;
import dev.kernelweave.interceptor.jcuda.JCudaPointers;
import dev.kernelweave.interceptor.jcuda.JCudaStreamDevice;
import dev.kernelweave.memory.AllocationTable;
import dev.kernelweave.memory.MemoryKind;
import dev.kernelweave.scheduler.Dispatch;
import dev.kernelweave.scheduler.Placement;
import dev.kernelweave.scheduler.Scheduler;
import jcuda.NativePointerObject;
import jcuda.Pointer;
import jcuda.driver.CUstream;
import jcuda.runtime.cudaStream_t;

/**
 * The steps every intercepted call goes through, called from the advice: {@link #begin} fills the
 * thread's record from the call's row of the {@link CudaCallTable} (whose id the advice carries,
 * woven in as a constant), the advice adds what the call touches ({@link CallAccesses}: the row's
 * operands, a launch's parameters), {@link #placeAsRowSays} asks the scheduler where it runs, the
 * real call runs (on the agent's stream when placed), and {@link #end} commits the decision and
 * journals the record. The placement, the effect on held windows and whether a call may be held
 * are the row's; this class only adds what depends on the arguments (a free of an address never
 * seen allocated is a barrier).
 *
 * <p>Every method here is called on the application's thread, inside its CUDA call, and must not
 * throw: a failure switches the agent to pass-through ({@link AgentState#fail}). {@link #begin}
 * reads the {@link AgentState} once; the later steps reach it from the record
 * ({@link #stateOf}), reading no static field.
 */
public final class Calls {

  /** The rows calls are placed by: the canonical table but in the fuzz's broken schedulers ({@link Interception#rules}). */
  private static final CudaCallTable TABLE = Interception.rules().table();

  private Calls() {}

  /** Row {@code id} of the table calls are placed by. */
  public static CudaCall row(int id) {
    return TABLE.row(id);
  }

  /** The row of a call begun, never null for a record {@link #begin} returned. */
  public static CudaCall rowOf(CallRecord r) {
    return ((CallScope) r).row;
  }

  /**
   * Starts a call: returns the thread's reused record, or null when the call is not tracked (the
   * agent is inactive, or this call runs inside another intercepted call).
   *
   * @param row the call's row id, as woven into its advice
   */
  public static CallRecord begin(int row, String name, long appStream) {
    return begin(TABLE.row(row), name, appStream);
  }

  /** {@link #begin} finding the row by the function's name: for tests and calls off the path of every call. */
  public static CallRecord begin(String name, long appStream) {
    return begin(TABLE.rowOf(name), name, appStream);
  }

  private static CallRecord begin(CudaCall row, String name, long appStream) {
    AgentState s = AgentState.current();
    InterceptorSettings settings = s.settings;
    if (settings == null) {
      return null;
    }
    try {
      CallThread t = s.threads.current();
      if (t.depth > 0) {
        if (t.asWritten) {
          t.asWrittenNested++;
        }
        return null;
      }
      if (row.disengagesTheAgent()) {
        s.engagement.disengage(s, name + " makes a stream wait for a value in memory, which a later call may write");
      }
      if (!s.engagement.caughtUp && s.engagement.runsAsWritten(t, row)) {
        return null;
      }
      t.depth = 1;
      CallScope r = t.record;
      r.start(row);
      r.seq = s.sequence.incrementAndGet();
      if (s.milestones.due(r.seq)) {
        s.milestones.reached(r.seq);
      }
      r.startNanos = Clock.epochNanos(r.startNano);
      r.priority = t.priority(settings.priorities());
      row.describe(r);
      CallKind kind = r.kind;
      r.name = name;
      r.appStream = appStream;
      r.context = t.context();
      enterTheStreamsContext(s, r, appStream);
      if (HeldWork.reportsOrObserves(kind)) {
        HeldWork.issueBefore(s, r);
      }
      // Opened here rather than where the call is journaled: the writer builds its queue while the
      // first call (cuInit, a few hundred milliseconds on a GPU) runs.
      s.journal();
      return r;
    } catch (Throwable e) {
      s.fail(e);
      return null;
    }
  }

  /**
   * A call naming a stream the program created in another context than the thread's current one
   * (CUDA lets a thread synchronize, query, copy on, record on or make wait any context's stream) is
   * placed by the stream's context, which is current until the call ends ({@link #end}): the agent
   * moved that stream's work to lanes of that context, and only its scheduler joins them. Launches
   * and routines stay with the current context, where CUDA refuses them.
   */
  private static void enterTheStreamsContext(AgentState s, CallScope r, long appStream) {
    if (r.context == 0 || appStream == 0 || appStream == Scheduler.LEGACY_HANDLE
        || appStream == Scheduler.PER_THREAD_HANDLE || r.kind == CallKind.LAUNCH
        || r.kind == CallKind.BLAS || s.streamContexts.size() == 0) {
      return;
    }
    Long owner = s.streamContexts.get(appStream);
    if (owner != null && owner != r.context && JCudaNatives.makeCurrent(owner) == 0) {
      r.restoreContext = r.context;
      r.context = owner;
    }
  }

  /** The state a call begun by {@link #begin} is made in. */
  static AgentState stateOf(CallRecord r) {
    return ((CallScope) r).thread.state;
  }

  /**
   * Before a call that may end a context from any thread (a destroy, a reset, a release of the
   * primary context) or that reaches into another context (a peer copy): issues what every context
   * holds and waits until it is done, as the call would find it without the agent.
   */
  public static void issueHeldEverywhere(CallRecord r) {
    if (r == null) {
      return;
    }
    try {
      HeldWork.issueInEveryContext(stateOf(r), true);
    } catch (Throwable e) {
      abandon(r, e);
    }
  }

  /** The same, for a call on an application stream object (null is the default stream). */
  public static CallRecord begin(int row, String name, NativePointerObject appStream) {
    return begin(TABLE.row(row), name, JCudaPointers.nativePointer(appStream));
  }

  /** Begins a call on the legacy default stream or none, and places it as its row says. */
  public static CallRecord beginPlaced(int row, String name) {
    CallRecord r = begin(TABLE.row(row), name, 0L);
    placeAsRowSays(r);
    return r;
  }

  /**
   * Begins a call on an application stream and places it as its row says: a synchronization, a
   * query, a capture, or a call whose effects the agent cannot see (a host function, a stream memory
   * operation, a graph launch), which its row makes a barrier enqueued on one of the agent's
   * streams, so that the host never waits where CUDA would not.
   */
  public static CallRecord beginPlaced(int row, String name, NativePointerObject appStream) {
    CallRecord r = begin(TABLE.row(row), name, JCudaPointers.nativePointer(appStream));
    placeAsRowSays(r);
    return r;
  }

  /**
   * Begins and places a call on a stream with an application event ({@code cuEventRecord}, {@code
   * cuStreamWaitEvent}...): its row says which of the first two arguments is the stream.
   */
  public static CallRecord beginWithEvent(int row, String name, NativePointerObject first, NativePointerObject second) {
    CudaCall c = TABLE.row(row);
    boolean streamFirst = c.streamArgument() == 0;
    CallRecord r = begin(c, name, JCudaPointers.nativePointer(streamFirst ? first : second));
    if (r != null) {
      r.appEvent = JCudaPointers.nativePointer(streamFirst ? second : first);
      if (c.placement() == Placement.EVENT_RECORD) {
        r.timedEvent = UntimedEvents.timed(r.appEvent);
      }
      placeAsRowSays(r);
    }
    return r;
  }

  /** A memset's begin, accesses and placement: {@code bytes} as the row computes it from the size arguments. */
  public static CallRecord memset(int row, String name, Pointer dst, long size, long factor,
      NativePointerObject appStream) {
    CudaCall c = TABLE.row(row);
    CallRecord r = begin(c, name, JCudaPointers.nativePointer(appStream));
    CallAccesses.touches(r, dst, null, c.bytes(size, factor));
    placeAsRowSays(r);
    return r;
  }

  /** A free: waits for the allocation's users; an address the agent never saw allocated is a barrier. */
  public static CallRecord free(int row, String name, Pointer pointer) {
    CallRecord r = begin(TABLE.row(row), name, 0L);
    if (r != null) {
      CallAccesses.freeing(r, JCudaPointers.address(pointer));
      place(r, r.accessCount > 0 ? rowOf(r).placement() : Placement.BARRIER);
    }
    return r;
  }

  /**
   * Places a call as its row says: first what it means for the launches held ({@link
   * CudaCall#windows}), then its placement. A call that may itself be held is placed by {@link
   * #placeLaunch}.
   */
  public static void placeAsRowSays(CallRecord r) {
    if (r == null) {
      return;
    }
    CudaCall c = rowOf(r);
    switch (c.windows()) {
      case ENDED_IN_EVERY_CONTEXT -> issueHeldEverywhere(r);
      case ENDED -> {
        if (!onHeldLaunches(r, Dispatch::endWindow)) {
          return;
        }
      }
      case FORGOTTEN -> {
        if (!onHeldLaunches(r, Dispatch::forgetLaunches)) {
          return;
        }
      }
      default -> { }
    }
    place(r, c.placement());
  }

  /**
   * Asks the context's dispatch where the call runs. On return, when the call was placed on one of
   * the agent's streams, {@link #stream} gives it. Whatever the dispatch took is released by
   * {@link #end}, or here at once if placing fails.
   */
  public static void place(CallRecord r, Placement placement) {
    if (r == null || placement == Placement.NONE || r.context == 0) {
      return;
    }
    CallScope scope = (CallScope) r;
    AgentState s = scope.thread.state;
    if (!s.scheduling) {
      return;
    }
    try {
      ContextScheduling cs = s.scheduling(r.context);
      scope.scheduling = cs;
      r.stream = cs.dispatch.enter(r, placement, scope.ticket);
    } catch (Throwable e) {
      abandon(r, e);
    }
  }

  /**
   * Whether the call may be held for graph replay: its row says it may be, and the agent schedules,
   * with graphs on.
   */
  public static boolean mayHold(CallRecord r) {
    if (r == null || !rowOf(r).mayBeHeld()) {
      return false;
    }
    AgentState s = stateOf(r);
    InterceptorSettings settings = s.settings;
    return s.scheduling && settings != null && settings.graphs();
  }

  /**
   * Places a call its row says may be held (a kernel launch, a routine), which the context's windows
   * may hold instead of issuing it now; any other call as its row says.
   *
   * @return the thread's {@link IssuedByAgent} holding {@code r} when the launch is held and JCuda's
   *     call must be skipped; null when it was placed as {@link #place} places a call
   */
  public static IssuedByAgent placeLaunch(CallRecord r) {
    if (r == null || r.context == 0) {
      return null;
    }
    CallScope scope = (CallScope) r;
    AgentState s = scope.thread.state;
    if (!s.scheduling) {
      return null;
    }
    if (!scope.row.mayBeHeld()) {
      placeAsRowSays(r);
      return null;
    }
    try {
      ContextScheduling cs = s.scheduling(r.context);
      scope.scheduling = cs;
      // Journaled as it stands if the launch is held; the window adds the time it takes.
      r.durationNanos = System.nanoTime() - scope.startNano;
      r.result = 0;
      int lane = cs.dispatch.enterLaunch(r, scope.ticket);
      if (scope.ticket.heldByWindows()) {
        scope.scheduling = null;
        return takenOver(r, true);
      }
      r.stream = lane;
    } catch (Throwable e) {
      abandon(r, e);
    }
    return null;
  }

  /**
   * Before a query of an application event ({@code cuEventQuery}, {@code cuEventElapsedTime}): when
   * CUDA had already completed its record for the host at an earlier synchronous call, which the
   * agent did not wait for, waits for the event, so that the query answers as CUDA would.
   */
  public static void awaitEventCompletedForHost(CallRecord r, NativePointerObject event) {
    if (r == null || event == null || r.context == 0 || !stateOf(r).scheduling) {
      return;
    }
    try {
      long handle = JCudaPointers.nativePointer(event);
      if (handle != 0 && stateOf(r).scheduling(r.context).dispatch.eventCompletedForHost(handle)) {
        CUevent driverEvent = event instanceof CUevent e ? e : new CUevent();
        JCudaPointers.setNativePointer(driverEvent, handle);
        JCudaNatives.synchronizeEvent(driverEvent); // an error is the query's to report
      }
    } catch (Throwable e) {
      abandon(r, e);
    }
  }

  /** Runs {@code action} on the call's context's dispatch; false when that failed and the call was abandoned. */
  private static boolean onHeldLaunches(CallRecord r, java.util.function.Consumer<Dispatch> action) {
    if (r == null || r.context == 0 || !stateOf(r).scheduling) {
      return true;
    }
    try {
      action.accept(stateOf(r).scheduling(r.context).dispatch);
      return true;
    } catch (Throwable e) {
      abandon(r, e);
      return false;
    }
  }

  /** The thread's marker for a call the agent took over ({@link IssuedByAgent}). */
  static IssuedByAgent takenOver(CallRecord r, boolean held) {
    IssuedByAgent marker = ((CallScope) r).thread.takenOver;
    marker.record = r;
    marker.held = held;
    return marker;
  }

  /**
   * The exit's side of a call the agent took over: ends it as a success, journaled now unless it
   * is held (then once issued). Returns the result JCuda's call returns.
   */
  public static int endIssuedByAgent(IssuedByAgent marker) {
    CallRecord r = marker.record;
    marker.record = null;
    if (marker.held) {
      // The window journals its copy of the record once it issues the launch.
      marker.held = false;
      // No later call made as written can overtake it: a context handed over to the program holds
      // no launch again, and the hand-over issues one held before (Dispatch#handOverToTheProgram).
      ((CallScope) r).thread.depth = 0;
      return 0;
    }
    end(r, 0, null);
    return 0;
  }

  /** The stream the real call must use: the agent's lane when placed, else the application's. */
  public static CUstream stream(CallRecord r, CUstream requested) {
    return (CUstream) lane(r, requested, false);
  }

  /**
   * {@link #stream} or {@link #runtimeStream}, as the call's row's API has it: for advice shared by
   * both APIs, whose stream argument is typed dynamically.
   */
  public static Object streamOfItsApi(CallRecord r, Object requested) {
    return r == null || r.stream < 0 ? requested : lane(r, requested, rowOf(r).ofTheRuntimeApi());
  }

  /** {@link #stream} for the runtime API and cuBLAS. */
  public static cudaStream_t runtimeStream(CallRecord r, cudaStream_t requested) {
    return (cudaStream_t) lane(r, requested, true);
  }

  /**
   * The lane's stream object of the runtime API ({@code cudaStream_t}) or the driver's ({@code
   * CUstream}) when the call was placed on a lane, else {@code requested}; abandons the call when
   * the lane's stream cannot be had.
   */
  private static Object lane(CallRecord r, Object requested, boolean runtimeApi) {
    if (r == null || r.stream < 0) {
      return requested;
    }
    try {
      JCudaStreamDevice device = ((CallScope) r).scheduling.device;
      return runtimeApi ? device.runtimeStream(r.stream) : device.stream(r.stream);
    } catch (Throwable e) {
      abandon(r, e);
      return requested;
    }
  }

  /**
   * Something inside the agent failed during this call: release what the call took (the context's
   * lock, the thread's nesting mark), let the rest of the call pass through as written, and fall
   * back to pass-through for the rest of the run. Never throws.
   */
  public static void abandon(CallRecord r, Throwable cause) {
    CallThread t = r instanceof CallScope scope ? scope.thread : CallThread.current();
    try {
      if (r instanceof CallScope scope) {
        scope.abandoned = true;
        scope.stream = CallRecord.NO_STREAM;
        ContextScheduling cs = scope.scheduling;
        scope.scheduling = null;
        if (cs != null) {
          cs.dispatch.release(scope.ticket);
        }
      }
      t.depth = 0;
    } catch (Throwable ignored) {
      // Nothing more to release.
    }
    t.state.fail(cause);
  }

  /** Ends the call: commits the scheduler's decision, releases the context, journals the record. */
  public static void end(CallRecord r, int result, Throwable thrown) {
    if (r == null) {
      Engagement.untrackedCallEnded();
      return;
    }
    CallScope scope = (CallScope) r;
    try {
      finish(scope, result, thrown);
    } finally {
      if (scope.restoreContext != 0) {
        JCudaNatives.makeCurrent(scope.restoreContext);
        scope.restoreContext = 0;
      }
    }
  }

  private static void finish(CallScope scope, int result, Throwable thrown) {
    CallRecord r = scope;
    CallThread t = scope.thread;
    AgentState s = t.state;
    t.depth = 0;
    if (scope.abandoned) {
      return;
    }
    ContextScheduling cs = scope.scheduling;
    scope.scheduling = null;
    try {
      r.durationNanos = System.nanoTime() - scope.startNano;
      r.result = thrown == null ? result : CallRecord.RESULT_THREW;
      boolean succeeded = thrown == null && result == 0;
      if (r.kind == CallKind.CONTEXT || r.kind == CallKind.OPAQUE) {
        t.forgetContext();
      }
      if (CudaErrors.isSticky(r.result)) {
        HeldWork.stickyError(s, r.context, r.result);
      }
      if (r.kind == CallKind.FREE && succeeded && r.accessCount > 0) {
        s.allocations.remove(r.accessBase[0], r.accessId[0]);
        AllocationPadding.freed(s, r.accessBase[0]);
      }
      if (cs != null) {
        cs.dispatch.exit(r, succeeded, scope.ticket);
      }
    } catch (Throwable e) {
      s.fail(e);
    } finally {
      if (cs != null) {
        cs.dispatch.release(scope.ticket);
      }
    }
    if (cs != null) {
      try {
        s.engagement.afterPlacedCall(s, cs);
      } catch (Throwable e) {
        s.fail(e);
      }
    }
    s.callFinished(r);
  }

  /**
   * Ends a stream creation: once the application created the stream, tells the context's scheduler
   * whether it is non-blocking.
   */
  public static void endStreamCreate(CallRecord r, NativePointerObject stream, boolean nonBlocking, int result,
      Throwable thrown) {
    if (thrown == null && result == 0) {
      streamCreated(r, stream, nonBlocking);
    }
    end(r, result, thrown);
  }

  private static void streamCreated(CallRecord r, NativePointerObject stream, boolean nonBlocking) {
    if (r == null || stream == null || r.context == 0 || !stateOf(r).scheduling) {
      return;
    }
    AgentState s = stateOf(r);
    try {
      long handle = JCudaPointers.nativePointer(stream);
      s.streamContexts.put(handle, r.context);
      s.scheduling(r.context).dispatch.streamCreated(handle, nonBlocking);
    } catch (Throwable e) {
      s.fail(e);
    }
  }

  /**
   * An event was created: every context's scheduler forgets what an event at its handle stood for,
   * in whichever context (a stream may wait for another context's event, which it then counts as
   * one it never saw recorded).
   */
  static void eventCreated(CallRecord r, long handle) {
    if (r == null || handle == 0 || !stateOf(r).scheduling) {
      return;
    }
    AgentState s = stateOf(r);
    try {
      s.contexts.forEach((context, cs) -> cs.dispatch.eventCreated(handle));
    } catch (Throwable e) {
      s.fail(e);
    }
  }

  /** Ends a stream destruction: once the application destroyed the stream, the agent never names its handle again. */
  public static void endStreamDestroy(CallRecord r, NativePointerObject stream, int result, Throwable thrown) {
    if (thrown == null && result == 0) {
      streamDestroyed(r, stream);
    }
    end(r, result, thrown);
  }

  private static void streamDestroyed(CallRecord r, NativePointerObject stream) {
    if (r == null || stream == null || r.context == 0 || !stateOf(r).scheduling) {
      return;
    }
    AgentState s = stateOf(r);
    try {
      long handle = JCudaPointers.nativePointer(stream);
      s.streamContexts.remove(handle);
      s.scheduling(r.context).dispatch.streamDestroyed(handle);
    } catch (Throwable e) {
      s.fail(e);
    }
  }

  /**
   * Ends a device reset ({@code cudaDeviceReset}, {@code cuDevicePrimaryCtxReset}): once it
   * destroyed the calling thread's context, the agent forgets it. Returns whether it succeeded.
   */
  public static boolean endContextReset(CallRecord r, int result, Throwable thrown) {
    end(r, result, thrown);
    if (thrown != null || result != 0) {
      return false;
    }
    contextReset(r);
    return true;
  }

  private static void contextReset(CallRecord r) {
    if (r != null) {
      CallThread t = ((CallScope) r).thread;
      t.state.contextReset(r.context);
      t.forgetContext();
    }
  }
}
