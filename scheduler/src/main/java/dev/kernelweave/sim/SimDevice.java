package dev.kernelweave.sim;

import dev.kernelweave.call.CallRecord;
import dev.kernelweave.scheduler.GraphDevice;
import dev.kernelweave.selftest.SelfTestKernel;
import dev.kernelweave.selftest.ProgramTarget;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.SplittableRandom;
import java.util.function.BooleanSupplier;

/**
 * A simulated GPU with CUDA's stream semantics, as a discrete-event simulation on a seeded clock:
 * deterministic for a seed, and a different interleaving of independent work for each seed.
 *
 * <ul>
 *   <li>Each lane is a FIFO queue: an operation starts only after the one before it on its lane
 *       completed. Lanes progress concurrently; each operation takes a random time, and each host
 *       call lets a random amount of time pass, so that work ready on different lanes runs in a
 *       random order and may overlap.
 *   <li>An event recording is a marker on its lane; it completes when the work before it has.
 *       {@code waitEvent} captures the event's latest recording at the time of the call (an event
 *       never recorded imposes nothing) and holds back later work on its lane until that recording
 *       completes. Recording the event again later does not affect a wait already issued.
 *   <li>CUDA's implicit synchronization: an operation on the legacy lane ({@code streams}) waits for
 *       all earlier work of every blocking lane, and an operation on a blocking lane waits for all
 *       earlier work of the legacy lane. The pool's lanes are non-blocking (the agent creates them
 *       so), application streams are blocking unless created non-blocking, and {@code 0x2} is a
 *       blocking lane of each application thread's own.
 *   <li>A host function runs when its lane reaches it and, if it waits for a gate, once the host
 *       opened the gate. A host wait that can never end (everything left waits for a gate the host
 *       has not opened) throws, naming what waits for what: a deadlock is a failure, not a hang.
 *   <li>A kernel without PTX reads the pointer it writes through when it starts.
 *   <li>Memory is bytes at addresses; the allocator reuses freed addresses (first fit). An operation
 *       reads its inputs at a random moment while it runs and writes its outputs when it completes,
 *       so a read that runs before its producer completes sees stale bytes, and a write that
 *       overtakes a reader changes what the reader sees.
 *   <li>A free takes effect at once and poisons the memory. An operation that runs on memory freed
 *       (or freed and allocated again) since it was issued is reported as a fault, and so is a
 *       free of memory in use, and any two operations that run at the same time on overlapping
 *       bytes when one of them writes: a race, whatever the bytes turn out to be.
 *   <li>Graphs ({@link GraphDevice}), as CUDA runs them: a launch the scheduler held is decoded from
 *       its record (function handle, grid, block, parameter bytes in the kernel's layout) into the
 *       kernel it stands for; a captured graph keeps its launches as they were then, and each
 *       {@code launchGraph} runs them after the lane's earlier work, each after its predecessors in
 *       the graph and nothing else (so a missing edge is a race or a wrong result), and the lane's
 *       later work after all of them.
 * </ul>
 *
 * <p>Not thread-safe, like the stream device it stands in for.
 */
public final class SimDevice implements ProgramTarget, GraphDevice {

  /** Opens simulated devices: {@code SimDevice::new}. */
  public static final ProgramTarget.Factory FACTORY = SimDevice::new;

  private static final long DEVICE_BASE = 0x7f3a_0000_0000L;
  private static final long HOST_BASE = 0x7f9c_0000_0000L;
  private static final long ARENA_SIZE = 1L << 30;
  private static final byte UNINITIALIZED = (byte) 0xCD;
  /** Function handles: this plus a kernel's number (see {@link #function}). */
  private static final long FUNCTIONS = 0x5f00_0000_0000L;
  private static final long READS_CONSTANT = FUNCTIONS + 0x100;
  private static final long WITHOUT_PTX = FUNCTIONS + 0x200;
  /** The lane of a graph's node, which runs off every lane: after its predecessors alone. */
  private static final int NO_LANE = -1;
  /** CUDA_ERROR_INVALID_VALUE, CUDA_ERROR_INVALID_HANDLE. */
  private static final int INVALID_VALUE = 1;
  private static final int INVALID_HANDLE = 400;

