package dev.kernelweave.scheduler;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kernelweave.call.AccessMode;
import dev.kernelweave.call.CallKind;
import dev.kernelweave.call.CallRecord;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The scheduler's decisions for small programs, down to every stream, event and wait it issues.
 * Slots stand for allocations; events are numbered {@code lane * 4 + k}.
 */
class SchedulerTest {

  private static final AccessMode R = AccessMode.READ;
  private static final AccessMode W = AccessMode.WRITE;
  private static final AccessMode RW = AccessMode.READ_WRITE;

  private final RecordingDevice device = new RecordingDevice();
  private Scheduler scheduler = new Scheduler(device, 4, OrderingRules.CUDA);
  private long seq;
  private CallRecord last;

  /** An asynchronous launch on the default stream touching (slot, mode) pairs; returns its lane. */
  private int launch(Object... accesses) {
    return launchOn(0, accesses);
  }

  private int launchOn(long appStream, Object... accesses) {
    CallRecord call = call(CallKind.LAUNCH, appStream, accesses);
    int lane = scheduler.beforeAsyncWork(call);
    assertEquals(lane, call.stream);
    scheduler.afterWork(call, true);
    return lane;
  }

  private CallRecord call(CallKind kind, long appStream, Object... accesses) {
    CallRecord call = new CallRecord();
    call.seq = ++seq;
    call.kind = kind;
    call.appStream = appStream;
    for (int i = 0; i < accesses.length; i += 2) {
      int slot = (Integer) accesses[i];
      call.addAccess(100 + slot, slot, 0x1000L * slot, 0, 64, (AccessMode) accesses[i + 1]);
    }
    last = call;
    return call;
  }

  private long[] predecessors(CallRecord call) {
    return Arrays.copyOf(call.predecessors, call.predecessorCount);
  }

  private CallRecord free(int slot) {
    CallRecord call = call(CallKind.FREE, 0, slot, RW);
    scheduler.beforeFree(call);
    scheduler.afterFree(call);
    return call;
  }

  @Test
  void chainStaysOnOneLane() {
    assertEquals(0, launch(0, W));
    assertEquals(0, launch(0, R, 1, W));
    assertEquals(0, launch(1, R, 2, W));
    assertEquals(0, launch(2, RW));
    assertEquals(List.of("createStream 0"), device.drain());
    assertEquals(0, last.predecessorCount);
  }

  @Test
  void independentCallsSpreadOverLanes() {
    assertEquals(0, launch(0, W));
    assertEquals(1, launch(1, W));
    assertEquals(2, launch(2, W));
    assertEquals(3, launch(3, W));
    assertEquals(List.of("createStream 0", "createStream 1", "createStream 2", "createStream 3"), device.drain());
  }

  @Test
  void readsOfOneBufferDoNotWaitForEachOther() {
    launch(0, W);
    scheduler.afterDeviceSynchronize();
    device.drain();
    assertEquals(1, launch(0, R, 1, W));
    assertEquals(2, launch(0, R, 2, W));
    assertEquals(3, launch(0, R, 3, W));
    assertEquals(List.of("createStream 1", "createStream 2", "createStream 3"), device.drain());
  }

  @Test
  void forkWaitsOnAnotherLane() {
    launch(0, W); // A on lane 0
    launch(0, R, 1, W); // B extends A's chain
    device.drain();
    assertEquals(1, launch(0, R, 2, W)); // C also reads A, but lane 0 moved on: fork
    assertEquals(List.of("createStream 1", "createEvent e0", "record e0 on 0", "wait 1 for e0"), device.drain());
    assertArrayEquals(new long[] {1}, predecessors(last));
    assertTrue(last.eventRecorded);
  }

  @Test
  void briefCallsThatForkQueueBehindTheirProducerWithoutEvents() {
    launch(0, W); // A on lane 0
    device.drain();
    for (int slot = 1; slot <= 3; slot++) {
      CallRecord call = call(CallKind.BLAS, 0, 0, R, slot, W);
      call.brief = true;
      assertEquals(0, scheduler.beforeAsyncWork(call), "read A, not A's lane's newest call: still lane 0");
      scheduler.afterWork(call, true);
      assertEquals(0, call.predecessorCount);
      assertFalse(call.eventRecorded);
    }
    assertEquals(List.of(), device.drain(), "no stream, no event, no wait");
    assertEquals(1, launch(0, R, 4, W), "a call not known to be brief still forks");
  }

  @Test
  void briefCallsWithoutPendingPredecessorsQueueWhereTheirStreamsLastCallWent() {
    for (int slot = 0; slot < 4; slot++) {
      CallRecord call = call(CallKind.BLAS, 0, slot, W);
      call.brief = true;
      assertEquals(0, scheduler.beforeAsyncWork(call), "independent, but brief: behind its stream's last call");
      scheduler.afterWork(call, true);
    }
    CallRecord other = call(CallKind.BLAS, 0x5000, 9, W);
    other.brief = true;
    assertEquals(1, scheduler.beforeAsyncWork(other), "the first call of another stream: the lane chosen longest ago");
    scheduler.afterWork(other, true);
    assertEquals(2, launch(8, W), "a call not known to be brief spreads");
    assertEquals(List.of("createStream 0", "createStream 1", "createStream 2"), device.drain());
  }

  @Test
  void briefCallDoesNotQueueBehindABarrierCudaDoesNotOrderItAfter() {
    scheduler.streamCreated(9, true);
    scheduler.streamCreated(7, true);
    CallRecord first = call(CallKind.BLAS, 9, 0, W);
    first.brief = true;
    assertEquals(0, scheduler.beforeAsyncWork(first));
    scheduler.afterWork(first, true);
    assertEquals(1, launch(1, W));
    assertEquals(2, launch(2, W));
    assertEquals(3, launch(3, W));
    CallRecord barrier = call(CallKind.LAUNCH, 7, 4, W);
    barrier.touchesUnknownMemory = true;
    assertEquals(0, scheduler.beforeAsyncWork(barrier), "the barrier of another non-blocking stream lands on lane 0");
    scheduler.afterWork(barrier, true);
    CallRecord next = call(CallKind.BLAS, 9, 5, W);
    next.brief = true;
    int lane = scheduler.beforeAsyncWork(next);
    assertTrue(lane != 0, "its stream's last call is on lane 0, but so is a barrier it need not follow: lane " + lane);
  }

  @Test
  void aBarrierQueuedBehindAnotherStreamsWorkLeavesThatWorkAnEventOfItsOwn() {
    scheduler.streamCreated(9, true);
    scheduler.streamCreated(7, true);
    assertEquals(0, launchOn(9, 0, W));
    assertEquals(1, launch(1, W));
    assertEquals(2, launch(2, W));
    assertEquals(3, launch(3, W));
    device.drain();
    CallRecord barrier = call(CallKind.LAUNCH, 7, 4, W);
    barrier.touchesUnknownMemory = true; // as a host function's: it may wait for the host
    assertEquals(0, scheduler.beforeAsyncWork(barrier), "the barrier lands behind stream 9's launch");
    scheduler.afterWork(barrier, true);
    List<String> placed = device.drain();
    String before = eventOn(0, placed);
    int recorded = placed.indexOf("record " + before + " on 0");
    assertTrue(recorded >= 0 && placed.stream().filter(line -> line.startsWith("wait 0 for "))
        .allMatch(line -> placed.indexOf(line) > recorded),
        "an event after stream 9's launch, recorded before the barrier's waits: " + placed);
    scheduler.joins().handOverEveryStream();
    assertEquals(List.of("wait app 9 for " + before), waitsOf("app 9", device.drain()),
        "stream 9 waits for its launch, not for the barrier behind it");
  }

