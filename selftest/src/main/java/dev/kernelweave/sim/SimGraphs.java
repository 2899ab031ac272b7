package dev.kernelweave.sim;

import dev.kernelweave.call.CallRecord;
import dev.kernelweave.ptx.MergedLaunchTable;
import dev.kernelweave.scheduler.GraphDevice;
import dev.kernelweave.selftest.SelfTestKernel;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Graphs on the simulated device, as CUDA runs them: the function handles of its kernels, held
 * launches decoded from their records back into the kernels they stand for, captured graphs by
 * handle, and each graph launch as an entry and an exit on its lane with the nodes between them off
 * every lane.
 *
 * <p>A merged launch ({@link GraphDevice#mergedFunction}) is modelled as the launches its table's
 * rows describe, each decoded and checked as a held launch is (a row with another grid than its
 * kernel's launch has is a fault), run side by side as one node: a wrong table, or instances that
 * write the same bytes, show as faults or wrong results.
 *
 * <p>Not thread-safe: it belongs to one {@link SimDevice}.
 */
final class SimGraphs implements GraphDevice {

  /** Function handles: this plus a kernel's number (see {@link #function}). */
  private static final long FUNCTIONS = 0x5f00_0000_0000L;
  static final long READS_CONSTANT = FUNCTIONS + 0x100;
  static final long WITHOUT_PTX = FUNCTIONS + 0x200;
  /** Merged variants' handles: this plus the kernel's number. */
  private static final long MERGED = FUNCTIONS + 0x300;
  /** Where uploaded tables are said to lie, 256 bytes apart at least. */
  private static final long TABLES = 0x7a00_0000_0000L;
  /** The self-test kernels' table: out, in1, in2 (8 bytes each), n, k (4 bytes each). */
  private static final MergedLaunchTable TABLE = MergedLaunchTable.ofScalarParameters(8, 8, 8, 4, 4);
  /** CUDA_ERROR_INVALID_VALUE, CUDA_ERROR_INVALID_HANDLE. */
  private static final int INVALID_VALUE = 1;
  private static final int INVALID_HANDLE = 400;

  private final SimEngine engine;
  private final SimOperations operations;
  /** Captured graphs by handle: the launches as captured, and each one's predecessors in the graph. */
  private final Map<Long, Graph> graphs = new HashMap<>();
  /** Merged launches' tables by address, as uploaded. */
  private final Map<Long, byte[]> tables = new HashMap<>();
  private long nextGraph;
  private long nextTable;

  SimGraphs(SimEngine engine, SimOperations operations) {
    this.engine = engine;
    this.operations = operations;
  }

  static long function(SelfTestKernel kernel) {
    return FUNCTIONS + 1 + kernel.ordinal();
  }

  /** A launch as its record describes it: a kernel ({@code null}: the one reading the constant) and its arguments. */
  private record HeldLaunch(SelfTestKernel kernel, long out, long in1, long in2, int n, int k) {
    KernelLabel describe() {
      return new KernelLabel(kernel == null ? "FILL_FROM_CONSTANT" : kernel.name(), n, k);
    }
  }

  /**
   * A captured graph: its nodes as they were captured (one launch each, or a merged launch's
   * instances), each one's predecessors among them, and the tables its merged launches read.
   */
  private static final class Graph {
    final HeldLaunch[][] launches;
    final int[][] predecessors;
    final List<Long> tables;
    /** The exit of its newest launch: CUDA runs one launch of a graph at a time. */
    SimOp lastExit;

    Graph(HeldLaunch[][] launches, int[][] predecessors, List<Long> tables) {
      this.launches = launches;
      this.predecessors = predecessors;
      this.tables = tables;
    }
  }

  @Override
  public MergedFunction mergedFunction(CallRecord launch) {
    long number = launch.function - FUNCTIONS - 1;
    return number >= 0 && number < SelfTestKernel.values().length ? new MergedFunction(MERGED + number, TABLE) : null;
  }

  @Override
  public long uploadTable(byte[] table) {
    long address = TABLES + 256 * ++nextTable * ((table.length + 255) / 256 + 1);
    tables.put(address, table.clone());
    return address;
  }

  @Override
  public void freeTable(long address) {
    if (tables.remove(address) == null) {
      engine.fault(String.format(Locale.ROOT, "freeTable(0x%x): no such table", address));
    }
  }

  @Override
  public int launch(CallRecord call, int lane) {
    engine.hostStep();
    HeldLaunch launch = decode(call);
    if (launch == null) {
      return INVALID_VALUE;
    }
    engine.enqueue(lane, op(launch, lane));
    return 0;
  }

  @Override
  public long capture(CallRecord[] calls, int count, int[] predecessorStart, int[] predecessors) {
    HeldLaunch[][] launches = new HeldLaunch[count][];
    int[][] edges = new int[count][];
    List<Long> read = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      launches[i] = calls[i].function - MERGED >= 0 && calls[i].function - MERGED < SelfTestKernel.values().length
          ? decodeMerged(calls[i], read)
          : single(decode(calls[i]));
      if (launches[i] == null) {
        throw new IllegalArgumentException("launch " + i + " of the window cannot be captured");
      }
      edges[i] = Arrays.copyOfRange(predecessors, predecessorStart[i], predecessorStart[i + 1]);
      for (int p : edges[i]) {
        if (p < 0 || p >= i) {
          throw new IllegalArgumentException("launch " + i + " follows launch " + p + ", not an earlier one");
        }
      }
    }
    long handle = ++nextGraph;
    graphs.put(handle, new Graph(launches, edges, read));
    return handle;
  }

  @Override
  public int launchGraph(long graph, int lane) {
    engine.hostStep();
    Graph g = graphs.get(graph);
    if (g == null) {
      engine.fault("launchGraph(" + graph + "): no such graph");
      return INVALID_HANDLE;
    }
    // As cuGraphLaunch: an entry on the lane, the nodes off it, each after the entry and its own
    // predecessors only, then an exit on the lane after all of them.
    SimOp entry = engine.marker(lane, SimOp.Kind.RECORD, "graph " + graph + " entry");
    if (g.lastExit != null) {
      entry.after.add(g.lastExit);
    }
    engine.enqueue(lane, entry);
    for (long t : g.tables) {
      if (!tables.containsKey(t)) {
        engine.fault(String.format(Locale.ROOT, "launchGraph(%d): its merged launch's table 0x%x was freed", graph, t));
      }
    }
    SimOp exit = engine.marker(lane, SimOp.Kind.RECORD, "graph " + graph + " exit");
    SimOp[][] nodes = new SimOp[g.launches.length][];
    for (int i = 0; i < nodes.length; i++) {
      nodes[i] = new SimOp[g.launches[i].length];
      for (int m = 0; m < nodes[i].length; m++) {
        SimOp node = op(g.launches[i][m], SimOp.NO_LANE);
        node.after.add(entry);
        for (int p : g.predecessors[i]) {
          node.after.addAll(Arrays.asList(nodes[p]));
        }
        nodes[i][m] = node;
        engine.addFloating(node);
        exit.after.add(node);
      }
    }
    g.lastExit = exit;
    engine.enqueue(lane, exit);
    engine.kickFloating();
    return 0;
  }

  @Override
  public void destroyGraph(long graph) {
    if (graphs.remove(graph) == null) {
      engine.fault("destroyGraph(" + graph + "): no such graph");
    }
  }

  /** The launch a held record stands for, or null (and a fault) when it names no kernel of this device as launched. */
  private HeldLaunch decode(CallRecord call) {
    boolean readsConstant = call.function == READS_CONSTANT;
    SelfTestKernel kernel = null;
    if (!readsConstant) {
      long number = call.function - FUNCTIONS - 1;
      if (number < 0 || number >= SelfTestKernel.values().length) {
        engine.fault(String.format(Locale.ROOT, "a held launch of function 0x%x, no kernel the agent may issue itself",
            call.function));
        return null;
      }
      kernel = SelfTestKernel.values()[(int) number];
    }
    int[] layout = readsConstant ? new int[] {8, 4, 4} : new int[] {8, 8, 8, 4, 4};
    boolean matches = call.paramCount == layout.length;
    for (int i = 0; matches && i < layout.length; i++) {
      matches = call.paramSize(i) == layout[i];
    }
    if (!matches) {
      engine.fault("a held launch of " + (readsConstant ? "FILL_FROM_CONSTANT" : kernel) + " with " + call.paramCount
          + " parameters not in its layout");
      return null;
    }
    HeldLaunch launch = readsConstant
        ? new HeldLaunch(null, call.paramAsLong(0), 0, 0, (int) call.paramAsLong(1), (int) call.paramAsLong(2))
        : new HeldLaunch(kernel, call.paramAsLong(0), call.paramAsLong(1), call.paramAsLong(2),
            (int) call.paramAsLong(3), (int) call.paramAsLong(4));
    if (call.gridX != SelfTestKernel.blocks(launch.n()) || call.gridY != 1 || call.gridZ != 1 || call.blockX != SelfTestKernel.BLOCK
        || call.blockY != 1 || call.blockZ != 1 || call.sharedMemBytes != 0) {
      engine.fault("a held launch of " + launch.describe() + " with another grid or block than it was launched with");
      return null;
    }
    return launch;
  }

  private static HeldLaunch[] single(HeldLaunch launch) {
    return launch == null ? null : new HeldLaunch[] {launch};
  }

  /**
   * The instances a merged launch's table describes, each checked as a held launch is, or null (and
   * a fault) where the table, its rows or the merged launch's grid are not what the kernels need.
   */
  private HeldLaunch[] decodeMerged(CallRecord call, List<Long> read) {
    SelfTestKernel kernel = SelfTestKernel.values()[(int) (call.function - MERGED)];
    byte[] table = call.paramCount == 2 ? tables.get(call.paramAsLong(0)) : null;
    int count = call.paramCount == 2 ? (int) call.paramAsLong(1) : 0;
    if (table == null || count < 2 || table.length < TABLE.tableBytes(count)) {
      engine.fault("a merged launch of " + kernel + " without its table of " + count + " rows");
      return null;
    }
    read.add(call.paramAsLong(0));
    ByteBuffer rows = ByteBuffer.wrap(table).order(ByteOrder.LITTLE_ENDIAN);
    HeldLaunch[] instances = new HeldLaunch[count];
    long firstBlock = 0;
    CallRecord row = new CallRecord();
    for (int i = 0; i < count; i++) {
      int at = i * TABLE.rowBytes();
      row.reset();
      row.function = function(kernel);
      row.gridX = rows.getInt(at + 4);
      row.gridY = rows.getInt(at + 8);
      row.gridZ = rows.getInt(at + 12);
      row.blockX = call.blockX;
      row.blockY = call.blockY;
      row.blockZ = call.blockZ;
      row.sharedMemBytes = call.sharedMemBytes;
      for (int p = 0; p < TABLE.parameterCount(); p++) {
        int from = at + TABLE.parametersOffset() + TABLE.parameterOffset(p);
        row.addParam(TABLE.parameterSize(p) == 8 ? rows.getLong(from) : rows.getInt(from), TABLE.parameterSize(p));
      }
      if (Integer.toUnsignedLong(rows.getInt(at)) != firstBlock) {
        engine.fault("a merged launch of " + kernel + " whose row " + i + " starts at another block than its own");
        return null;
      }
      firstBlock += (long) row.gridX * row.gridY * row.gridZ;
      instances[i] = decode(row);
      if (instances[i] == null) {
        return null;
      }
    }
    if (call.gridX != firstBlock || call.gridY != 1 || call.gridZ != 1) {
      engine.fault("a merged launch of " + kernel + " with " + call.gridX + " blocks, its rows have " + firstBlock);
      return null;
    }
    return instances;
  }

  private SimOp op(HeldLaunch launch, int lane) {
    return launch.kernel() == null
        ? operations.readingConstant(lane, launch.out(), launch.n(), launch.k())
        : operations.kernel(lane, launch.kernel(), launch.out(), launch.in1(), launch.in2(), launch.n(), launch.k());
  }
}
