package dev.kernelweave.scheduler;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kernelweave.call.AccessMode;
import dev.kernelweave.call.CallKind;
import dev.kernelweave.call.CallRecord;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class LaunchWindowsTest {

  /** Writes down what the windows asked of the device, and which held launches were issued how. */
  static final class FakeGraphs implements GraphDevice, LaunchWindows.Listener {
    final List<String> log = new ArrayList<>();
    final List<String> stops = new ArrayList<>();
    boolean failCapture;
    boolean failCaptureOfRoutines;
    final List<String> routineStops = new ArrayList<>();
    long nextGraph = 100;
    /** Host time a graph launch takes, on the clock a test gives the windows. */
    long[] clock;
    long graphLaunchNanos;
    /** Host time journaling a held launch takes, on that clock. */
    long journalNanos;
    /** Host time of each launch journaled, by sequence number. */
    final java.util.Map<Long, Long> journaledNanos = new java.util.HashMap<>();

    @Override
    public int launch(CallRecord call, int lane) {
      log.add("launch " + call.seq + " k=" + call.paramAsLong(1));
      return 0;
    }

    @Override
    public long capture(CallRecord[] calls, int count, int[] start, int[] predecessors) {
      if (failCapture) {
        throw new IllegalStateException("no graphs here");
      }
      for (int i = 0; i < count && failCaptureOfRoutines; i++) {
        if (calls[i].kind == CallKind.BLAS) {
          throw new IllegalStateException("this routine cannot be captured");
        }
      }
      StringBuilder b = new StringBuilder("capture");
      for (int i = 0; i < count; i++) {
        b.append(' ').append(calls[i].seq).append(" k=").append(calls[i].paramAsLong(1)).append(" after[");
        for (int e = start[i]; e < start[i + 1]; e++) {
          b.append(e > start[i] ? "," : "").append(calls[predecessors[e]].seq);
        }
        b.append(']');
      }
      log.add(b.toString());
      return nextGraph++;
    }

    @Override
    public int launchGraph(long graph, int lane) {
      log.add("replay g" + graph);
      if (clock != null) {
        clock[0] += graphLaunchNanos;
      }
      return 0;
    }

    @Override
    public void destroyGraph(long graph) {
      log.add("destroy g" + graph);
    }

    @Override
    public void issued(CallRecord call) {
      // Held launches reach the journal here.
      journaledNanos.put(call.seq, call.durationNanos);
      if (clock != null) {
        clock[0] += journalNanos;
      }
    }

    @Override
    public void stopped(String why) {
      stops.add(why);
    }

    @Override
    public void routinesStopped(String why) {
      routineStops.add(why);
    }

    /** The windows' sampled device times, as "graph|serial NANOS [-> graph|serial]" once judged. */
    final List<String> timed = new ArrayList<>();

    @Override
    public void windowTimed(WindowTime t) {
      timed.add((t.inOrder ? "serial " : "graph ") + t.deviceNanos
          + (t.judged ? (t.inOrderChosen ? " -> serial" : " -> graph") : ""));
    }

    List<String> drain() {
      List<String> d = List.copyOf(log);
      log.clear();
      return d;
    }
  }

  private final FakeGraphs graphs = new FakeGraphs();
  private Dispatch dispatch = dispatch(OrderingRules.CUDA);

  /** A dispatch whose windows see no pause of the host unless a test makes one. */
  private Dispatch dispatch(OrderingRules rules) {
    Dispatch d = new Dispatch(new RecordingDevice(), 4, 0, rules, graphs, graphs);
    d.windows().useClock(() -> 0L);
    return d;
  }
  private final Ticket ticket = new Ticket();
  private long seq;

  /** A launch of function {@code f} with a pointer into allocation {@code id} and scalar {@code k}. */
  private CallRecord launch(long f, int id, AccessMode mode, long k) {
    return launchOf(++seq, f, id, mode, k);
  }

  /** Launch number {@code seq} of function {@code f}, its pointer into allocation {@code id}, its scalar {@code k}. */
  static CallRecord launchOf(long seq, long f, int id, AccessMode mode, long k) {
    CallRecord c = new CallRecord();
    c.seq = seq;
    c.kind = CallKind.LAUNCH;
    c.function = f;
    c.gridX = c.gridY = c.gridZ = 1;
    c.blockX = 32;
    c.blockY = c.blockZ = 1;
    c.addParam(0x7000_0000_0000L + id * 0x1000L, 8);
    c.addParam(k, 8);
    c.addAccess(id, id, 0x7000_0000_0000L + id * 0x1000L, 0, 256, mode);
    return c;
  }

  /** Makes the call as the interceptor would: returns true when it was held. */
  private boolean make(CallRecord c) {
    int lane = dispatch.enterLaunch(c, ticket);
    if (ticket.heldByWindows()) {
      return true;
    }
    graphs.log.add("eager " + c.seq);
    dispatch.exit(c, true, ticket);
    return false;
  }

  /** A host synchronization: ends the window. */
  private void synchronize() {
    CallRecord c = new CallRecord();
    c.seq = ++seq;
    c.kind = CallKind.CONTEXT;
    dispatch.enter(c, Placement.DEVICE_SYNC, ticket);
    dispatch.exit(c, true, ticket);
  }

  /** One iteration: f1 writes allocation 1, f2 reads it and writes 2, f3 writes 3 on its own. */
  private List<Boolean> iteration(long k) {
    List<Boolean> held = new ArrayList<>();
    held.add(make(launch(1, 1, AccessMode.WRITE, k)));
    held.add(make(launch(2, 1, AccessMode.READ, k)));
    held.add(make(launch(3, 3, AccessMode.WRITE, k)));
    synchronize();
    return held;
  }

  @Test
  void aWindowIsIssuedAtOnceUntilItRepeatsThenCapturedThenReplayed() {
    assertEquals(List.of(false, false, false), iteration(5), "first: the configurations are new");
    assertEquals(List.of("eager 1", "eager 2", "eager 3"), graphs.drain());
    assertEquals(List.of(false, false, false), iteration(5), "second: the window is only remembered");
    graphs.drain();
    assertEquals(List.of(true, true, true), iteration(5), "third: held, then captured at the synchronization");
    assertEquals(List.of("capture 9 k=5 after[] 10 k=5 after[9] 11 k=5 after[]", "replay g100"), graphs.drain());
    assertEquals(List.of(true, true, true), iteration(5));
    assertEquals(List.of("replay g100"), graphs.drain(), "fourth: replayed, nothing captured");
    long[] counters = dispatch.windows().counters();
    assertEquals(1, counters[0]);
    assertEquals(2, counters[1]);
    assertEquals(6, counters[3]);
  }

  @Test
  void whereThreadsCutEachOthersWindowsAWindowIsCapturedOnlyAtItsSecondRepeat() {
    iteration(5);
    CallRecord other = launch(4, 4, AccessMode.WRITE, 1);
    other.threadId = 7;
    make(launch(1, 1, AccessMode.WRITE, 5));
    make(other); // another thread's launch ends this thread's window
    synchronize();
    graphs.drain();
    assertEquals(List.of(false, false, false), iteration(5), "the window is only remembered");
    graphs.drain();
    assertEquals(List.of(true, true, true), iteration(5), "held: it came before");
    assertEquals(List.of("launch 12 k=5", "launch 13 k=5", "launch 14 k=5"), graphs.drain(),
        "its first repeat is issued as learned, not captured");
    assertEquals(List.of(true, true, true), iteration(5));
    assertEquals(List.of("capture 16 k=5 after[] 17 k=5 after[16] 18 k=5 after[]", "replay g100"), graphs.drain(),
        "captured at its second repeat");
    assertEquals(List.of(true, true, true), iteration(5));
    assertEquals(List.of("replay g100"), graphs.drain());
  }

  @Test
  void heldLaunchesAreIssuedBeforeAnyOtherCallIsPlaced() {
    iteration(1);
    iteration(1);
    iteration(1);
    graphs.drain();
    assertTrue(make(launch(1, 1, AccessMode.WRITE, 1)));
    assertTrue(make(launch(2, 1, AccessMode.READ, 1)));
    assertEquals(List.of(), graphs.drain(), "held");
    assertTrue(dispatch.holding());
    CallRecord copy = new CallRecord();
    copy.seq = ++seq;
    copy.kind = CallKind.COPY_DEVICE_TO_HOST;
    copy.addAccess(1, 1, 0x7000_0000_1000L, 0, 256, AccessMode.READ);
    dispatch.enter(copy, Placement.ASYNC, ticket);
    assertEquals(List.of("launch 13 k=1", "launch 14 k=1"), graphs.drain(),
        "a window cut short is issued launch by launch, before the copy");
    dispatch.exit(copy, true, ticket);
    assertFalse(dispatch.holding());
  }

  @Test
  void otherScalarArgumentsAreNeverReplayedFromTheGraphOfTheOld() {
    iteration(1);
    iteration(1);
    iteration(1);
    graphs.drain();
    assertEquals(List.of(false, false, false), iteration(2), "a new window: the first launch's prefix is unknown");
    assertEquals(List.of("eager 13", "eager 14", "eager 15"), graphs.drain());
    assertEquals(List.of(true, true, true), iteration(2), "seen once: held, and captured as it ends");
    assertTrue(graphs.drain().get(0).startsWith("capture 17 k=2"));
    assertEquals(List.of(true, true, true), iteration(1));
    assertEquals(List.of("replay g100"), graphs.drain(), "each argument has its own graph");
  }

  @Test
  void theStaleParameterMutantReplaysTheOldGraph() {
    dispatch = dispatch(OrderingRules.CUDA.without(OrderingRules.Rule.REPLAY_MATCHES_SCALAR_ARGUMENTS));
    iteration(1);
    iteration(1);
    iteration(1);
    graphs.drain();
    assertEquals(List.of(true, true, true), iteration(2), "the mutant takes k=2 for the window of k=1");
    assertEquals(List.of("replay g100"), graphs.drain());
  }

  @Test
  void aFailedCaptureIssuesTheLaunchesAndStopsGraphs() {
    graphs.failCapture = true;
    iteration(1);
    iteration(1);
    graphs.drain();
    assertEquals(List.of(true, true, true), iteration(1));
    assertEquals(List.of("launch 9 k=1", "launch 10 k=1", "launch 11 k=1"), graphs.drain());
    assertEquals(1, graphs.stops.size());
    assertEquals(List.of(false, false, false), iteration(1), "stopped: nothing is held any more");
  }

  @Test
  void aRoutineThatCannotBeCapturedIsIssuedAtOnceFromThenOnWhileLaunchesStillReplay() {
    graphs.failCaptureOfRoutines = true;
    for (int round = 0; round < 2; round++) {
      make(launch(1, 1, AccessMode.WRITE, 1));
      make(launch(2, 1, AccessMode.READ, 1));
      makeRoutine();
      synchronize();
    }
    graphs.drain();
    assertTrue(make(launch(1, 1, AccessMode.WRITE, 1)));
    assertTrue(make(launch(2, 1, AccessMode.READ, 1)));
    assertTrue(makeRoutine(), "the third time, the window is held whole");
    synchronize();
    assertEquals(List.of("launch 9 k=1", "launch 10 k=1", "launch 11 k=1"), graphs.drain(),
        "its capture failed: issued one by one");
    assertEquals(1, graphs.routineStops.size());
    assertEquals(List.of(), graphs.stops, "graphs go on for launches");
    List<String> later = new ArrayList<>();
    for (int round = 0; round < 3; round++) {
      make(launch(1, 1, AccessMode.WRITE, 1));
      make(launch(2, 1, AccessMode.READ, 1));
      assertFalse(makeRoutine(), "routines are issued at once from now on");
      synchronize();
      later.addAll(graphs.drain());
    }
    assertTrue(later.contains("replay g100"), "the launches before the routine become a window of their own: " + later);
  }

  /** A cuBLAS routine, as the interceptor describes one: id 77, writing allocation 5. */
  private boolean makeRoutine() {
    CallRecord c = launch(77, 5, AccessMode.WRITE, 1);
    c.kind = CallKind.BLAS;
    c.gridX = c.gridY = c.gridZ = c.blockX = c.blockY = c.blockZ = 0;
    return make(c);
  }

  @Test
  void aLaunchAloneIsNeverHeld() {
    for (int i = 0; i < 4; i++) {
      assertFalse(make(launch(1, 1, AccessMode.WRITE, 1)));
      synchronize();
    }
  }

  @Test
  void aLongRunIsSplitIntoWindowsTheDeviceCanStartOn() {
    int n = LaunchWindows.MAX_WINDOW + 10;
    for (int round = 0; round < 3; round++) {
      for (int i = 0; i < n; i++) {
        make(launch(1, 1, AccessMode.READ_WRITE, i % 3));
      }
      synchronize();
    }
    List<String> log = graphs.drain();
    long captures = log.stream().filter(s -> s.startsWith("capture")).count();
    assertEquals(2, captures, "one graph for the first 128 launches, one for the other 10: " + log);
    int firstReplay = log.indexOf("replay g100");
    assertTrue(firstReplay >= 0 && log.subList(firstReplay, log.size()).contains("replay g101"));
  }

  @Test
  void aKnownWindowIsReplayedAtItsLastLaunchNotAtTheNextCall() {
    iteration(1);
    iteration(1);
    iteration(1);
    graphs.drain();
    make(launch(1, 1, AccessMode.WRITE, 1));
    make(launch(2, 1, AccessMode.READ, 1));
    assertEquals(List.of(), graphs.drain());
    make(launch(3, 3, AccessMode.WRITE, 1));
    assertEquals(List.of("replay g100"), graphs.drain(), "the device starts before the host synchronizes");
    assertFalse(dispatch.holding());
  }

  @Test
  void aWindowThatAnotherGoesOnFromWaitsForTheNextCall() {
    for (int round = 0; round < 3; round++) {
      make(launch(1, 1, AccessMode.WRITE, 1));
      make(launch(2, 1, AccessMode.READ, 1));
      make(launch(3, 3, AccessMode.WRITE, 1));
      make(launch(4, 3, AccessMode.READ, 1));
      synchronize();
    }
    iteration(1);
    iteration(1);
    graphs.drain();
    make(launch(1, 1, AccessMode.WRITE, 1));
    make(launch(2, 1, AccessMode.READ, 1));
    make(launch(3, 3, AccessMode.WRITE, 1));
    assertEquals(List.of(), graphs.drain(), "three launches may still be the start of four");
    assertTrue(dispatch.holding());
    synchronize();
    assertEquals(List.of("replay g101"), graphs.drain());
  }

  @Test
  void unloadingAModuleForgetsItsLaunchesAndDestroysTheirGraphs() {
    iteration(1);
    iteration(1);
    iteration(1);
    graphs.drain();
    make(launch(1, 1, AccessMode.WRITE, 1));
    dispatch.forgetLaunches();
    assertEquals(List.of("launch 13 k=1", "destroy g100"), graphs.drain(), "held launch issued, then its graph destroyed");
    assertEquals(List.of(false, false, false), iteration(1), "a function handle may now name another kernel");
  }

  @Test
  void aContextThatSawAStickyErrorIssuesWhatItHoldsAndMakesEveryLaterLaunchAtOnce() {
    iteration(1);
    iteration(1);
    iteration(1);
    graphs.drain();
    assertTrue(make(launch(1, 1, AccessMode.WRITE, 1)));
    dispatch.stopHolding("the context saw CUDA error 700");
    assertEquals(List.of("launch 13 k=1"), graphs.drain(), "what was held is issued at once");
    assertFalse(dispatch.holding());
    assertEquals(List.of(false, false, false), iteration(1),
        "each later launch is made, so that it returns the sticky error as CUDA would");
    assertEquals(List.of("eager 14", "eager 15", "eager 16"), graphs.drain(), "no graph is replayed either");
  }

  @Test
  void heldLaunchesAreIssuedAtTheDeadlineWhenNoFurtherCallComes() {
    long[] now = {0};
    dispatch.windows().useClock(() -> now[0]);
    for (int round = 0; round < 3; round++) {
      iteration(1);
    }
    graphs.drain();
    assertEquals(-1, dispatch.issueIfIdle(LaunchWindows.PAUSE_NANOS), "nothing held, no deadline");
    make(launch(1, 1, AccessMode.WRITE, 1));
    assertTrue(dispatch.holdingHint());
    now[0] += LaunchWindows.PAUSE_NANOS / 4;
    assertEquals(LaunchWindows.PAUSE_NANOS * 3 / 4, dispatch.issueIfIdle(LaunchWindows.PAUSE_NANOS),
        "before the deadline: nothing issued, the time left returned");
    assertEquals(List.of(), graphs.drain());
    now[0] += LaunchWindows.PAUSE_NANOS;
    assertEquals(-1, dispatch.issueIfIdle(LaunchWindows.PAUSE_NANOS));
    assertEquals(List.of("launch 13 k=1"), graphs.drain(), "held past the deadline with no call: issued");
    assertFalse(dispatch.holdingHint());
  }

  @Test
  void aPauseOfTheHostBetweenLaunchesEndsTheWindowSoTheLaunchesBeforeItRun() {
    long[] now = {0};
    dispatch.windows().useClock(() -> now[0]);
    for (int round = 0; round < 4; round++) {
      now[0] += 1_000;
      make(launch(1, 1, AccessMode.WRITE, 1));
      now[0] += 1_000;
      make(launch(2, 1, AccessMode.READ, 1));
      now[0] += LaunchWindows.PAUSE_NANOS + 1; // the host computes
      make(launch(3, 3, AccessMode.WRITE, 1));
      now[0] += 1_000;
      make(launch(4, 3, AccessMode.READ, 1));
      synchronize();
    }
    graphs.drain();
    now[0] += 1_000;
    make(launch(1, 1, AccessMode.WRITE, 1));
    now[0] += 1_000;
    make(launch(2, 1, AccessMode.READ, 1));
    assertEquals(List.of("replay g100"), graphs.drain(),
        "the launches before the pause are replayed at once, not after the host's computation");
    now[0] += LaunchWindows.PAUSE_NANOS + 1;
    make(launch(3, 3, AccessMode.WRITE, 1));
    now[0] += 1_000;
    make(launch(4, 3, AccessMode.READ, 1));
    assertEquals(List.of("replay g101"), graphs.drain());
  }

  @Test
  void theLaunchWhoseCallReplaysItsWindowIsJournaledWithTheReplaysHostTimeButNotTheJournalingOfItsWindow() {
    long[] now = {0};
    dispatch.windows().useClock(() -> now[0]);
    graphs.clock = now;
    graphs.graphLaunchNanos = 50_000;
    graphs.journalNanos = 7_000;
    for (int round = 0; round < 4; round++) {
      now[0] += 1_000;
      make(launch(1, 1, AccessMode.WRITE, 1));
      now[0] += 1_000;
      make(launch(2, 1, AccessMode.READ, 1));
      now[0] += LaunchWindows.PAUSE_NANOS + 1; // learned as a window of its own, replayed at its last launch
      make(launch(3, 3, AccessMode.WRITE, 1));
      synchronize();
    }
    graphs.drain();
    now[0] += 1_000;
    CallRecord first = launch(1, 1, AccessMode.WRITE, 1);
    CallRecord last = launch(2, 1, AccessMode.READ, 1);
    assertTrue(make(first));
    assertTrue(make(last));
    assertEquals(List.of("replay g100"), graphs.drain(), "replayed inside the second launch's call");
    long host = graphs.journaledNanos.get(last.seq);
    assertTrue(host >= 50_000, "its host time includes the graph launch: " + host);
    assertTrue(host < 57_000, "as an eager launch's, it ends at the real call's return, before journaling: " + host);
    assertTrue(graphs.journaledNanos.get(first.seq) < 50_000, "the first launch's does not");
  }

  @Test
  void routinesAreHeldAndReplayedLikeLaunchesAndTheirGraphsNeverOverlap() {
    List<String> launches = secondWindowsReplay(CallKind.LAUNCH);
    assertEquals(List.of("replay g100", "replay g101"), graphs.drain());
    assertTrue(launches.stream().noneMatch(l -> l.startsWith("wait")),
        "a graph of launches on other memory runs beside the one before: " + launches);
    List<String> routines = secondWindowsReplay(CallKind.BLAS);
    assertEquals(List.of("replay g102", "replay g103"), graphs.drain(), "routines are held and replayed as launches are");
    assertTrue(routines.stream().anyMatch(l -> l.startsWith("wait")),
        "a graph of routines waits for the graph of routines before, whose handles it shares: " + routines);
  }

  @Test
  void aLaunchMadeAfterTheHandOverToTheProgramIsIssuedNotHeld() {
    boolean heldBefore = false;
    for (int round = 0; round < 4; round++) {
      heldBefore |= iteration(5).contains(true);
    }
    assertTrue(heldBefore, "a window that repeats is held for its graph: " + graphs.drain());
    dispatch.handOverToTheProgram();
    graphs.drain();
    for (int round = 0; round < 4; round++) {
      assertEquals(List.of(false, false, false), iteration(5), "round " + round + " after the hand-over");
    }
    List<String> after = graphs.drain();
    assertTrue(after.stream().allMatch(l -> l.startsWith("eager")), "no graph after the hand-over: " + after);
  }

  /**
   * Two windows of {@code kind} on separate memory, split by a pause of the host, repeated until
   * both replay; returns what the stream device was asked while the second replayed the last time.
   */
  private List<String> secondWindowsReplay(CallKind kind) {
    RecordingDevice device = new RecordingDevice();
    dispatch = new Dispatch(device, 4, 0, OrderingRules.CUDA, graphs, graphs);
    long[] now = {0};
    dispatch.windows().useClock(() -> now[0]);
    List<String> second = List.of();
    for (int round = 0; round < 4; round++) {
      if (round == 3) {
        graphs.drain();
      }
      for (int f = 1; f <= 4; f++) {
        now[0] += f == 3 ? LaunchWindows.PAUSE_NANOS + 1 : 1_000;
        CallRecord c = launch(f + 10L * kind.ordinal(), f < 3 ? 1 : 3, f % 2 == 1 ? AccessMode.WRITE : AccessMode.READ, 1);
        c.kind = kind;
        if (f == 3) {
          device.drain();
        }
        make(c);
      }
      second = device.drain();
      synchronize();
    }
    return second;
  }
  @Test
  void everyParameterByteTellsFingerprintsAndSignaturesApart() {
    // 8 + 4 + 8 + 1 bytes: whole words and a tail of five.
    CallRecord launch = new CallRecord();
    launch.kind = CallKind.LAUNCH;
    launch.function = 42;
    for (int size : new int[] {8, 4, 8, 1}) {
      int at = launch.addParam(size);
      for (int b = 0; b < size; b++) {
        launch.paramBytes[at + b] = (byte) (at + b + 1);
      }
    }
    LaunchSignature signature = new LaunchSignature(OrderingRules.CUDA);
    long original = signature.append(launch);
    long[] captured = signature.copy();
    int bytes = launch.paramOffsets[launch.paramCount];
    java.util.Set<Long> seen = new java.util.HashSet<>(List.of(original));
    for (int b = 0; b < bytes; b++) {
      launch.paramBytes[b] ^= 0x10;
      signature.clear();
      assertTrue(seen.add(signature.append(launch)), "byte " + b + " changes the fingerprint");
      assertFalse(signature.matches(captured), "byte " + b + " changes the signature");
      launch.paramBytes[b] ^= 0x10;
    }
    signature.clear();
    assertEquals(original, signature.append(launch), "the same bytes, the same fingerprint");
    assertTrue(signature.matches(captured), "the same bytes, the same signature");
  }

  @Test
  void signaturesTellApartWhatAReplayDependsOn() {
    CallRecord launch = new CallRecord();
    launch.kind = CallKind.LAUNCH;
    launch.function = 42;
    launch.gridX = 4;
    launch.blockX = 128;
    launch.addParam(8);
    launch.addParam(4);
    launch.addAccess(7, 0, 0x1000, 0, 256, AccessMode.WRITE);
    LaunchSignature signature = new LaunchSignature(OrderingRules.CUDA);
    signature.append(launch);
    long[] captured = signature.copy();
    java.util.List<java.util.function.Consumer<CallRecord>> changes = List.of(
        c -> c.function = 43, c -> c.gridY = 2, c -> c.gridZ = 2, c -> c.blockX = 64, c -> c.blockY = 2,
        c -> c.blockZ = 2, c -> c.sharedMemBytes = 16, c -> c.paramOffsets[1] = 4,
        c -> c.accessId[0] = 8, c -> c.accessOffset[0] = 64, c -> c.accessSize[0] = 128,
        c -> c.accessMode[0] = (byte) AccessMode.READ.ordinal(),
        c -> c.addAccess(9, 1, 0x2000, 0, 64, AccessMode.READ));
    for (int i = 0; i < changes.size(); i++) {
      CallRecord changed = new CallRecord();
      changed.copyFrom(launch);
      changes.get(i).accept(changed);
      signature.clear();
      signature.append(changed);
      assertFalse(signature.matches(captured), "change " + i + " is told apart");
    }
    signature.clear();
    signature.append(launch);
    assertTrue(signature.matches(captured));
    signature.append(launch);
    assertFalse(signature.matches(captured), "a longer window is another window");
  }
}