  @Test
  void workMadeAsWrittenIsFollowedByEachStreamAloneAndByTheBlockingStreamsThroughTheLegacyStream() {
    scheduler.streamCreated(9, true);
    scheduler.streamCreated(7, false); // blocking: the legacy stream's record covers it
    scheduler.streamCreated(5, true);
    scheduler.streamCreated(3, true);
    scheduler.streamDestroyed(3);
    scheduler.followWorkIssuedAsWritten();
    java.util.Map<Long, Integer> laneOf = new java.util.HashMap<>();
    for (String line : device.drain()) {
      String[] w = line.split(" ");
      if (line.startsWith("lane ")) {
        assertEquals(null, laneOf.put(Long.parseLong(w[4]), Integer.parseInt(w[1])), line);
      }
    }
    assertEquals(java.util.Set.of(0L, 9L, 5L), laneOf.keySet(), "the legacy stream and each live non-blocking stream");
    assertEquals(3, java.util.Set.copyOf(laneOf.values()).size(), "each join on a lane of its own: " + laneOf);

    int on5 = launchOn(5, 1, W);
    assertEquals(laneOf.get(5L), on5, "stream 5's first call follows stream 5's join, chained behind it");
    int on9 = launchOn(9, 2, W);
    assertEquals(laneOf.get(9L), on9, "stream 9's first call follows stream 9's join");
    int onLegacy = launchOn(0, 3, W);
    assertEquals(laneOf.get(0L), onLegacy, "the legacy stream's first call follows the legacy stream's join");
    int on7 = launchOn(7, 4, W);
    List<String> asked = device.drain();
    assertTrue(on7 == laneOf.get(0L) || asked.stream().anyMatch(l -> l.startsWith("wait " + on7 + " for e")),
        "a blocking stream's first call follows the legacy stream's join: lane " + on7 + ", " + asked);
    for (String line : asked) {
      assertFalse(line.startsWith("wait " + on5) || line.startsWith("wait " + on9), "a non-blocking stream waits for another's work: " + line);
    }
  }

  @Test
  void aNonBlockingStreamWhoseWorkHasCompletedIsNotFollowedSoNothingIsRecordedOnIt() {
    scheduler.streamCreated(9, true);
    scheduler.streamCreated(5, true);
    device.idle.add(9L);
    scheduler.followWorkIssuedAsWritten();
    List<String> asked = device.drain();
    assertEquals(List.of("lane", "lane"), asked.stream().filter(l -> l.startsWith("lane ")).map(l -> "lane").toList(),
        "the legacy stream and stream 5 alone: " + asked);
    assertTrue(asked.stream().anyMatch(l -> l.endsWith(" follows app 5")), "busy stream 5 is followed: " + asked);
    assertFalse(asked.stream().anyMatch(l -> l.contains("app 9")), "idle stream 9 is left alone: " + asked);
    launchOn(9, 1, W);
    assertFalse(device.drain().stream().anyMatch(l -> l.contains("app 9")), "nor touched by its first call");
  }

  @Test
  void waitReusesAnEventRecordedAtOrAfterThePosition() {
    launch(0, W);
    launch(0, R, 1, W);
    launch(0, R, 2, W); // fork: records e0 at lane 0's position 2
    device.drain();
    assertEquals(2, launch(0, R, 3, W)); // another fork off A: e0 already covers it
    assertEquals(List.of("createStream 2", "wait 2 for e0"), device.drain());
    assertFalse(last.eventRecorded);
  }

  @Test
  void waitOnAnOlderRecordingCoversOnlyUpToThatRecording() {
    launch(0, W); // A: lane 0, position 1
    launch(0, R, 1, W); // B: lane 0, position 2
    launch(0, R, 2, W); // C: fork to lane 1; e0 recorded at lane 0's position 2
    launch(1, R, 3, W); // D: extends lane 0 to position 3
    device.drain();
    assertEquals(2, launch(0, R, 4, W)); // E: another fork off A; e0 (position 2) is enough
    assertEquals(List.of("createStream 2", "wait 2 for e0"), device.drain());
    // F needs D (position 3): lane 2 waited for lane 0 only up to position 2, not to its tail.
    assertEquals(2, launch(4, R, 3, R, 5, W));
    assertEquals(List.of("createEvent e1", "record e1 on 0", "wait 2 for e1"), device.drain());
  }

  @Test
  void reusedEventCarriesTheWaitsOfItsRecordingNotLaterOnes() {
    launch(0, W); // A: lane 0
    launch(5, W); // X: lane 1
    launch(0, R, 1, W); // B: lane 0, position 2
    launch(0, R, 2, W); // C: fork to lane 2; e0 recorded at lane 0's position 2
    launch(1, R, 5, R, 6, W); // D: lane 0, waits for X through e4
    device.drain();
    assertEquals(3, launch(0, R, 7, W)); // E: fork off A on lane 3, through e0 (before D's wait)
    assertEquals(List.of("createStream 3", "wait 3 for e0"), device.drain());
    // So lane 3 does not follow X yet: F, which reads X, must wait for it.
    assertEquals(3, launch(7, R, 5, R, 8, W));
    assertEquals(List.of("wait 3 for e4"), device.drain());
  }

  @Test
  void joinWaitsForTheOtherChain() {
    launch(0, W); // lane 0
    launch(1, W); // lane 1
    device.drain();
    assertEquals(1, launch(0, R, 1, R, 2, W)); // extends the newest chain, waits for the other
    assertEquals(List.of("createEvent e0", "record e0 on 0", "wait 1 for e0"), device.drain());
    assertArrayEquals(new long[] {1}, predecessors(last));
  }

  @Test
  void diamondNeedsOneEvent() {
    launch(0, W); // A: lane 0
    launch(0, R, 1, W); // B: lane 0
    launch(0, R, 2, W); // C: fork to lane 1, waits for lane 0 up to B
    device.drain();
    assertEquals(1, launch(1, R, 2, R, 3, W)); // D joins B and C: lane 1 already waited past B
    assertEquals(List.of(), device.drain());
    assertEquals(0, last.predecessorCount);
  }

  @Test
  void eventRecordedOnlyWhenAnotherLaneNeedsIt() {
    launch(0, W);
    launch(0, RW);
    launch(1, W);
    launch(1, RW);
    launch(2, W);
    assertTrue(device.drain().stream().noneMatch(s -> s.startsWith("record") || s.startsWith("wait")));
    launch(0, R, 1, R, 3, W);
    assertEquals(1, device.drain().stream().filter(s -> s.startsWith("record")).count());
  }

  @Test
  void writeAfterReadWaitsForTheReaders() {
    launch(9, W); // lane 0
    launch(0, R, 1, W); // lane 1
    launch(0, R, 2, W); // lane 2: reads of slot 0 are independent
    device.drain();
    assertEquals(2, launch(0, W)); // waits for both readers, on the newest one's lane
    assertEquals(List.of("createEvent e4", "record e4 on 1", "wait 2 for e4"), device.drain());
    assertArrayEquals(new long[] {2}, predecessors(last));
  }

  @Test
  void dropWarMutantForgetsTheReaders() {
    scheduler = new Scheduler(device, 4, OrderingRules.CUDA.without(OrderingRules.Rule.WRITES_FOLLOW_READS));
    launch(9, W);
    launch(0, R, 1, W);
    launch(0, R, 2, W);
    device.drain();
    assertEquals(3, launch(0, W));
    assertEquals(List.of("createStream 3"), device.drain());
  }

  @Test
  void dropRawMutantForgetsTheWriter() {
    scheduler = new Scheduler(device, 4, OrderingRules.CUDA.without(OrderingRules.Rule.READS_FOLLOW_WRITES));
    launch(0, W);
    launch(9, W);
    device.drain();
    assertEquals(2, launch(0, R, 1, W));
    assertEquals(List.of("createStream 2"), device.drain());
  }

  @Test
  void writeAfterWriteFollowsTheLastWriter() {
    launch(0, W);
    assertEquals(0, launch(0, W));
    assertEquals(List.of("createStream 0"), device.drain());
  }

