package dev.kernelweave.scheduler;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kernelweave.call.AccessMode;
import dev.kernelweave.call.CallKind;
import dev.kernelweave.call.CallRecord;
import dev.kernelweave.ptx.MergedLaunchTable;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

class LaunchMergingTest {

  private static final long F = 0x100;
  private static final long G = 0x200;
  /** {@code kernel(u64 out, u64 in, u32 n)}. */
  private static final MergedLaunchTable TABLE = MergedLaunchTable.ofScalarParameters(8, 8, 4);

  /** Merges every kernel, keeps the tables it uploaded. */
  private static class MergingDevice implements GraphDevice {
    final List<byte[]> tables = new ArrayList<>();
    final List<Long> freed = new ArrayList<>();

    @Override
    public int launch(CallRecord call, int lane) {
      return 0;
    }

    @Override
    public long capture(CallRecord[] calls, int count, int[] predecessorStart, int[] predecessors) {
      return 1;
    }

    @Override
    public int launchGraph(long graph, int lane) {
      return 0;
    }

    @Override
    public void destroyGraph(long graph) {}

    @Override
    public MergedFunction mergedFunction(CallRecord launch) {
      return new MergedFunction(launch.function + 1, TABLE);
    }

    @Override
    public long uploadTable(byte[] table) {
      tables.add(table);
      return 0x1000L * tables.size();
    }

    @Override
    public void freeTable(long address) {
      freed.add(address);
    }
  }

  private final MergingDevice device = new MergingDevice();
  private final List<CallRecord> window = new ArrayList<>();

  /** A launch of {@code function} writing allocation {@code out} and reading {@code in}, over {@code grid} blocks. */
  private CallRecord launch(long function, int out, int in, int grid, int block) {
    CallRecord c = new CallRecord();
    c.kind = CallKind.LAUNCH;
    c.function = function;
    c.kernel = "k" + function;
    c.gridX = grid;
    c.gridY = 1;
    c.gridZ = 1;
    c.blockX = block;
    c.blockY = 1;
    c.blockZ = 1;
    c.addParam(0x7000_0000L + out * 0x1000L, 8);
    c.addParam(0x7000_0000L + in * 0x1000L, 8);
    c.addParam(grid * block, 4);
    c.addAccess(out, out, 0x7000_0000L + out * 0x1000L, 0, 0x1000, AccessMode.WRITE);
    c.addAccess(in, in, 0x7000_0000L + in * 0x1000L, 0, 0x1000, AccessMode.READ);
    window.add(c);
    return c;
  }

