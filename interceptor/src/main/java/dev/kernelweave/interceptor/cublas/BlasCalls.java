package dev.kernelweave.interceptor.cublas;

import dev.kernelweave.call.AccessMode;
import dev.kernelweave.call.CallKind;
import dev.kernelweave.call.CallRecord;
import dev.kernelweave.interceptor.AgentLog;
import dev.kernelweave.interceptor.AgentState;
import dev.kernelweave.interceptor.CallAccesses;
import dev.kernelweave.interceptor.Calls;
import dev.kernelweave.interceptor.InterceptedLibraries;
import dev.kernelweave.interceptor.IssuedByAgent;
import dev.kernelweave.interceptor.JCudaLibrary;
import dev.kernelweave.memory.AllocationTable;
import jcuda.Pointer;
import jcuda.jcublas.cublasHandle;
import jcuda.runtime.cudaStream_t;

/**
 * The JCublas2 advice's logic: each routine's operands from {@link BlasOperandRoles}; a routine
 * placed on one of the agent's streams runs on that stream's shadow of the application's handle
 * ({@link ShadowHandles}), which follows every setting the application makes on its handle.
 *
 * <p>One instance per {@link AgentState}, registered with it ({@link InterceptedLibraries}) at the
 * first cuBLAS call that state sees: the issuer of held routines, and the retirement of every
 * shadow when scheduling stops. The advice's static entries find it through {@link #current}.
 *
 * <p>Invariant: the application's handles are never modified by the agent; they keep the stream,
 * workspace and modes the application gave them. Thread-safe: cuBLAS handles may be shared between
 * threads as cuBLAS allows.
 */
public final class BlasCalls {

  private final ShadowHandles shadows = new ShadowHandles(JCudaShadowNatives.INSTANCE);
  private final HeldRoutines held = new HeldRoutines(shadows);

  /**
   * Routines of at most this many multiply-adds are {@link CallRecord#brief}: 2^21 (a 128x128x128
   * gemm) takes a few microseconds on a GPU, no more than issuing it takes the host, so running it
   * beside other work gains nothing and the events of a fork cost more.
   */
  static final long BRIEF_MULTIPLY_ADDS = 1L << 21;

  private BlasCalls() {}

  /**
   * This state's cuBLAS calls: registered with it as its first cuBLAS call begins, issuing the
   * routines its windows hold and retiring every shadow when scheduling stops. Allocation-free
   * once registered.
   */
  static BlasCalls current() {
    InterceptedLibraries libraries = AgentState.current().libraries();
    Object registered = libraries.stateOf(JCudaLibrary.CUBLAS);
    if (registered != null) {
      return (BlasCalls) registered;
    }
    BlasCalls mine = new BlasCalls();
    InterceptedLibraries.Registration registration = new InterceptedLibraries.Registration(JCudaLibrary.CUBLAS, mine,
        CallKind.BLAS, mine.held, mine.shadows::retireAll);
    return (BlasCalls) libraries.register(registration).state();
  }

  /**
   * This state's shadow handles, looked up where a call needs them: a routine left on the
   * application's stream and handle needs none after its enter.
   */
  private static ShadowHandles shadows() {
    return current().shadows;
  }

  /**
   * Enter advice of every JCublas2 method; for a routine, {@link #handle} follows.
   *
   * @return the call's record; the thread's {@link dev.kernelweave.interceptor.IssuedByAgent} when
   *     the context's launch windows hold the routine and JCublas2's call must be skipped; or null
   */
  public static Object enter(String name, String descriptor, Object[] args) {
    return current().enterCall(name, descriptor, args);
  }

  private Object enterCall(String name, String descriptor, Object[] args) {
    BlasSignature signature = BlasOperandRoles.lookup(name, descriptor);
    BlasRoutineKind kind = signature.kind();
    cublasHandle handle = signature.handleIndex() >= 0 ? (cublasHandle) args[signature.handleIndex()] : null;
    ShadowHandles.Handle state = handle == null ? null : shadows.lookup(handle);
    long appStream = state == null ? 0 : state.applicationStream();
    // The kind's row: its placement and what it means for held routines (a change to a handle
    // issues those held before it, as they were made).
    CallRecord r = Calls.begin(kind.row(signature.streamIndex() >= 0), name, appStream);
    if (r == null) {
      return null;
    }
    if (kind == BlasRoutineKind.DEVICE_ROUTINE) {
      describeRoutine(r, signature, args, state != null && state.devicePointerMode());
      if (Calls.mayHold(r)) {
        held.describe(r, signature, state, args);
      }
      if (r.function != 0) {
        IssuedByAgent held = Calls.placeLaunch(r);
        return held != null ? held : r;
      }
    } else if (kind == BlasRoutineKind.COPY_TO_DEVICE || kind == BlasRoutineKind.COPY_TO_HOST) {
      addOperands(r, signature, args, false);
    }
    Calls.placeAsRowSays(r);
    return r;
  }