  @Test
  void moreChainsThanLanesShareLanes() {
    scheduler = new Scheduler(device, 2, OrderingRules.CUDA);
    assertEquals(0, launch(0, W)); // chain a
    assertEquals(1, launch(1, W)); // chain b
    assertEquals(0, launch(2, W)); // chain c shares lane 0, behind a
    assertEquals(List.of("createStream 0", "createStream 1"), device.drain());
    assertEquals(0, launch(2, RW)); // c goes on on its lane
    assertEquals(List.of(), device.drain());
    assertEquals(1, launch(0, RW)); // a's lane moved on: a continues on the older lane and waits
    assertEquals(List.of("createEvent e0", "record e0 on 0", "wait 1 for e0"), device.drain());
    assertEquals(0, launch(1, RW)); // now b's lane moved on too
    assertEquals(List.of("createEvent e4", "record e4 on 1", "wait 0 for e4"), device.drain());
  }

  @Test
  void syncWorkWaitsOnTheLegacyLaneAndCompletesWhatItWaitedFor() {
    launch(0, W); // lane 0
    device.drain();
    CallRecord read = call(CallKind.COPY_DEVICE_TO_HOST, 0, 0, R);
    scheduler.beforeSyncWork(read);
    assertEquals(4, read.stream);
    assertEquals(List.of("createEvent e0", "record e0 on 0", "wait 4 for e0"), device.drain());
    scheduler.afterSyncWork(read, true);
    // The synchronous read returned: the writer and the read are complete, so a new writer is free.
    assertEquals(1, launch(0, W));
    assertEquals(List.of("createStream 1"), device.drain());
  }

  @Test
  void synchronousReadIsAHostWaitNarrowedToItsWritersLane() {
    launch(0, W); // lane 0
    launch(1, W); // lane 1, still running
    CallRecord read = call(CallKind.COPY_DEVICE_TO_HOST, 0, 0, R);
    scheduler.beforeSyncWork(read);
    assertTrue(read.hostWaited);
    assertTrue(read.hostWaitNarrowed, "lane 1 keeps running");
    scheduler.afterSyncWork(read, true);

    CallRecord readBoth = call(CallKind.COPY_DEVICE_TO_HOST, 0, 1, R);
    scheduler.beforeSyncWork(readBoth);
    assertTrue(readBoth.hostWaited);
    assertFalse(readBoth.hostWaitNarrowed, "the only lane still running is the one waited for");
  }

  @Test
  void asyncWorkWaitsForSyncWorkOnTheLegacyLane() {
    CallRecord write = call(CallKind.COPY_HOST_TO_DEVICE, 0, 0, W);
    scheduler.beforeSyncWork(write);
    scheduler.afterWork(write, true);
    assertEquals(List.of(), device.drain());
    assertEquals(4, launch(0, R, 1, W), "the legacy stream's chain stays on its lane");
    assertEquals(List.of(), device.drain());
    assertEquals(0, launchOn(0x77, 0, R, 2, W));
    assertEquals(List.of("createStream 0", "createEvent e16", "record e16 on 4", "wait 0 for e16"), device.drain());
  }

  @Test
  void freeWaitsForPendingReaders() {
    launch(0, W); // A: lane 0
    launch(0, R, 1, W); // B: lane 0
    launch(0, R, 2, W); // C: lane 1, e0 recorded at lane 0's position 2
    launch(7, W); // D: lane 2, unrelated
    device.drain();
    CallRecord free = free(0);
    // Lane 0's reader is older than its tail: the event recorded for C covers it. Lane 1's reader is
    // its tail: the host synchronizes the lane, with no event recorded just for that.
    assertEquals(List.of("syncEvent e0", "syncLane 1"), device.drain());
    assertTrue(free.hostWaited);
    assertTrue(free.hostWaitNarrowed, "lane 2 was not waited for");
    assertArrayEquals(new long[] {2, 3}, predecessors(free));
  }

  @Test
  void freeOfAnIdleAllocationDoesNotWait() {
    launch(0, W);
    scheduler.afterDeviceSynchronize();
    device.drain();
    CallRecord free = free(0);
    assertEquals(List.of(), device.drain());
    assertFalse(free.hostWaited);
  }

  @Test
  void noFreeWaitMutantFreesAtOnce() {
    scheduler = new Scheduler(device, 4, OrderingRules.CUDA.without(OrderingRules.Rule.FREE_WAITS_FOR_USERS));
    launch(0, W);
    device.drain();
    assertFalse(free(0).hostWaited);
    assertEquals(List.of(), device.drain());
  }

  @Test
  void reusedSlotStartsFreshHistory() {
    // Without the free's wait the old writer is still pending; only the cleared history lets the
    // new allocation in the same slot start without waiting for it.
    scheduler = new Scheduler(device, 4, OrderingRules.CUDA.without(OrderingRules.Rule.FREE_WAITS_FOR_USERS));
    launch(0, W);
    free(0);
    device.drain();
    assertEquals(1, launch(0, R, 1, W));
    assertEquals(List.of("createStream 1"), device.drain());
  }

  @Test
  void unknownMemoryMakesABarrierEnqueuedWithoutAHostWait() {
    launch(0, W); // lane 0
    launch(1, W); // lane 1
    device.drain();
    CallRecord call = call(CallKind.LAUNCH, 0, 2, W);
    call.touchesUnknownMemory = true;
    int lane = scheduler.beforeAsyncWork(call);
    assertTrue(call.barrier);
    List<String> issued = device.drain();
    assertFalse(issued.contains("syncDevice"), issued.toString());
    assertTrue(issued.contains("wait " + lane + " for e" + (lane == 0 ? 4 : 0)), issued.toString());
    scheduler.afterWork(call, true);
    // A later call on the same stream follows the barrier even though it shares no memory with it.
    assertEquals(lane, launch(3, W));
  }

  @Test
  void laterWorkOnANonBlockingStreamDoesNotFollowABarrierOnAnotherStream() {
    scheduler.streamCreated(9, true);
    CallRecord call = call(CallKind.LAUNCH, 0, 0, W);
    call.touchesUnknownMemory = true;
    int barrierLane = scheduler.beforeAsyncWork(call);
    scheduler.afterWork(call, true);
    device.drain();
    int lane = launchOn(9, 1, W);
    assertTrue(lane != barrierLane);
    assertEquals(List.of("createStream " + lane), device.drain());
  }

  @Test
  void opaqueCallIsAFullBarrier() {
    launch(0, W);
    device.drain();
    CallRecord call = call(CallKind.OPAQUE, 0);
    scheduler.beforeBarrier(call);
    scheduler.afterBarrier(call);
    assertEquals(List.of("syncDevice", "syncDevice"), device.drain());
    assertTrue(call.barrier);
    assertEquals(1, launch(0, R, 1, W));
    assertEquals(List.of("createStream 1"), device.drain());
  }

  @Test
  void deviceSynchronizeClearsHistoryWithoutWaiting() {
    launch(0, W);
    device.drain();
    scheduler.afterDeviceSynchronize();
    assertEquals(List.of(), device.drain());
    assertEquals(1, launch(0, R, 1, W));
    assertEquals(List.of("createStream 1"), device.drain());
  }

  @Test
  void failedCallLeavesNoHistory() {
    CallRecord call = call(CallKind.LAUNCH, 0, 0, W);
    scheduler.beforeAsyncWork(call);
    scheduler.afterWork(call, false);
    assertEquals(1, launch(0, R, 1, W));
    assertEquals(List.of("createStream 0", "createStream 1"), device.drain());
  }

  private final Ticket ticket = new Ticket();

  private Dispatch dispatch() {
    Dispatch d = new Dispatch(device, 4, OrderingRules.CUDA);
    scheduler = d.scheduler();
    return d;
  }

