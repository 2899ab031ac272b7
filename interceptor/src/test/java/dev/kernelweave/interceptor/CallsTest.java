package dev.kernelweave.interceptor;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kernelweave.call.AccessMode;
import dev.kernelweave.call.CallKind;
import dev.kernelweave.call.CallRecord;
import dev.kernelweave.interceptor.jcuda.JCudaPointers;
import dev.kernelweave.journal.LaunchJournal;
import dev.kernelweave.memory.MemoryKind;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import jcuda.Pointer;
import jcuda.driver.CUdeviceptr;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** What a launch's parameters resolve to, with JCuda's own pointer objects and no GPU. */
class CallsTest {

  private static final long BASE = 0x7f00_0000_0000L;
  private static final byte R = (byte) AccessMode.READ.ordinal();
  private static final byte W = (byte) AccessMode.WRITE.ordinal();
  /** Parameters not analyzed, nothing else touched: how parameters alone resolve. */
  private static final KernelInfo EVERY_POINTER_READ_WRITE = new KernelInfo("k", null, false);
  private int id;

  private AgentState state;

  /** A fresh state per test: no allocation, kernel or thread record of another test is seen. */
  @BeforeEach
  void activate() {
    state = AgentState.replaceForTesting();
    Interception.activate(new InterceptorSettings(Mode.PASSTHROUGH, 4, true, true, () -> LaunchJournal.OFF));
    id = state.allocations.add(BASE, 4096, MemoryKind.DEVICE);
  }

  private static CUdeviceptr device(long address) {
    CUdeviceptr p = new CUdeviceptr();
    JCudaPointers.setNativePointer(p, address);
    return p;
  }

  private static CallRecord launch(KernelInfo kernel, Pointer params) {
    CallRecord r = Calls.begin("cuLaunchKernel", 0L);
    CallAccesses.launch(r, kernel, params, null);
    Calls.end(r, 0, null);
    return r;
  }

  /**
   * The path of every launch (begin from the woven row id, the parameters' accesses, placement, end
   * and journal hand-off) allocates nothing once the thread's record exists: the state is reached
   * through the holder and the record, never through a lookup that allocates.
   */
  @Test
  void aLaunchAllocatesNothing() {
    Pointer params = Pointer.to(Pointer.to(device(BASE)), Pointer.to(new int[] {5}));
    KernelInfo kernel = new KernelInfo("k", new byte[] {R, KernelInfo.VALUE}, false);
    int row = dev.kernelweave.calltable.CudaCallTable.canonical().idOf("cuLaunchKernel");
    CallThread.current().context = 0x1234; // as a driver would answer: without one, asking throws
    Runnable launches = () -> {
      for (int i = 0; i < 50_000; i++) {
        CallRecord r = Calls.begin(row, "cuLaunchKernel", 0L);
        CallAccesses.launch(r, kernel, params, null);
        Calls.placeLaunch(r);
        Calls.end(r, 0, null);
      }
    };
    launches.run();
    com.sun.management.ThreadMXBean threads =
        (com.sun.management.ThreadMXBean) java.lang.management.ManagementFactory.getThreadMXBean();
    long before = threads.getCurrentThreadAllocatedBytes();
    launches.run();
    long allocated = threads.getCurrentThreadAllocatedBytes() - before;
    assertTrue(allocated < 4096, "50,000 launches allocated " + allocated + " bytes");
    assertEquals(100_000, state.sequence.get(), "every launch was counted by the current state");
  }

