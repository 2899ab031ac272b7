package dev.kernelweave.sim;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.PriorityQueue;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.function.BooleanSupplier;

/**
 * The discrete-event simulation behind {@link SimDevice}: the lanes and their FIFO order, CUDA's
 * implicit synchronization between the legacy lane and the blocking ones, the seeded clock and its
 * timeline, the gates host functions wait for, and the checks that report use after free and races
 * as faults.
 *
 * <p>Not thread-safe: it belongs to one {@link SimDevice}.
 */
final class SimEngine {

  private final int streams;
  private final SplittableRandom random;
  private final SimDevice.Timing timing;
  private final SimMemory memory;
  private final List<ArrayDeque<SimOp>> lanes = new ArrayList<>();
  private final BitSet streamCreated = new BitSet();
  /** Lanes that CUDA's legacy stream synchronizes with (the legacy lane itself excluded). */
  private final BitSet blocking = new BitSet();
  private final Set<Integer> openGates = new HashSet<>();
  private final PriorityQueue<SimOp> timeline =
      new PriorityQueue<>(Comparator.comparingLong((SimOp o) -> o.time).thenComparingLong(o -> o.number));
  private final List<SimOp> running = new ArrayList<>();
  /** Graph nodes launched and not yet complete. */
  private final List<SimOp> floating = new ArrayList<>();
  private final List<String> faults = new ArrayList<>();
  private long now;
  private long operations;
  private int peakConcurrency;

  /** @param streams the pool's lanes; lane {@code streams} is the legacy one, created already */
  SimEngine(int streams, SplittableRandom random, SimDevice.Timing timing, SimMemory memory) {
    this.streams = streams;
    this.random = random;
    this.timing = timing;
    this.memory = memory;
    for (int lane = 0; lane < streams + 1; lane++) {
      lanes.add(new ArrayDeque<>());
    }
    streamCreated.set(streams);
  }

  long now() {
    return now;
  }

  int peakConcurrency() {
    return peakConcurrency;
  }

  List<String> faults() {
    return faults;
  }

  /** The operations running now. */
  List<SimOp> running() {
    return running;
  }

  void markCreated(int lane) {
    streamCreated.set(lane);
  }

  boolean laneCreated(int lane) {
    return streamCreated.get(lane);
  }

  /** Adds an application lane, blocking unless {@code nonBlocking}, and returns its number. */
  int newAppLane(boolean nonBlocking) {
    int lane = lanes.size();
    lanes.add(new ArrayDeque<>());
    streamCreated.set(lane);
    blocking.set(lane, !nonBlocking);
    return lane;
  }

  /** The lane's last operation, or null when it has none left. */
  SimOp lastOn(int lane) {
    return lanes.get(lane).peekLast();
  }

  /** A marker or a wait: an operation that does no work. */
  SimOp marker(int lane, SimOp.Kind kind, String label) {
    return new SimOp(++operations, lane, kind, label);
  }

  SimOp work(int lane, Object label) {
    SimOp op = new SimOp(++operations, lane, SimOp.Kind.WORK, label);
    op.duration = 1 + random.nextInt(timing.duration());
    op.readAfter = random.nextInt((int) op.duration);
    return op;
  }

  /** Notes a range the operation touches, and which allocation it belongs to now. */
  void range(SimOp op, long address, long length, boolean writes) {
    Arena.Allocation a = memory.allocationAt(address);
    if (a == null || !a.contains(address, length)) {
      fault(String.format(Locale.ROOT, "%s issued on [0x%x, +%d), outside any allocation", op, address, length));
    }
    op.ranges.add(new long[] {address, length, writes ? 1 : 0, a == null ? -1 : a.id()});
  }

  void enqueue(int lane, SimOp op) {
    if (lane < 0 || lane >= lanes.size()) {
      throw new IllegalArgumentException("no lane " + lane + " (lanes 0.." + streams + ")");
    }
    if (!streamCreated.get(lane)) {
      fault(op + ": lane " + lane + " used before createStream");
      streamCreated.set(lane);
    }
    // CUDA's implicit synchronization between the legacy stream and the blocking streams.
    if (lane == streams) {
      for (int other = blocking.nextSetBit(0); other >= 0; other = blocking.nextSetBit(other + 1)) {
        SimOp tail = lanes.get(other).peekLast();
        if (tail != null) {
          op.after.add(tail);
        }
      }
    } else if (blocking.get(lane)) {
      SimOp tail = lanes.get(streams).peekLast();
      if (tail != null) {
        op.after.add(tail);
      }
    }
    lanes.get(lane).addLast(op);
    kick(lane);
  }

  /** Launches a graph's node, which runs off every lane once the operations it is after completed. */
  void addFloating(SimOp node) {
    floating.add(node);
  }

  void openGate(int gate) {
    openGates.add(gate);
    for (int lane = 0; lane < lanes.size(); lane++) {
      kick(lane);
    }
  }