  /**
   * How long things take, in ticks: a host call lets up to {@code hostStep} ticks pass, a device
   * operation takes 1 to {@code duration}, and ready work starts after up to {@code jitter}.
   */
  public record Timing(int hostStep, int duration, int jitter) {
    /** A random mix: sometimes the host outruns the device, sometimes the other way round. */
    static Timing random(SplittableRandom random) {
      int[] hostSteps = {0, 1, 5, 20, 100};
      int[] durations = {1, 3, 10, 50, 200};
      return new Timing(hostSteps[random.nextInt(hostSteps.length)], durations[random.nextInt(durations.length)],
          random.nextInt(4));
    }
  }

  private enum Kind { WORK, RECORD, WAIT }

  /** What a device operation does: reads when it starts, writes when it completes. */
  private interface Work {
    /** When the operation starts, before checking what it touches: resolves pointers read from memory. */
    default void resolve() {}

    void begin();

    void end();
  }

  private static final class SimOp {
    final long number;
    final int lane;
    final Kind kind;
    final String label;
    SimOp waitFor;
    /** Operations CUDA's implicit synchronization makes this one wait for. */
    final List<SimOp> after = new ArrayList<>(0);
    /** The gate a host function waits for, or -1. */
    int gate = -1;
    Work work;
    final List<long[]> ranges = new ArrayList<>(3); // {address, length, writes (0/1), allocation id}
    long duration;
    /** Ticks after its start at which the operation reads its inputs, before {@code duration}. */
    long readAfter;
    long time;
    boolean scheduled;
    boolean running;
    boolean hasRead;
    boolean done;

    SimOp(long number, int lane, Kind kind, String label) {
      this.number = number;
      this.lane = lane;
      this.kind = kind;
      this.label = label;
    }

    @Override
    public String toString() {
      return label + " (#" + number + ", lane " + lane + ")";
    }
  }

  private final int streams;
  private final int laneCount;
  private final SplittableRandom random;
  private final Timing timing;
  private final List<ArrayDeque<SimOp>> lanes = new ArrayList<>();
  private final java.util.BitSet streamCreated = new java.util.BitSet();
  /** The application's own streams, each a lane of its own after the pool lanes and the legacy one. */
  private final Map<Long, Integer> appLanes = new HashMap<>();
  /** The per-thread default stream ({@code 0x2}) of each application thread. */
  private final Map<Integer, Integer> perThreadLanes = new HashMap<>();
  /** Lanes that CUDA's legacy stream synchronizes with (the legacy lane itself excluded). */
  private final java.util.BitSet blocking = new java.util.BitSet();
  private final java.util.Set<Integer> openGates = new java.util.HashSet<>();
  private int thread;
  private long constant;
  private final PriorityQueue<SimOp> timeline =
      new PriorityQueue<>(Comparator.comparingLong((SimOp o) -> o.time).thenComparingLong(o -> o.number));
  private final List<SimOp> running = new ArrayList<>();
  /** Graph nodes launched and not yet complete. */
  private final List<SimOp> floating = new ArrayList<>();
  /** Captured graphs by handle: the launches as captured, and each one's predecessors in the graph. */
  private final Map<Long, Graph> graphs = new HashMap<>();
  private long nextGraph;
  private final Map<Integer, SimOp> events = new HashMap<>();
  private final Map<Integer, SimOp> appEvents = new HashMap<>();
  private final Arena device = new Arena(DEVICE_BASE, ARENA_SIZE, UNINITIALIZED);
  private final Arena host = new Arena(HOST_BASE, ARENA_SIZE, (byte) 0);
  private final List<String> faults = new ArrayList<>();
  private long now;
  private long operations;
  private int allocations;
  private int peakConcurrency;

  public SimDevice(int streams, long seed) {
    this(streams, seed, null);
  }

  /** @param timing how long things take; null for a random mix chosen by {@code seed} */
  public SimDevice(int streams, long seed, Timing timing) {
    if (streams < 1) {
      throw new IllegalArgumentException("streams must be at least 1, was " + streams);
    }
    this.streams = streams;
    this.laneCount = streams + 1;
    this.random = new SplittableRandom(seed);
    this.timing = timing != null ? timing : Timing.random(random);
    for (int lane = 0; lane < laneCount; lane++) {
      lanes.add(new ArrayDeque<>());
    }
    streamCreated.set(streams);
  }