  /** A kernel may index back from an interior pointer: its parameter stands for the whole allocation. */
  @Test
  void pointerIntoAnAllocationIsTheWholeAllocationAndScalarsAreCopied() {
    Pointer params = Pointer.to(Pointer.to(device(BASE).withByteOffset(256)), Pointer.to(new int[] {5}),
        Pointer.to(new float[] {2.5f}));
    CallRecord r = launch(EVERY_POINTER_READ_WRITE, params);
    assertEquals(1, r.accessCount);
    assertEquals(id, r.accessId[0]);
    assertEquals(BASE, r.accessBase[0]);
    assertEquals(0, r.accessOffset[0]); // the kernel may index backwards from the pointer
    assertEquals(4096, r.accessSize[0]);
    assertEquals(AccessMode.READ_WRITE, r.accessMode(0));
    assertEquals(3, r.paramCount);
    assertEquals(BASE + 256, r.paramAsLong(0));
    assertEquals(5, r.paramAsLong(1));
    assertEquals(Float.floatToRawIntBits(2.5f), (int) r.paramAsLong(2));
    assertFalse(r.touchesUnknownMemory);
    assertEquals("k", r.kernel);
  }

  @Test
  void readOnlyParameterFromPtxIsARead() {
    KernelInfo k = new KernelInfo("k", new byte[] {R, KernelInfo.VALUE}, false);
    CallRecord r = launch(k, Pointer.to(Pointer.to(device(BASE)), Pointer.to(new int[] {1})));
    assertEquals(AccessMode.READ, r.accessMode(0));
  }

  @Test
  void sameAllocationReadAndWrittenIsOneReadWriteAccessCoveringBoth() {
    KernelInfo k = new KernelInfo("k", new byte[] {W, R}, false);
    CallRecord r = launch(k, Pointer.to(Pointer.to(device(BASE + 1024)), Pointer.to(device(BASE))));
    assertEquals(1, r.accessCount);
    assertEquals(AccessMode.READ_WRITE, r.accessMode(0));
    assertEquals(0, r.accessOffset[0]);
    assertEquals(4096, r.accessSize[0]);
  }

  @Test
  void unknownAddressMakesTheLaunchABarrierUnlessThePtxSaysItIsAValue() {
    Pointer params = Pointer.to(Pointer.to(new long[] {0x7e00_0000_0000L}));
    assertTrue(launch(EVERY_POINTER_READ_WRITE, params).touchesUnknownMemory);
    KernelInfo scalar = new KernelInfo("k", new byte[] {KernelInfo.VALUE}, false);
    assertFalse(launch(scalar, params).touchesUnknownMemory);
  }

  /** An end pointer names its allocation, but memory the agent does not know may start there. */
  @Test
  void addressJustPastTheEndIsTheAllocationAndStillABarrierWhereNothingKnownStarts() {
    CallRecord r = launch(EVERY_POINTER_READ_WRITE, Pointer.to(Pointer.to(device(BASE + 4096))));
    assertEquals(1, r.accessCount);
    assertEquals(id, r.accessId[0]);
    assertEquals(4096, r.accessSize[0]);
    assertTrue(r.touchesUnknownMemory);
  }

  /** Issue 23, hole 15: a kernel given one past the end of X may index backwards into X. */
  @Test
  void addressJustPastTheEndWhereTheNextAllocationStartsIsBoth() {
    int next = state.allocations.add(BASE + 4096, 1024, MemoryKind.DEVICE);
    try {
      CallRecord r = launch(EVERY_POINTER_READ_WRITE, Pointer.to(Pointer.to(device(BASE + 4096))));
      assertEquals(2, r.accessCount);
      assertEquals(next, r.accessId[0]);
      assertEquals(id, r.accessId[1]);
      assertEquals(0, r.accessOffset[1]);
      assertEquals(4096, r.accessSize[1]);
      assertFalse(r.touchesUnknownMemory);
      r = launch(writesAt(-4, 0), Pointer.to(Pointer.to(device(BASE + 4096)), Pointer.to(new long[] {0})));
      assertEquals(1, r.accessCount);
      assertEquals(id, r.accessId[0]);
      assertEquals(4092, r.accessOffset[0]);
      assertEquals(4, r.accessSize[0]);
      assertFalse(r.touchesUnknownMemory);
    } finally {
      state.allocations.remove(BASE + 4096);
    }
  }

