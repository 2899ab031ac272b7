package dev.kernelweave.interceptor;

import dev.kernelweave.call.CallKind;
import dev.kernelweave.call.CallRecord;
import dev.kernelweave.interceptor.jcuda.HeldCallIssuer;
import jcuda.driver.CUstream;

/**
 * The JCuda libraries registered with one {@link AgentState}, each with what it brings beyond the
 * shared call path: its own state (cuBLAS's shadow handles), the issuer of its held calls that are
 * not kernel launches, by the {@link CallKind} of those calls, and what to undo when scheduling
 * stops. The graph device issues held calls through this registry ({@link HeldCallIssuer}), and
 * {@link AgentState#fail} runs every library's fall-back: no library names another, and no static
 * slot is shared between them.
 *
 * <p>Protocol: a library registers with the state its advice runs in, once, as that state sees the
 * library's first call ({@link #register}): nothing names a library's classes before, since the
 * application may not have them. A second library registers beside the first; one that registers
 * again gets its first registration back, so that threads racing to register agree.
 *
 * <p>Thread-safe: registering is synchronized; {@link #stateOf}, on the path of every call of a
 * library, reads an array element without a lock or a map (see {@link #byLibrary}); {@link #issue}
 * reads one volatile field and an array element.
 */
public final class InterceptedLibraries implements HeldCallIssuer {

  /**
   * One library's registration.
   *
   * @param library which library
   * @param state the library's own state, which its advice finds again through {@link #stateOf}; its
   *     fields final, as {@link #stateOf} may hand it to a thread without a lock
   * @param heldKind the kind of the held calls {@code issuer} issues; null with no issuer
   * @param issuer issues the library's held calls; null when it holds none
   * @param fallBack undoes what the library pointed at the agent's streams when scheduling stops
   */
  public record Registration(JCudaLibrary library, Object state, CallKind heldKind, HeldCallIssuer issuer,
      Runnable fallBack) {}

  private static final JCudaLibrary[] LIBRARIES = JCudaLibrary.values();

  /**
   * By {@link JCudaLibrary#ordinal}. Written under this object's lock, read without it: a thread
   * that sees a registration sees it whole (a record, whose fields are final, as are its state's);
   * one that does not see it yet registers, and gets it back under the lock.
   */
  private final Registration[] byLibrary = new Registration[LIBRARIES.length];
  /** The issuers by {@link CallKind#ordinal} of their held calls; replaced, never changed, once published. */
  private volatile HeldCallIssuer[] byHeldKind = new HeldCallIssuer[CallKind.values().length];

  InterceptedLibraries() {}

  /**
   * Registers a library with this state, unless it registered already.
   *
   * @return the registration in effect: {@code registration}, or the library's earlier one
   * @throws IllegalStateException when another library already issues held calls of the same kind
   */
  public synchronized Registration register(Registration registration) {
    int at = registration.library().ordinal();
    Registration earlier = byLibrary[at];
    if (earlier != null) {
      return earlier;
    }
    HeldCallIssuer[] issuers = byHeldKind;
    if (registration.issuer() != null) {
      int kind = registration.heldKind().ordinal();
      if (issuers[kind] != null) {
        throw new IllegalStateException(registration.library() + " issues held " + registration.heldKind()
            + " calls, which another library issues already");
      }
      issuers = issuers.clone();
      issuers[kind] = registration.issuer();
    }
    byHeldKind = issuers;
    byLibrary[at] = registration;
    return registration;
  }

  /** The state {@code library} registered, or null before it registered. Allocation-free. */
  public Object stateOf(JCudaLibrary library) {
    Registration r = byLibrary[library.ordinal()];
    return r == null ? null : r.state();
  }

  /**
   * Runs every registered library's fall-back, each once per call; one that throws does not keep
   * the others from running.
   */
  void fallBack() {
    Registration[] registered;
    synchronized (this) {
      registered = byLibrary.clone();
    }
    for (Registration r : registered) {
      if (r != null && r.fallBack() != null) {
        try {
          r.fallBack().run();
        } catch (Throwable ignored) {
          // Keep undoing the rest.
        }
      }
    }
  }

  @Override
  public int prepare(CallRecord call, CUstream stream) {
    return issuerOf(call).prepare(call, stream);
  }

  @Override
  public int issue(CallRecord call, CUstream stream) {
    return issuerOf(call).issue(call, stream);
  }

  private HeldCallIssuer issuerOf(CallRecord call) {
    HeldCallIssuer issuer = byHeldKind[call.kind.ordinal()];
    if (issuer == null) {
      throw new IllegalStateException("a held " + call.kind + " call, and no library registered to issue it");
    }
    return issuer;
  }
}