  /** Plans the window with its edges as {@link KnownWindow#capture} draws them. */
  private LaunchMerging.Plan plan(OrderingRules rules) {
    int count = window.size();
    CallRecord[] held = window.toArray(new CallRecord[0]);
    int[] start = new int[count + 1];
    List<Integer> edges = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      start[i] = edges.size();
      for (int j = 0; j < i; j++) {
        if (KnownWindow.conflict(held[i], held[j])) {
          edges.add(j);
        }
      }
    }
    start[count] = edges.size();
    return LaunchMerging.plan(held, count, start, edges.stream().mapToInt(Integer::intValue).toArray(), device, rules);
  }

  @Test
  void independentLaunchesOfOneKernelBecomeOneLaunchWithTheirGridsAndParametersInTheTable() {
    CallRecord a = launch(F, 1, 9, 1, 128);
    CallRecord b = launch(F, 2, 9, 3, 128);
    CallRecord c = launch(F, 3, 9, 2, 128);
    LaunchMerging.Plan plan = plan(OrderingRules.CUDA);
    assertEquals(1, plan.count());
    assertEquals(1, plan.mergedLaunches());
    assertEquals(3, plan.launchesMerged());
    CallRecord merged = plan.calls()[0];
    assertEquals(F + 1, merged.function);
    assertEquals(6, merged.gridX, "the instances' blocks, 1 + 3 + 2");
    assertEquals(128, merged.blockX);
    assertEquals(0x1000L, merged.paramAsLong(0));
    assertEquals(3, merged.paramAsLong(1));
    ByteBuffer t = ByteBuffer.wrap(device.tables.get(0)).order(ByteOrder.LITTLE_ENDIAN);
    CallRecord[] instances = {a, b, c};
    int[] firstBlocks = {0, 1, 4};
    for (int r = 0; r < 3; r++) {
      int row = r * TABLE.rowBytes();
      assertEquals(firstBlocks[r], t.getInt(row), "first block");
      assertEquals(instances[r].gridX, t.getInt(row + 4), "grid x");
      assertEquals(instances[r].paramAsLong(0), t.getLong(row + TABLE.parametersOffset()), "out");
      assertEquals(instances[r].paramAsLong(2), t.getInt(row + TABLE.parametersOffset() + 16), "n");
    }
  }

  @Test
  void overlappingWritesAreNotMerged() {
    launch(F, 1, 9, 1, 128);
    launch(F, 1, 8, 1, 128);
    assertNull(plan(OrderingRules.CUDA));
    assertEquals(1, plan(OrderingRules.CUDA.without(OrderingRules.Rule.MERGED_INSTANCES_NEVER_OVERLAP)).mergedLaunches(), "without the rule they are merged");
  }

  @Test
  void aLaunchReadingAnothersOutputIsNotMerged() {
    launch(F, 1, 9, 1, 128);
    launch(F, 2, 1, 1, 128);
    assertNull(plan(OrderingRules.CUDA));
    assertNull(plan(OrderingRules.CUDA.without(OrderingRules.Rule.MERGED_INSTANCES_NEVER_OVERLAP)), "not even without the rule: it reads what the other writes");
  }

  @Test
  void launchesOrderedThroughAnotherLaunchAreNotMerged() {
    launch(F, 1, 9, 1, 128);
    launch(G, 2, 1, 1, 128); // reads the first's output
    launch(F, 3, 2, 1, 128); // reads the second's: after the first, through it
    assertNull(plan(OrderingRules.CUDA));
  }

  @Test
  void anotherBlockShapeIsNotMergedButAnotherGridIs() {
    launch(F, 1, 9, 1, 128);
    launch(F, 2, 9, 1, 64);
    assertNull(plan(OrderingRules.CUDA));
    launch(F, 3, 9, 7, 128);
    LaunchMerging.Plan plan = plan(OrderingRules.CUDA);
    assertEquals(2, plan.count());
    assertEquals(2, plan.launchesMerged());
    assertEquals(8, plan.calls()[0].gridX);
  }

  @Test
  void groupsWhoseContractionWouldCloseACycleAreNotBothMerged() {
    launch(F, 1, 9, 1, 128); // a1 writes 1
    launch(G, 2, 9, 1, 128); // b2 writes 2
    launch(G, 3, 1, 1, 128); // b1 reads 1: after a1
    launch(F, 4, 2, 1, 128); // a2 reads 2: after b2
    LaunchMerging.Plan plan = plan(OrderingRules.CUDA);
    assertEquals(1, plan.mergedLaunches(), "F's pair or G's pair, not both");
    assertEquals(3, plan.count());
    // Every node after its predecessors.
    for (int i = 0; i < plan.count(); i++) {
      for (int e = plan.predecessorStart()[i]; e < plan.predecessorStart()[i + 1]; e++) {
        assertTrue(plan.predecessors()[e] < i);
      }
    }
  }

  @Test
  void aMergedLaunchFollowsItsInstancesPredecessorsAndPrecedesTheirSuccessors() {
    launch(G, 1, 9, 1, 128); // p: writes 1
    launch(F, 2, 1, 1, 128); // a: reads 1
    launch(F, 3, 8, 1, 128); // b
    launch(G + 1, 4, 3, 1, 128); // s: reads b's output
    LaunchMerging.Plan plan = plan(OrderingRules.CUDA);
    assertEquals(3, plan.count());
    assertEquals(G, plan.calls()[0].function);
    assertEquals(F + 1, plan.calls()[1].function);
    assertEquals(G + 1, plan.calls()[2].function);
    assertArrayEquals(new int[] {0, 0, 1, 2}, plan.predecessorStart());
    assertArrayEquals(new int[] {0, 1}, Arrays.copyOf(plan.predecessors(), 2));
  }

  @Test
  void kernelsUsingModuleVariablesAreNotMerged() {
    launch(F, 1, 9, 1, 128).moduleVariableCount = 1;
    launch(F, 2, 9, 1, 128).moduleVariableCount = 1;
    assertNull(plan(OrderingRules.CUDA));
  }

  @Test
  void theMutantGivesEveryInstanceTheFirstGrid() {
    launch(F, 1, 9, 1, 128);
    launch(F, 2, 9, 3, 128);
    LaunchMerging.Plan plan = plan(OrderingRules.CUDA.without(OrderingRules.Rule.MERGED_TABLE_KEEPS_EACH_GRID));
    ByteBuffer t = ByteBuffer.wrap(device.tables.get(0)).order(ByteOrder.LITTLE_ENDIAN);
    assertEquals(1, t.getInt(TABLE.rowBytes() + 4));
    assertEquals(2, plan.calls()[0].gridX);
  }

  @Test
  void aFailedCaptureOfTheMergedWindowCapturesItUnmergedAndFreesTheTables() {
    CallRecord[] held = {launch(F, 1, 9, 1, 128), launch(F, 2, 9, 1, 128)};
    List<Integer> captured = new ArrayList<>();
    MergingDevice failing = new MergingDevice() {
      @Override
      public long capture(CallRecord[] calls, int count, int[] predecessorStart, int[] predecessors) {
        captured.add(count);
        if (count == 1) {
          throw new IllegalStateException("no merged graph");
        }
        return 7;
      }
    };
    KnownWindow w = new KnownWindow(2);
    w.capture(held, 2, failing, true, OrderingRules.CUDA);
    assertEquals(List.of(1, 2), captured);
    assertEquals(7, w.graph);
    assertEquals(0, w.mergedLaunches);
    assertEquals(List.of(0x1000L), failing.freed);
  }

  @Test
  void aMergedGraphFreesItsTablesWithIt() {
    CallRecord[] held = {launch(F, 1, 9, 1, 128), launch(F, 2, 9, 1, 128)};
    KnownWindow w = new KnownWindow(2);
    w.capture(held, 2, device, true, OrderingRules.CUDA);
    assertEquals(1, w.mergedLaunches);
    assertEquals(2, w.launchesMerged);
    assertTrue(device.freed.isEmpty());
    KnownWindow.destroy(w, device);
    assertEquals(List.of(0x1000L), device.freed);
    assertEquals(0, w.graph);
  }
}
