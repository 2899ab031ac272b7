package dev.kernelweave.interceptor.cublas;

import dev.kernelweave.call.AccessMode;
import dev.kernelweave.call.CallRecord;
import dev.kernelweave.interceptor.Calls;
import dev.kernelweave.interceptor.Interception;
import dev.kernelweave.scheduler.Placement;
import dev.kernelweave.interceptor.jcuda.JCudaNatives;
import dev.kernelweave.interceptor.jcuda.JCudaPointers;
import java.util.concurrent.ConcurrentHashMap;
import jcuda.Pointer;
import jcuda.jcublas.cublasHandle;
import jcuda.runtime.cudaStream_t;

/**
 * The JCublas2 advice's logic: each routine's operands from {@link BlasOperandRoles}, and per
 * handle what the application set (its stream, its pointer mode), since the agent points the
 * handle at its own streams.
 *
 * <p>Invariant: when the agent is not placing a routine (pass-through, or after a fallback), the
 * handle is on the stream the application gave it.
 */
public final class BlasCalls {

  /** What the application set on one handle. Guarded by the handle's owner; cuBLAS handles are per thread. */
  private static final class HandleState {
    volatile cudaStream_t applicationStream = new cudaStream_t();
    volatile int pointerMode;
    /** The agent's stream the handle is on, or null when it is on the application's. */
    volatile cudaStream_t agentStream;
  }

  private static final int POINTER_MODE_DEVICE = 1;
  private static final ConcurrentHashMap<cublasHandle, HandleState> HANDLES = new ConcurrentHashMap<>();

  static {
    Interception.onFallback(BlasCalls::restoreApplicationStreams);
  }

  private BlasCalls() {}

  /** Enter advice of every JCublas2 method. */
  public static CallRecord enter(String name, String descriptor, Object[] args) {
    BlasSignature signature = BlasOperandRoles.lookup(name, descriptor);
    BlasRoutineKind kind = signature.kind();
    cublasHandle handle = signature.handleIndex() >= 0 ? (cublasHandle) args[signature.handleIndex()] : null;
    HandleState state = handle == null ? null : HANDLES.get(handle);
    long appStream = state == null ? 0 : JCudaPointers.nativePointer(state.applicationStream);
    CallRecord r = Calls.begin(kind.callKind(), name, appStream);
    if (r == null) {
      return null;
    }
    switch (kind) {
      case DEVICE_ROUTINE -> {
        addOperands(r, signature, args, state != null && state.pointerMode == POINTER_MODE_DEVICE);
        Calls.place(r, Placement.ASYNC);
        pointHandle(r, handle, state);
      }
      case COPY_TO_DEVICE, COPY_TO_HOST -> {
        addOperands(r, signature, args, false);
        Calls.place(r, signature.streamIndex() >= 0 ? Placement.BARRIER : Placement.SYNC);
      }
      case HANDLE_DESTROY -> Calls.place(r, Placement.DEVICE_SYNC);
      case WORKSPACE_SET, UNKNOWN -> Calls.place(r, Placement.BARRIER);
      default -> { }
    }
    return r;
  }

  /** Exit advice of every JCublas2 method. */
  public static void exit(CallRecord r, String name, String descriptor, Object[] args, int result, Throwable thrown) {
    if (r != null && thrown == null && result == 0) {
      BlasSignature signature = BlasOperandRoles.lookup(name, descriptor);
      cublasHandle handle = signature.handleIndex() >= 0 ? (cublasHandle) args[signature.handleIndex()] : null;
      switch (signature.kind()) {
        case HANDLE_CREATE -> HANDLES.put(handle, new HandleState());
        case HANDLE_DESTROY -> HANDLES.remove(handle);
        case STREAM_SET -> stateOf(handle).applicationStream =
            args[1] instanceof cudaStream_t s ? s : new cudaStream_t();
        case STREAM_GET -> {
          if (args[1] instanceof cudaStream_t out) {
            JCudaPointers.setNativePointer(out, JCudaPointers.nativePointer(stateOf(handle).applicationStream));
          }
        }
        case POINTER_MODE_SET -> stateOf(handle).pointerMode = (Integer) args[1];
        default -> { }
      }
      if (signature.kind() == BlasRoutineKind.STREAM_SET) {
        stateOf(handle).agentStream = null;
      }
    }
    Calls.end(r, result, thrown);
  }

  private static HandleState stateOf(cublasHandle handle) {
    return HANDLES.computeIfAbsent(handle, h -> new HandleState());
  }

  private static void addOperands(CallRecord r, BlasSignature signature, Object[] args, boolean devicePointerMode) {
    for (int k = 0; k < signature.operandCount(); k++) {
      int i = signature.operandIndex(k);
      BlasOperandRole role = signature.role(i);
      if (!(args[i] instanceof Pointer p)) {
        continue;
      }
      AccessMode access = role.access();
      if (role.isPointerArray()) {
        // The matrices the array points to are out of sight: a barrier.
        r.touchesUnknownMemory = true;
        Calls.device(r, p, 0, access);
      } else if (role.isDeviceMemory() || role.followsPointerMode() && devicePointerMode) {
        Calls.device(r, p, 0, access);
      } else if (role.isHostMemory() || role.followsPointerMode()) {
        Calls.host(r, p, 0, access);
      }
    }
  }

  /** Points the handle at the lane the routine was placed on, or back at the application's stream. */
  private static void pointHandle(CallRecord r, cublasHandle handle, HandleState state) {
    if (handle == null) {
      return;
    }
    if (state == null) {
      state = stateOf(handle);
    }
    cudaStream_t lane = r.stream >= 0 ? Calls.runtimeStream(r, null) : null;
    cudaStream_t target = lane != null ? lane : state.applicationStream;
    cudaStream_t current = state.agentStream != null ? state.agentStream : state.applicationStream;
    if (target != current) {
      JCudaNatives.setBlasStream(handle, target);
      state.agentStream = lane;
    }
  }

  private static void restoreApplicationStreams() {
    HANDLES.forEach((handle, state) -> {
      if (state.agentStream != null) {
        try {
          JCudaNatives.setBlasStream(handle, state.applicationStream);
        } catch (Throwable ignored) {
          // The application's next cuBLAS call reports whatever is wrong.
        }
        state.agentStream = null;
      }
    });
  }
}