  /** The timing this device runs with. */
  public Timing timing() {
    return timing;
  }

  /** The most device operations that ever ran at the same time. */
  public int peakConcurrency() {
    return peakConcurrency;
  }

  /** The simulated clock, in ticks. */
  public long now() {
    return now;
  }

  // --- StreamDevice

  @Override
  public void createStream(int lane) {
    hostStep();
    if (lane < 0 || lane >= streams) {
      fault("createStream(" + lane + "): not a pool lane (0.." + (streams - 1) + ")");
    } else if (streamCreated.get(lane)) {
      fault("createStream(" + lane + "): created twice");
    }
    if (lane >= 0 && lane < laneCount) {
      streamCreated.set(lane);
    }
  }

  @Override
  public void createEvent(int event) {
    hostStep();
    if (events.containsKey(event)) {
      fault("createEvent(" + event + "): created twice");
    }
    events.put(event, null);
  }

  @Override
  public void recordEvent(int event, int lane) {
    hostStep();
    checkEvent("recordEvent", event);
    SimOp marker = new SimOp(++operations, lane, Kind.RECORD, "recordEvent " + event);
    enqueue(lane, marker);
    events.put(event, marker);
  }

  @Override
  public void waitEvent(int lane, int event) {
    hostStep();
    checkEvent("waitEvent", event);
    SimOp wait = new SimOp(++operations, lane, Kind.WAIT, "waitEvent " + event);
    wait.waitFor = events.get(event);
    enqueue(lane, wait);
  }

  @Override
  public void waitEventOnAppStream(long appStream, int event) {
    waitEvent(appStreamLane(appStream), event);
  }

  @Override
  public int appStreamLane(long handle) {
    if (handle == 0 || handle == 1) {
      return streams;
    }
    if (handle == 2) {
      return perThreadLanes.computeIfAbsent(thread, t -> newAppLane(false));
    }
    return appLanes.computeIfAbsent(handle, h -> newAppLane(false));
  }

  @Override
  public void callingThread(int thread) {
    this.thread = thread;
  }

  @Override
  public void createAppStream(long handle, boolean nonBlocking) {
    hostStep();
    appLanes.put(handle, newAppLane(nonBlocking));
  }

  private int newAppLane(boolean nonBlocking) {
    int lane = lanes.size();
    lanes.add(new ArrayDeque<>());
    streamCreated.set(lane);
    blocking.set(lane, !nonBlocking);
    return lane;
  }

  @Override
  public void synchronizeEvent(int event) {
    hostStep();
    checkEvent("synchronizeEvent", event);
    SimOp marker = events.get(event);
    runUntil(() -> marker == null || marker.done, "event " + event);
  }

  @Override
  public void synchronizeDevice() {
    hostStep();
    runUntil(this::idle, "the device");
  }

  // --- ProgramTarget

  @Override
  public int streams() {
    return streams;
  }

  @Override
  public long allocDevice(int bytes) {
    hostStep();
    return device.allocate(++allocations, bytes).base();
  }

  @Override
  public void freeDevice(long address) {
    hostStep();
    Arena.Allocation a = device.find(address);
    if (a == null || a.base() != address) {
      fault(String.format(Locale.ROOT, "free(0x%x): no allocation starts there", address));
      return;
    }
    for (SimOp op : running) {
      for (long[] r : op.ranges) {
        if (r[3] == a.id()) {
          fault(String.format(Locale.ROOT, "free(0x%x) at t=%d while %s is running on it", address, now, op));
          break;
        }
      }
    }
    device.free(address);
  }

  @Override
  public long allocHost(int bytes) {
    hostStep();
    Arena.Allocation a = host.allocate(++allocations, bytes);
    host.write(a.base(), new byte[(int) a.size()], 0, (int) a.size());
    return a.base();
  }

  @Override
  public long registerHost(int bytes) {
    return allocHost(bytes);
  }

  @Override
  public void writeHost(long address, byte[] data) {
    hostStep();
    if (!host.backs(address, data.length)) {
      fault(String.format(Locale.ROOT, "writeHost(0x%x, %d): not page-locked memory", address, data.length));
      return;
    }
    host.write(address, data, 0, data.length);
  }

