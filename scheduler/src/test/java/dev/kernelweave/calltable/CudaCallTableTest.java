package dev.kernelweave.calltable;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kernelweave.call.AccessMode;
import dev.kernelweave.call.CallKind;
import dev.kernelweave.scheduler.Placement;
import java.util.EnumSet;
import org.junit.jupiter.api.Test;

class CudaCallTableTest {

  private static final CudaCallTable TABLE = CudaCallTable.canonical();

  @Test
  void attributeSettersIssueTheHeldLaunchesAndForgetWhichConfigurationsSucceeded() {
    // After the attribute changes, a configuration that launched before may fail: it must be made at
    // once (not held) until it succeeds again, so that it returns CUDA's error.
    for (String setter : new String[] {"cuFuncSetAttribute", "cuFuncSetCacheConfig", "cuFuncSetSharedMemConfig",
        "cuKernelSetAttribute", "cuCtxSetLimit", "cuCtxSetCacheConfig", "cuCtxSetSharedMemConfig",
        "cudaFuncSetAttribute", "cudaFuncSetCacheConfig", "cudaDeviceSetLimit", "cudaDeviceSetCacheConfig"}) {
      CudaCall c = TABLE.rowOf(setter);
      assertEquals(WindowEffect.FORGOTTEN, c.windows(), setter);
      assertEquals(Placement.NONE, c.placement(), setter);
    }
  }

  @Test
  void onlyDeviceWorkAndHostWaitsRunAsWrittenBeforeTheAgentEngages() {
    for (String asWritten : new String[] {"cuLaunchKernel", "cuMemcpyHtoD", "cuMemcpyDtoHAsync", "cuMemsetD32Async",
        "cuCtxSynchronize", "cuStreamSynchronize", "cuEventSynchronize", "cuEventRecord", "cuStreamWaitEvent",
        "cuStreamQuery", "cuLaunchHostFunc", "cuGraphLaunch", "cudaMemcpy", "cublas:DEVICE_ROUTINE"}) {
      assertTrue(TABLE.rowOf(asWritten).runsAsWrittenUntilEngaged(), asWritten);
    }
    for (String tracked : new String[] {"cuMemAlloc", "cuMemFree", "cudaMalloc", "cuModuleLoadData", "cuModuleGetFunction",
        "cuStreamCreate", "cuEventCreate", "cuEventQuery", "cuCtxDestroy", "cuDevicePrimaryCtxRetain",
        "cublas:HANDLE_CREATE", "cublas:STREAM_SET", "cuStreamBeginCapture", "cudaStreamEndCapture"}) {
      assertFalse(TABLE.rowOf(tracked).runsAsWrittenUntilEngaged(), tracked);
    }
    assertTrue(TABLE.rowOf("cuStreamBeginCapture").engagesTheAgent());
    assertTrue(TABLE.rowOf("cudaStreamEndCapture").engagesTheAgent());
    assertFalse(TABLE.rowOf("cuLaunchKernel").engagesTheAgent());
  }

  @Test
  void onlyAStreamsWaitForAValueStopsTheAgent() {
    for (String wait : new String[] {"cuStreamWaitValue32", "cuStreamWaitValue64", "cuStreamBatchMemOp"}) {
      assertTrue(TABLE.rowOf(wait).disengagesTheAgent(), wait);
    }
    for (String other : new String[] {"cuStreamWriteValue32", "cuStreamWriteValue64", "cuLaunchHostFunc",
        "cuStreamWaitEvent", "cuLaunchKernel", "cuGraphLaunch"}) {
      assertFalse(TABLE.rowOf(other).disengagesTheAgent(), other);
    }
  }

  @Test
  void compilerSettingsOnlyIssueTheHeldLaunchesFirst() {
    assertEquals(WindowEffect.ENDED, TABLE.rowOf("nvrtcSetFlowCallback").windows());
    assertEquals(WindowEffect.NEUTRAL, TABLE.rowOf("nvrtcCompileProgram").windows());
  }

  @Test
  void peerCopiesIssueAndCompleteWhatEveryContextHolds() {
    for (String peer : new String[] {"cuMemcpyPeer", "cuMemcpyPeerAsync", "cuMemcpy3DPeer", "cuMemcpy3DPeerAsync",
        "cudaMemcpyPeer", "cudaMemcpyPeerAsync"}) {
      CudaCall c = TABLE.rowOf(peer);
      assertEquals(WindowEffect.ENDED_IN_EVERY_CONTEXT, c.windows(), peer);
      assertEquals(Placement.BARRIER, c.placement(), peer);
    }
  }

  @Test
  void aModuleUnloadForgetsTheLaunchesItsContextKnows() {
    for (String unload : new String[] {"cuModuleUnload", "cuLibraryUnload"}) {
      CudaCall c = TABLE.rowOf(unload);
      assertEquals(WindowEffect.FORGOTTEN, c.windows(), unload);
      assertEquals(Placement.BARRIER, c.placement(), unload);
    }
  }

  @Test
  void queriesAndOtherCallsLeaveHeldLaunchesToTheirPlacement() {
    assertEquals(WindowEffect.NEUTRAL, TABLE.rowOf("cuFuncGetAttribute").windows());
    assertEquals(WindowEffect.NEUTRAL, TABLE.rowOf("cuCtxSetCurrent").windows());
    assertEquals(CallKind.CONTEXT, TABLE.rowOf("cuCtxSetCurrent").kind());
    assertEquals(WindowEffect.NEUTRAL, TABLE.rowOf("cufftExecC2C").windows());
    assertEquals(CallKind.OPAQUE, TABLE.rowOf("cufftExecC2C").kind());
  }

