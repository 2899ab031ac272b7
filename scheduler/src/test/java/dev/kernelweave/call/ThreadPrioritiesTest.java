package dev.kernelweave.call;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class ThreadPrioritiesTest {

  @Test
  void offMakesEveryThreadNormal() {
    ThreadPriorities off = ThreadPriorities.parse("off");
    assertSame(ThreadPriorities.OFF, off);
    assertFalse(off.enabled());
    assertEquals(PriorityClass.NORMAL, off.classOf("request-1", Thread.MAX_PRIORITY));
  }

  @Test
  void threadMapsTheJavaPriorityAroundNormPriority() {
    ThreadPriorities t = ThreadPriorities.parse("thread");
    assertTrue(t.enabled());
    assertEquals(PriorityClass.HIGH, t.classOf("x", Thread.NORM_PRIORITY + 1));
    assertEquals(PriorityClass.HIGH, t.classOf("x", Thread.MAX_PRIORITY));
    assertEquals(PriorityClass.NORMAL, t.classOf("x", Thread.NORM_PRIORITY));
    assertEquals(PriorityClass.LOW, t.classOf("x", Thread.NORM_PRIORITY - 1));
    assertEquals(PriorityClass.LOW, t.classOf("x", Thread.MIN_PRIORITY));
  }

  @Test
  void globsMatchWholeNamesFirstMatchWinsAndTheRestIsNormal() {
    ThreadPriorities g = ThreadPriorities.parse("high:request-*,low:*-?,normal:main,low:trainer-*");
    assertEquals(PriorityClass.HIGH, g.classOf("request-7", Thread.MIN_PRIORITY), "names, not Java priorities");
    assertEquals(PriorityClass.HIGH, g.classOf("request-a", Thread.NORM_PRIORITY), "the first match wins");
    assertEquals(PriorityClass.LOW, g.classOf("pool-3", Thread.NORM_PRIORITY));
    assertEquals(PriorityClass.LOW, g.classOf("trainer-12", Thread.NORM_PRIORITY));
    assertEquals(PriorityClass.NORMAL, g.classOf("my-request-12", Thread.MAX_PRIORITY), "a glob matches the whole name");
    assertEquals(PriorityClass.NORMAL, g.classOf("main", Thread.MAX_PRIORITY));
    assertEquals(PriorityClass.HIGH, ThreadPriorities.parse("high:a.b(c)").classOf("a.b(c)", 5), "no regex in names");
    assertEquals(PriorityClass.NORMAL, ThreadPriorities.parse("high:a.b").classOf("axb", 5));
  }

  @Test
  void badRulesAreRefusedNamingTheRule() {
    for (String bad : new String[] {"", "urgent:x-*", "high", "high:", "high:a,,low:b", "High:a"}) {
      IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> ThreadPriorities.parse(bad), bad);
      assertTrue(e.getMessage().contains("is not class:glob"), e.getMessage());
    }
  }
}
