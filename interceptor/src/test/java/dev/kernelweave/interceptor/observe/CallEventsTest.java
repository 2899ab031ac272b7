package dev.kernelweave.interceptor.observe;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kernelweave.call.CallRecord;
import java.lang.management.ManagementFactory;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.stream.Collectors;
import javax.management.MBeanServer;
import javax.management.MBeanServerFactory;
import javax.management.ObjectName;
import jdk.jfr.Recording;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordingFile;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.io.TempDir;

/** The process-wide entry: the MBean, the JFR events, and no garbage while nothing records. */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class CallEventsTest {

  /** A server of the test's own: the platform's may hold the MBean of another test's events. */
  private static final MBeanServer SERVER = MBeanServerFactory.newMBeanServer();
  private static final CallEvents EVENTS = new CallEvents(SERVER);

  @TempDir Path dir;

  private static long allocatedBytes(Runnable work) {
    com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
    long id = Thread.currentThread().getId();
    long before = threads.getThreadAllocatedBytes(id);
    work.run();
    return threads.getThreadAllocatedBytes(id) - before;
  }

  private static void emitMany(CallRecord launch, CallRecord readBack, int n) {
    for (int i = 0; i < n; i++) {
      EVENTS.emit(launch);
      EVENTS.emit(readBack);
    }
  }

  /** First, so that it sees a JVM where Flight Recorder never started, then one where it stopped. */
  @Test
  @Order(1)
  void emitAllocatesNothingWhileNoRecordingWantsTheEvents() throws Exception {
    CallRecord launch = SchedulingCountersTest.launch(2, 1, true);
    CallRecord readBack = SchedulingCountersTest.readBack(64, true, 9_000);
    emitMany(launch, readBack, 20_000);
    // 100,000 calls: one small object per call would be megabytes.
    assertTrue(allocatedBytes(() -> emitMany(launch, readBack, 50_000)) < 4096, "before any recording");

    try (Recording recording = new Recording()) {
      recording.enable(LaunchEvent.NAME);
      recording.start();
      EVENTS.emit(launch);
      recording.stop();
    }
    emitMany(launch, readBack, 20_000);
    assertTrue(allocatedBytes(() -> emitMany(launch, readBack, 50_000)) < 4096, "after a recording stopped");
  }

  @Test
  @Order(2)
  void theMBeanShowsTheCallsLive() throws Exception {
    EVENTS.emit(SchedulingCountersTest.launch(0, 0, false));
    MBeanServer server = SERVER;
    ObjectName name = new ObjectName(CallEvents.OBJECT_NAME);
    long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
    while (!server.isRegistered(name) && System.nanoTime() < deadline) {
      Thread.sleep(10);
    }
    assertTrue(server.isRegistered(name), "registered after the first call");

    long launches = (Long) server.getAttribute(name, "Launches");
    long waits = (Long) server.getAttribute(name, "CrossStreamWaits");
    long hostWaits = (Long) server.getAttribute(name, "HostWaits");
    EVENTS.emit(SchedulingCountersTest.launch(1, 2, true));
    EVENTS.emit(SchedulingCountersTest.readBack(8, false, 1_000));
    assertEquals(launches + 1, (Long) server.getAttribute(name, "Launches"));
    assertEquals(waits + 2, (Long) server.getAttribute(name, "CrossStreamWaits"));
    assertEquals(hostWaits + 1, (Long) server.getAttribute(name, "HostWaits"));
    assertTrue((Integer) server.getAttribute(name, "StreamsUsed") >= 2);
  }

  @Test
  @Order(3)
  void aRecordingGetsALaunchEventPerDeviceCallAndAHostWaitPerWait() throws Exception {
    Path file = dir.resolve("calls.jfr");
    CallRecord launch = SchedulingCountersTest.launch(3, 2, true);
    launch.seq = 41;
    launch.appStream = 0;
    CallRecord readBack = SchedulingCountersTest.readBack(4096, true, 123_456);
    readBack.seq = 42;
    CallRecord alloc = new CallRecord();
    alloc.kind = dev.kernelweave.call.CallKind.ALLOC;
    alloc.name = "cuMemAlloc";
    try (Recording recording = new Recording()) {
      recording.enable(LaunchEvent.NAME);
      recording.enable(HostWaitEvent.NAME);
      recording.start();
      EVENTS.emit(launch);
      EVENTS.emit(readBack);
      EVENTS.emit(alloc);
      recording.stop();
      recording.dump(file);
    }
    List<RecordedEvent> events = RecordingFile.readAllEvents(file).stream()
        .filter(e -> e.getEventType().getName().startsWith("kernelweave."))
        .collect(Collectors.toList());
    List<RecordedEvent> launches = events.stream()
        .filter(e -> e.getEventType().getName().equals("kernelweave.Launch")).collect(Collectors.toList());
    List<RecordedEvent> waits = events.stream()
        .filter(e -> e.getEventType().getName().equals("kernelweave.HostWait")).collect(Collectors.toList());
    assertEquals(2, launches.size(), "the launch and the copy, not the allocation: " + events);
    RecordedEvent l = launches.stream().filter(e -> e.getLong("seq") == 41).findFirst().orElseThrow();
    assertEquals("saxpy", l.getString("kernel"));
    assertEquals("64,1,1", l.getString("grid"));
    assertEquals("256,1,1", l.getString("block"));
    assertEquals(3, l.getInt("agentStream"));
    assertEquals(2, l.getInt("crossStreamWaits"));
    assertTrue(l.getBoolean("eventRecorded"));
    assertEquals(Duration.ofNanos(7_000), l.getDuration("callDuration"));
    assertFalse(l.getBoolean("hostWaited"));
    RecordedEvent copy = launches.stream().filter(e -> e.getLong("seq") == 42).findFirst().orElseThrow();
    assertEquals("", copy.getString("kernel"));
    assertEquals(4096, copy.getLong("bytes"));
    assertEquals(-1, copy.getInt("agentStream"));

    assertEquals(1, waits.size(), events.toString());
    RecordedEvent w = waits.get(0);
    assertEquals(42, w.getLong("seq"));
    assertEquals("cuMemcpyDtoH", w.getString("call"));
    assertEquals("#3+0x0[4096] R", w.getString("buffers"));
    assertEquals(3, w.getInt("allocation"));
    assertTrue(w.getBoolean("narrowed"));
    assertEquals(Duration.ofNanos(123_456), w.getDuration("blocked"));
    assertEquals(Thread.currentThread().getName(), w.getThread().getJavaName(), "on the application's thread");
    assertTrue(w.getStackTrace() != null && !w.getStackTrace().getFrames().isEmpty(), "where the program waited");
  }
}
