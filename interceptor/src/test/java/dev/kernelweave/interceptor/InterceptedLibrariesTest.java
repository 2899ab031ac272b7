package dev.kernelweave.interceptor;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.kernelweave.call.CallKind;
import dev.kernelweave.call.CallRecord;
import dev.kernelweave.interceptor.jcuda.HeldCallIssuer;
import java.util.ArrayList;
import java.util.List;
import jcuda.driver.CUstream;
import org.junit.jupiter.api.Test;

/** Libraries register with the state beside each other: none overwrites another's issuer or fall-back. */
class InterceptedLibrariesTest {

  /** Records what it was asked to issue, under its name. */
  private record Issuer(String name, List<String> log) implements HeldCallIssuer {
    @Override
    public int prepare(CallRecord call, CUstream stream) {
      log.add(name + " prepares " + call.name);
      return 0;
    }

    @Override
    public int issue(CallRecord call, CUstream stream) {
      log.add(name + " issues " + call.name);
      return 0;
    }
  }

  private static CallRecord call(CallKind kind, String name) {
    CallRecord r = new CallRecord();
    r.kind = kind;
    r.name = name;
    return r;
  }

  @Test
  void twoLibrariesRegisteredIssueTheirOwnCallsAndBothFallBack() {
    InterceptedLibraries libraries = new InterceptedLibraries();
    List<String> log = new ArrayList<>();
    Object blasState = new Object();
    Object otherState = new Object();
    libraries.register(new InterceptedLibraries.Registration(JCudaLibrary.CUBLAS, blasState, CallKind.BLAS,
        new Issuer("cublas", log), () -> log.add("cublas falls back")));
    libraries.register(new InterceptedLibraries.Registration(JCudaLibrary.RUNTIME, otherState, CallKind.MEMSET,
        new Issuer("other", log), () -> log.add("other falls back")));

    libraries.issue(call(CallKind.BLAS, "cublasSgemm_v2"), null);
    libraries.prepare(call(CallKind.MEMSET, "cudaMemsetAsync"), null);
    libraries.issue(call(CallKind.MEMSET, "cudaMemsetAsync"), null);
    libraries.fallBack();

    assertEquals(List.of("cublas issues cublasSgemm_v2", "other prepares cudaMemsetAsync",
        "other issues cudaMemsetAsync", "other falls back", "cublas falls back"), log);
    assertSame(blasState, libraries.stateOf(JCudaLibrary.CUBLAS));
    assertSame(otherState, libraries.stateOf(JCudaLibrary.RUNTIME));
    assertNull(libraries.stateOf(JCudaLibrary.DRIVER), "a library that never registered has no state");
  }

  @Test
  void aLibraryRegisteringAgainKeepsItsFirstRegistration() {
    InterceptedLibraries libraries = new InterceptedLibraries();
    List<String> log = new ArrayList<>();
    InterceptedLibraries.Registration first = new InterceptedLibraries.Registration(JCudaLibrary.CUBLAS, "first",
        CallKind.BLAS, new Issuer("first", log), null);
    assertSame(first, libraries.register(first));

    InterceptedLibraries.Registration racing = libraries.register(new InterceptedLibraries.Registration(
        JCudaLibrary.CUBLAS, "second", CallKind.BLAS, new Issuer("second", log), null));

    assertSame(first, racing, "the thread that lost the race gets the first registration back");
    libraries.issue(call(CallKind.BLAS, "cublasSaxpy_v2"), null);
    assertEquals(List.of("first issues cublasSaxpy_v2"), log);
  }

  @Test
  void anotherLibraryCannotTakeOverAKindOfHeldCallsAlreadyIssued() {
    InterceptedLibraries libraries = new InterceptedLibraries();
    List<String> log = new ArrayList<>();
    libraries.register(new InterceptedLibraries.Registration(JCudaLibrary.CUBLAS, null, CallKind.BLAS,
        new Issuer("cublas", log), null));

    assertThrows(IllegalStateException.class, () -> libraries.register(new InterceptedLibraries.Registration(
        JCudaLibrary.RUNTIME, null, CallKind.BLAS, new Issuer("other", log), null)));

    libraries.issue(call(CallKind.BLAS, "cublasSgemm_v2"), null);
    assertEquals(List.of("cublas issues cublasSgemm_v2"), log);
    assertNull(libraries.stateOf(JCudaLibrary.RUNTIME), "the refused library is not registered");
  }

  @Test
  void aHeldCallThatNoLibraryIssuesFails() {
    InterceptedLibraries libraries = new InterceptedLibraries();
    assertThrows(IllegalStateException.class, () -> libraries.issue(call(CallKind.BLAS, "cublasSgemm_v2"), null));
  }

  @Test
  void everyLibraryFallsBackEvenWhenOneFails() {
    InterceptedLibraries libraries = new InterceptedLibraries();
    List<String> log = new ArrayList<>();
    libraries.register(new InterceptedLibraries.Registration(JCudaLibrary.DRIVER, null, null, null, () -> {
      throw new IllegalStateException("cannot undo");
    }));
    libraries.register(new InterceptedLibraries.Registration(JCudaLibrary.CUBLAS, null, null, null,
        () -> log.add("cublas falls back")));

    libraries.fallBack();

    assertEquals(List.of("cublas falls back"), log);
  }

  @Test
  void aFreshStateHasItsOwnLibraries() {
    AgentState first = AgentState.replaceForTesting();
    first.libraries().register(new InterceptedLibraries.Registration(JCudaLibrary.CUBLAS, "first", null, null, null));

    AgentState fresh = AgentState.replaceForTesting();

    assertSame(fresh, AgentState.current());
    assertNull(fresh.libraries().stateOf(JCudaLibrary.CUBLAS), "nothing registered with the state before carries over");
  }
}