  @Override
  public long moduleConstant() {
    if (constant == 0) {
      constant = device.allocate(++allocations, 16).base();
    }
    return constant;
  }

  @Override
  public void launchReadingConstant(int lane, long out, int n, int k) {
    hostStep();
    enqueue(lane, readingConstant(lane, out, n, k));
  }

  private SimOp readingConstant(int lane, long out, int n, int k) {
    SimOp op = work(lane, String.format(Locale.ROOT, "FILL_FROM_CONSTANT n=%d k=0x%08x", n, k));
    range(op, moduleConstant(), 4, false);
    range(op, out, n * 4L, true);
    int[] result = new int[n];
    op.work = new Work() {
      @Override
      public void begin() {
        SelfTestKernel.FILL.apply(result, null, null, n, k ^ ints(constant, 1)[0]);
      }

      @Override
      public void end() {
        write(out, toBytes(result));
      }
    };
    return op;
  }

  @Override
  public void launchWithoutPtx(int lane, long slot, int n, int k) {
    hostStep();
    SimOp op = work(lane, String.format(Locale.ROOT, "FILL_INDIRECT n=%d k=0x%08x", n, k));
    range(op, slot, 8, false);
    int[] result = new int[n];
    long[] target = new long[1];
    op.work = new Work() {
      @Override
      public void resolve() {
        byte[] p = read(slot, 8);
        for (int b = 7; b >= 0; b--) {
          target[0] = (target[0] << 8) | (p[b] & 0xFF);
        }
        range(op, target[0], n * 4L, true);
      }

      @Override
      public void begin() {
        SelfTestKernel.FILL.apply(result, null, null, n, k);
      }

      @Override
      public void end() {
        write(target[0], toBytes(result));
      }
    };
    enqueue(lane, op);
  }

  @Override
  public void launchHostFunction(int lane, int gate, long src, long dst, int bytes) {
    hostStep();
    SimOp op = work(lane, "host function" + (gate >= 0 ? " waiting for gate " + gate : ""));
    op.gate = gate;
    range(op, src, bytes, false);
    range(op, dst, bytes, true);
    op.work = new Work() {
      int[] values;

      @Override
      public void begin() {
        values = ints(src, bytes / 4);
        for (int i = 0; i < values.length; i++) {
          values[i] = values[i] * 5 + 1;
        }
      }

      @Override
      public void end() {
        write(dst, toBytes(values));
      }
    };
    enqueue(lane, op);
  }

  @Override
  public void openGate(int gate) {
    hostStep();
    openGates.add(gate);
    for (int lane = 0; lane < lanes.size(); lane++) {
      kick(lane);
    }
  }

  @Override
  public void copyHostToDeviceAsync(int lane, long dst, long hostSrc, int bytes) {
    hostStep();
    copy(lane, "copyHtoDAsync", dst, hostSrc, bytes);
  }

  @Override
  public void waitAppEvent(int lane, int appEvent) {
    hostStep();
    SimOp wait = new SimOp(++operations, lane, Kind.WAIT, "streamWaitEvent " + appEvent);
    wait.waitFor = appEvents.get(appEvent);
    enqueue(lane, wait);
  }

  @Override
  public byte[] readHost(long address, int bytes) {
    hostStep();
    byte[] into = new byte[bytes];
    if (!host.backs(address, bytes)) {
      fault(String.format(Locale.ROOT, "readHost(0x%x, %d): not page-locked memory", address, bytes));
      return into;
    }
    host.read(address, into, 0, bytes);
    return into;
  }

  @Override
  public void launch(int lane, SelfTestKernel kernel, long outPointer, long in1, long in2, int n, int k) {
    hostStep();
    enqueue(lane, kernel(lane, kernel, outPointer, in1, in2, n, k));
  }

