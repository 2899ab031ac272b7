package dev.kernelweave.scheduler;

import dev.kernelweave.call.CallKind;
import dev.kernelweave.call.CallRecord;
import dev.kernelweave.ptx.MergedKernel;
import dev.kernelweave.ptx.MergedLaunchTable;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.BitSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;

/**
 * The step of a window's capture that merges launches of one kernel into one launch of its merged
 * variant ({@code ptx/KernelMerging}): k launches become one graph node that runs all their blocks.
 *
 * <p>Launches merge into one group when they launch the same function with the same block shape
 * and dynamic shared memory, the device has a merged variant of the kernel ({@link
 * GraphDevice#mergedFunction}), no instance writes bytes another instance reads or writes (their
 * byte-range accesses, {@link KnownWindow#conflict}), none depends on another through the window's
 * edges, directly or through other launches, and contracting every group into one node leaves the
 * window's graph without a cycle. Launches of kernels that use module variables are left alone: the
 * merged variant lives in a module of its own, whose variables are not the program's. Grids may
 * differ: the table gives each instance its own.
 *
 * <p>A merged node runs after the union of its instances' predecessors, and whatever followed an
 * instance follows it. Its table is built once here and uploaded to memory the caller owns with
 * the graph ({@link Plan#tables}): a graph is replayed only for launches word for word those it was
 * captured from ({@link LaunchSignature}), so the table stays right for the graph's life.
 *
 * <p>Stateless; called under the context's {@link Dispatch} lock, as the capture is.
 */
final class LaunchMerging {
  private LaunchMerging() {}

  /**
   * A window as captured with its merges: {@code calls[0 .. count)} in an order where every
   * predecessor comes first, the predecessor lists as {@link GraphDevice#capture} takes them, the
   * device tables of its merged launches, how many launches merged into how many, and for each of
   * the window's launches its part ({@link #ALONE}, {@link #FIRST_INSTANCE}, {@link #INSTANCE}).
   */
  record Plan(CallRecord[] calls, int count, int[] predecessorStart, int[] predecessors, long[] tables,
      int mergedLaunches, int launchesMerged, byte[] roles) {}

  /** A launch captured as it is. */
  static final byte ALONE = 0;
  /** The first instance of a merged launch. */
  static final byte FIRST_INSTANCE = 1;
  /** Another instance of a merged launch. */
  static final byte INSTANCE = 2;

  /**
   * The window {@code held[0 .. count)} with its mergeable launches merged, or null when none merge.
   * A table that cannot be uploaded leaves its group unmerged; tables uploaded before a failure are
   * freed before it propagates.
   */
  static Plan plan(CallRecord[] held, int count, int[] start, int[] predecessors, GraphDevice device, OrderingRules rules) {
    BitSet[] ancestors = ancestors(count, start, predecessors);
    int[] group = new int[count];
    Arrays.fill(group, -1);
    List<List<Integer>> groups = new ArrayList<>();
    List<GraphDevice.MergedFunction> functions = new ArrayList<>();
    Map<Long, GraphDevice.MergedFunction> variants = new HashMap<>();
    for (int i = 0; i < count; i++) {
      if (group[i] >= 0 || !candidate(held[i])) {
        continue;
      }
      if (!variants.containsKey(held[i].function)) {
        variants.put(held[i].function, device.mergedFunction(held[i]));
      }
      GraphDevice.MergedFunction variant = variants.get(held[i].function);
      if (variant == null || !fitsTable(held[i], variant.table())) {
        continue;
      }
      List<Integer> members = new ArrayList<>(List.of(i));
      int id = groups.size();
      group[i] = id;
      groups.add(members);
      for (int j = i + 1; j < count; j++) {
        if (group[j] >= 0 || !sameShape(held[i], held[j]) || !candidate(held[j])) {
          continue;
        }
        if (!independent(held, members, j, ancestors, rules)) {
          continue;
        }
        members.add(j);
        group[j] = id;
        if (order(count, start, predecessors, group, groups.size()) == null) {
          members.remove(members.size() - 1); // contracting it would close a cycle
          group[j] = -1;
        }
      }
      if (members.size() < 2) {
        group[i] = -1;
        groups.remove(id);
      } else {
        functions.add(variant);
      }
    }
    if (groups.isEmpty()) {
      return null;
    }
    return build(held, count, start, predecessors, group, groups, functions, device, rules);
  }

  private static boolean candidate(CallRecord call) {
    return call.kind == CallKind.LAUNCH && call.function != 0 && call.moduleVariableCount == 0
        && !call.touchesUnknownMemory;
  }

  private static boolean sameShape(CallRecord a, CallRecord b) {
    return a.function == b.function && a.blockX == b.blockX && a.blockY == b.blockY && a.blockZ == b.blockZ
        && a.sharedMemBytes == b.sharedMemBytes && a.paramCount == b.paramCount;
  }