  private static CallRecord launch(KernelInfo kernel, Pointer params, int gridX, int blockX) {
    CallRecord r = Calls.begin("cuLaunchKernel", 0L);
    r.gridX = gridX;
    r.gridY = r.gridZ = r.blockY = r.blockZ = 1;
    r.blockX = blockX;
    CallAccesses.launch(r, kernel, params, null);
    Calls.end(r, 0, null);
    return r;
  }

  /** Reads parameter 0 anywhere in its allocation, proven forward-only for launches of at most {@code limit} threads in x. */
  private static KernelInfo forwardUpTo(long limit) {
    return new KernelInfo("k", new byte[] {R}, false, new long[0], new byte[0], null, new long[] {limit});
  }

  /**
   * A kernel proven to touch nothing below its pointer, given the base of Y where X ends: Y alone,
   * so that kernels on adjacent buffers stay independent. Unproven, or for a launch too large for
   * the proof, or with unknown dimensions, it is both.
   */
  @Test
  void forwardOnlyKernelGivenTheBaseOfTheNextAllocationTouchesOnlyThatOne() {
    int next = state.allocations.add(BASE + 4096, 1024, MemoryKind.DEVICE);
    try {
      Pointer params = Pointer.to(Pointer.to(device(BASE + 4096)));
      CallRecord r = launch(forwardUpTo(1L << 31), params, 4, 256);
      assertEquals(1, r.accessCount);
      assertEquals(next, r.accessId[0]);
      assertEquals(0, r.accessOffset[0]);
      assertEquals(1024, r.accessSize[0]);
      assertEquals(AccessMode.READ, r.accessMode(0));
      assertFalse(r.touchesUnknownMemory);
      r = launch(forwardUpTo(Long.MAX_VALUE), params, Integer.MAX_VALUE, 1024);
      assertEquals(1, r.accessCount);
      assertEquals(next, r.accessId[0]);

      r = launch(new KernelInfo("k", new byte[] {R}, false), params, 4, 256); // not proven
      assertEquals(2, r.accessCount);
      assertEquals(next, r.accessId[0]);
      assertEquals(id, r.accessId[1]);
      r = launch(forwardUpTo(1L << 31), params, 1 << 22, 1024); // 2^32 threads: the index may wrap
      assertEquals(2, r.accessCount);
      assertEquals(id, r.accessId[1]);
      r = launch(forwardUpTo(1L << 31), params); // dimensions unknown
      assertEquals(2, r.accessCount);
      assertEquals(id, r.accessId[1]);
    } finally {
      state.allocations.remove(BASE + 4096);
    }
  }

  /** Forward-only or not, an end pointer followed by memory the agent does not know stays a barrier. */
  @Test
  void forwardOnlyEndPointerWhereNothingKnownStartsIsABarrier() {
    CallRecord r = launch(forwardUpTo(1L << 31), Pointer.to(Pointer.to(device(BASE + 4096))), 4, 256);
    assertEquals(0, r.accessCount);
    assertTrue(r.touchesUnknownMemory);
  }

  @Test
  void smallIntegersAndDoublesAreNeverTakenForPointers() {
    Pointer params = Pointer.to(Pointer.to(new long[] {1L << 20}), Pointer.to(new double[] {1.0}));
    CallRecord r = launch(EVERY_POINTER_READ_WRITE, params);
    assertEquals(0, r.accessCount);
    assertFalse(r.touchesUnknownMemory);
  }