  @Test
  void streamSynchronizeJoinsThatStreamsWorkOntoItAndSettlesIt() {
    Dispatch d = dispatch();
    scheduler.streamCreated(7, true);
    launchOn(7, 0, W); // lane 0
    launchOn(0, 1, W); // lane 1
    launchOn(7, 2, W); // lane 2
    device.drain();
    CallRecord sync = call(CallKind.SYNC, 7);
    assertEquals(CallRecord.NO_STREAM, d.enter(sync, Placement.STREAM_SYNC, ticket));
    assertFalse(ticket.holdsLock(), "the host blocks in the real call without the lock");
    assertEquals(List.of("createEvent e0", "record e0 on 0", "wait app 7 for e0", "createEvent e8",
        "record e8 on 2", "wait app 7 for e8"), device.drain());
    d.exit(sync, true, ticket);
    CallRecord again = call(CallKind.SYNC, 7);
    d.enter(again, Placement.STREAM_SYNC, ticket);
    d.exit(again, true, ticket);
    assertEquals(List.of(), device.drain(), "what the first synchronization covered is complete");
  }

  @Test
  void synchronousCopyThroughTheDispatchRunsOnTheLegacyLaneAndOrdersItsReaders() {
    Dispatch d = dispatch();
    CallRecord copy = call(CallKind.COPY_HOST_TO_DEVICE, 0, 0, W); // cuMemcpyHtoD
    assertEquals(4, d.enter(copy, Placement.SYNC, ticket));
    d.exit(copy, true, ticket);
    device.drain();
    assertEquals(4, launch(0, R, 1, W), "a reader on the legacy stream queues behind the copy");
    assertEquals(List.of(), device.drain());
    int lane = launchOn(0x77, 0, R, 2, W);
    assertEquals(List.of("createStream " + lane, "createEvent e16", "record e16 on 4", "wait " + lane + " for e16"),
        device.drain(), "a reader on another stream waits for it device-side");
  }

  @Test
  void legacyHandleAndNullAreOneStream() {
    Dispatch d = dispatch();
    CallRecord copy = call(CallKind.COPY_DEVICE_TO_HOST, 0, 0, R);
    copy.touchesHostMemory = true; // cuMemcpyDtoHAsync into pinned memory on the default stream
    int lane = d.enter(copy, Placement.ASYNC, ticket);
    d.exit(copy, true, ticket);
    device.drain();
    CallRecord sync = call(CallKind.SYNC, Scheduler.LEGACY_HANDLE);
    d.enter(sync, Placement.STREAM_SYNC, ticket);
    assertEquals(List.of("createEvent e" + lane * 4, "record e" + lane * 4 + " on " + lane, "wait 4 for e" + lane * 4),
        device.drain());
    d.exit(sync, true, ticket);
  }

  @Test
  void synchronousReadWaitsForPendingHostVisibleWorkItDoesNotDependOn() {
    Dispatch d = dispatch();
    CallRecord async = call(CallKind.COPY_DEVICE_TO_HOST, 0, 0, R, 5, W);
    async.touchesHostMemory = true; // cuMemcpyDtoHAsync(pinned, x, null)
    int lane = d.enter(async, Placement.ASYNC, ticket);
    d.exit(async, true, ticket);
    launch(1, W);
    device.drain();
    CallRecord read = call(CallKind.COPY_DEVICE_TO_HOST, 0, 2, R); // cuMemcpyDtoH(array, y)
    d.enter(read, Placement.SYNC, ticket);
    assertTrue(ticket.holdsLock());
    List<String> issued = device.drain();
    assertTrue(issued.contains("syncLane " + lane), issued.toString());
    assertTrue(read.hostWaited);
    d.exit(read, true, ticket);
    assertFalse(ticket.holdsLock());
  }

  @Test
  void narrowPastHostEffectsMutantSkipsThatWait() {
    Dispatch d = new Dispatch(device, 4, OrderingRules.CUDA.without(OrderingRules.Rule.HOST_WAITS_COVER_VISIBLE_WORK));
    scheduler = d.scheduler();
    CallRecord async = call(CallKind.COPY_DEVICE_TO_HOST, 0, 0, R, 5, W);
    async.touchesHostMemory = true;
    d.enter(async, Placement.ASYNC, ticket);
    d.exit(async, true, ticket);
    device.drain();
    CallRecord read = call(CallKind.COPY_DEVICE_TO_HOST, 0, 2, R);
    d.enter(read, Placement.SYNC, ticket);
    d.exit(read, true, ticket);
    assertEquals(List.of(), device.drain());
  }

  @Test
  void aStreamsQueryOrSynchronizeAfterTheJoinOfWorkMadeAsWrittenQueuesNothingOnIt() {
    Dispatch d = dispatch();
    scheduler.streamCreated(7, true);
    scheduler.streamCreated(0x2a, false);
    d.followWorkIssuedAsWritten();
    device.drain();
    for (long stream : new long[] {7, 0x2a, 0}) {
      CallRecord query = call(CallKind.STREAM, stream);
      d.enter(query, Placement.STREAM_QUERY, ticket);
      d.exit(query, true, ticket);
      CallRecord sync = call(CallKind.SYNC, stream);
      d.enter(sync, Placement.STREAM_SYNC, ticket);
      d.exit(sync, true, ticket);
      // The joins wait for the streams: a stream made to wait for them would answer not ready.
      assertEquals(List.of(), device.drain(), "stream " + stream);
    }
  }

  @Test
  void streamQueryJoinsWithoutWaiting() {
    Dispatch d = dispatch();
    launchOn(7, 0, W);
    device.drain();
    CallRecord query = call(CallKind.STREAM, 7);
    d.enter(query, Placement.STREAM_QUERY, ticket);
    assertFalse(ticket.holdsLock());
    List<String> issued = device.drain();
    assertFalse(issued.stream().anyMatch(s -> s.startsWith("sync")), issued.toString());
    assertTrue(issued.contains("wait app 7 for e0"), issued.toString());
    d.exit(query, false, ticket); // CUDA_ERROR_NOT_READY: nothing is settled
    CallRecord again = call(CallKind.STREAM, 7);
    d.enter(again, Placement.STREAM_QUERY, ticket);
    d.exit(again, false, ticket);
    assertEquals(List.of(), device.drain(), "a query polled again queues no second wait");
    CallRecord sync = call(CallKind.SYNC, 7);
    d.enter(sync, Placement.STREAM_SYNC, ticket);
    assertEquals(List.of(), device.drain(), "the stream already waits for its work");
    d.exit(sync, true, ticket);
  }

  @Test
  void eventRecordJoinsTheStreamAndAStreamWaitingForItFollows() {
    Dispatch d = dispatch();
    scheduler.streamCreated(7, true);
    scheduler.streamCreated(8, true);
    launchOn(7, 0, W); // lane 0
    device.drain();
    CallRecord record = call(CallKind.EVENT, 7);
    record.appEvent = 77;
    assertEquals(CallRecord.NO_STREAM, d.enter(record, Placement.EVENT_RECORD, ticket));
    d.exit(record, true, ticket);
    assertEquals(List.of("createEvent e0", "record e0 on 0", "wait app 7 for e0"), device.drain());
    CallRecord wait = call(CallKind.EVENT, 8);
    wait.appEvent = 77;
    d.enter(wait, Placement.STREAM_WAIT_EVENT, ticket);
    d.exit(wait, true, ticket);
    // Stream 8's next call shares no memory with stream 7's, yet follows it as the event says.
    int lane = launchOn(8, 1, W);
    assertTrue(device.drain().contains("wait " + lane + " for e0") || lane == 0);
  }

  @Test
  void workAfterATimedEventRecordFollowsTheRecord() {
    Dispatch d = dispatch();
    scheduler.streamCreated(7, false);
    launchOn(7, 0, W); // lane 0
    device.drain();
    CallRecord record = call(CallKind.EVENT, 7);
    record.appEvent = 77;
    record.timedEvent = true;
    d.enter(record, Placement.EVENT_RECORD, ticket);
    d.exit(record, true, ticket);
    List<String> issued = device.drain();
    String waitForRecord = issued.get(issued.size() - 1);
    assertTrue(waitForRecord.matches("wait \\d+ for app event 77"), issued.toString());
    int waiting = Integer.parseInt(waitForRecord.split(" ")[1]);
    // Independent of the work before the record, the bracketed launch still follows the record.
    assertEquals(waiting, launchOn(7, 1, W));
    assertEquals(List.of(), device.drain());
  }

