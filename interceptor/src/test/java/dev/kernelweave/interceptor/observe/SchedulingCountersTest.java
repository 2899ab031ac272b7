package dev.kernelweave.interceptor.observe;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kernelweave.call.AccessMode;
import dev.kernelweave.call.CallKind;
import dev.kernelweave.call.CallRecord;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** The live totals count what {@code inspect stats} counts, from any number of threads. */
class SchedulingCountersTest {

  static CallRecord launch(int stream, int waits, boolean eventRecorded) {
    CallRecord r = new CallRecord();
    r.kind = CallKind.LAUNCH;
    r.name = "cuLaunchKernel";
    r.kernel = "saxpy";
    r.gridX = 64;
    r.gridY = r.gridZ = 1;
    r.blockX = 256;
    r.blockY = r.blockZ = 1;
    r.stream = stream;
    for (int i = 0; i < waits; i++) {
      r.addPredecessor(100 + i);
    }
    r.eventRecorded = eventRecorded;
    r.durationNanos = 7_000;
    return r;
  }

  static CallRecord readBack(long bytes, boolean narrowed, long nanos) {
    CallRecord r = new CallRecord();
    r.kind = CallKind.COPY_DEVICE_TO_HOST;
    r.name = "cuMemcpyDtoH";
    r.bytes = bytes;
    r.addAccess(3, 0, 0x7f00_0000_0000L, 0, bytes, AccessMode.READ);
    r.hostWaited = true;
    r.hostWaitNarrowed = narrowed;
    r.durationNanos = nanos;
    return r;
  }

  @Test
  void countsEveryFieldStatsPrints() {
    SchedulingCounters c = new SchedulingCounters();
    Scheduling totals = new Scheduling(c);
    c.add(launch(0, 0, true));
    c.add(launch(1, 2, false));
    c.add(launch(1, 1, true));
    c.add(readBack(4096, true, 50_000));
    c.add(readBack(8, false, 20_000));
    CallRecord barrier = new CallRecord();
    barrier.kind = CallKind.OPAQUE;
    barrier.name = "cufftExecC2C";
    barrier.barrier = true;
    barrier.result = 700;
    c.add(barrier);
    CallRecord h2d = new CallRecord();
    h2d.kind = CallKind.COPY_HOST_TO_DEVICE;
    h2d.bytes = 1 << 20;
    h2d.stream = 5;
    c.add(h2d);
    CallRecord replayed = launch(2, 0, false);
    replayed.graphWindow = 3;
    c.add(replayed);

    assertEquals(8, totals.getCalls());
    assertEquals(1, totals.getLaunchesReplayed());
    assertEquals(1, totals.getFailedCalls());
    assertEquals(4, totals.getLaunches());
    assertEquals(3, totals.getCopies());
    assertEquals(4, totals.getStreamsUsed(), "streams 0, 1, 2 and 5");
    assertEquals(3, totals.getCrossStreamWaits());
    assertEquals(2, totals.getEventsRecorded());
    assertEquals(2, totals.getHostWaits());
    assertEquals(1, totals.getHostWaitsNarrowed());
    assertEquals(70_000, totals.getHostWaitNanos());
    assertEquals(1, totals.getBarriers());
    assertEquals(4104, totals.getBytesDeviceToHost());
    assertEquals(1 << 20, totals.getBytesHostToDevice());
    assertEquals(0, totals.getBytesDeviceToDevice());
    assertEquals(0, totals.getSynchronizations());
  }

  @Test
  void threadsCountIntoTheirOwnBlocksAndNothingIsLost() throws Exception {
    AtomicInteger firstCalls = new AtomicInteger();
    SchedulingCounters c = new SchedulingCounters(firstCalls::incrementAndGet);
    int threads = 4;
    int each = 50_000;
    CountDownLatch start = new CountDownLatch(1);
    Thread[] workers = new Thread[threads];
    for (int t = 0; t < threads; t++) {
      int stream = t;
      workers[t] = new Thread(() -> {
        CallRecord r = launch(stream, 1, false);
        try {
          start.await();
        } catch (InterruptedException e) {
          return;
        }
        for (int i = 0; i < each; i++) {
          c.add(r);
        }
      });
      workers[t].start();
    }
    start.countDown();
    for (Thread w : workers) {
      w.join();
    }
    Scheduling totals = new Scheduling(c);
    assertEquals((long) threads * each, totals.getCalls());
    assertEquals((long) threads * each, totals.getCrossStreamWaits());
    assertEquals(threads, totals.getStreamsUsed());
    assertEquals(threads, firstCalls.get(), "the first-call hook runs once per thread");
  }

  @Test
  void endedThreadsAreFoldedSoAThreadPerTaskKeepsFewBlocksAndLosesNoCount() throws Exception {
    SchedulingCounters c = new SchedulingCounters();
    int tasks = 1000;
    for (int t = 0; t < tasks; t++) {
      int stream = t % 8;
      Thread task = new Thread(() -> {
        c.add(launch(stream, 1, false));
        c.add(readBack(16, false, 100));
      });
      task.start();
      task.join();
    }
    Scheduling totals = new Scheduling(c);
    assertEquals(2L * tasks, totals.getCalls());
    assertEquals(tasks, totals.getLaunches());
    assertEquals(tasks, totals.getCrossStreamWaits());
    assertEquals(16L * tasks, totals.getBytesDeviceToHost());
    assertEquals(8, totals.getStreamsUsed(), "streams of ended threads are kept");
    assertTrue(c.blocks() <= 128, "blocks kept: " + c.blocks());
  }
}
