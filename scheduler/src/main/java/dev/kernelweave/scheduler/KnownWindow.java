package dev.kernelweave.scheduler;

import dev.kernelweave.call.AccessMode;
import dev.kernelweave.call.CallKind;
import dev.kernelweave.call.CallRecord;
import java.util.Arrays;

/**
 * A window {@link LaunchWindows} saw before: its length, and once it repeated, its graph, what it
 * was captured from and the union of what its launches touch (the replay's accesses).
 *
 * <p>Not thread-safe: used under the context's {@link Dispatch} lock, as its windows are.
 */
final class KnownWindow {
  final int length;
  long graph;
  /** How many times the window was held whole before it had a graph. */
  int heldWhole;
  /** Whether the graph holds cuBLAS routines. */
  boolean routines;
  /** The words of the launches the graph was captured from ({@link LaunchSignature}). */
  long[] signature;
  /** The device tables of the graph's merged launches ({@link LaunchMerging}), freed with it. */
  long[] tables = NO_TABLES;
  /** Merged launches in the graph, and the launches they stand for. */
  int mergedLaunches;
  int launchesMerged;
  /** Each launch's part in a merged launch ({@link LaunchMerging#ALONE}...); null when none merged. */
  byte[] mergeRoles;
  /** Whether the device runs this window faster as its graph or as its launches in order. */
  final WindowVerdict verdict = new WindowVerdict();
  /** The union of the launches' accesses, one per allocation, as the replay's. */
  private final CallRecord union = new CallRecord();

  private static final long[] NO_TABLES = new long[0];

  KnownWindow(int length) {
    this.length = length;
  }

  /**
   * Captures the window's graph from {@code held[0 .. count)}, with launches of one kernel merged
   * where {@code merge} and {@link LaunchMerging} allow; a merged capture that fails is made again
   * unmerged, so that merging never costs the window its graph.
   */
  void capture(CallRecord[] held, int count, GraphDevice device, boolean merge, OrderingRules rules) {
    int[] start = new int[count + 1];
    int[] predecessors = new int[Math.max(16, count)];
    int edges = 0;
    for (int i = 0; i < count; i++) {
      start[i] = edges;
      for (int j = 0; j < i; j++) {
        if (conflict(held[i], held[j])) {
          if (edges == predecessors.length) {
            predecessors = Arrays.copyOf(predecessors, edges * 2);
          }
          predecessors[edges++] = j;
        }
      }
    }
    start[count] = edges;
    tables = NO_TABLES;
    mergedLaunches = 0;
    launchesMerged = 0;
    mergeRoles = null;
    LaunchMerging.Plan plan = null;
    if (merge) {
      try {
        plan = LaunchMerging.plan(held, count, start, predecessors, device, rules);
      } catch (RuntimeException e) {
        plan = null; // a table could not be had: captured unmerged
      }
    }
    graph = 0;
    if (plan != null) {
      try {
        graph = device.capture(plan.calls(), plan.count(), plan.predecessorStart(), plan.predecessors());
        tables = plan.tables();
        mergedLaunches = plan.mergedLaunches();
        launchesMerged = plan.launchesMerged();
        mergeRoles = plan.roles();
      } catch (RuntimeException e) {
        for (long t : plan.tables()) {
          device.freeTable(t);
        }
      }
    }
    if (graph == 0) {
      graph = device.capture(held, count, start, predecessors);
    }
    union.reset();
    routines = false;
    for (int i = 0; i < count; i++) {
      routines |= held[i].kind == CallKind.BLAS;
      CallRecord c = held[i];
      for (int a = 0; a < c.accessCount; a++) {
        addToUnion(c.accessId[a], c.accessSlot[a], c.accessBase[a], c.accessOffset[a], c.accessSize[a],
            c.accessMode(a));
      }
    }
  }

  private void addToUnion(int id, int slot, long base, long offset, long size, AccessMode mode) {
    for (int i = 0; i < union.accessCount; i++) {
      if (union.accessId[i] == id) {
        long from = Math.min(union.accessOffset[i], offset);
        long to = Math.max(union.accessOffset[i] + union.accessSize[i], offset + size);
        union.accessOffset[i] = from;
        union.accessSize[i] = to - from;
        if (mode != union.accessMode(i)) {
          union.accessMode[i] = (byte) AccessMode.READ_WRITE.ordinal();
        }
        return;
      }
    }
    union.addAccess(id, slot, base, offset, size, mode);
  }

  /**
   * Destroys the window's graph, if it has one (a null window has none), and frees the tables its
   * merged launches read; nothing is left to replay.
   */
  static void destroy(KnownWindow window, GraphDevice device) {
    if (window == null || window.graph == 0) {
      return;
    }
    long g = window.graph;
    window.graph = 0;
    device.destroyGraph(g);
    for (long t : window.tables) {
      device.freeTable(t);
    }
    window.tables = NO_TABLES;
  }

  /** Flags launch {@code i} of an execution as an instance of a merged launch, where it ran as one. */
  void flagMerged(CallRecord call, int i, boolean serial) {
    byte role = serial || mergeRoles == null ? LaunchMerging.ALONE : mergeRoles[i];
    call.merged = role != LaunchMerging.ALONE;
    call.firstMerged = role == LaunchMerging.FIRST_INSTANCE;
  }

  /**
   * Makes {@code r} the call standing for one execution of this window, for the scheduler to place:
   * ending with launch {@code last}, touching the union of the launches' accesses.
   */
  void describeExecution(CallRecord r, CallRecord last, boolean serial) {
    r.reset();
    r.kind = CallKind.LAUNCH;
    r.name = serial ? "cuLaunchKernel" : "cuGraphLaunch";
    r.seq = last.seq;
    r.context = last.context;
    // Graphs captured with routines share the capture streams' cuBLAS handles, and so their scratch
    // memory: their replays never overlap one another (nor their launches in order, on those handles).
    r.barrier = routines;
    addUnion(r);
  }

  private void addUnion(CallRecord r) {
    for (int i = 0; i < union.accessCount; i++) {
      r.addAccess(union.accessId[i], union.accessSlot[i], union.accessBase[i], union.accessOffset[i],
          union.accessSize[i], union.accessMode(i));
    }
  }

  /** Whether two launches touch overlapping bytes of one allocation, one of them writing. */
  static boolean conflict(CallRecord a, CallRecord b) {
    for (int i = 0; i < a.accessCount; i++) {
      for (int j = 0; j < b.accessCount; j++) {
        if (a.accessId[i] != b.accessId[j]) {
          continue;
        }
        boolean write = a.accessMode(i).writes() || b.accessMode(j).writes();
        if (write && a.accessOffset[i] < b.accessOffset[j] + b.accessSize[j]
            && b.accessOffset[j] < a.accessOffset[i] + a.accessSize[i]) {
          return true;
        }
      }
    }
    return false;
  }
}
