package dev.kernelweave.interceptor;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CyclicBarrier;
import org.junit.jupiter.api.Test;

class CallThreadTest {

  @Test
  void eachThreadGetsItsOwnStateWhileThreadsTakeTurns() throws Exception {
    int threads = 4;
    int turns = 2_000;
    CyclicBarrier together = new CyclicBarrier(threads);
    List<String> wrong = java.util.Collections.synchronizedList(new ArrayList<>());
    CallThread[] first = new CallThread[threads];
    List<Thread> started = new ArrayList<>();
    for (int t = 0; t < threads; t++) {
      int me = t;
      Thread thread = new Thread(() -> {
        try {
          together.await();
          first[me] = CallThread.current();
          for (int i = 0; i < turns; i++) {
            CallThread mine = CallThread.current();
            if ((mine != first[me] || mine.id != Thread.currentThread().getId()) && wrong.size() < 5) {
              wrong.add("thread " + me + " turn " + i + " got thread " + mine.id + "'s state");
            }
            if (i % 7 == 0) {
              Thread.yield();
            }
          }
        } catch (Exception e) {
          wrong.add(e.toString());
        }
      }, "caller-" + t);
      started.add(thread);
      thread.start();
    }
    for (Thread thread : started) {
      thread.join();
    }
    assertEquals(List.of(), wrong);
    for (int a = 0; a < threads; a++) {
      for (int b = a + 1; b < threads; b++) {
        assertNotSame(first[a], first[b]);
      }
    }
    assertSame(CallThread.current(), CallThread.current(), "one thread, one state");
  }
}