  @Test
  void aTimedRecordOnTheLegacyStreamFollowsBlockingStreamsWorkAndTheirLaterWorkFollowsIt() {
    Dispatch d = dispatch();
    scheduler.streamCreated(7, false);
    int moved = launchOn(7, 0, W);
    device.drain();
    CallRecord record = call(CallKind.EVENT, 0);
    record.appEvent = 77;
    record.timedEvent = true;
    d.enter(record, Placement.EVENT_RECORD, ticket);
    List<String> joins = device.drain();
    assertTrue(joins.contains("record e0 on " + moved) && joins.stream().anyMatch(l -> l.matches("wait \\d+ for e0")),
        "the legacy stream waits for blocking stream 7's moved launch on lane " + moved + ": " + joins);
    d.exit(record, true, ticket);
    List<String> issued = device.drain();
    String waitForRecord = issued.get(issued.size() - 1);
    assertTrue(waitForRecord.matches("wait \\d+ for app event 77"), issued.toString());
    int waiting = Integer.parseInt(waitForRecord.split(" ")[1]);
    int next = launchOn(7, 1, W); // shares nothing with the launch before the record
    assertTrue(next == waiting || device.drain().stream().anyMatch(l -> l.startsWith("wait " + next + " for e")),
        "blocking stream 7's next launch follows the legacy stream's record");
  }

  @Test
  void workAfterAWaitForAnEventTheAgentDidNotSeeRecordedFollowsTheEvent() {
    Dispatch d = dispatch();
    scheduler.streamCreated(8, true);
    // Event 99 was recorded before the agent engaged: only the device knows what it stands for.
    CallRecord wait = call(CallKind.EVENT, 8);
    wait.appEvent = 99;
    d.enter(wait, Placement.STREAM_WAIT_EVENT, ticket);
    d.exit(wait, true, ticket);
    List<String> issued = device.drain();
    assertFalse(issued.isEmpty(), "nothing made the stream's later work follow the event");
    String waitForEvent = issued.get(issued.size() - 1);
    assertTrue(waitForEvent.matches("wait \\d+ for app event 99"), issued.toString());
    int waiting = Integer.parseInt(waitForEvent.split(" ")[1]);
    assertEquals(waiting, launchOn(8, 1, W), "stream 8's next launch follows the lane's wait for the event");
  }

  @Test
  void anEventCreatedAtARecordedEventsHandleIsUnknownUntilRecordedHere() {
    Dispatch d = dispatch();
    scheduler.streamCreated(7, true);
    scheduler.streamCreated(8, true);
    launchOn(7, 0, W);
    CallRecord record = call(CallKind.EVENT, 7);
    record.appEvent = 99;
    d.enter(record, Placement.EVENT_RECORD, ticket);
    d.exit(record, true, ticket);
    // Destroyed; a new event of another context gets handle 99 and is recorded there, unseen here.
    d.eventCreated(99);
    device.drain();
    CallRecord wait = call(CallKind.EVENT, 8);
    wait.appEvent = 99;
    d.enter(wait, Placement.STREAM_WAIT_EVENT, ticket);
    d.exit(wait, true, ticket);
    List<String> issued = device.drain();
    assertTrue(issued.stream().anyMatch(l -> l.matches("wait \\d+ for app event 99")),
        "the wait follows the new event on the device, not the old one's record: " + issued);
  }

  @Test
  void aFailedWaitForAnUnknownEventOrdersNothing() {
    Dispatch d = dispatch();
    scheduler.streamCreated(8, true);
    CallRecord wait = call(CallKind.EVENT, 8);
    wait.appEvent = 99;
    d.enter(wait, Placement.STREAM_WAIT_EVENT, ticket);
    d.exit(wait, false, ticket); // an invalid event: CUDA returned an error
    assertEquals(List.of(), device.drain());
  }

  @Test
  void anUntimedEventRecordOrdersNothingMore() {
    Dispatch d = dispatch();
    scheduler.streamCreated(7, false);
    launchOn(7, 0, W);
    device.drain();
    CallRecord record = call(CallKind.EVENT, 7);
    record.appEvent = 77;
    d.enter(record, Placement.EVENT_RECORD, ticket);
    d.exit(record, true, ticket);
    assertFalse(device.drain().stream().anyMatch(s -> s.contains("app event")));
  }

  @Test
  void duringACaptureWorkOfAnotherStreamStaysOrderedWithItsLaterWork() {
    Dispatch d = dispatch();
    device.notCapturing.add(8L);
    CallRecord begin = call(CallKind.STREAM, 7);
    d.enter(begin, Placement.CAPTURE_BEGIN, ticket);
    d.exit(begin, true, ticket);
    CallRecord captured = call(CallKind.LAUNCH, 7, 0, W);
    assertEquals(CallRecord.NO_STREAM, d.enter(captured, Placement.ASYNC, ticket));
    d.exit(captured, true, ticket);
    CallRecord during = call(CallKind.LAUNCH, 8, 1, W);
    int lane = d.enter(during, Placement.ASYNC, ticket);
    assertTrue(lane >= 0, "placed, not passed through");
    d.exit(during, true, ticket);
    CallRecord end = call(CallKind.STREAM, 7);
    d.enter(end, Placement.CAPTURE_END, ticket);
    d.exit(end, true, ticket);
    assertEquals(lane, launchOn(8, 1, RW), "the later launch follows it");
  }

  @Test
  void captureMakesEveryCallPassThrough() {
    Dispatch d = dispatch();
    launch(0, W);
    device.drain();
    CallRecord begin = call(CallKind.STREAM, 7);
    d.enter(begin, Placement.CAPTURE_BEGIN, ticket);
    d.exit(begin, true, ticket);
    assertEquals(List.of("syncDevice"), device.drain());
    CallRecord captured = call(CallKind.LAUNCH, 7, 0, W);
    assertEquals(CallRecord.NO_STREAM, d.enter(captured, Placement.ASYNC, ticket));
    assertFalse(ticket.holdsLock());
    d.exit(captured, true, ticket);
    CallRecord sync = call(CallKind.SYNC, 0);
    d.enter(sync, Placement.DEVICE_SYNC, ticket);
    d.exit(sync, true, ticket);
    assertEquals(List.of(), device.drain(), "nothing the capture would reject");
    CallRecord end = call(CallKind.STREAM, 7);
    d.enter(end, Placement.CAPTURE_END, ticket);
    d.exit(end, true, ticket);
    assertTrue(launch(1, W) >= 0);
  }

  @Test
  void enterReleasesTheLockWhenTheDeviceFails() {
    StreamDevice failing = new NullDevice() {
      @Override
      public void createStream(int lane) {
        throw new IllegalStateException("cuStreamCreate failed");
      }
    };
    Dispatch d = new Dispatch(failing, 4, OrderingRules.CUDA);
    CallRecord call = call(CallKind.LAUNCH, 0, 0, W);
    try {
      d.enter(call, Placement.ASYNC, ticket);
    } catch (IllegalStateException expected) {
      // falls back in the interceptor
    }
    assertFalse(ticket.holdsLock());
    CallRecord other = call(CallKind.SYNC, 0);
    Thread t = new Thread(() -> {
      Ticket mine = new Ticket();
      d.enter(other, Placement.DEVICE_SYNC, mine);
      d.exit(other, true, mine);
    });
    t.start();
    assertTimeoutPreemptively(java.time.Duration.ofSeconds(5), () -> t.join());
  }

  // ------------------------------------------------------------------ staged copies and host waits

  /** One call through the dispatch, committed as succeeded; returns its lane. */
  private int dispatched(Dispatch d, CallRecord call, Placement placement) {
    int lane = d.enter(call, placement, ticket);
    d.exit(call, true, ticket);
    assertFalse(ticket.holdsLock());
    return lane;
  }