  @Test
  void aParameterThePtxMakesAnAddressOfThatNamesNoKnownMemoryIsABarrier() {
    KernelInfo writesThroughBoth = new KernelInfo("k", new byte[] {W, W}, false);
    // A pointer passed as a double, or as an offset from a far constant: no word names an allocation.
    double pointerAsDouble = (double) (BASE + 8);
    assertTrue(launch(writesThroughBoth, Pointer.to(Pointer.to(new double[] {pointerAsDouble}),
        Pointer.to(new long[] {0}))).touchesUnknownMemory);
    assertTrue(launch(writesThroughBoth, Pointer.to(Pointer.to(new long[] {BASE + (1L << 60)}),
        Pointer.to(new long[] {-(1L << 60)}))).touchesUnknownMemory);
    // A pointer with a small offset beside it, and a null optional pointer: as before.
    CallRecord r = launch(writesThroughBoth, Pointer.to(Pointer.to(new long[] {BASE}), Pointer.to(new long[] {-16})));
    assertFalse(r.touchesUnknownMemory);
    assertEquals(1, r.accessCount);
    assertFalse(launch(writesThroughBoth, Pointer.to(Pointer.to(new long[] {BASE}), Pointer.to(new long[] {0})))
        .touchesUnknownMemory);
    // A structure of a known pointer and a double.
    assertFalse(launch(writesThroughBoth, Pointer.to(Pointer.to(new long[] {BASE, Double.doubleToLongBits(2.5)}),
        Pointer.to(new long[] {0}))).touchesUnknownMemory);
  }

  @Test
  void pointerInsideAStructParameterIsFound() {
    Pointer params = Pointer.to(Pointer.to(new long[] {7, BASE + 8}));
    CallRecord r = launch(EVERY_POINTER_READ_WRITE, params);
    assertEquals(16, r.paramSize(0));
    assertEquals(1, r.accessCount);
    assertEquals(0, r.accessOffset[0]);
    assertEquals(4096, r.accessSize[0]);
  }

  /** Issue 23, hole 14: {@code struct __attribute__((packed, aligned(4))) { int n; float* p; }} by value. */
  @Test
  void pointerAtOffsetFourOfAPackedStructParameterIsFound() {
    long high = 0x7f00_8000_0000L; // low word large: the word at 0 (n and half the pointer) is no address
    int packed = state.allocations.add(high, 4096, MemoryKind.DEVICE);
    try {
      ByteBuffer struct = ByteBuffer.allocate(12).order(ByteOrder.LITTLE_ENDIAN).putInt(5).putLong(high + 256);
      CallRecord r = launch(EVERY_POINTER_READ_WRITE, Pointer.to(Pointer.to(struct.array())));
      assertEquals(12, r.paramSize(0));
      assertEquals(1, r.accessCount);
      assertEquals(packed, r.accessId[0]);
      assertEquals(0, r.accessOffset[0]);
      assertEquals(4096, r.accessSize[0]);
      assertFalse(r.touchesUnknownMemory);
    } finally {
      state.allocations.remove(high);
    }
  }

  /** The word at offset 4 of {@code { float* p; int n; int m; }} joins p's high half and n: no address. */
  @Test
  void wordAtOffsetFourJoiningTwoFieldsIsNoBarrier() {
    ByteBuffer struct = ByteBuffer.allocate(16).order(ByteOrder.LITTLE_ENDIAN).putLong(BASE + 8).putInt(3).putInt(0);
    CallRecord r = launch(EVERY_POINTER_READ_WRITE, Pointer.to(Pointer.to(struct.array())));
    assertEquals(1, r.accessCount);
    assertEquals(id, r.accessId[0]);
    assertFalse(r.touchesUnknownMemory);
  }

  /** A kernel writing parameter 0 at {@code [start, end)} from the pointer and reading parameter 1 anywhere. */
  private static KernelInfo writesAt(long start, long end) {
    return new KernelInfo("k", new byte[] {W, R}, false, new long[0], new byte[0], new long[] {start, end, 0, 0});
  }

  @Test
  void boundedParameterIsItsExactRangeAndAnUnboundedOneTheWholeAllocation() {
    int other = state.allocations.add(BASE + 8192, 1024, MemoryKind.DEVICE);
    try {
      CallRecord r = launch(writesAt(-8, 4),
          Pointer.to(Pointer.to(device(BASE + 256)), Pointer.to(device(BASE + 8192 + 512))));
      assertEquals(2, r.accessCount);
      assertEquals(id, r.accessId[0]);
      assertEquals(248, r.accessOffset[0]);
      assertEquals(12, r.accessSize[0]);
      assertEquals(AccessMode.WRITE, r.accessMode(0));
      assertEquals(other, r.accessId[1]);
      assertEquals(0, r.accessOffset[1]);
      assertEquals(1024, r.accessSize[1]);
      assertEquals(AccessMode.READ, r.accessMode(1));
      assertFalse(r.touchesUnknownMemory);
    } finally {
      state.allocations.remove(BASE + 8192);
    }
  }

