package dev.kernelweave.journal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kernelweave.call.CallRecord;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.Test;

class RecordRingTest {

  private static CallRecord call(long seq) {
    CallRecord c = new CallRecord();
    c.seq = seq;
    return c;
  }

  @Test
  void roundsCapacityUpToAPowerOfTwo() {
    assertEquals(8, new RecordRing(5).capacity());
    assertEquals(8, new RecordRing(8).capacity());
    assertEquals(2, new RecordRing(1).capacity());
  }

  @Test
  void refusesWhenFullAndHandsRecordsOutInOrder() {
    RecordRing ring = new RecordRing(4);
    for (int i = 0; i < 4; i++) {
      assertTrue(ring.offer(call(i)));
    }
    assertFalse(ring.offer(call(4)), "a full ring refuses");
    List<Long> seen = new ArrayList<>();
    assertTrue(ring.poll(r -> seen.add(r.seq)));
    assertTrue(ring.offer(call(4)), "a freed slot takes the next call");
    while (ring.poll(r -> seen.add(r.seq))) {
      // drain
    }
    assertEquals(List.of(0L, 1L, 2L, 3L, 4L), seen);
    assertTrue(ring.isEmpty());
  }

  @Test
  void copiesTheCallSoTheCallerMayReuseIt() {
    RecordRing ring = new RecordRing(4);
    CallRecord reused = call(1);
    ring.offer(reused);
    reused.seq = 2;
    ring.offer(reused);
    List<Long> seen = new ArrayList<>();
    ring.poll(r -> seen.add(r.seq));
    ring.poll(r -> seen.add(r.seq));
    assertEquals(List.of(1L, 2L), seen);
  }

  @Test
  void concurrentProducersLoseNothingAndKeepEachThreadsOrder() throws Exception {
    RecordRing ring = new RecordRing(16);
    int producers = 4;
    int perProducer = 50_000;
    CountDownLatch start = new CountDownLatch(1);
    List<Thread> threads = new ArrayList<>();
    for (int p = 0; p < producers; p++) {
      long base = (long) p << 32;
      Thread t = new Thread(() -> {
        CallRecord c = new CallRecord();
        try {
          start.await();
        } catch (InterruptedException e) {
          return;
        }
        for (int i = 0; i < perProducer; i++) {
          c.seq = base + i;
          while (!ring.offer(c)) {
            Thread.onSpinWait();
          }
        }
      });
      t.start();
      threads.add(t);
    }
    long[] next = new long[producers];
    int[] received = {0};
    start.countDown();
    while (received[0] < producers * perProducer) {
      ring.poll(r -> {
        int p = (int) (r.seq >>> 32);
        assertEquals(next[p], r.seq & 0xFFFF_FFFFL, "producer " + p + " out of order");
        next[p]++;
        received[0]++;
      });
    }
    for (Thread t : threads) {
      t.join();
    }
    assertTrue(ring.isEmpty());
    for (int p = 0; p < producers; p++) {
      assertEquals(perProducer, next[p]);
    }
  }
}
