package dev.kernelweave.interceptor;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class CallMilestonesTest {

  @Test
  void eachActionRunsOnceAtItsCallInOrder() {
    CallMilestones m = new CallMilestones();
    List<String> ran = new ArrayList<>();
    m.at(2000, () -> ran.add("stop"));
    m.at(2, () -> ran.add("start"));
    assertFalse(m.due(1));
    for (long call = 1; call <= 3000; call++) {
      if (m.due(call)) {
        m.reached(call);
        ran.add("at " + call);
      }
    }
    assertEquals(List.of("start", "at 2", "stop", "at 2000"), ran);
    assertFalse(m.due(Long.MAX_VALUE - 1));
  }

  @Test
  void aCallPastSeveralMilestonesRunsThemAll() {
    CallMilestones m = new CallMilestones();
    List<Long> ran = new ArrayList<>();
    m.at(5, () -> ran.add(5L));
    m.at(3, () -> ran.add(3L));
    m.at(9, () -> ran.add(9L));
    assertTrue(m.due(7));
    m.reached(7);
    assertEquals(List.of(3L, 5L), ran);
    assertFalse(m.due(8));
    assertTrue(m.due(9));
  }

  @Test
  void callsNumberedOnManyThreadsRunEachActionExactlyOnce() throws InterruptedException {
    CallMilestones m = new CallMilestones();
    AtomicInteger first = new AtomicInteger();
    AtomicInteger second = new AtomicInteger();
    m.at(2, first::incrementAndGet);
    m.at(500, second::incrementAndGet);
    AtomicLong sequence = new AtomicLong();
    CountDownLatch go = new CountDownLatch(1);
    List<Thread> threads = new ArrayList<>();
    for (int t = 0; t < 8; t++) {
      Thread thread = new Thread(() -> {
        try {
          go.await();
        } catch (InterruptedException e) {
          return;
        }
        for (int i = 0; i < 1000; i++) {
          long call = sequence.incrementAndGet();
          if (m.due(call)) {
            m.reached(call);
          }
        }
      });
      thread.start();
      threads.add(thread);
    }
    go.countDown();
    for (Thread t : threads) {
      t.join();
    }
    assertEquals(1, first.get());
    assertEquals(1, second.get());
  }
}