  private SimOp kernel(int lane, SelfTestKernel kernel, long outPointer, long in1, long in2, int n, int k) {
    SimOp op = work(lane, String.format(Locale.ROOT, "%s n=%d k=0x%08x", kernel, n, k));
    long out = outPointer - kernel.outPointerOffset(n);
    int outBytes = kernel.outElements(n) * 4;
    if (kernel.outMode().reads()) {
      range(op, out, outBytes, false);
    }
    range(op, out, outBytes, true);
    if (kernel.inputs() >= 1) {
      range(op, in1, n * 4L, false);
    }
    if (kernel.inputs() >= 2) {
      range(op, in2, n * 4L, false);
    }
    int[] result = new int[kernel.outElements(n)];
    op.work = new Work() {
      @Override
      public void begin() {
        int[] a = kernel.inputs() >= 1 ? ints(in1, n) : null;
        int[] b = kernel.inputs() >= 2 ? ints(in2, n) : null;
        if (kernel.outMode().reads()) {
          int[] old = ints(out, result.length);
          System.arraycopy(old, 0, result, 0, result.length);
        }
        kernel.apply(result, a, b, n, k);
      }

      @Override
      public void end() {
        write(out, toBytes(result));
      }
    };
    return op;
  }

  @Override
  public void copyHostToDevice(long dst, byte[] src) {
    hostStep();
    byte[] data = src.clone();
    SimOp op = work(streams, "copyHtoD " + src.length + " B");
    range(op, dst, data.length, true);
    op.work = new Work() {
      @Override
      public void begin() {}

      @Override
      public void end() {
        write(dst, data);
      }
    };
    enqueue(streams, op);
    // From pageable memory CUDA synchronizes the stream before the copy starts: the host waits until
    // it may (the copy itself may complete later).
    runUntil(() -> op.scheduled || op.done, op.toString());
  }

  @Override
  public void copyDeviceToHost(byte[] dst, long src) {
    hostStep();
    SimOp op = work(streams, "copyDtoH " + dst.length + " B");
    range(op, src, dst.length, false);
    op.work = new Work() {
      byte[] data;

      @Override
      public void begin() {
        data = read(src, dst.length);
      }

      @Override
      public void end() {
        System.arraycopy(data, 0, dst, 0, dst.length);
      }
    };
    enqueue(streams, op);
    runUntil(() -> op.done, op.toString());
  }

  @Override
  public void copyDeviceToHostAsync(int lane, long hostDst, long src, int bytes) {
    hostStep();
    copy(lane, "copyDtoHAsync", hostDst, src, bytes);
  }

  @Override
  public void copyDeviceToDevice(int lane, long dst, long src, int bytes) {
    hostStep();
    copy(lane, "copyDtoDAsync", dst, src, bytes);
  }

  @Override
  public void memset(int lane, long dst, byte value, int bytes) {
    hostStep();
    SimOp op = work(lane, String.format(Locale.ROOT, "memset 0x%02x %d B", value & 0xFF, bytes));
    range(op, dst, bytes, true);
    op.work = new Work() {
      @Override
      public void begin() {}

      @Override
      public void end() {
        byte[] data = new byte[bytes];
        Arrays.fill(data, value);
        write(dst, data);
      }
    };
    enqueue(lane, op);
  }

  @Override
  public void synchronizeLane(int lane) {
    hostStep();
    SimOp last = lanes.get(lane).peekLast();
    runUntil(() -> last == null || last.done, "lane " + lane);
  }

  @Override
  public void recordAppEvent(int appEvent, int lane) {
    hostStep();
    SimOp marker = new SimOp(++operations, lane, Kind.RECORD, "recordAppEvent " + appEvent);
    enqueue(lane, marker);
    appEvents.put(appEvent, marker);
  }

  @Override
  public void synchronizeAppEvent(int appEvent) {
    hostStep();
    SimOp marker = appEvents.get(appEvent);
    runUntil(() -> marker == null || marker.done, "application event " + appEvent);
  }

  @Override
  public List<String> faults() {
    return List.copyOf(faults);
  }

  @Override
  public void close() {}

  // --- GraphDevice

  @Override
  public GraphDevice graphs() {
    return this;
  }

  @Override
  public long function(SelfTestKernel kernel) {
    return FUNCTIONS + 1 + kernel.ordinal();
  }

  @Override
  public long readsConstantFunction() {
    return READS_CONSTANT;
  }

  @Override
  public long withoutPtxFunction() {
    return WITHOUT_PTX;
  }

  /** A launch as its record describes it: a kernel ({@code null}: the one reading the constant) and its arguments. */
  private record HeldLaunch(SelfTestKernel kernel, long out, long in1, long in2, int n, int k) {
    String describe() {
      return String.format(Locale.ROOT, "%s n=%d k=0x%08x", kernel == null ? "FILL_FROM_CONSTANT" : kernel, n, k);
    }
  }

