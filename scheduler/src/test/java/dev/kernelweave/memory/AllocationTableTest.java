package dev.kernelweave.memory;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kernelweave.call.AccessMode;
import dev.kernelweave.call.CallRecord;
import org.junit.jupiter.api.Test;

class AllocationTableTest {

  private final AllocationTable table = new AllocationTable();
  private final AllocationTable.Allocation found = new AllocationTable.Allocation();

  @Test
  void addressInsideResolvesToTheAllocationWithItsBase() {
    int id = table.add(0x7000_0000_0000L, 1024, MemoryKind.DEVICE);
    assertTrue(table.lookup(0x7000_0000_0000L + 100, found));
    assertEquals(id, found.id);
    assertEquals(0x7000_0000_0000L, found.base);
    assertEquals(1024, found.size);
    assertEquals(MemoryKind.DEVICE, found.kind);
  }

  @Test
  void lastByteIsInsideAndTheEndIsNot() {
    table.add(0x1000_0000L, 256, MemoryKind.DEVICE);
    assertTrue(table.lookup(0x1000_0000L + 255, found));
    assertFalse(table.lookup(0x1000_0000L + 256, found));
    assertFalse(table.lookup(0x1000_0000L - 1, found));
  }

  @Test
  void neighboursResolveToThemselves() {
    int a = table.add(0x2000_0000L, 512, MemoryKind.DEVICE);
    int b = table.add(0x2000_0200L, 512, MemoryKind.DEVICE);
    int c = table.add(0x1000_0000L, 16, MemoryKind.PINNED_HOST);
    assertTrue(table.lookup(0x2000_01FFL, found));
    assertEquals(a, found.id);
    assertTrue(table.lookup(0x2000_0200L, found));
    assertEquals(b, found.id);
    assertTrue(table.lookup(0x1000_0008L, found));
    assertEquals(c, found.id);
    assertEquals(MemoryKind.PINNED_HOST, found.kind);
    assertEquals(3, table.size());
  }

  @Test
  void freedAddressResolvesToNothing() {
    int id = table.add(0x3000_0000L, 64, MemoryKind.DEVICE);
    assertEquals(id, table.remove(0x3000_0000L));
    assertFalse(table.lookup(0x3000_0010L, found));
    assertEquals(AllocationTable.NOT_FOUND, table.remove(0x3000_0000L));
  }

  @Test
  void newAllocationAtAFreedAddressGetsANewIdAndReusesTheSlot() {
    int first = table.add(0x4000_0000L, 64, MemoryKind.DEVICE);
    table.lookup(0x4000_0000L, found);
    int firstSlot = found.slot;
    table.remove(0x4000_0000L);
    int second = table.add(0x4000_0000L, 128, MemoryKind.DEVICE);
    table.lookup(0x4000_0040L, found);
    assertNotEquals(first, second);
    assertEquals(second, found.id);
    assertEquals(firstSlot, found.slot);
    assertEquals(128, found.size);
  }

  @Test
  void overlappingAllocationReplacesAStaleOne() {
    table.add(0x5000_0000L, 1024, MemoryKind.DEVICE);
    int fresh = table.add(0x5000_0100L, 64, MemoryKind.DEVICE);
    assertEquals(1, table.size());
    assertFalse(table.lookup(0x5000_0000L, found));
    assertTrue(table.lookup(0x5000_0100L, found));
    assertEquals(fresh, found.id);
  }

  @Test
  void liveSlotsAreDistinct() {
    boolean[] seen = new boolean[table.slotCapacity() * 4];
    for (int i = 0; i < 100; i++) {
      table.add(0x6000_0000L + i * 0x1000L, 0x1000, MemoryKind.DEVICE);
    }
    for (int i = 0; i < 100; i++) {
      assertTrue(table.lookup(0x6000_0000L + i * 0x1000L + 8, found));
      assertFalse(seen[found.slot], "slot " + found.slot + " used twice");
      seen[found.slot] = true;
    }
    assertTrue(table.slotCapacity() >= 100);
  }

  @Test
  void removingAFreedAllocationKeepsANewOneAtTheSameAddress() {
    AllocationTable table = new AllocationTable();
    int old = table.add(0x1000, 64, MemoryKind.DEVICE);
    table.remove(0x1000);
    int fresh = table.add(0x1000, 64, MemoryKind.DEVICE); // another thread's allocation, after the free
    assertEquals(AllocationTable.NOT_FOUND, table.remove(0x1000, old));
    AllocationTable.Allocation found = new AllocationTable.Allocation();
    assertTrue(table.lookup(0x1010, found));
    assertEquals(fresh, found.id);
    assertEquals(fresh, table.remove(0x1000, fresh));
    assertFalse(table.lookup(0x1010, found));
  }