  @Test
  void anIdleBlockingStreamsQueryDoesNotWaitForLegacyWorkIssuedAfterIt() {
    Dispatch d = dispatch();
    scheduler.streamCreated(7, false);
    CallRecord visible = call(CallKind.LAUNCH, 0, 0, W);
    visible.touchesHostMemory = true; // the host can see it: a synchronous copy would wait for it
    dispatched(d, visible, Placement.ASYNC);
    device.drain();
    CallRecord query = call(CallKind.STREAM, 7);
    d.enter(query, Placement.STREAM_QUERY, ticket);
    d.exit(query, true, ticket);
    assertEquals(List.of(), device.drain(), "nothing issued to stream 7 came after it: CUDA answers 0");
  }

  @Test
  void aQueryAfterASynchronousCopyWaitsForAnEventRecordedOnTheIdleStreamBeforeIt() {
    Dispatch d = dispatch();
    scheduler.streamCreated(7, false);
    scheduler.streamCreated(9, true);
    for (long stream : new long[] {7, 9}) {
      CallRecord record = call(CallKind.EVENT, stream);
      record.appEvent = 0x5000 + stream;
      dispatched(d, record, Placement.EVENT_RECORD);
    }
    device.drain();
    dispatched(d, call(CallKind.COPY_HOST_TO_DEVICE, 0, 1, W), Placement.STAGED);
    device.drain();
    for (long stream : new long[] {7, 9}) {
      CallRecord query = call(CallKind.STREAM, stream);
      d.enter(query, Placement.STREAM_QUERY, ticket);
      d.exit(query, true, ticket);
    }
    // The record ran on stream 7 itself, which the copy's narrowed wait left alone; CUDA completed
    // it before the copy returned. Non-blocking stream 9 is not the legacy stream's to complete.
    assertEquals(List.of("syncAppStream 7"), device.drain());
  }

  @Test
  void aQueryNeverWaitsForWorkTheStreamWasMadeToWaitForAfterTheCopy() {
    Dispatch d = dispatch();
    scheduler.streamCreated(7, false);
    scheduler.streamCreated(9, true);
    launchOn(7, 0, W);
    dispatched(d, call(CallKind.COPY_HOST_TO_DEVICE, 0, 1, W), Placement.STAGED);
    // After the copy, which completed stream 7's kernel: work on non-blocking stream 9, an event recorded after it, stream 7 made to wait.
    launchOn(9, 2, W);
    CallRecord record = call(CallKind.EVENT, 9);
    record.appEvent = 0x5009;
    dispatched(d, record, Placement.EVENT_RECORD);
    CallRecord wait = call(CallKind.EVENT, 7);
    wait.appEvent = 0x5009;
    dispatched(d, wait, Placement.STREAM_WAIT_EVENT);
    device.drain();
    CallRecord query = call(CallKind.STREAM, 7);
    d.enter(query, Placement.STREAM_QUERY, ticket);
    d.exit(query, false, ticket);
    // CUDA may answer 600 (stream 7 waits for stream 9's work): the host waits at most for the
    // kernel the copy completed, never for the stream itself.
    List<String> issued = device.drain();
    assertFalse(issued.contains("syncAppStream 7"), "a query blocked on work no copy completed: " + issued);
  }

  @Test
  void aQueryAfterAStagedCopyFirstWaitsForWhatTheCopyCompleted() {
    Dispatch d = dispatch();
    scheduler.streamCreated(7, false);
    assertEquals(0, launchOn(7, 0, W));
    device.drain();
    dispatched(d, call(CallKind.COPY_HOST_TO_DEVICE, 0, 1, W), Placement.STAGED);
    assertFalse(device.drain().stream().anyMatch(s -> s.startsWith("sync")), "the staged copy itself waits for none of it");
    CallRecord query = call(CallKind.STREAM, 7);
    d.enter(query, Placement.STREAM_QUERY, ticket);
    d.exit(query, true, ticket);
    // CUDA completed stream 7's kernel before the copy returned, so the query must answer 0: the
    // host waits for the kernel's lane, then for what the agent put on the stream itself.
    assertEquals(List.of("syncLane 0", "syncAppStream 7"), device.drain());
    CallRecord later = call(CallKind.STREAM, 7);
    launchOn(7, 2, W);
    device.drain();
    d.enter(later, Placement.STREAM_QUERY, ticket);
    d.exit(later, false, ticket);
    assertFalse(device.drain().stream().anyMatch(s -> s.startsWith("sync")), "work after the copy is never waited for");
  }

  /**
   * {@code pipeline}'s batch: a synchronous copy in (staged), three kernels, a synchronous copy out,
   * with slots {@code in, tmp, out}; returns the lane the batch ran on.
   */
  private int pipelineBatch(Dispatch d, int in, int tmp, int out) {
    int lane = dispatched(d, call(CallKind.COPY_HOST_TO_DEVICE, 0, in, W), Placement.STAGED);
    assertEquals(lane, dispatched(d, call(CallKind.LAUNCH, 0, in, R, tmp, W), Placement.ASYNC));
    assertEquals(lane, dispatched(d, call(CallKind.LAUNCH, 0, tmp, R, out, W), Placement.ASYNC));
    assertEquals(lane, dispatched(d, call(CallKind.LAUNCH, 0, out, RW), Placement.ASYNC));
    CallRecord copyOut = call(CallKind.COPY_DEVICE_TO_HOST, 0, out, R);
    assertEquals(4, dispatched(d, copyOut, Placement.SYNC));
    assertTrue(copyOut.hostWaited);
    assertFalse(copyOut.eventRecorded);
    return lane;
  }

  @Test
  void aPipelineBatchStaysOnOneLaneAndCostsNoEvent() {
    Dispatch d = dispatch();
    for (int round = 0; round < 2; round++) {
      for (int batch = 0; batch < 3; batch++) {
        int lane = pipelineBatch(d, 3 * batch, 3 * batch + 1, 3 * batch + 2);
        List<String> issued = device.drain().stream().filter(op -> !op.startsWith("createStream")).toList();
        // The copy out waits for the batch's lane itself: no event, no cross-stream wait.
        assertEquals(List.of("syncLane " + lane), issued, "round " + round + " batch " + batch);
      }
    }
  }

  /** A synchronous copy into the device of {@code bytes} from Java memory, which the interceptor offers as staged. */
  private CallRecord upload(int slot, long bytes) {
    CallRecord copy = call(CallKind.COPY_HOST_TO_DEVICE, 0, slot, W);
    copy.bytes = bytes;
    return copy;
  }

  @Test
  void aLargeUploadThatWouldWaitForNothingRunsAsWrittenAndItsBatchStaysOnTheLegacyStream() {
    Dispatch d = dispatch();
    for (int batch = 0; batch < 3; batch++) {
      int in = 3 * batch;
      CallRecord copyIn = upload(in, Dispatch.STAGED_WHEN_IDLE_BYTES + 4);
      assertEquals(4, d.enter(copyIn, Placement.STAGED, ticket), "batch " + batch);
      assertEquals(Placement.SYNC, ticket.placement(), "nothing pending: CUDA's own copy, as written");
      d.exit(copyIn, true, ticket);
      assertEquals(4, dispatched(d, call(CallKind.LAUNCH, 0, in, R, in + 1, W), Placement.ASYNC));
      assertEquals(4, dispatched(d, call(CallKind.LAUNCH, 0, in + 1, R, in + 2, W), Placement.ASYNC));
      CallRecord copyOut = call(CallKind.COPY_DEVICE_TO_HOST, 0, in + 2, R);
      assertEquals(4, dispatched(d, copyOut, Placement.SYNC));
      assertEquals(List.of(), device.drain(), "no event, no wait across streams, no host wait: batch " + batch);
    }
  }

