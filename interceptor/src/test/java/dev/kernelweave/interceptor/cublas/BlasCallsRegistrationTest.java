package dev.kernelweave.interceptor.cublas;

import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;

import dev.kernelweave.interceptor.AgentState;
import dev.kernelweave.interceptor.JCudaLibrary;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** cuBLAS registers with the state its calls are made in, once, and a fresh state gets its own. */
class BlasCallsRegistrationTest {

  @AfterEach
  void fresh() {
    AgentState.replaceForTesting();
  }

  @Test
  void theFirstCallRegistersCublasWithTheCurrentStateOnce() {
    AgentState state = AgentState.replaceForTesting();

    BlasCalls blas = BlasCalls.current();

    assertSame(blas, state.libraries().stateOf(JCudaLibrary.CUBLAS));
    assertSame(blas, BlasCalls.current(), "later calls find the same registration");
    AgentState fresh = AgentState.replaceForTesting();
    BlasCalls again = BlasCalls.current();
    assertNotSame(blas, again, "a fresh state, fresh shadow handles");
    assertSame(again, fresh.libraries().stateOf(JCudaLibrary.CUBLAS));
  }
}