  /** Schedules the lane's first operation to start, if it may. */
  private void kick(int lane) {
    SimOp head = lanes.get(lane).peekFirst();
    if (head == null || head.scheduled || (head.waitFor != null && !head.waitFor.done)
        || (head.gate >= 0 && !openGates.contains(head.gate))) {
      return;
    }
    if (allDone(head.after)) {
      schedule(head);
    }
  }

  /** Schedules every graph node whose predecessors completed. */
  void kickFloating() {
    for (SimOp node : floating) {
      if (!node.scheduled && allDone(node.after)) {
        schedule(node);
      }
    }
  }

  private static boolean allDone(List<SimOp> ops) {
    for (SimOp op : ops) {
      if (!op.done) {
        return false;
      }
    }
    return true;
  }

  private void schedule(SimOp op) {
    op.scheduled = true;
    op.time = now + (timing.jitter() == 0 ? 0 : random.nextInt(timing.jitter() + 1));
    timeline.add(op);
  }

  private void step() {
    SimOp op = timeline.poll();
    now = Math.max(now, op.time);
    if (op.running && !op.hasRead) {
      op.work.begin();
      op.hasRead = true;
      op.time = now + op.duration - op.readAfter;
      timeline.add(op);
    } else if (op.running) {
      finish(op);
    } else if (op.kind == SimOp.Kind.WORK) {
      start(op);
    } else {
      finish(op);
    }
  }

  private void start(SimOp op) {
    op.work.resolve();
    for (long[] r : op.ranges) {
      Arena.Allocation a = memory.allocationAt(r[0]);
      if (r[3] >= 0 && (a == null || a.id() != r[3] || !a.contains(r[0], r[1]))) {
        fault(String.format(Locale.ROOT, "use after free: %s at t=%d touches [0x%x, +%d) of allocation #%d, since freed",
            op, now, r[0], r[1], r[3]));
      }
    }
    for (SimOp other : running) {
      String overlap = conflict(op, other);
      if (overlap != null) {
        fault(String.format(Locale.ROOT, "race at t=%d: %s and %s run at the same time on %s", now, other, op, overlap));
      }
    }
    op.running = true;
    running.add(op);
    peakConcurrency = Math.max(peakConcurrency, running.size());
    op.time = now + op.readAfter;
    timeline.add(op);
  }

  private void finish(SimOp op) {
    if (op.kind == SimOp.Kind.WORK) {
      op.work.end();
      running.remove(op);
    }
    op.running = false;
    op.done = true;
    if (op.lane == SimOp.NO_LANE) {
      floating.remove(op);
    } else {
      SimOp head = lanes.get(op.lane).pollFirst();
      if (head != op) {
        throw new IllegalStateException("lane " + op.lane + " out of order: " + op + " completed before " + head);
      }
    }
    for (int lane = 0; lane < lanes.size(); lane++) {
      kick(lane);
    }
    kickFloating();
  }

  private static String conflict(SimOp a, SimOp b) {
    for (long[] x : a.ranges) {
      for (long[] y : b.ranges) {
        if ((x[2] == 1 || y[2] == 1) && x[0] < y[0] + y[1] && y[0] < x[0] + x[1]) {
          long from = Math.max(x[0], y[0]);
          long to = Math.min(x[0] + x[1], y[0] + y[1]);
          return String.format(Locale.ROOT, "[0x%x, +%d)", from, to - from);
        }
      }
    }
    return null;
  }

  /** Lets up to {@code timing.hostStep} ticks pass while the host makes a call. */
  void hostStep() {
    long until = now + (timing.hostStep() == 0 ? 0 : random.nextInt(timing.hostStep() + 1));
    while (!timeline.isEmpty() && timeline.peek().time <= until) {
      step();
    }
    now = Math.max(now, until);
  }

  void runUntil(BooleanSupplier done, String what) {
    while (!done.getAsBoolean()) {
      if (timeline.isEmpty()) {
        throw new IllegalStateException("deadlock: the host waits for " + what + ", which can never complete: "
            + blocked());
      }
      step();
    }
  }

  /** Runs until the host's wait for {@code op} ends: at once where it is null (nothing to wait for). */
  void runUntilDone(SimOp op, String what) {
    runUntil(() -> op == null || op.done, what);
  }

  /** What the work left is waiting for, when nothing can run. */
  private String blocked() {
    for (ArrayDeque<SimOp> lane : lanes) {
      SimOp head = lane.peekFirst();
      if (head != null && head.gate >= 0 && !openGates.contains(head.gate)) {
        return head + " waits for gate " + head.gate + ", which the host opens only later";
      }
    }
    return "nothing left to run";
  }

  boolean idle() {
    if (!floating.isEmpty()) {
      return false;
    }
    for (ArrayDeque<SimOp> lane : lanes) {
      if (!lane.isEmpty()) {
        return false;
      }
    }
    return true;
  }

  void fault(String message) {
    faults.add(message);
  }
}