  @Test
  void anAsynchronousReadQueuedOnTheLegacyLaneCompletesNothing() {
    Dispatch d = dispatch();
    dispatched(d, upload(0, Dispatch.STAGED_WHEN_IDLE_BYTES + 4), Placement.STAGED); // as written: legacy lane
    CallRecord read = call(CallKind.COPY_DEVICE_TO_HOST, 0, 0, R);
    read.touchesHostMemory = true; // cuMemcpyDtoHAsync into pinned memory, on the legacy stream
    assertEquals(4, dispatched(d, read, Placement.ASYNC), "queues behind the upload");
    assertFalse(scheduler.isComplete(4, 2), "an asynchronous copy returns before it is done");
    device.drain();
    int writer = launchOn(0x77, 0, W);
    assertTrue(device.drain().contains("wait " + writer + " for e16"), "a later writer still waits for the read");
  }

  @Test
  void aLargeUploadIsStagedWhenTheSynchronousCopyWouldWait() {
    Dispatch d = dispatch();
    int writer = launch(0, W); // still writing the destination
    device.drain();
    CallRecord behindItsPredecessor = upload(0, 1 << 20);
    assertEquals(writer, d.enter(behindItsPredecessor, Placement.STAGED, ticket), "extends the writer's chain");
    assertEquals(Placement.STAGED, ticket.placement());
    d.exit(behindItsPredecessor, true, ticket);
    assertEquals(List.of(), device.drain(), "the host does not wait for the writer");

    CallRecord idle = upload(1, 1 << 20);
    dispatched(d, idle, Placement.STAGED);
    assertEquals(4, idle.stream, "nothing it must follow is pending: as written");
    CallRecord behindTheLegacyStream = upload(2, 1 << 20);
    assertNotEquals(4, d.enter(behindTheLegacyStream, Placement.STAGED, ticket));
    assertEquals(Placement.STAGED, ticket.placement(), "the synchronous copy would wait for the one before");
    d.exit(behindTheLegacyStream, true, ticket);
  }

  @Test
  void aSmallUploadIsStagedEvenWhenNothingIsPending() {
    Dispatch d = dispatch();
    CallRecord small = upload(0, Dispatch.STAGED_WHEN_IDLE_BYTES);
    assertNotEquals(4, d.enter(small, Placement.STAGED, ticket));
    assertEquals(Placement.STAGED, ticket.placement());
    d.exit(small, true, ticket);
  }

  @Test
  void aStagedReadQueuesBehindItsBatchOnTheDeviceAndTheHostWaitsOnceForIt() {
    Dispatch d = dispatch();
    int lane = dispatched(d, call(CallKind.COPY_HOST_TO_DEVICE, 0, 0, W), Placement.STAGED);
    assertEquals(lane, dispatched(d, call(CallKind.LAUNCH, 0, 0, R, 1, W), Placement.ASYNC));
    device.drain();
    CallRecord copyOut = call(CallKind.COPY_DEVICE_TO_HOST, 0, 1, R);
    assertEquals(4, d.enter(copyOut, Placement.STAGED_READ, ticket), "queued on the legacy lane");
    assertTrue(ticket.holdsLock(), "the copy is queued under the lock");
    List<String> queued = device.drain().stream().filter(op -> !op.startsWith("create")).toList();
    assertTrue(queued.stream().noneMatch(op -> op.startsWith("sync")), "no host wait before the copy: " + queued);
    assertTrue(queued.stream().anyMatch(op -> op.startsWith("wait 4 for")), "the legacy lane waits for the batch: " + queued);
    d.awaitStagedRead(copyOut, ticket);
    assertTrue(ticket.holdsLock(), "held again for the host's copy into the program's memory");
    assertEquals(List.of("syncLane 4"), device.drain(), "one round trip: the host waits for the copy itself");
    d.exit(copyOut, true, ticket);
    assertFalse(ticket.holdsLock());
    assertTrue(copyOut.hostWaited);
    assertTrue(scheduler.isComplete(lane, 2), "what the legacy lane waited for is known complete");
    assertTrue(scheduler.isComplete(4, 1), "and the copy itself");
    CallRecord next = call(CallKind.COPY_DEVICE_TO_HOST, 0, 1, R);
    dispatched(d, next, Placement.SYNC);
    assertEquals(List.of(), device.drain().stream().filter(op -> op.startsWith("sync")).toList(),
        "nothing left to wait for");
  }

  @Test
  void aStagedReadSettlesOnlyWhatItsLaneWaitedForBeforeIt() {
    Dispatch d = dispatch();
    dispatched(d, call(CallKind.LAUNCH, 0, 0, W), Placement.ASYNC);
    device.drain();
    CallRecord copyOut = call(CallKind.COPY_DEVICE_TO_HOST, 0, 0, R);
    int readLane = d.enter(copyOut, Placement.STAGED_READ, ticket);
    Ticket otherThread = new Ticket();
    int[] upload = new int[1];
    long[] uploadPosition = new long[1];
    device.duringNextLaneSynchronize = () -> {
      // Another thread, while this one waits without the lock: an upload staged on a lane of its
      // own and a launch after it there, then a launch that overwrites what the read reads (so it
      // queues behind the read, on its lane) and reads what the upload writes (so that lane now
      // waits for the upload).
      CallRecord in = upload(5, 64);
      upload[0] = d.enter(in, Placement.STAGED, otherThread);
      d.exit(in, true, otherThread);
      uploadPosition[0] = scheduler.nextPosition(upload[0]) - 1;
      CallRecord alsoReads = call(CallKind.LAUNCH, 0, 5, R, 6, W);
      assertEquals(upload[0], d.enter(alsoReads, Placement.ASYNC, otherThread), "the upload's lane goes on");
      d.exit(alsoReads, true, otherThread);
      CallRecord overwrite = call(CallKind.LAUNCH, 0, 0, W, 5, R);
      assertEquals(readLane, d.enter(overwrite, Placement.ASYNC, otherThread), "queued behind the read");
      d.exit(overwrite, true, otherThread);
    };
    d.awaitStagedRead(copyOut, ticket);
    d.exit(copyOut, true, ticket);
    assertNotEquals(readLane, upload[0], "the upload ran on another lane");
    assertTrue(scheduler.isComplete(readLane, scheduler.nextPosition(readLane) - 2), "the read is known complete");
    assertFalse(scheduler.isComplete(upload[0], uploadPosition[0]),
        "the upload the read's lane waits for only after the read may still be running (its staging buffer still read)");
  }

  @Test
  void aStagedCopyFollowsTheReadersOfItsDestinationOnTheDevice() {
    Dispatch d = dispatch();
    int reader = launch(0, R, 1, W); // still reading slot 0
    launch(2, W); // another lane
    device.drain();
    CallRecord copy = call(CallKind.COPY_HOST_TO_DEVICE, 0, 0, W);
    int lane = d.enter(copy, Placement.STAGED, ticket);
    assertTrue(ticket.holdsLock(), "the staged copy is issued under the lock");
    d.exit(copy, true, ticket);
    assertEquals(reader, lane, "the reader is its lane's tail: the copy extends that chain");
    assertFalse(copy.hostWaited, "the host waits for nothing: the copy's predecessors are the device's business");
    assertEquals(List.of(), device.drain());
  }

  @Test
  void aStagedCopyWaitsOnTheHostForPendingHostVisibleWork() {
    Dispatch d = dispatch();
    CallRecord async = call(CallKind.COPY_DEVICE_TO_HOST, 0, 0, R, 5, W);
    async.touchesHostMemory = true; // cuMemcpyDtoHAsync(pinned, x, null): the host may read it after a synchronous call
    int pinnedLane = dispatched(d, async, Placement.ASYNC);
    device.drain();
    CallRecord copy = call(CallKind.COPY_HOST_TO_DEVICE, 0, 2, W); // cuMemcpyHtoD(y, array), unrelated
    int lane = dispatched(d, copy, Placement.STAGED);
    assertEquals(List.of("syncLane " + pinnedLane), device.drain().stream()
        .filter(op -> !op.startsWith("createStream")).toList());
    assertTrue(copy.hostWaited);
    assertTrue(scheduler.isComplete(pinnedLane, 1), "what the host waited for is known complete");
    assertFalse(scheduler.isComplete(lane, 1), "the staged copy itself may still be running");
  }