  /**
   * The handle a routine's real call uses: the shadow of the agent's stream it was placed on, or the
   * application's own handle when it stays on the application's stream. Never throws.
   */
  public static cublasHandle handle(CallRecord r, cublasHandle application) {
    if (r == null || r.kind != CallKind.BLAS || application == null) {
      return application;
    }
    try {
      cudaStream_t lane = Calls.runtimeStream(r, null);
      if (lane == null) {
        return application;
      }
      ShadowHandles shadows = shadows();
      cublasHandle h = shadows.forCall(shadows.of(application), lane);
      if (h instanceof ShadowHandles.Shadow s && s.isOrdered()) {
        shadows.orderBefore(s);
      }
      return h;
    } catch (Throwable e) {
      // Last resort (the shadow table reports CUDA failures as status codes): the call passes
      // through as written and the agent falls back, retiring every shadow.
      Calls.abandon(r, e);
      return application;
    }
  }

  /** Exit advice of every JCublas2 method; {@code args} hold the handle the real call used. */
  public static void exit(CallRecord r, String name, String descriptor, Object[] args, int result, Throwable thrown) {
    if (r != null && args.length > 0 && args[0] instanceof ShadowHandles.Shadow s) {
      try {
        shadows().callEnded(s);
      } catch (Throwable e) {
        AgentLog.warnOnce("cublas-shadow-end", "cuBLAS handles for the agent's streams failed: " + e);
      }
    }
    Calls.end(r, result, thrown);
    if (thrown == null && result == 0) {
      try {
        follow(name, descriptor, args);
      } catch (Throwable e) {
        // A shadow may have missed a setting: no shadow is used from now on.
        AgentLog.warnOnce("cublas-follow", "cuBLAS handle settings could not be followed: " + e);
        shadows().retireAll();
      }
    }
  }

  /** What a successful call changed on an application handle, for its shadows. Runs after the call's end: no lock held. */
  private static void follow(String name, String descriptor, Object[] args) {
    BlasSignature signature = BlasOperandRoles.lookup(name, descriptor);
    if (signature.handleIndex() < 0 || !(args[signature.handleIndex()] instanceof cublasHandle handle)
        || handle instanceof ShadowHandles.Shadow) {
      return;
    }
    switch (signature.kind()) {
      case HANDLE_CREATE -> shadows().created(handle);
      case HANDLE_DESTROY -> shadows().destroyed(handle);
      case STREAM_SET -> shadows().streamSet(handle, args[1] instanceof cudaStream_t s ? s : null);
      case WORKSPACE_SET -> shadows().workspaceSet(handle, (Long) args[2]);
      case POINTER_MODE_SET -> shadows().settingSet(handle, BlasSetting.POINTER_MODE, (Integer) args[1]);
      case HOST_SETTING -> {
        BlasSetting setting = BlasSetting.ofSetter(name);
        if (setting != null) {
          shadows().settingSet(handle, setting, (Integer) args[1]);
        }
      }
      default -> { }
    }
  }

  /**
   * What the enter of a routine that puts work on the device learns from its arguments alone, before
   * the call is placed: its operands' accesses, and whether it is {@link CallRecord#brief}.
   */
  private static void describeRoutine(CallRecord r, BlasSignature signature, Object[] args, boolean devicePointerMode) {
    addOperands(r, signature, args, devicePointerMode);
    long work = BlasOperandExtents.multiplyAdds(signature, args);
    r.brief = work >= 0 && work <= BRIEF_MULTIPLY_ADDS;
  }

  /**
   * {@link #describeRoutine} of the {@code JCublas2} method {@code name} with JVM descriptor {@code
   * descriptor}, in host pointer mode, for the JIT warm-up ({@code InterceptionWarmup}): it looks
   * up no handle and asks nothing of the agent's state.
   */
  public static void describeForWarmup(CallRecord r, String name, String descriptor, Object[] args) {
    BlasSignature signature = BlasOperandRoles.lookup(name, descriptor);
    if (signature.kind() == BlasRoutineKind.DEVICE_ROUTINE) {
      describeRoutine(r, signature, args, false);
    }
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
        CallAccesses.device(r, p, AllocationTable.WHOLE_ALLOCATION, access);
      } else if (role.isDeviceMemory() || role.followsPointerMode() && devicePointerMode) {
        CallAccesses.device(r, p, BlasOperandExtents.bytes(signature, args, i), access);
      } else if (role.isHostMemory() || role.followsPointerMode()) {
        CallAccesses.host(r, p, AllocationTable.WHOLE_ALLOCATION, access);
      }
    }
  }
}
