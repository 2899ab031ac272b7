package dev.kernelweave.scheduler;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

class LongFlagsTest {

  @Test
  void flagsAccumulatePerValueAndSurviveGrowing() {
    LongFlags flags = new LongFlags();
    flags.add(0, 1);
    flags.add(-1, 2);
    for (long v = 1; v <= 1000; v++) {
      flags.add(v * 0x9E3779B97F4A7C15L, (int) (v % 7) + 1);
    }
    flags.add(0, 4);
    assertEquals(5, flags.flags(0), "0 is a value like any other");
    assertEquals(2, flags.flags(-1));
    for (long v = 1; v <= 1000; v++) {
      assertEquals((int) (v % 7) + 1, flags.flags(v * 0x9E3779B97F4A7C15L), "value " + v);
    }
    assertEquals(0, flags.flags(12345), "absent");
    assertEquals(1002, flags.size());
    flags.clear();
    assertEquals(0, flags.flags(0));
    assertEquals(0, flags.flags(-1));
    assertEquals(0, flags.size());
  }
}
