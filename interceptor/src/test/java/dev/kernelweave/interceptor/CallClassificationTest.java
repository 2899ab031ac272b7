package dev.kernelweave.interceptor;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.kernelweave.call.CallKind;
import dev.kernelweave.interceptor.CallClassification.HeldLaunches;
import dev.kernelweave.scheduler.Placement;
import org.junit.jupiter.api.Test;

class CallClassificationTest {

  @Test
  void attributeSettersIssueTheHeldLaunchesAndForgetWhichConfigurationsSucceeded() {
    // After the attribute changes, a configuration that launched before may fail: it must be made at
    // once (not held) until it succeeds again, so that it returns CUDA's error.
    for (String setter : new String[] {"cuFuncSetAttribute", "cuFuncSetCacheConfig", "cuFuncSetSharedMemConfig",
        "cuKernelSetAttribute", "cuCtxSetLimit", "cuCtxSetCacheConfig", "cuCtxSetSharedMemConfig",
        "cudaFuncSetAttribute", "cudaFuncSetCacheConfig", "cudaDeviceSetLimit", "cudaDeviceSetCacheConfig"}) {
      CallClassification c = CallClassification.of(setter);
      assertEquals(HeldLaunches.FORGOTTEN, c.launches(), setter);
      assertEquals(Placement.NONE, c.placement(), setter);
    }
  }

  @Test
  void compilerSettingsOnlyIssueTheHeldLaunchesFirst() {
    assertEquals(HeldLaunches.ISSUED_FIRST, CallClassification.of("nvrtcSetFlowCallback").launches());
  }

  @Test
  void peerCopiesIssueAndCompleteWhatEveryContextHolds() {
    for (String peer : new String[] {"cuMemcpyPeer", "cuMemcpyPeerAsync", "cuMemcpy3DPeer", "cuMemcpy3DPeerAsync",
        "cudaMemcpyPeer", "cudaMemcpyPeerAsync"}) {
      CallClassification c = CallClassification.of(peer);
      assertEquals(HeldLaunches.EVERY_CONTEXT, c.launches(), peer);
      assertEquals(Placement.BARRIER, c.placement(), peer);
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
