package dev.kernelweave.sim;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

class ArenaTest {

  private static final long BASE = 0x1000_0000L;

  @Test
  void findsTheLiveAllocationHoldingAnAddressAsAllocationsComeAndGo() {
    Arena arena = new Arena(BASE, 1L << 24, (byte) 0);
    List<Arena.Allocation> live = new ArrayList<>();
    Random random = new Random(7);
    for (int step = 0; step < 2000; step++) {
      if (live.isEmpty() || random.nextInt(3) > 0) {
        live.add(arena.allocate(step, 1 + random.nextInt(3000)));
      } else {
        Arena.Allocation freed = live.remove(random.nextInt(live.size()));
        assertSame(freed, arena.free(freed.base()));
        assertNull(arena.free(freed.base()), "freed twice");
        assertNull(arena.find(freed.base()), "a freed allocation found");
      }
      for (Arena.Allocation a : live) {
        assertSame(a, arena.find(a.base()));
        assertSame(a, arena.find(a.base() + a.size() - 1));
        assertEquals(a.id(), arena.find(a.base() + a.size() / 2).id());
      }
    }
    assertNull(arena.find(BASE - 1));
    assertNull(arena.free(BASE + 1));
  }

  @Test
  void intsAreLittleEndianBytesAndUnallocatedMemoryReadsAsZeros() {
    SimMemory memory = new SimMemory();
    long a = memory.device.allocate(memory.nextAllocation(), 64).base();
    memory.writeInts(a, new int[] {0x04030201, -1});
    assertArrayEquals(new byte[] {1, 2, 3, 4, -1, -1, -1, -1}, memory.read(a, 8));
    assertEquals(0xFFFF_FFFF_0403_0201L, memory.longAt(a));
    assertEquals(-1, memory.intAt(a + 4));
    int[] into = {9, 9, 9};
    memory.readInts(a, into, 2);
    assertArrayEquals(new int[] {0x04030201, -1, 9}, into);
    long never = a + (1L << 28);
    memory.readInts(never, into, 3);
    assertArrayEquals(new int[3], into);
    assertEquals(0, memory.intAt(never));
    memory.writeInts(never, new int[] {5});
    assertEquals(0, memory.intAt(never));
  }
}
