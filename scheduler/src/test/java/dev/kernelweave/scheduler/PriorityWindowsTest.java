package dev.kernelweave.scheduler;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.kernelweave.call.AccessMode;
import dev.kernelweave.call.CallKind;
import dev.kernelweave.call.CallRecord;
import dev.kernelweave.call.PriorityClass;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A held window is one priority class: a launch of another class (its thread's priority changed)
 * ends the window, so a replay never makes a launch of one class wait for those of another.
 */
class PriorityWindowsTest {

  private final LaunchWindowsTest.FakeGraphs graphs = new LaunchWindowsTest.FakeGraphs();
  private final Dispatch dispatch = new Dispatch(new RecordingDevice(), 4, 1, OrderingRules.CUDA, graphs, graphs);
  private final Ticket ticket = new Ticket();
  private long seq;

  PriorityWindowsTest() {
    dispatch.windows().useClock(() -> 0L);
  }

  private CallRecord launch(long f, int id, PriorityClass priority) {
    CallRecord c = new CallRecord();
    c.seq = ++seq;
    c.kind = CallKind.LAUNCH;
    c.priority = priority;
    c.function = f;
    c.gridX = c.gridY = c.gridZ = 1;
    c.blockX = 32;
    c.blockY = c.blockZ = 1;
    c.addParam(0x7000_0000_0000L + id * 0x1000L, 8);
    c.addParam(7, 8);
    c.addAccess(id, id, 0x7000_0000_0000L + id * 0x1000L, 0, 256, AccessMode.READ_WRITE);
    return c;
  }

  private boolean make(CallRecord c) {
    int lane = dispatch.enterLaunch(c, ticket);
    if (ticket.heldByWindows()) {
      return true;
    }
    graphs.log.add("eager " + c.seq + " on " + lane);
    dispatch.exit(c, true, ticket);
    return false;
  }

  private void synchronize() {
    CallRecord c = new CallRecord();
    c.seq = ++seq;
    c.kind = CallKind.CONTEXT;
    dispatch.enter(c, Placement.DEVICE_SYNC, ticket);
    dispatch.exit(c, true, ticket);
  }

  private List<Boolean> iteration(PriorityClass second) {
    List<Boolean> held = new ArrayList<>();
    held.add(make(launch(1, 1, PriorityClass.LOW)));
    held.add(make(launch(2, 2, second)));
    synchronize();
    return held;
  }

  @Test
  void aLaunchOfAnotherClassEndsTheHeldWindowAndRunsOnItsOwnLane() {
    iteration(PriorityClass.LOW);
    iteration(PriorityClass.LOW);
    graphs.drain();
    assertEquals(List.of(true, true), iteration(PriorityClass.LOW), "a known low window is held and replayed");
    graphs.drain();
    // The same launches, the second now from a high-priority thread: the held low launch is issued
    // alone, the high one eagerly on the high lane (4): never in one graph.
    assertEquals(List.of(true, false), iteration(PriorityClass.HIGH));
    assertEquals(List.of("launch 10 k=7", "eager 11 on 4"), graphs.drain());
  }
}
