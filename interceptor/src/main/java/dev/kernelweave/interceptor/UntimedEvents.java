package dev.kernelweave.interceptor;

import dev.kernelweave.call.CallRecord;
import dev.kernelweave.interceptor.jcuda.JCudaPointers;
import java.util.Set;

/**
 * The application's events created with {@code CU_EVENT_DISABLE_TIMING} ({@code
 * cudaEventDisableTiming}), by handle: a record of one of them cannot bracket work for {@code
 * cuEventElapsedTime}, so the agent need not order its stream's later work after it. An event the
 * agent did not see created counts as timed, which orders more. The handles are the {@link
 * AgentState}'s ({@link AgentState#untimedEvents}). Thread-safe.
 */
public final class UntimedEvents {

  /** {@code CU_EVENT_DISABLE_TIMING}, {@code cudaEventDisableTiming}. */
  public static final int DISABLE_TIMING = 0x2;

  private UntimedEvents() {}

  /** An event was created with {@code flags}; a handle reused by a new event takes the new flags. */
  public static void created(long handle, int flags) {
    if (handle == 0) {
      return;
    }
    Set<Long> untimed = AgentState.current().untimedEvents;
    if ((flags & DISABLE_TIMING) != 0) {
      untimed.add(handle);
    } else {
      untimed.remove(handle);
    }
  }

  /**
   * Ends an event's creation: where it succeeded, notes its flags and has the schedulers forget the
   * handle's earlier event ({@link Calls#eventCreated}), then {@link Calls#end}.
   */
  public static void endCreate(CallRecord r, jcuda.NativePointerObject event, int flags, int result, Throwable thrown) {
    if (thrown == null && result == 0) {
      long handle = JCudaPointers.nativePointer(event);
      created(handle, flags);
      Calls.eventCreated(r, handle);
    }
    Calls.end(r, result, thrown);
  }

  /** Whether a record of the event may be timed: it was not seen created without timing. */
  public static boolean timed(long handle) {
    if (handle == 0) {
      return false;
    }
    Set<Long> untimed = AgentState.current().untimedEvents;
    return untimed.isEmpty() || !untimed.contains(handle);
  }
}
