package dev.kernelweave.scheduler;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kernelweave.call.AccessMode;
import dev.kernelweave.call.CallKind;
import dev.kernelweave.call.CallRecord;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Dependencies per byte range: accesses of one allocation conflict only where their ranges overlap
 * and one of them writes, through the scheduler's decisions and the tracker's own bounds.
 */
class DependencyTrackerTest {

  private static final AccessMode R = AccessMode.READ;
  private static final AccessMode W = AccessMode.WRITE;
  private static final int SLOT = 3;
  private static final int SLICE = 4096;

  private final RecordingDevice device = new RecordingDevice();
  private final Scheduler scheduler = new Scheduler(device, 4, OrderingRules.CUDA);
  private long seq;

  /** A launch touching {@code [offset, offset + size)} of slot {@link #SLOT}; returns its record. */
  private CallRecord launch(long offset, long size, AccessMode mode) {
    CallRecord call = access(offset, size, mode);
    scheduler.beforeAsyncWork(call);
    scheduler.afterWork(call, true);
    return call;
  }

  private CallRecord access(long offset, long size, AccessMode mode) {
    CallRecord call = new CallRecord();
    call.seq = ++seq;
    call.kind = CallKind.LAUNCH;
    call.addAccess(100, SLOT, 0x10000, offset, size, mode);
    return call;
  }

  private static long[] predecessors(CallRecord call) {
    long[] p = Arrays.copyOf(call.predecessors, call.predecessorCount);
    Arrays.sort(p);
    return p;
  }

  /** The call waited for the newest of {@code earlier} on every lane but its own. */
  private static void assertFollows(CallRecord call, List<CallRecord> earlier) {
    java.util.TreeMap<Integer, Long> newest = new java.util.TreeMap<>();
    for (CallRecord e : earlier) {
      newest.merge(e.stream, e.seq, Math::max);
    }
    newest.remove(call.stream);
    long[] expected = newest.values().stream().mapToLong(Long::longValue).sorted().toArray();
    assertTrue(newest.size() > 1, "the slices spread over lanes");
    assertEquals(Arrays.toString(expected), Arrays.toString(predecessors(call)));
  }

  @Test
  void disjointWritesToSlicesOfOneAllocationRunOnDifferentLanesWithNoEventBetweenThem() {
    List<Integer> lanes = new ArrayList<>();
    for (int i = 0; i < 4; i++) {
      CallRecord call = launch((long) i * SLICE, SLICE, W);
      lanes.add(call.stream);
      assertEquals(0, call.predecessorCount);
    }
    assertEquals(List.of(0, 1, 2, 3), lanes);
    for (String op : device.drain()) {
      assertTrue(op.startsWith("createStream"), "no event, no wait: " + op);
    }
  }

  @Test
  void overlappingWritesAreOrdered() {
    CallRecord first = launch(0, SLICE, W);
    launch(2L * SLICE, SLICE, W); // another lane, so that the next call is not a plain chain
    CallRecord second = launch(SLICE / 2, SLICE, W);
    assertTrue(second.stream == first.stream || Arrays.equals(new long[] {first.seq}, predecessors(second)),
        "the overlapping write follows the first: lane " + second.stream + ", after " + Arrays.toString(predecessors(second)));
  }

  @Test
  void readsOfASliceFollowOnlyThatSlicesWriterAndAWriteFollowsOnlyOverlappingReaders() {
    CallRecord a = launch(0, SLICE, W);
    CallRecord b = launch(SLICE, SLICE, W);
    CallRecord readB = launch(SLICE + 16, 16, R);
    assertEquals(b.stream, readB.stream, "a chain on the writer's lane");
    CallRecord readA = launch(0, 16, R);
    assertEquals(a.stream, readA.stream);
    CallRecord writeA = launch(8, 8, W);
    assertEquals(readA.stream, writeA.stream, "follows the reader of its bytes, on its lane; not the reader of b");
    assertEquals(0, writeA.predecessorCount);
  }

  @Test
  void aCoveringWriteAfterManySliceWritesFollowsAllOfThem() {
    List<CallRecord> slices = new ArrayList<>();
    for (int i = 0; i < 40; i++) {
      slices.add(launch((long) i * SLICE, SLICE, W));
    }
    CallRecord covering = launch(0, 40L * SLICE, W);
    assertFollows(covering, slices);
    // The covering write stands for all of them now: a read of any slice follows it alone.
    CallRecord read = launch(5L * SLICE, 8, R);
    assertEquals(covering.stream, read.stream);
    assertEquals(0, read.predecessorCount);
  }

