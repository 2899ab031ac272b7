package dev.kernelweave.scheduler;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.management.ThreadMXBean;
import dev.kernelweave.call.AccessMode;
import dev.kernelweave.call.CallKind;
import dev.kernelweave.call.CallRecord;
import java.lang.management.ManagementFactory;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** Properties of the scheduler's use of streams and events that hold for any sequence of calls. */
class SchedulerInvariantsTest {

  /** Fails on any use of streams and events the scheduler promises never to make. */
  private static final class CheckingDevice implements StreamDevice {
    final int streams;
    final Set<Integer> streamsCreated = new HashSet<>();
    final Set<Integer> eventsCreated = new HashSet<>();
    final Map<Integer, Integer> eventLane = new HashMap<>();
    long waits;
    long records;

    CheckingDevice(int streams) {
      this.streams = streams;
    }

    void checkLane(int lane) {
      assertTrue(lane == streams || streamsCreated.contains(lane), "lane " + lane + " used before createStream");
    }

    @Override
    public void createStream(int lane) {
      assertTrue(lane >= 0 && lane < streams, "createStream of lane " + lane);
      assertTrue(streamsCreated.add(lane), "lane " + lane + " created twice");
    }

    @Override
    public void createEvent(int event) {
      assertTrue(eventsCreated.add(event), "event " + event + " created twice");
    }

    @Override
    public void recordEvent(int event, int lane) {
      checkLane(lane);
      assertTrue(eventsCreated.contains(event), "event " + event + " recorded before createEvent");
      Integer before = eventLane.putIfAbsent(event, lane);
      assertTrue(before == null || before == lane, "event " + event + " moved from lane " + before + " to " + lane);
      records++;
    }

    @Override
    public void waitEvent(int lane, int event) {
      checkLane(lane);
      assertTrue(eventLane.containsKey(event), "wait for event " + event + ", never recorded");
      assertTrue(eventLane.get(event) != lane, "lane " + lane + " waits for its own event " + event);
      waits++;
    }

    @Override
    public void waitEventOnAppStream(long appStream, int event) {
      assertTrue(eventLane.containsKey(event), "application stream waits for event " + event + ", never recorded");
    }

    @Override
    public void synchronizeEvent(int event) {
      assertTrue(eventLane.containsKey(event), "host wait for event " + event + ", never recorded");
    }

    @Override
    public void synchronizeDevice() {}
  }

  @Test
  void streamsAndEventsAreUsedOnlyAsPromised() {
    for (int streams : new int[] {1, 2, 3, 16}) {
      CheckingDevice device = new CheckingDevice(streams);
      Scheduler scheduler = new Scheduler(device, streams, OrderingRules.CUDA);
      SplittableRandom random = new SplittableRandom(streams);
      CallRecord call = new CallRecord();
      for (long seq = 1; seq <= 50_000; seq++) {
        call.reset();
        call.seq = seq;
        call.appStream = random.nextInt(4) == 0 ? 7 + random.nextInt(3) : 0;
        int r = random.nextInt(100);
        if (r < 70) {
          call.kind = CallKind.LAUNCH;
          addAccesses(call, random);
          int lane = scheduler.beforeAsyncWork(call);
          assertTrue(lane >= 0 && (lane < streams || lane == streams && call.appStream == 0), "async work on lane " + lane);
          scheduler.afterWork(call, random.nextInt(50) != 0);
        } else if (r < 80) {
          call.kind = CallKind.COPY_DEVICE_TO_HOST;
          call.addAccess(1, random.nextInt(24), 0, 0, 4, AccessMode.READ);
          scheduler.beforeSyncWork(call);
          assertEquals(streams, call.stream);
          scheduler.afterSyncWork(call, true);
        } else if (r < 85) {
          call.kind = CallKind.FREE;
          call.addAccess(1, random.nextInt(24), 0, 0, 4, AccessMode.READ_WRITE);
          scheduler.beforeFree(call);
          scheduler.afterFree(call);
        } else if (r < 90) {
          call.kind = CallKind.SYNC;
          Ticket ticket = new Ticket();
          ticket.reset(Placement.STREAM_SYNC, streams + 1);
          scheduler.joins().joinOntoAppStream(call, ticket, false);
          scheduler.hostWaits().settle(ticket);
        } else if (r < 95) {
          call.kind = CallKind.EVENT;
          Ticket ticket = new Ticket();
          ticket.reset(Placement.EVENT_RECORD, streams + 1);
          scheduler.joins().joinOntoAppStream(call, ticket, true);
        } else if (r < 96) {
          scheduler.afterDeviceSynchronize();
        } else {
          call.kind = CallKind.LAUNCH;
          addAccesses(call, random);
          call.touchesUnknownMemory = random.nextInt(4) == 0;
          scheduler.beforeAsyncWork(call);
          scheduler.afterWork(call, true);
        }
      }
      assertTrue(device.waits > 0 && device.records > 0);
      assertTrue(device.records <= device.waits + 50_000, "events are recorded only for waits");
    }
  }

  @Test
  void placingAndRecordingAllocateNothingInSteadyState() {
    ThreadMXBean threads = (ThreadMXBean) ManagementFactory.getThreadMXBean();
    Scheduler scheduler = new Scheduler(new NullDevice(), 16, OrderingRules.CUDA);
    CallRecord call = new CallRecord();
    SplittableRandom random = new SplittableRandom(3);
    int[] slots = new int[1 << 16];
    byte[] modes = new byte[1 << 16];
    for (int i = 0; i < slots.length; i++) {
      slots[i] = random.nextInt(64);
      modes[i] = (byte) random.nextInt(3);
    }
    Runnable calls = () -> {
      for (int i = 0; i + 3 < slots.length; i += 3) {
        call.reset();
        call.seq = i;
        for (int a = 0; a < 3; a++) {
          call.addAccess(slots[i + a], slots[i + a], 0, 0, 64, AccessMode.ofOrdinal(modes[i + a]));
        }
        scheduler.beforeAsyncWork(call);
        scheduler.afterWork(call, true);
      }
    };
    for (int warm = 0; warm < 20; warm++) {
      calls.run();
    }
    long before = threads.getThreadAllocatedBytes(Thread.currentThread().getId());
    calls.run();
    long allocated = threads.getThreadAllocatedBytes(Thread.currentThread().getId()) - before;
    assertTrue(allocated < 1024, allocated + " bytes allocated for " + slots.length / 3 + " calls");
  }

  private static void addAccesses(CallRecord call, SplittableRandom random) {
    int n = 1 + random.nextInt(3);
    for (int i = 0; i < n; i++) {
      int slot = random.nextInt(24);
      call.addAccess(slot, slot, 0, 0, 4, AccessMode.ofOrdinal(random.nextInt(3)));
    }
  }
}