  /** A captured graph: its launches as they were captured, and each one's predecessors among them. */
  private static final class Graph {
    final HeldLaunch[] launches;
    final int[][] predecessors;
    /** The exit of its newest launch: CUDA runs one launch of a graph at a time. */
    SimOp lastExit;

    Graph(HeldLaunch[] launches, int[][] predecessors) {
      this.launches = launches;
      this.predecessors = predecessors;
    }
  }

  @Override
  public int launch(CallRecord call, int lane) {
    hostStep();
    HeldLaunch launch = decode(call);
    if (launch == null) {
      return INVALID_VALUE;
    }
    enqueue(lane, op(launch, lane));
    return 0;
  }

  @Override
  public long capture(CallRecord[] calls, int count, int[] predecessorStart, int[] predecessors) {
    HeldLaunch[] launches = new HeldLaunch[count];
    int[][] edges = new int[count][];
    for (int i = 0; i < count; i++) {
      launches[i] = decode(calls[i]);
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
    graphs.put(handle, new Graph(launches, edges));
    return handle;
  }

  @Override
  public int launchGraph(long graph, int lane) {
    hostStep();
    Graph g = graphs.get(graph);
    if (g == null) {
      fault("launchGraph(" + graph + "): no such graph");
      return INVALID_HANDLE;
    }
    // As cuGraphLaunch: an entry on the lane, the nodes off it, each after the entry and its own
    // predecessors only, then an exit on the lane after all of them.
    SimOp entry = new SimOp(++operations, lane, Kind.RECORD, "graph " + graph + " entry");
    if (g.lastExit != null) {
      entry.after.add(g.lastExit);
    }
    enqueue(lane, entry);
    SimOp exit = new SimOp(++operations, lane, Kind.RECORD, "graph " + graph + " exit");
    SimOp[] nodes = new SimOp[g.launches.length];
    for (int i = 0; i < nodes.length; i++) {
      SimOp node = op(g.launches[i], NO_LANE);
      node.after.add(entry);
      for (int p : g.predecessors[i]) {
        node.after.add(nodes[p]);
      }
      nodes[i] = node;
      floating.add(node);
      exit.after.add(node);
    }
    g.lastExit = exit;
    enqueue(lane, exit);
    kickFloating();
    return 0;
  }

  @Override
  public void destroyGraph(long graph) {
    if (graphs.remove(graph) == null) {
      fault("destroyGraph(" + graph + "): no such graph");
    }
  }

  /** The launch a held record stands for, or null (and a fault) when it names no kernel of this device as launched. */
  private HeldLaunch decode(CallRecord call) {
    boolean readsConstant = call.function == READS_CONSTANT;
    SelfTestKernel kernel = null;
    if (!readsConstant) {
      long number = call.function - FUNCTIONS - 1;
      if (number < 0 || number >= SelfTestKernel.values().length) {
        fault(String.format(Locale.ROOT, "a held launch of function 0x%x, no kernel the agent may issue itself",
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
      fault("a held launch of " + (readsConstant ? "FILL_FROM_CONSTANT" : kernel) + " with " + call.paramCount
          + " parameters not in its layout");
      return null;
    }
    HeldLaunch launch = readsConstant
        ? new HeldLaunch(null, call.paramAsLong(0), 0, 0, (int) call.paramAsLong(1), (int) call.paramAsLong(2))
        : new HeldLaunch(kernel, call.paramAsLong(0), call.paramAsLong(1), call.paramAsLong(2),
            (int) call.paramAsLong(3), (int) call.paramAsLong(4));
    if (call.gridX != SelfTestKernel.blocks(launch.n()) || call.gridY != 1 || call.gridZ != 1 || call.blockX != SelfTestKernel.BLOCK
        || call.blockY != 1 || call.blockZ != 1 || call.sharedMemBytes != 0) {
      fault("a held launch of " + launch.describe() + " with another grid or block than it was launched with");
      return null;
    }
    return launch;
  }

  private SimOp op(HeldLaunch launch, int lane) {
    return launch.kernel() == null
        ? readingConstant(lane, launch.out(), launch.n(), launch.k())
        : kernel(lane, launch.kernel(), launch.out(), launch.in1(), launch.in2(), launch.n(), launch.k());
  }

  // --- the simulation

  private SimOp work(int lane, String label) {
    SimOp op = new SimOp(++operations, lane, Kind.WORK, label);
    op.duration = 1 + random.nextInt(timing.duration());
    op.readAfter = random.nextInt((int) op.duration);
    return op;
  }

  private void copy(int lane, String name, long dst, long src, int bytes) {
    SimOp op = work(lane, name + " " + bytes + " B");
    range(op, src, bytes, false);
    range(op, dst, bytes, true);
    op.work = new Work() {
      byte[] data;

      @Override
      public void begin() {
        data = read(src, bytes);
      }

      @Override
      public void end() {
        write(dst, data);
      }
    };
    enqueue(lane, op);
  }

  /** Notes a range the operation touches, and which allocation it belongs to now. */
  private void range(SimOp op, long address, long length, boolean writes) {
    Arena.Allocation a = allocationAt(address);
    if (a == null || !a.contains(address, length)) {
      fault(String.format(Locale.ROOT, "%s issued on [0x%x, +%d), outside any allocation", op, address, length));
    }
    op.ranges.add(new long[] {address, length, writes ? 1 : 0, a == null ? -1 : a.id()});
  }

  private void enqueue(int lane, SimOp op) {
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
  private void kickFloating() {
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
    } else if (op.kind == Kind.WORK) {
      start(op);
    } else {
      finish(op);
    }
  }

  private void start(SimOp op) {
    op.work.resolve();
    for (long[] r : op.ranges) {
      Arena.Allocation a = allocationAt(r[0]);
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
    if (op.kind == Kind.WORK) {
      op.work.end();
      running.remove(op);
    }
    op.running = false;
    op.done = true;
    if (op.lane == NO_LANE) {
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
  private void hostStep() {
    long until = now + (timing.hostStep() == 0 ? 0 : random.nextInt(timing.hostStep() + 1));
    while (!timeline.isEmpty() && timeline.peek().time <= until) {
      step();
    }
    now = Math.max(now, until);
  }

  private void runUntil(BooleanSupplier done, String what) {
    while (!done.getAsBoolean()) {
      if (timeline.isEmpty()) {
        throw new IllegalStateException("deadlock: the host waits for " + what + ", which can never complete: "
            + blocked());
      }
      step();
    }
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

  private boolean idle() {
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

  private void checkEvent(String call, int event) {
    if (!events.containsKey(event)) {
      fault(call + "(" + event + "): event used before createEvent");
    }
  }

  private void fault(String message) {
    faults.add(message);
  }

  private Arena.Allocation allocationAt(long address) {
    Arena arena = arenaOf(address);
    return arena == null ? null : arena.find(address);
  }

  private Arena arenaOf(long address) {
    return device.holds(address) ? device : host.holds(address) ? host : null;
  }

  private byte[] read(long address, int length) {
    byte[] into = new byte[length];
    Arena arena = arenaOf(address);
    if (arena != null && arena.backs(address, length)) {
      arena.read(address, into, 0, length);
    }
    return into;
  }

  private void write(long address, byte[] data) {
    Arena arena = arenaOf(address);
    if (arena != null && arena.backs(address, data.length)) {
      arena.write(address, data, 0, data.length);
    }
  }

  private int[] ints(long address, int n) {
    byte[] b = read(address, n * 4);
    int[] v = new int[n];
    for (int i = 0; i < n; i++) {
      v[i] = (b[4 * i] & 0xFF) | (b[4 * i + 1] & 0xFF) << 8 | (b[4 * i + 2] & 0xFF) << 16 | (b[4 * i + 3] & 0xFF) << 24;
    }
    return v;
  }

  private static byte[] toBytes(int[] v) {
    byte[] b = new byte[v.length * 4];
    for (int i = 0; i < v.length; i++) {
      b[4 * i] = (byte) v[i];
      b[4 * i + 1] = (byte) (v[i] >>> 8);
      b[4 * i + 2] = (byte) (v[i] >>> 16);
      b[4 * i + 3] = (byte) (v[i] >>> 24);
    }
    return b;
  }
}