  @Test
  void aStagedCopyThatFallsBackRunsOnTheLegacyLaneAfterItsPredecessors() {
    Dispatch d = dispatch();
    int reader = launch(0, R, 1, W);
    launch(2, W); // the reader's lane is not the LRU choice any more after this
    launch(0, R, 3, W); // another reader of slot 0, on a third lane
    device.drain();
    CallRecord copy = call(CallKind.COPY_HOST_TO_DEVICE, 0, 0, W);
    d.enter(copy, Placement.STAGED, ticket);
    device.drain();
    assertEquals(4, d.stagingFailed(copy, ticket));
    List<String> issued = device.drain();
    assertTrue(issued.stream().anyMatch(op -> op.startsWith("wait 4 for e" + reader * 4)), issued.toString());
    d.exit(copy, true, ticket);
    assertEquals(4, copy.stream);
    int other = launchOn(0x77, 0, R, 6, W);
    assertTrue(device.drain().stream().anyMatch(op -> op.equals("wait " + other + " for e16")),
        "a reader on another stream follows the copy on the legacy lane");
    assertEquals(4, launch(0, R, 7, W), "a reader on the legacy stream queues behind the copy there");
    assertEquals(List.of(), device.drain());
  }

  @Test
  void onlyAStagedCopyInProgressCanFallBack() {
    Dispatch d = dispatch();
    CallRecord launch = call(CallKind.LAUNCH, 0, 0, W);
    d.enter(launch, Placement.ASYNC, ticket);
    try {
      d.stagingFailed(launch, ticket);
      throw new AssertionError("expected a refusal");
    } catch (IllegalStateException expected) {
      // an asynchronous launch has no synchronous form to fall back to
    } finally {
      d.exit(launch, true, ticket);
    }
  }

  @Test
  void aPositionIsCompleteOnceTheHostSawItsLaneDone() {
    Dispatch d = dispatch();
    assertTrue(scheduler.isComplete(0, 0), "position 0 is nothing");
    CallRecord copy = call(CallKind.COPY_HOST_TO_DEVICE, 0, 0, W);
    int lane = d.enter(copy, Placement.STAGED, ticket);
    long position = scheduler.nextPosition(lane);
    d.exit(copy, true, ticket);
    assertFalse(scheduler.isComplete(lane, position));
    dispatched(d, call(CallKind.COPY_DEVICE_TO_HOST, 0, 0, R), Placement.SYNC);
    assertTrue(scheduler.isComplete(lane, position), "the copy out waited for the copy in's lane");
  }

  @Test
  void handingBackMakesEachLiveStreamFollowTheWorkMovedOffItOnce() {
    scheduler.streamCreated(9, true);
    scheduler.streamCreated(8, false);
    scheduler.streamCreated(7, true);
    int legacy = launchOn(0, 0, W);
    int nonBlocking = launchOn(9, 1, W);
    int blocking = launchOn(8, 2, W);
    int destroyed = launchOn(7, 3, W);
    scheduler.streamDestroyed(7);
    assertEquals(4, java.util.stream.IntStream.of(legacy, nonBlocking, blocking, destroyed).distinct().count(),
        "four independent launches, four lanes");
    device.drain();
    scheduler.joins().handOverEveryStream();
    List<String> asked = device.drain();
    assertTrue(asked.contains("wait " + scheduler.legacyLane() + " for " + recordedOn(legacy, asked))
        || legacy == scheduler.legacyLane(), "the legacy stream: " + asked);
    assertEquals(List.of("wait app 9 for " + recordedOn(nonBlocking, asked)), waitsOf("app 9", asked),
        "the non-blocking stream, for its own work alone");
    // The legacy stream's wait would order only a blocking stream's later work: a synchronize of it
    // with no later work would wait for none of what the agent moved off it.
    assertEquals(List.of("wait app 8 for " + recordedOn(blocking, asked)), waitsOf("app 8", asked),
        "the blocking stream, for its own work alone");
    assertEquals(List.of(), waitsOf("app 7", asked), "a destroyed stream's handle may name freed memory");
    assertTrue(asked.stream().noneMatch(line -> line.startsWith("wait " + scheduler.legacyLane() + " for ")
        && (line.endsWith(" for " + eventOn(nonBlocking, asked)) || line.endsWith(" for " + eventOn(destroyed, asked)))),
        "the legacy stream does not wait for a non-blocking stream's work, which CUDA never orders before it: " + asked);
    assertTrue(asked.stream().noneMatch(line -> line.startsWith("sync")), "the host never waits: " + asked);
    scheduler.joins().handOverEveryStream();
    assertEquals(List.of(), device.drain(), "what the streams already follow is not waited for again");
  }

  @Test
  void handingBackMakesTheLegacyStreamFollowADestroyedBlockingStreamsWork() {
    scheduler.streamCreated(8, false);
    int blocking = launchOn(8, 2, W);
    scheduler.streamDestroyed(8);
    device.drain();
    scheduler.joins().handOverEveryStream();
    List<String> asked = device.drain();
    assertEquals(List.of(), waitsOf("app 8", asked), "a destroyed stream's handle may name freed memory");
    assertTrue(blocking == scheduler.legacyLane()
        || asked.contains("wait " + scheduler.legacyLane() + " for " + recordedOn(blocking, asked)),
        "CUDA orders the legacy stream's next call after a blocking stream's work, destroyed or not: " + asked);
  }

  @Test
  void aPerThreadStreamJoinsItsMovedWorkOnItsOwnThreadOnceAndTheLegacyStreamMeanwhile() {
    CallRecord launch = call(CallKind.LAUNCH, Scheduler.PER_THREAD_HANDLE, 0, W);
    launch.threadId = 42;
    int lane = scheduler.beforeAsyncWork(launch);
    scheduler.afterWork(launch, true);
    device.drain();
    scheduler.joins().handOverEveryStream();
    List<String> asked = device.drain();
    String event = recordedOn(lane, asked);
    assertTrue(asked.stream().noneMatch(line -> line.startsWith("wait app 2 ")),
        "another thread cannot name thread 42's per-thread stream: " + asked);
    assertTrue(asked.contains("wait " + scheduler.legacyLane() + " for " + event),
        "CUDA orders the legacy stream's next call after the per-thread stream's work: " + asked);
    List<Long> due = new java.util.ArrayList<>();
    scheduler.joins().threadsBehindTheHandOver(due::add);
    assertEquals(List.of(42L), due);

    scheduler.joins().joinHandOverOntoPerThreadStream(42);
    assertEquals(List.of("wait app 2 for " + event), device.drain());
    due.clear();
    scheduler.joins().threadsBehindTheHandOver(due::add);
    assertEquals(List.of(), due, "joined once");
    scheduler.joins().joinHandOverOntoPerThreadStream(42);
    scheduler.joins().joinHandOverOntoPerThreadStream(43);
    assertEquals(List.of(), device.drain(), "nothing again, and nothing for a thread with no per-thread stream");
  }

  /** The waits {@code asked} queued on {@code stream} ("app 9", or a lane's number). */
  private static List<String> waitsOf(String stream, List<String> asked) {
    return asked.stream().filter(line -> line.startsWith("wait " + stream + " for ")).toList();
  }

  /** The event {@code asked} recorded on {@code lane}, or "none". */
  private static String eventOn(int lane, List<String> asked) {
    return asked.stream().filter(line -> line.endsWith(" on " + lane)).findFirst()
        .map(line -> line.substring("record ".length(), line.indexOf(' ', "record ".length()))).orElse("none");
  }

  /** The event {@code asked} recorded on {@code lane}. */
  private static String recordedOn(int lane, List<String> asked) {
    return asked.stream().filter(line -> line.endsWith(" on " + lane)).findFirst()
        .map(line -> line.substring("record ".length(), line.indexOf(' ', "record ".length())))
        .orElseThrow(() -> new AssertionError("no event recorded on lane " + lane + ": " + asked));
  }
}
