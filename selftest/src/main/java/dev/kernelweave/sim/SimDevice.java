package dev.kernelweave.sim;

import dev.kernelweave.call.CallRecord;
import dev.kernelweave.scheduler.GraphDevice;
import dev.kernelweave.selftest.SelfTestKernel;
import dev.kernelweave.selftest.ProgramTarget;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.SplittableRandom;

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
 * <p>The parts: {@link SimEngine} (lanes, clock, faults), {@link SimMemory} (arenas),
 * {@link SimOperations} (what each operation reads and writes) and {@link SimGraphs}; this class maps
 * the device's calls onto them and keeps the streams and events by their handles.
 *
 * <p>Not thread-safe, like the stream device it stands in for.
 */
public final class SimDevice implements ProgramTarget, GraphDevice {

  /** Opens simulated devices: {@code SimDevice::new}. */
  public static final ProgramTarget.Factory FACTORY = SimDevice::new;

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

  private final int streams;
  private final int laneCount;
  private final SplittableRandom random;
  private final Timing timing;
  /** The application's own streams, each a lane of its own after the pool lanes and the legacy one. */
  private final Map<Long, Integer> appLanes = new HashMap<>();
  /** The per-thread default stream ({@code 0x2}) of each application thread. */
  private final Map<Integer, Integer> perThreadLanes = new HashMap<>();
  private int thread;
  private final Map<Integer, SimOp> events = new HashMap<>();
  private final Map<Integer, SimOp> timingEvents = new HashMap<>();
  private final Map<Integer, SimOp> appEvents = new HashMap<>();
  private final SimMemory memory = new SimMemory();
  private final SimEngine engine;
  private final SimOperations ops;
  private final SimGraphs graphs;

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
    this.engine = new SimEngine(streams, random, this.timing, memory);
    this.ops = new SimOperations(engine, memory);
    this.graphs = new SimGraphs(engine, ops);
  }

  /** The timing this device runs with. */
  public Timing timing() {
    return timing;
  }

  /** The most device operations that ever ran at the same time. */
  public int peakConcurrency() {
    return engine.peakConcurrency();
  }

  /** The simulated clock, in ticks. */
  public long now() {
    return engine.now();
  }

  // --- StreamDevice

  @Override
  public void createStream(int lane) {
    engine.hostStep();
    if (lane < 0 || lane >= streams) {
      engine.fault("createStream(" + lane + "): not a pool lane (0.." + (streams - 1) + ")");
    } else if (engine.laneCreated(lane)) {
      engine.fault("createStream(" + lane + "): created twice");
    }
    if (lane >= 0 && lane < laneCount) {
      engine.markCreated(lane);
    }
  }

  @Override
  public void createEvent(int event) {
    engine.hostStep();
    if (events.containsKey(event)) {
      engine.fault("createEvent(" + event + "): created twice");
    }
    events.put(event, null);
  }

  @Override
  public void recordEvent(int event, int lane) {
    engine.hostStep();
    checkEvent("recordEvent", event);
    events.put(event, recordOn(lane, "recordEvent " + event));
  }

  /** A record marker queued on {@code lane}: it completes when the lane's earlier work has. */
  private SimOp recordOn(int lane, String label) {
    SimOp marker = engine.marker(lane, SimOp.Kind.RECORD, label);
    engine.enqueue(lane, marker);
    return marker;
  }

  /** Timing events: any device time, drawn at random, so that the fuzz sees windows judged both ways. */
  @Override
  public boolean createTimingEvent(int timingEvent) {
    engine.hostStep();
    timingEvents.put(timingEvent, null);
    return true;
  }

  @Override
  public void recordTimingEvent(int timingEvent, int lane) {
    engine.hostStep();
    if (!timingEvents.containsKey(timingEvent)) {
      engine.fault("recordTimingEvent(" + timingEvent + "): never created");
    }
    timingEvents.put(timingEvent, recordOn(lane, "recordTimingEvent " + timingEvent));
  }

  @Override
  public long elapsedNanos(int start, int end) {
    SimOp a = timingEvents.get(start);
    SimOp b = timingEvents.get(end);
    if (a == null || b == null) {
      return UNREADABLE;
    }
    return a.done && b.done ? random.nextLong(1, 1_000_000) : NOT_YET;
  }

  @Override
  public void waitEvent(int lane, int event) {
    engine.hostStep();
    checkEvent("waitEvent", event);
    SimOp wait = engine.marker(lane, SimOp.Kind.WAIT, "waitEvent " + event);
    wait.waitFor = events.get(event);
    engine.enqueue(lane, wait);
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
      return perThreadLanes.computeIfAbsent(thread, t -> engine.newAppLane(false));
    }
    return appLanes.computeIfAbsent(handle, h -> engine.newAppLane(false));
  }

  @Override
  public void callingThread(int thread) {
    this.thread = thread;
  }

  @Override
  public void createAppStream(long handle, boolean nonBlocking) {
    engine.hostStep();
    appLanes.put(handle, engine.newAppLane(nonBlocking));
  }

  @Override
  public void synchronizeEvent(int event) {
    engine.hostStep();
    checkEvent("synchronizeEvent", event);
    engine.runUntilDone(events.get(event), "event " + event);
  }

  @Override
  public void synchronizeDevice() {
    engine.hostStep();
    engine.runUntil(engine::idle, "the device");
  }

  // --- ProgramTarget

  @Override
  public int streams() {
    return streams;
  }

  @Override
  public long allocDevice(int bytes) {
    engine.hostStep();
    return memory.device.allocate(memory.nextAllocation(), bytes).base();
  }

  @Override
  public void freeDevice(long address) {
    engine.hostStep();
    Arena.Allocation a = memory.device.find(address);
    if (a == null || a.base() != address) {
      engine.fault(String.format(Locale.ROOT, "free(0x%x): no allocation starts there", address));
      return;
    }
    for (SimOp op : engine.running()) {
      for (long[] r : op.ranges) {
        if (r[3] == a.id()) {
          engine.fault(String.format(Locale.ROOT, "free(0x%x) at t=%d while %s is running on it", address,
              engine.now(), op));
          break;
        }
      }
    }
    memory.device.free(address);
  }

  @Override
  public long allocHost(int bytes) {
    engine.hostStep();
    Arena.Allocation a = memory.host.allocate(memory.nextAllocation(), bytes);
    memory.host.write(a.base(), new byte[(int) a.size()], 0, (int) a.size());
    return a.base();
  }

  @Override
  public long registerHost(int bytes) {
    return allocHost(bytes);
  }

  @Override
  public void writeHost(long address, byte[] data) {
    engine.hostStep();
    if (!memory.host.backs(address, data.length)) {
      engine.fault(String.format(Locale.ROOT, "writeHost(0x%x, %d): not page-locked memory", address, data.length));
      return;
    }
    memory.host.write(address, data, 0, data.length);
  }

  @Override
  public long moduleConstant() {
    return memory.moduleConstant();
  }

  @Override
  public void launchReadingConstant(int lane, long out, int n, int k) {
    engine.hostStep();
    engine.enqueue(lane, ops.readingConstant(lane, out, n, k));
  }

  @Override
  public void launchWithoutPtx(int lane, long slot, int n, int k) {
    engine.hostStep();
    engine.enqueue(lane, ops.withoutPtx(lane, slot, n, k));
  }

  @Override
  public void launchHostFunction(int lane, int gate, long src, long dst, int bytes) {
    engine.hostStep();
    engine.enqueue(lane, ops.hostFunction(lane, gate, src, dst, bytes));
  }

  @Override
  public void openGate(int gate) {
    engine.hostStep();
    engine.openGate(gate);
  }

  @Override
  public void copyHostToDeviceAsync(int lane, long dst, long hostSrc, int bytes) {
    engine.hostStep();
    engine.enqueue(lane, ops.copy(lane, "copyHtoDAsync", dst, hostSrc, bytes));
  }

  @Override
  public void waitAppEvent(int lane, int appEvent) {
    engine.hostStep();
    SimOp wait = engine.marker(lane, SimOp.Kind.WAIT, "streamWaitEvent " + appEvent);
    wait.waitFor = appEvents.get(appEvent);
    engine.enqueue(lane, wait);
  }

  @Override
  public byte[] readHost(long address, int bytes) {
    engine.hostStep();
    byte[] into = new byte[bytes];
    if (!memory.host.backs(address, bytes)) {
      engine.fault(String.format(Locale.ROOT, "readHost(0x%x, %d): not page-locked memory", address, bytes));
      return into;
    }
    memory.host.read(address, into, 0, bytes);
    return into;
  }

  @Override
  public void launch(int lane, SelfTestKernel kernel, long outPointer, long in1, long in2, int n, int k) {
    engine.hostStep();
    engine.enqueue(lane, ops.kernel(lane, kernel, outPointer, in1, in2, n, k));
  }

  @Override
  public void copyHostToDevice(long dst, byte[] src) {
    engine.hostStep();
    SimOp op = ops.copyHostToDevice(streams, dst, src.clone());
    engine.enqueue(streams, op);
    // From pageable memory CUDA synchronizes the stream before the copy starts: the host waits until
    // it may (the copy itself may complete later).
    engine.runUntil(() -> op.scheduled || op.done, op.toString());
  }

  @Override
  public void copyDeviceToHost(byte[] dst, long src) {
    engine.hostStep();
    SimOp op = ops.copyDeviceToHost(streams, dst, src);
    engine.enqueue(streams, op);
    engine.runUntilDone(op, op.toString());
  }

  @Override
  public void copyDeviceToHostAsync(int lane, long hostDst, long src, int bytes) {
    engine.hostStep();
    engine.enqueue(lane, ops.copy(lane, "copyDtoHAsync", hostDst, src, bytes));
  }

  @Override
  public void copyDeviceToDevice(int lane, long dst, long src, int bytes) {
    engine.hostStep();
    engine.enqueue(lane, ops.copy(lane, "copyDtoDAsync", dst, src, bytes));
  }

  @Override
  public void memset(int lane, long dst, byte value, int bytes) {
    engine.hostStep();
    engine.enqueue(lane, ops.memset(lane, dst, value, bytes));
  }

  @Override
  public void synchronizeLane(int lane) {
    engine.hostStep();
    engine.runUntilDone(engine.lastOn(lane), "lane " + lane);
  }

  @Override
  public void recordAppEvent(int appEvent, int lane) {
    engine.hostStep();
    appEvents.put(appEvent, recordOn(lane, "recordAppEvent " + appEvent));
  }

  @Override
  public void synchronizeAppEvent(int appEvent) {
    engine.hostStep();
    engine.runUntilDone(appEvents.get(appEvent), "application event " + appEvent);
  }

  @Override
  public List<String> faults() {
    return List.copyOf(engine.faults());
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
    return SimGraphs.function(kernel);
  }

  @Override
  public long readsConstantFunction() {
    return SimGraphs.READS_CONSTANT;
  }

  @Override
  public long withoutPtxFunction() {
    return SimGraphs.WITHOUT_PTX;
  }

  @Override
  public int launch(CallRecord call, int lane) {
    return graphs.launch(call, lane);
  }

  @Override
  public long capture(CallRecord[] calls, int count, int[] predecessorStart, int[] predecessors) {
    return graphs.capture(calls, count, predecessorStart, predecessors);
  }

  @Override
  public int launchGraph(long graph, int lane) {
    return graphs.launchGraph(graph, lane);
  }

  @Override
  public void destroyGraph(long graph) {
    graphs.destroyGraph(graph);
  }

  @Override
  public MergedFunction mergedFunction(CallRecord launch) {
    return graphs.mergedFunction(launch);
  }

  @Override
  public long uploadTable(byte[] table) {
    return graphs.uploadTable(table);
  }

  @Override
  public void freeTable(long address) {
    graphs.freeTable(address);
  }

  private void checkEvent(String call, int event) {
    if (!events.containsKey(event)) {
      engine.fault(call + "(" + event + "): event used before createEvent");
    }
  }
}