  @Test
  void readsOfEverySliceFollowTheirWriterAfterTheEntriesWereMerged() {
    StreamPool pool = new StreamPool(4);
    DependencyTracker tracker = new DependencyTracker(pool, OrderingRules.CUDA);
    int slices = 3 * DependencyTracker.MAX_ENTRIES;
    int[] lane = new int[slices];
    long[] position = new long[slices];
    for (int i = 0; i < slices; i++) {
      lane[i] = (i * 7) % pool.laneCount; // neighbouring slices on different lanes
      position[i] = pool.issue(lane[i]);
      tracker.record(access((long) i * SLICE, SLICE, W), lane[i], position[i]);
    }
    LanePositions needs = new LanePositions(pool.laneCount);
    for (int i = 0; i < slices; i++) {
      needs.clear();
      tracker.collect(access((long) i * SLICE + 100, 4, R), needs);
      assertTrue(needs.position(lane[i]) >= position[i], "slice " + i + " read follows its writer");
    }
    needs.clear();
    tracker.collect(access((long) slices * SLICE, SLICE, W), needs);
    assertEquals(0, needs.count(), "bytes no one touched follow nothing, merged or not");
  }

  @Test
  void mergedEntriesStillOrderAWriteAfterEveryOverlappingRead() {
    StreamPool pool = new StreamPool(8);
    DependencyTracker tracker = new DependencyTracker(pool, OrderingRules.CUDA);
    int reads = 2 * DependencyTracker.MAX_ENTRIES + 1;
    long[] position = new long[pool.laneCount];
    for (int i = 0; i < reads; i++) {
      int lane = i % pool.laneCount;
      position[lane] = pool.issue(lane);
      tracker.record(access((long) i * 64, 64, R), lane, position[lane]);
    }
    LanePositions needs = new LanePositions(pool.laneCount);
    tracker.collect(access(0, (long) reads * 64, W), needs);
    for (int lane = 0; lane < pool.laneCount; lane++) {
      assertEquals(position[lane], needs.position(lane), "the newest reader of lane " + lane);
    }
  }

  @Test
  void aFreeWaitsForTheUsersOfEveryRange() {
    StreamPool pool = new StreamPool(4);
    DependencyTracker tracker = new DependencyTracker(pool, OrderingRules.CUDA);
    for (int lane = 0; lane < 4; lane++) {
      tracker.record(access((long) lane * SLICE, SLICE, lane % 2 == 0 ? W : R), lane, pool.issue(lane));
    }
    LanePositions users = new LanePositions(pool.laneCount);
    tracker.collectUsers(SLOT, users);
    assertEquals(4, users.count());
    for (int lane = 0; lane < 4; lane++) {
      assertEquals(1, users.position(lane));
    }
  }

  @Test
  void completeEntriesAreForgotten() {
    StreamPool pool = new StreamPool(2);
    DependencyTracker tracker = new DependencyTracker(pool, OrderingRules.CUDA);
    tracker.record(access(0, SLICE, W), 0, pool.issue(0));
    pool.completeAll();
    LanePositions needs = new LanePositions(pool.laneCount);
    tracker.collect(access(0, SLICE, R), needs);
    tracker.collectUsers(SLOT, needs);
    assertEquals(0, needs.count());
  }

  @Test
  void theIgnoreRangeOverlapMutantMissesAPartialOverlap() {
    StreamPool pool = new StreamPool(2);
    DependencyTracker tracker = new DependencyTracker(pool, OrderingRules.CUDA.without(OrderingRules.Rule.PARTIAL_OVERLAPS_CONFLICT));
    tracker.record(access(0, 64, W), 0, pool.issue(0));
    LanePositions needs = new LanePositions(pool.laneCount);
    tracker.collect(access(32, 64, R), needs);
    assertEquals(0, needs.count());
    tracker.collect(access(16, 16, R), needs);
    assertEquals(1, needs.count(), "a range held inside the write still follows it");
  }

  @Test
  void anAccessWithoutARangeStandsForTheWholeAllocation() {
    StreamPool pool = new StreamPool(2);
    DependencyTracker tracker = new DependencyTracker(pool, OrderingRules.CUDA);
    tracker.record(access(1 << 20, SLICE, W), 0, pool.issue(0));
    LanePositions needs = new LanePositions(pool.laneCount);
    tracker.collect(access(0, 0, R), needs);
    assertEquals(1, needs.count());
  }
}
