package dev.kernelweave.scheduler;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kernelweave.call.AccessMode;
import dev.kernelweave.call.CallKind;
import dev.kernelweave.call.CallRecord;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Windows judged by their sampled device times: their graph, or their launches in order on one lane. */
class WindowJudgingTest {

  /** A device whose timing events say how long the way issued between them took. */
  static final class TimedDevice extends NullDevice {
    final Map<Integer, String> recordedAfter = new HashMap<>();
    final List<String> issues;
    long graphNanos;
    long serialNanos;
    boolean canTime = true;

    TimedDevice(List<String> issues) {
      this.issues = issues;
    }

    @Override
    public boolean createTimingEvent(int timingEvent) {
      return canTime;
    }

    @Override
    public void recordTimingEvent(int timingEvent, int lane) {
      recordedAfter.put(timingEvent, issues.isEmpty() ? "" : issues.get(issues.size() - 1));
    }

    @Override
    public long elapsedNanos(int start, int end) {
      String last = recordedAfter.get(end);
      return last.startsWith("replay") ? graphNanos : serialNanos;
    }
  }

  private final LaunchWindowsTest.FakeGraphs graphs = new LaunchWindowsTest.FakeGraphs();
  private final TimedDevice device = new TimedDevice(graphs.log);
  private final List<String> timed = graphs.timed;
  private final Dispatch dispatch = new Dispatch(device, 4, 0, OrderingRules.CUDA, graphs, graphs);
  private final Ticket ticket = new Ticket();
  private long seq;

  WindowJudgingTest() {
    dispatch.windows().useClock(() -> 0L);
  }

  private void launch(long f, int id, AccessMode mode) {
    CallRecord c = LaunchWindowsTest.launchOf(++seq, f, id, mode, 0);
    dispatch.enterLaunch(c, ticket);
    if (!ticket.heldByWindows()) {
      graphs.log.add("eager " + c.seq);
      dispatch.exit(c, true, ticket);
    }
  }

  /** f1 writes allocation 1, f2 reads it and writes 2, f3 writes 3; then the host synchronizes. */
  private List<String> iteration() {
    launch(1, 1, AccessMode.WRITE);
    launch(2, 1, AccessMode.READ);
    launch(3, 3, AccessMode.WRITE);
    CallRecord sync = new CallRecord();
    sync.seq = ++seq;
    sync.kind = CallKind.CONTEXT;
    dispatch.enter(sync, Placement.DEVICE_SYNC, ticket);
    dispatch.exit(sync, true, ticket);
    return graphs.drain();
  }

  private List<String> iterations(int n) {
    List<String> last = List.of();
    for (int i = 0; i < n; i++) {
      last = iteration();
    }
    return last;
  }

  @Test
  void aWindowTheDeviceRunsFasterInOrderIsIssuedInOrderOnceJudged() {
    device.graphNanos = 90_000;
    device.serialNanos = 30_000;
    iterations(1200);
    assertTrue(timed.contains("graph 90000") && timed.contains("serial 30000"), timed.toString());
    assertTrue(timed.stream().anyMatch(t -> t.endsWith("-> serial")), timed.toString());
    List<String> issued = iteration();
    assertEquals(3, issued.size(), issued.toString());
    assertTrue(issued.get(0).startsWith("launch " + (seq - 3)) && issued.get(2).startsWith("launch " + (seq - 1)),
        "the window's launches, in program order: " + issued);
  }

  @Test
  void aWindowTheDeviceRunsFasterAsItsGraphStaysAGraph() {
    device.graphNanos = 30_000;
    device.serialNanos = 90_000;
    iterations(1200);
    assertTrue(timed.stream().anyMatch(t -> t.endsWith("-> graph")), timed.toString());
    assertEquals(List.of("replay g100"), iteration());
  }

  @Test
  void inOrderIssuesEveryKnownWindowsLaunchesInProgramOrderAndTimesNone() {
    dispatch.windows().judge(WindowJudging.IN_ORDER);
    iterations(3);
    for (int i = 0; i < 20; i++) {
      List<String> issued = iteration();
      assertEquals(List.of("launch " + (seq - 3) + " k=0", "launch " + (seq - 2) + " k=0", "launch " + (seq - 1) + " k=0"),
          issued);
    }
    assertEquals(List.of(), timed);
  }

  @Test
  void withoutTimingOrWithJudgingOffEveryWindowIsReplayed() {
    device.canTime = false;
    device.graphNanos = 90_000;
    device.serialNanos = 1;
    for (int i = 0; i < 200; i++) {
      List<String> issued = iteration();
      assertTrue(i < 2 || issued.get(issued.size() - 1).startsWith("replay"), i + ": " + issued);
    }
    assertEquals(List.of(), timed);
  }

  @Test
  void judgingOffReplaysEveryWindowAndSamplesNone() {
    dispatch.windows().judge(WindowJudging.OFF);
    device.graphNanos = 90_000;
    device.serialNanos = 1;
    iterations(1200);
    assertEquals(List.of("replay g100"), iteration());
    assertEquals(List.of(), timed);
  }
}