  @Test
  void rangeIsClippedToTheAllocationOfItsAddressAndMergedWithTheCallsOwn() {
    long base = 0x3000_0000L;
    table.add(base, 256, MemoryKind.DEVICE);
    CallRecord call = new CallRecord();
    assertTrue(table.addAccess(call, base + 8, base - 16, base + 12, AccessMode.WRITE, found));
    assertEquals(1, call.accessCount);
    assertEquals(0, call.accessOffset[0]);
    assertEquals(12, call.accessSize[0]);
    assertTrue(table.addAccess(call, base + 200, base + 200, base + 300, AccessMode.READ, found));
    assertEquals(1, call.accessCount);
    assertEquals(0, call.accessOffset[0]);
    assertEquals(256, call.accessSize[0]);
    assertEquals(AccessMode.READ_WRITE, call.accessMode(0));
  }

  @Test
  void wholeRangeIsTheWholeAllocationAndARangeMissingItAddsNothing() {
    long base = 0x3000_0000L;
    table.add(base, 256, MemoryKind.DEVICE);
    CallRecord call = new CallRecord();
    assertTrue(table.addAccess(call, base + 100, Long.MIN_VALUE, Long.MAX_VALUE, AccessMode.READ, found));
    assertEquals(0, call.accessOffset[0]);
    assertEquals(256, call.accessSize[0]);
    CallRecord other = new CallRecord();
    assertFalse(table.addAccess(other, base, base + 256, base + 260, AccessMode.READ, found));
    assertFalse(table.addAccess(other, base - 4, base - 4, base + 4, AccessMode.READ, found));
    assertEquals(0, other.accessCount);
  }

  @Test
  void anAccessRecordsItsByteRangeToTheEndOrTheWholeAllocation() {
    table.add(0x4000, 1024, MemoryKind.DEVICE);
    CallRecord call = new CallRecord();
    table.addAccess(call, 0x4000 + 100, 50, AccessMode.WRITE, found);
    assertEquals(100, call.accessOffset[0]);
    assertEquals(50, call.accessSize[0]);
    call.reset();
    table.addAccess(call, 0x4000 + 100, 0, AccessMode.WRITE, found);
    assertEquals(100, call.accessOffset[0]);
    assertEquals(924, call.accessSize[0]);
    call.reset();
    table.addAccess(call, 0x4000 + 100, AllocationTable.WHOLE_ALLOCATION, AccessMode.WRITE, found);
    assertEquals(0, call.accessOffset[0]);
    assertEquals(1024, call.accessSize[0]);
  }

  /** Issue 23, hole 15: a kernel's end pointer of X is also the base of Y when Y starts there. */
  @Test
  void pointerOnePastTheEndIsThatAllocationAndTheNextOne() {
    long x = 0x5000_0000L;
    int xId = table.add(x, 256, MemoryKind.DEVICE);
    int yId = table.add(x + 256, 128, MemoryKind.DEVICE);
    CallRecord call = new CallRecord();
    assertTrue(table.addPointerAccess(call, x + 256, Long.MIN_VALUE, Long.MAX_VALUE, AccessMode.WRITE, found));
    assertEquals(2, call.accessCount);
    assertEquals(yId, call.accessId[0]);
    assertEquals(128, call.accessSize[0]);
    assertEquals(xId, call.accessId[1]);
    assertEquals(0, call.accessOffset[1]);
    assertEquals(256, call.accessSize[1]);
    call.reset();
    // Bounded backwards: X's last 4 bytes only, which is still known memory.
    assertTrue(table.addPointerAccess(call, x + 256, x + 252, x + 256, AccessMode.WRITE, found));
    assertEquals(1, call.accessCount);
    assertEquals(xId, call.accessId[0]);
    assertEquals(252, call.accessOffset[0]);
    call.reset();
    // Inside Y, not at its start: Y alone.
    assertTrue(table.addPointerAccess(call, x + 260, Long.MIN_VALUE, Long.MAX_VALUE, AccessMode.READ, found));
    assertEquals(1, call.accessCount);
    assertEquals(yId, call.accessId[0]);
  }

  @Test
  void pointerOnePastTheEndBeforeUnknownMemoryIsThatAllocationButNotKnown() {
    long x = 0x6000_0000L;
    int xId = table.add(x, 256, MemoryKind.DEVICE);
    CallRecord call = new CallRecord();
    assertFalse(table.addPointerAccess(call, x + 256, Long.MIN_VALUE, Long.MAX_VALUE, AccessMode.WRITE, found));
    assertEquals(1, call.accessCount);
    assertEquals(xId, call.accessId[0]);
    call.reset();
    assertFalse(table.addPointerAccess(call, x + 257, Long.MIN_VALUE, Long.MAX_VALUE, AccessMode.WRITE, found));
    assertEquals(0, call.accessCount);
    // Copies have exact ranges: their lookup is unchanged.
    assertFalse(table.addAccess(call, x + 256, 4, AccessMode.WRITE, found));
    assertEquals(0, call.accessCount);
  }
}
