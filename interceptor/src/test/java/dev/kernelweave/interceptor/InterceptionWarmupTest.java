package dev.kernelweave.interceptor;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kernelweave.call.AccessMode;
import dev.kernelweave.call.CallKind;
import dev.kernelweave.call.CallRecord;
import org.junit.jupiter.api.Test;

class InterceptionWarmupTest {

  @Test
  void runsTheRealAccessPathOverAStateNoCallReaches() {
    AgentState program = AgentState.replaceForTesting();
    InterceptionWarmup warmup = new InterceptionWarmup();
    warmup.run();

    CallRecord last = warmup.copy(1);
    assertEquals(CallKind.COPY_DEVICE_TO_HOST, last.kind, "odd copies go to the host");
    assertEquals(1, last.accessCount, "the copy's device side found in the warm-up's own allocations");
    assertEquals(AccessMode.READ.ordinal(), last.accessMode[0]);
    assertFalse(last.touchesUnknownMemory);

    assertEquals(0, program.allocations.size(), "the program's allocation table is untouched");
    assertEquals(0, program.sequence.get(), "no call of the program's is numbered");
    assertFalse(program.active(), "the program's state is not activated");
  }

  @Test
  void aLaunchOfTheWarmupHasTheAccessesItsKernelSays() {
    AgentState.replaceForTesting();
    InterceptionWarmup warmup = new InterceptionWarmup();
    warmup.run();
    CallRecord r = warmup.launch(0); // the first kernel shape: a read and a write, two values
    assertEquals(CallKind.LAUNCH, r.kind);
    assertEquals(2, r.accessCount, "two pointers, each in a known allocation");
    assertEquals(AccessMode.READ.ordinal(), r.accessMode[0]);
    assertEquals(AccessMode.WRITE.ordinal(), r.accessMode[1]);
    assertEquals(4, r.paramCount, "every parameter's bytes copied");
    assertFalse(r.touchesUnknownMemory);
  }

  @Test
  void aGemmOfTheWarmupHasItsThreeOperands() {
    AgentState.replaceForTesting();
    InterceptionWarmup warmup = new InterceptionWarmup();
    warmup.run();
    CallRecord r = warmup.gemm(0);
    assertEquals(CallKind.BLAS, r.kind);
    assertEquals(3, r.accessCount, "A, B and C, each in a known allocation: the routine's signature was found");
    assertEquals(AccessMode.READ.ordinal(), r.accessMode[0]);
    assertEquals(AccessMode.READ.ordinal(), r.accessMode[1]);
    assertEquals(AccessMode.READ_WRITE.ordinal(), r.accessMode[2]);
    assertTrue(r.brief, "64 x 64 x 64 multiply-adds: brief");
    assertFalse(r.touchesUnknownMemory);
  }
}