  @Test
  void contextEndsIssueAndCompleteWhatEveryContextHoldsFirst() {
    for (String end : new String[] {"cuCtxDestroy", "cuDevicePrimaryCtxReset", "cuDevicePrimaryCtxRelease",
        "cudaDeviceReset"}) {
      assertEquals(WindowEffect.ENDED_IN_EVERY_CONTEXT, TABLE.rowOf(end).windows(), end);
    }
    assertEquals(WindowEffect.NEUTRAL, TABLE.rowOf("cuDevicePrimaryCtxRetain").windows());
  }

  @Test
  void onlyLaunchesAndRoutinesMayBeHeld() {
    for (CudaCall c : TABLE.rows()) {
      assertEquals(c.kind() == CallKind.LAUNCH || c.kind() == CallKind.BLAS, c.mayBeHeld(), c.toString());
    }
  }

  @Test
  void aFunctionWithARowOfItsOwnFindsItAndOthersTheirFamilysRow() {
    assertTrue(TABLE.hasOwnRow("cuMemcpyHtoD"));
    assertEquals("cuMemcpyHtoD", TABLE.rowOf("cuMemcpyHtoD").name());
    assertFalse(TABLE.hasOwnRow("cuInit"));
    assertEquals("(host)", TABLE.rowOf("cuInit").name());
    assertFalse(TABLE.hasOwnRow("(host)"), "a family is no function");
    assertFalse(TABLE.hasOwnRow("cublas:DEVICE_ROUTINE"), "a cuBLAS kind is no function");
    for (CudaCall c : TABLE.rows()) {
      assertEquals(c, TABLE.row(c.id()));
      assertEquals(c.id(), TABLE.idOf(c.name()), c.name());
    }
  }

  @Test
  void synchronousCopiesToAndFromHostMemoryBlockTheHostAndMayBeStaged() {
    CudaCall toDevice = TABLE.row(CudaCallTable.COPY_TO_DEVICE);
    assertEquals(Placement.SYNC, toDevice.placement());
    assertEquals(Placement.STAGED, toDevice.stagedPlacement());
    assertEquals(HostBlocking.YES, toDevice.blocksHost());
    assertEquals(new Operand(0, Operand.Side.DEVICE, AccessMode.WRITE), toDevice.operand(0));
    assertEquals(new Operand(1, Operand.Side.HOST, AccessMode.READ), toDevice.operand(1));
    CudaCall toHost = TABLE.row(CudaCallTable.COPY_TO_HOST);
    assertEquals(Placement.STAGED_READ, toHost.stagedPlacement());
    assertEquals(new Operand(1, Operand.Side.DEVICE, AccessMode.READ), toHost.operand(0));
    assertEquals(HostBlocking.WHEN_PAGEABLE, TABLE.row(CudaCallTable.COPY_TO_HOST_ASYNC).blocksHost());
  }

  @Test
  void everyPlacementThatWaitsOnTheHostIsOnARowThatBlocksIt() {
    EnumSet<Placement> hostWaits = EnumSet.of(Placement.SYNC, Placement.FREE, Placement.BARRIER,
        Placement.DEVICE_SYNC, Placement.STREAM_SYNC);
    for (CudaCall c : TABLE.rows()) {
      if (hostWaits.contains(c.placement()) && c.kind() != CallKind.MEMSET) {
        assertEquals(HostBlocking.YES, c.blocksHost(), c.toString());
      }
      if (c.placement() == Placement.ASYNC) {
        assertNotEquals(HostBlocking.YES, c.blocksHost(), c.toString());
      }
    }
  }

  @Test
  void aMemsetsBytesComeFromItsSizeArgumentsAsTheRowSays() {
    assertEquals(400, TABLE.rowOf("cuMemsetD32").bytes(100, 7));
    assertEquals(200, TABLE.rowOf("cuMemsetD16Async").bytes(100, 7));
    assertEquals(700, TABLE.rowOf("cuMemsetD2D32").bytes(100, 7), "pitch times height");
    assertEquals(5, TABLE.rowOf("cuMemsetD2D8Async").streamArgument());
  }

  @Test
  void streamBarriersTouchMemoryTheAgentCannotSee() {
    for (String barrier : new String[] {"cuLaunchHostFunc", "cuStreamAddCallback", "cuGraphLaunch",
        "cudaLaunchHostFunc", "cudaGraphLaunch"}) {
      CudaCall c = TABLE.rowOf(barrier);
      assertTrue(c.touchesUnseenMemory(), barrier);
      assertEquals(Placement.ASYNC, c.placement(), barrier);
    }
    assertEquals(1, TABLE.rowOf("cuGraphLaunch").streamArgument());
  }

  @Test
  void aReplacedRowKeepsItsIdAndLeavesTheOthers() {
    CudaCallTable broken = TABLE.withRow(
        TABLE.row(CudaCallTable.COPY_TO_HOST).placedAs(Placement.ASYNC, Placement.NONE, HostBlocking.NO));
    assertEquals(TABLE.size(), broken.size());
    int differing = 0;
    for (CudaCall c : TABLE.rows()) {
      CudaCall b = broken.row(c.id());
      if (b.placement() != c.placement()) {
        differing++;
        assertEquals("cuMemcpyDtoH", b.name());
        assertEquals(Placement.ASYNC, b.placement());
        assertFalse(b.canBeStaged());
      }
    }
    assertEquals(1, differing);
    assertEquals(Placement.SYNC, TABLE.row(CudaCallTable.COPY_TO_HOST).placement(), "the table itself is unchanged");
  }
}
