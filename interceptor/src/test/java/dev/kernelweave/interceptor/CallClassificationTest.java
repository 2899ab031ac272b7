package dev.kernelweave.interceptor;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.kernelweave.call.CallKind;
import dev.kernelweave.interceptor.CallClassification.HeldLaunches;
import dev.kernelweave.scheduler.Placement;
import org.junit.jupiter.api.Test;

class CallClassificationTest {

  @Test
  void settingsThatChangeLaterLaunchesIssueTheHeldOnesFirst() {
    for (String setter : new String[] {"cuFuncSetAttribute", "cuFuncSetCacheConfig", "cuCtxSetLimit",
        "cudaFuncSetAttribute", "cudaDeviceSetLimit"}) {
      CallClassification c = CallClassification.of(setter);
      assertEquals(HeldLaunches.ISSUED_FIRST, c.launches(), setter);
      assertEquals(Placement.NONE, c.placement(), setter);
    }
  }

  @Test
  void aModuleUnloadForgetsTheLaunchesItsContextKnows() {
    for (String unload : new String[] {"cuModuleUnload", "cuLibraryUnload"}) {
      CallClassification c = CallClassification.of(unload);
      assertEquals(HeldLaunches.FORGOTTEN, c.launches(), unload);
      assertEquals(Placement.BARRIER, c.placement(), unload);
    }
  }

  @Test
  void queriesAndOtherCallsLeaveHeldLaunchesToTheirPlacement() {
    assertEquals(HeldLaunches.UNAFFECTED, CallClassification.of("cuFuncGetAttribute").launches());
    assertEquals(HeldLaunches.UNAFFECTED, CallClassification.of("cuCtxSetCurrent").launches());
    assertEquals(CallKind.CONTEXT, CallClassification.of("cuCtxSetCurrent").kind());
    assertEquals(HeldLaunches.UNAFFECTED, CallClassification.of("cufftExecC2C").launches());
  }
}