  /** Whether the launch's parameters are those the table lays out, parameter by parameter. */
  private static boolean fitsTable(CallRecord call, MergedLaunchTable table) {
    if (call.paramCount != table.parameterCount()) {
      return false;
    }
    for (int p = 0; p < call.paramCount; p++) {
      if (call.paramSize(p) != table.parameterSize(p)) {
        return false;
      }
    }
    return true;
  }

  /**
   * Whether launch {@code j} may join {@code members}: no edge between it and any of them, however
   * long, and no byte one of them writes that another reads or writes.
   */
  private static boolean independent(CallRecord[] held, List<Integer> members, int j, BitSet[] ancestors,
      OrderingRules rules) {
    for (int m : members) {
      if (!rules.keeps(OrderingRules.Rule.MERGED_INSTANCES_NEVER_OVERLAP)) {
        if (readsWhatOtherWrites(held[m], held[j]) || readsWhatOtherWrites(held[j], held[m])) {
          return false;
        }
        continue; // the bug: the edge of two overlapping writes does not keep them apart
      }
      if (ancestors[j].get(m) || ancestors[m].get(j) || KnownWindow.conflict(held[m], held[j])) {
        return false;
      }
    }
    return true;
  }

  /** Whether {@code reader} reads bytes {@code writer} writes (the narrower test without {@link OrderingRules.Rule#MERGED_INSTANCES_NEVER_OVERLAP}). */
  private static boolean readsWhatOtherWrites(CallRecord reader, CallRecord writer) {
    for (int i = 0; i < reader.accessCount; i++) {
      for (int j = 0; j < writer.accessCount; j++) {
        if (reader.accessId[i] == writer.accessId[j] && reader.accessMode(i).reads() && writer.accessMode(j).writes()
            && reader.accessOffset[i] < writer.accessOffset[j] + writer.accessSize[j]
            && writer.accessOffset[j] < reader.accessOffset[i] + reader.accessSize[i]) {
          return true;
        }
      }
    }
    return false;
  }

  /** For each launch, every launch it runs after, directly or through others. */
  private static BitSet[] ancestors(int count, int[] start, int[] predecessors) {
    BitSet[] ancestors = new BitSet[count];
    for (int i = 0; i < count; i++) {
      ancestors[i] = new BitSet(count);
      for (int e = start[i]; e < start[i + 1]; e++) {
        int p = predecessors[e];
        ancestors[i].set(p);
        ancestors[i].or(ancestors[p]);
      }
    }
    return ancestors;
  }

  /**
   * The nodes of the window with each group contracted ({@code group[i]}: launch i's group or -1;
   * group g is node {@code count + g}), in an order where every node comes after its predecessors,
   * the lowest launch first among those ready; null when the contraction has a cycle. An edge inside
   * a group is dropped (only rules without {@link OrderingRules.Rule#MERGED_INSTANCES_NEVER_OVERLAP} keep one there).
   */
  private static int[] order(int count, int[] start, int[] predecessors, int[] group, int groups) {
    int nodes = count + groups;
    int[] indegree = new int[nodes];
    List<List<Integer>> successors = new ArrayList<>(nodes);
    for (int n = 0; n < nodes; n++) {
      successors.add(new ArrayList<>());
    }
    boolean[] present = new boolean[nodes];
    for (int i = 0; i < count; i++) {
      int to = node(i, group, count);
      present[to] = true;
      for (int e = start[i]; e < start[i + 1]; e++) {
        int from = node(predecessors[e], group, count);
        if (from != to) {
          successors.get(from).add(to);
          indegree[to]++;
        }
      }
    }
    PriorityQueue<Integer> ready = new PriorityQueue<>(
        (a, b) -> Integer.compare(firstLaunch(a, group, count), firstLaunch(b, group, count)));
    int total = 0;
    for (int n = 0; n < nodes; n++) {
      if (present[n]) {
        total++;
        if (indegree[n] == 0) {
          ready.add(n);
        }
      }
    }
    int[] order = new int[total];
    int placed = 0;
    while (!ready.isEmpty()) {
      int n = ready.poll();
      order[placed++] = n;
      for (int s : successors.get(n)) {
        if (--indegree[s] == 0) {
          ready.add(s);
        }
      }
    }
    return placed == total ? order : null;
  }

  private static int node(int launch, int[] group, int count) {
    return group[launch] >= 0 ? count + group[launch] : launch;
  }

  private static int firstLaunch(int node, int[] group, int count) {
    if (node < count) {
      return node;
    }
    for (int i = 0; i < count; i++) {
      if (group[i] == node - count) {
        return i;
      }
    }
    return count;
  }

