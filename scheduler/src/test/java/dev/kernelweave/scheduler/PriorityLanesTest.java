package dev.kernelweave.scheduler;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import dev.kernelweave.call.AccessMode;
import dev.kernelweave.call.CallKind;
import dev.kernelweave.call.CallRecord;
import dev.kernelweave.call.PriorityClass;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Priority lanes: with 4 normal lanes, lane 4 is high, lane 5 low and lane 6 the legacy stream. A
 * call goes to a lane of its class only, and follows work of other classes through events.
 */
class PriorityLanesTest {

  private static final AccessMode R = AccessMode.READ;
  private static final AccessMode W = AccessMode.WRITE;
  private static final AccessMode RW = AccessMode.READ_WRITE;
  private static final PriorityClass HIGH = PriorityClass.HIGH;
  private static final PriorityClass NORMAL = PriorityClass.NORMAL;
  private static final PriorityClass LOW = PriorityClass.LOW;

  private final RecordingDevice device = new RecordingDevice();
  private Scheduler scheduler = new Scheduler(device, 4, 1, OrderingRules.CUDA);
  private long seq;
  private CallRecord last;

  private CallRecord call(PriorityClass priority, CallKind kind, Object... accesses) {
    CallRecord call = new CallRecord();
    call.seq = ++seq;
    call.kind = kind;
    call.priority = priority;
    for (int i = 0; i < accesses.length; i += 2) {
      int slot = (Integer) accesses[i];
      call.addAccess(100 + slot, slot, 0x1000L * slot, 0, 64, (AccessMode) accesses[i + 1]);
    }
    last = call;
    return call;
  }

  private int launch(PriorityClass priority, Object... accesses) {
    CallRecord call = call(priority, CallKind.LAUNCH, accesses);
    int lane = scheduler.beforeAsyncWork(call);
    scheduler.afterWork(call, true);
    return lane;
  }

  @Test
  void eachClassHasLanesOfItsOwnCreatedWithItsPriority() {
    assertEquals(6, Scheduler.poolLanes(4, 1));
    assertEquals(6, scheduler.legacyLane());
    assertEquals(0, launch(NORMAL, 0, W));
    assertEquals(4, launch(HIGH, 1, W));
    assertEquals(5, launch(LOW, 2, W));
    assertEquals(1, launch(NORMAL, 3, W));
    assertEquals(List.of("createStream 0", "createStream 4 high", "createStream 5 low", "createStream 1"), device.drain());
    assertEquals(HIGH, scheduler.laneClass(4));
    assertEquals(LOW, scheduler.laneClass(5));
    assertEquals(NORMAL, scheduler.laneClass(6));
  }

  @Test
  void aHighCallNeverChainsOntoALowLaneButWaitsForItThroughAnEvent() {
    assertEquals(5, launch(LOW, 0, W));
    long producer = last.seq;
    device.drain();
    assertEquals(4, launch(HIGH, 0, RW)); // without classes it would extend the low chain on lane 5
    assertEquals(List.of("createStream 4 high", "createEvent e20", "record e20 on 5", "wait 4 for e20"), device.drain());
    assertArrayEquals(new long[] {producer}, Arrays.copyOf(last.predecessors, last.predecessorCount));
  }

  @Test
  void independentHighWorkNeverWaitsForLowWork() {
    for (int i = 0; i < 5; i++) {
      assertEquals(5, launch(LOW, 0, RW)); // a low chain
    }
    device.drain();
    assertEquals(4, launch(HIGH, 1, RW));
    assertEquals(List.of("createStream 4 high"), device.drain());
    assertEquals(0, last.predecessorCount);
  }

  @Test
  void aBriefHighCallDoesNotQueueBehindItsLowPredecessor() {
    launch(LOW, 0, W);
    launch(LOW, 0, R, 1, W); // lane 5 moved on past the producer of slot 0
    device.drain();
    CallRecord brief = call(HIGH, CallKind.BLAS, 0, R, 2, W);
    brief.brief = true;
    assertEquals(4, scheduler.beforeAsyncWork(brief));
  }

  @Test
  void aHighCallOnTheLegacyStreamLeavesTheLegacyLaneForItsOwn() {
    CallRecord copy = call(NORMAL, CallKind.COPY_HOST_TO_DEVICE, 0, W);
    scheduler.beforeSyncWork(copy);
    scheduler.afterSyncWork(copy, true);
    assertEquals(6, copy.stream);
    assertEquals(4, launch(HIGH, 0, RW));
    assertNotEquals(0, last.predecessorCount, "it waits for the copy through an event");
    assertEquals(0, launch(NORMAL, 1, W)); // a normal call of the legacy stream may still chain there
  }

  @Test
  void withoutPriorityLanesEveryClassSharesTheNormalLanesAsBefore() {
    scheduler = new Scheduler(device, 4, OrderingRules.CUDA);
    assertEquals(4, scheduler.legacyLane());
    assertEquals(0, launch(LOW, 0, W));
    assertEquals(0, launch(HIGH, 0, RW)); // extends the chain, as every call did before classes
    assertEquals(1, launch(HIGH, 1, W));
    assertEquals(List.of("createStream 0", "createStream 1"), device.drain());
  }

  @Test
  void theMutantDropsTheCrossClassWaitOfAHighCall() {
    scheduler = new Scheduler(device, 4, 1, OrderingRules.CUDA.without(OrderingRules.Rule.PRIORITY_KEEPS_DEPENDENCIES));
    launch(LOW, 0, W);
    device.drain();
    assertEquals(4, launch(HIGH, 0, RW));
    assertEquals(List.of("createStream 4 high"), device.drain());
  }
}