  @Test
  void boundedRangeIsClippedToTheAllocationAndOneMissingItIsABarrier() {
    CallRecord r = launch(writesAt(-16, 64), Pointer.to(Pointer.to(device(BASE + 8)), Pointer.to(new long[] {0})));
    assertEquals(0, r.accessOffset[0]);
    assertEquals(72, r.accessSize[0]);
    r = launch(writesAt(0, 64), Pointer.to(Pointer.to(device(BASE + 4090)), Pointer.to(new long[] {0})));
    assertEquals(4090, r.accessOffset[0]);
    assertEquals(6, r.accessSize[0]);
    r = launch(writesAt(4096, 4100), Pointer.to(Pointer.to(device(BASE)), Pointer.to(new long[] {0})));
    assertEquals(0, r.accessCount);
    assertTrue(r.touchesUnknownMemory);
  }

  @Test
  void sixteenBoundedLaunchesIntoOneBufferTouchSixteenDisjointRanges() {
    for (int e = 0; e < 16; e++) {
      CallRecord r = launch(writesAt(0, 4), Pointer.to(Pointer.to(device(BASE + 4L * e)), Pointer.to(new long[] {0})));
      assertEquals(1, r.accessCount);
      assertEquals(4L * e, r.accessOffset[0]);
      assertEquals(4, r.accessSize[0]);
    }
  }

  @Test
  void boundedExtentAppliesOnlyToAPointerPassedAlone() {
    Pointer params = Pointer.to(Pointer.to(new long[] {BASE + 256, 7}), Pointer.to(new long[] {0}));
    CallRecord r = launch(writesAt(0, 4), params);
    assertEquals(0, r.accessOffset[0]);
    assertEquals(4096, r.accessSize[0]);
  }

  @Test
  void kernelTouchingOtherMemoryIsABarrier() {
    CallRecord r = launch(new KernelInfo("k", null, true), Pointer.to(Pointer.to(device(BASE))));
    assertTrue(r.touchesUnknownMemory);
  }

  @Test
  void javaArraysOnTheHostOrderNothing() {
    CallRecord r = Calls.begin("cuMemcpyHtoD", 0L);
    CallAccesses.device(r, device(BASE), 64, AccessMode.WRITE);
    CallAccesses.host(r, Pointer.to(new float[16]), 64, AccessMode.READ);
    Calls.end(r, 0, null);
    assertEquals(1, r.accessCount);
    assertEquals(AccessMode.WRITE, r.accessMode(0));
    assertEquals(64, r.accessSize[0]);
  }

  @Test
  void nestedCallIsNotTracked() {
    CallRecord outer = Calls.begin("cuModuleLoadData", 0L);
    assertEquals(null, Calls.begin("cuModuleLoadData", 0L));
    Calls.end(outer, 0, null);
    CallRecord next = Calls.begin("cuModuleLoadData", 0L);
    assertTrue(next != null);
    Calls.end(next, 0, null);
  }

  @Test
  void moduleGlobalAskedForTwiceKeepsItsAllocationAndHistory() {
    long global = 0x7e10_0000_0000L;
    CallRecord first = Calls.begin("cuModuleGetGlobal", 0L);
    CallAccesses.allocated(first, global, 256, MemoryKind.MODULE_GLOBAL);
    Calls.end(first, 0, null);
    int id = first.accessId[0];
    int slot = first.accessSlot[0];
    CallRecord second = Calls.begin("cuModuleGetGlobal", 0L);
    CallAccesses.allocated(second, global, 256, MemoryKind.MODULE_GLOBAL);
    Calls.end(second, 0, null);
    assertEquals(id, second.accessId[0]);
    assertEquals(slot, second.accessSlot[0]);
    state.allocations.remove(global);
  }
}