  private static Plan build(CallRecord[] held, int count, int[] start, int[] predecessors, int[] group,
      List<List<Integer>> groups, List<GraphDevice.MergedFunction> functions, GraphDevice device, OrderingRules rules) {
    int[] order = order(count, start, predecessors, group, groups.size());
    if (order == null) {
      return null; // each group was checked as it grew: cannot happen, and then nothing merges
    }
    long[] tables = new long[groups.size()];
    int uploaded = 0;
    CallRecord[] calls = new CallRecord[order.length];
    int[] position = new int[count + groups.size()];
    int merged = 0;
    int replaced = 0;
    try {
      for (int at = 0; at < order.length; at++) {
        int n = order[at];
        position[n] = at;
        if (n < count) {
          calls[at] = held[n];
          continue;
        }
        List<Integer> members = groups.get(n - count);
        GraphDevice.MergedFunction f = functions.get(n - count);
        byte[] table = table(held, members, f.table(), rules);
        long address = device.uploadTable(table);
        tables[uploaded++] = address;
        calls[at] = mergedLaunch(held, members, f, address, totalBlocks(table, f.table(), members.size()));
        merged++;
        replaced += members.size();
      }
    } catch (RuntimeException e) {
      for (int t = 0; t < uploaded; t++) {
        device.freeTable(tables[t]);
      }
      throw e;
    }
    int[] newStart = new int[order.length + 1];
    int[] newPredecessors = new int[Math.max(1, start[count])];
    int edges = 0;
    for (int at = 0; at < order.length; at++) {
      newStart[at] = edges;
      int n = order[at];
      BitSet from = new BitSet();
      for (int i = 0; i < count; i++) {
        if (node(i, group, count) != n) {
          continue;
        }
        for (int e = start[i]; e < start[i + 1]; e++) {
          int p = node(predecessors[e], group, count);
          if (p != n) {
            from.set(position[p]);
          }
        }
      }
      for (int p = from.nextSetBit(0); p >= 0; p = from.nextSetBit(p + 1)) {
        if (edges == newPredecessors.length) {
          newPredecessors = Arrays.copyOf(newPredecessors, edges * 2);
        }
        newPredecessors[edges++] = p;
      }
    }
    newStart[order.length] = edges;
    byte[] roles = new byte[count];
    for (List<Integer> members : groups) {
      for (int m : members) {
        roles[m] = m == members.get(0) ? FIRST_INSTANCE : INSTANCE;
      }
    }
    return new Plan(calls, order.length, newStart, newPredecessors, Arrays.copyOf(tables, uploaded), merged, replaced,
        roles);
  }

  /** The table's rows for the group's launches, in launch order. */
  static byte[] table(CallRecord[] held, List<Integer> members, MergedLaunchTable layout, OrderingRules rules) {
    ByteBuffer table = ByteBuffer.allocate(Math.toIntExact(layout.tableBytes(members.size())))
        .order(ByteOrder.LITTLE_ENDIAN);
    byte[] parameters = new byte[layout.parameterBytes()];
    CallRecord first = held[members.get(0)];
    long firstBlock = 0;
    for (int row = 0; row < members.size(); row++) {
      CallRecord c = held[members.get(row)];
      Arrays.fill(parameters, (byte) 0);
      for (int p = 0; p < c.paramCount; p++) {
        System.arraycopy(c.paramBytes, c.paramOffsets[p], parameters, layout.parameterOffset(p), c.paramSize(p));
      }
      // Without the rule (a mutant's bug), every instance gets the first one's grid.
      CallRecord grid = rules.keeps(OrderingRules.Rule.MERGED_TABLE_KEEPS_EACH_GRID) ? c : first;
      firstBlock = layout.writeRow(table, row, firstBlock, parameters, grid.gridX, grid.gridY, grid.gridZ);
    }
    return table.array();
  }

  /** The merged launch's grid x: where the block after the last row's would start. */
  private static long totalBlocks(byte[] table, MergedLaunchTable layout, int rows) {
    ByteBuffer b = ByteBuffer.wrap(table).order(ByteOrder.LITTLE_ENDIAN);
    int last = (rows - 1) * layout.rowBytes();
    return Integer.toUnsignedLong(b.getInt(last)) + Integer.toUnsignedLong(b.getInt(last + 4))
        * Integer.toUnsignedLong(b.getInt(last + 8)) * Integer.toUnsignedLong(b.getInt(last + 12));
  }

  /** The launch of the merged variant standing for the group: its function, grid, and {@code (table, count)}. */
  private static CallRecord mergedLaunch(CallRecord[] held, List<Integer> members, GraphDevice.MergedFunction f,
      long table, long blocks) {
    CallRecord first = held[members.get(0)];
    CallRecord m = new CallRecord();
    m.kind = CallKind.LAUNCH;
    m.name = first.name;
    m.kernel = first.kernel + MergedKernel.SUFFIX;
    m.context = first.context;
    m.seq = first.seq;
    m.threadId = first.threadId;
    m.function = f.function();
    m.gridX = (int) blocks;
    m.gridY = 1;
    m.gridZ = 1;
    m.blockX = first.blockX;
    m.blockY = first.blockY;
    m.blockZ = first.blockZ;
    m.sharedMemBytes = first.sharedMemBytes;
    m.addParam(table, 8);
    m.addParam(members.size(), 4);
    return m;
  }
}
