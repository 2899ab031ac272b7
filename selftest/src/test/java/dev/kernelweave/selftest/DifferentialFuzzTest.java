package dev.kernelweave.selftest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kernelweave.scheduler.Scheduler;
import dev.kernelweave.sim.SimDevice;
import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;

/**
 * The differential fuzz on the simulator: the real scheduler passes thousands of programs; every
 * deliberately broken one is caught within a bounded number, and shrunk to a few calls.
 */
class DifferentialFuzzTest {

  /** Programs within which each mutant must have been caught. */
  private static final int MUTANT_BUDGET = 100;

  @ParameterizedTest(name = "{0} streams")
  @ValueSource(ints = {1, 2, 3, 16})
  void scheduledRunsObserveWhatSerialRunsObserve(int streams) {
    DifferentialFuzz fuzz = new DifferentialFuzz(SimDevice.FACTORY, streams, Mutant.NONE);
    DifferentialFuzz.Report report = fuzz.run(streams * 1000L + 1, 5000, 1, null);
    if (report.failed() > 0) {
      DifferentialFuzz.Failure shrunk = fuzz.shrink(report.failures().get(0));
      throw new AssertionError("the scheduler broke a program:\n" + shrunk.describe());
    }
    assertEquals(5000, report.passed());
    // Threads of every class: the normal lanes and each class's own lanes all get work.
    assertEquals(Scheduler.poolLanes(streams, DifferentialFuzz.classLanes(streams)), report.stats().lanesUsed(), "work spread over every lane: " + report.stats());
    if (streams > 1) {
      assertTrue(report.stats().crossLaneWaits() > 0, report.stats().toString());
    }
  }

  @ParameterizedTest(name = "{0} streams")
  @ValueSource(ints = {2, 5})
  void longProgramsObserveWhatSerialRunsObserve(int streams) {
    DifferentialFuzz fuzz = new DifferentialFuzz(SimDevice.FACTORY, streams, Mutant.NONE, new ProgramGenerator(400));
    DifferentialFuzz.Report report = fuzz.run(streams * 77L, 500, 1, null);
    if (report.failed() > 0) {
      throw new AssertionError("the scheduler broke a program:\n" + fuzz.shrink(report.failures().get(0)).describe());
    }
  }

  /** Programs within which every mutant must have been caught, for each seed the CLI is checked with. */
  private static final int EVERY_MUTANT_BUDGET = 500;

  /** The mutants the simulator's programs show: the others are caught through the agent, in it-tests. */
  static java.util.stream.Stream<Mutant> simulatedMutants() {
    return java.util.Arrays.stream(Mutant.values()).filter(m -> m != Mutant.NONE && m.caughtOnTheSimulator());
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("simulatedMutants")
  void everyMutantIsCaughtWithinFiveHundredProgramsForSeveralSeeds(Mutant mutant) {
    for (long seed : new long[] {1, 7, 11}) {
      DifferentialFuzz fuzz = new DifferentialFuzz(SimDevice.FACTORY, Scheduler.DEFAULT_STREAMS, mutant);
      DifferentialFuzz.Report report = fuzz.run(seed, EVERY_MUTANT_BUDGET, 1, null);
      assertEquals(1, report.failed(), mutant + " not caught in " + EVERY_MUTANT_BUDGET + " programs of seed " + seed);
    }
  }

  @ParameterizedTest(name = "seed {0}")
  @ValueSource(longs = {1, 7})
  void theRealSchedulerPassesTheProgramsThatCatchEveryMutant(long seed) {
    DifferentialFuzz fuzz = new DifferentialFuzz(SimDevice.FACTORY, Scheduler.DEFAULT_STREAMS, Mutant.NONE);
    DifferentialFuzz.Report report = fuzz.run(seed, EVERY_MUTANT_BUDGET, 1, null);
    if (report.failed() > 0) {
      throw new AssertionError("the scheduler broke a program:\n" + fuzz.shrink(report.failures().get(0)).describe());
    }
    for (Shape shape : Shape.values()) {
      assertTrue(report.shapes().getOrDefault(shape, 0) > 0, shape + " never generated: " + report.shapes());
    }
  }

  @Test
  void aHighPriorityCallThatOvertakesWorkItDependsOnIsCaughtAsADifferingResult() {
    DifferentialFuzz fuzz = new DifferentialFuzz(SimDevice.FACTORY, Scheduler.DEFAULT_STREAMS,
        Mutant.PRIORITY_SKIPS_DEPENDENCY);
    DifferentialFuzz.Report report = fuzz.run(3, EVERY_MUTANT_BUDGET, 1, null);
    assertEquals(1, report.failed(), "priority-skips-dependency not caught in " + EVERY_MUTANT_BUDGET + " programs");
    DifferentialFuzz.Failure shrunk = fuzz.shrink(report.failures().get(0));
    assertTrue(shrunk.describe().contains(" high "), "the shrunk program has a high-priority thread:\n" + shrunk.describe());
  }

  @Test
  void aHostThatBlocksBeforeAHostFunctionIsReportedAsADeadlock() {
    DifferentialFuzz fuzz = new DifferentialFuzz(SimDevice.FACTORY, 4, Mutant.HOSTFUNC_BLOCKS);
    DifferentialFuzz.Report report = fuzz.run(7, EVERY_MUTANT_BUDGET, 1, null);
    assertEquals(1, report.failed());
    assertTrue(report.failures().get(0).reason().contains("deadlock"), report.failures().get(0).reason());
  }

  @ParameterizedTest
  @MethodSource("simulatedMutants")
  void eachMutantIsCaughtAndShrunk(Mutant mutant) {
    DifferentialFuzz fuzz = new DifferentialFuzz(SimDevice.FACTORY, 4, mutant);
    DifferentialFuzz.Report report = fuzz.run(11, EVERY_MUTANT_BUDGET, 1, null);
    assertEquals(1, report.failed(), mutant + " not caught in " + EVERY_MUTANT_BUDGET + " programs");
    DifferentialFuzz.Failure failure = report.failures().get(0);
    DifferentialFuzz.Failure shrunk = fuzz.shrink(failure);
    assertTrue(shrunk.program().size() <= 12, "shrunk to " + shrunk.program().size() + ":\n" + shrunk.describe());
    assertNotNull(fuzz.check(shrunk.program(), shrunk.targetSeed()), "the shrunk program still fails");
    assertEquals(Program.wellFormed(shrunk.program().ops()), shrunk.program().ops());
  }

  @ParameterizedTest
  @EnumSource(value = Mutant.class, names = {"DROP_RAW", "DROP_WAR", "NO_FREE_WAIT", "IGNORE_RANGE_OVERLAP",
      "KERNEL_RANGE_FROM_POINTER"})
  void eachMutantIsCaughtByTheObservedBytesAlone(Mutant mutant) {
    // As on a real GPU, which reports no races: only the bytes the program observes count.
    DifferentialFuzz fuzz = new DifferentialFuzz(BytesOnlyTarget.FACTORY, 4, mutant);
    DifferentialFuzz.Report report = fuzz.run(12, 2 * MUTANT_BUDGET, 1, null);
    assertEquals(1, report.failed(), mutant + " not caught by bytes in " + 2 * MUTANT_BUDGET + " programs");
    assertTrue(report.failures().get(0).reason().contains("observed results differ"));
  }

  @Test
  void aCorrectSchedulerPassesTheShrunkProgramsOfEveryMutant() {
    for (Mutant mutant : simulatedMutants().toList()) {
      DifferentialFuzz broken = new DifferentialFuzz(SimDevice.FACTORY, 2, mutant);
      DifferentialFuzz.Failure failure =
          broken.shrink(broken.run(5, EVERY_MUTANT_BUDGET, 1, null).failures().get(0));
      DifferentialFuzz correct = new DifferentialFuzz(SimDevice.FACTORY, 2, Mutant.NONE);
      for (long seed = 0; seed < 50; seed++) {
        assertNull(correct.check(failure.program(), seed), failure.describe());
      }
    }
  }

  @Test
  void programsAreDeterministicAndWellFormed() {
    ProgramGenerator generator = new ProgramGenerator();
    for (long seed = 0; seed < 200; seed++) {
      Program a = generator.generate(seed);
      assertEquals(a.ops(), generator.generate(seed).ops());
      assertEquals(Program.wellFormed(a.ops()), a.ops());
      assertFalse(a.ops().isEmpty());
    }
  }

  @Test
  void programsExerciseEveryKindOfCall() {
    ProgramGenerator generator = new ProgramGenerator();
    Set<String> kinds = new HashSet<>();
    Set<Op.LaunchMode> modes = new HashSet<>();
    Set<Integer> threads = new HashSet<>();
    boolean appStream = false;
    for (long seed = 0; seed < 300; seed++) {
      for (Op op : generator.generate(seed).ops()) {
        kinds.add(op.getClass().getSimpleName());
        threads.add(op.thread());
        if (op instanceof Op.Launch l) {
          modes.add(l.mode());
          appStream |= l.stream() != 0;
        }
      }
    }
    assertEquals(Set.of("AllocHost", "CreateStream", "Alloc", "Free", "Launch", "Memset", "Write", "Read", "ReadAsync",
        "Copy", "SyncContext", "StreamSync", "EventRecord", "EventSync", "ObserveHost", "StreamWaitEvent", "HostWrite",
        "WriteAsync", "LaunchIntoHost", "WriteConstant", "LaunchReadingConstant", "LaunchWithoutPtx", "HostFunction",
        "OpenGate"), kinds);
    assertEquals(Set.of(Op.LaunchMode.values()), modes);
    assertTrue(threads.size() >= 3);
    assertTrue(appStream);
  }

  @Test
  void aFreeWaitsForAPendingKernelWithoutPtxThatWritesTheAllocationThroughAStoredPointer() {
    Program program = new Program(1, Program.wellFormed(java.util.List.of(
        new Op.CreateStream(0, 5, true),
        new Op.Alloc(0, 0, 2, 1),
        new Op.Alloc(0, 1, 32, 2),
        new Op.LaunchWithoutPtx(0, 5, new Op.At(0, 0), new Op.At(1, 0), 32, 9),
        new Op.Free(0, 1),
        new Op.Alloc(0, 2, 32, 3),
        new Op.Read(0, new Op.At(2, 0), 32))));
    assertEquals(7, program.size());
    DifferentialFuzz fuzz = new DifferentialFuzz(SimDevice.FACTORY, 4, Mutant.NONE);
    for (long seed = 0; seed < 100; seed++) {
      assertNull(fuzz.check(program, seed), "target seed " + seed);
    }
  }

  @Test
  void wellFormedKeepsHostReadsThatOnlyCudasStreamOrderMakesValid() {
    Op.At b0 = new Op.At(0, 0);
    Op.At b1 = new Op.At(1, 0);
    var ops = java.util.List.<Op>of(
        new Op.AllocHost(0, 0, 8, false),
        new Op.CreateStream(0, 5, false),
        new Op.CreateStream(0, 6, true),
        new Op.Alloc(0, 0, 8, 1),
        new Op.Alloc(0, 1, 8, 2),
        // A blocking stream's copy, completed by a synchronous copy of another buffer: valid.
        new Op.ReadAsync(0, 5, 0, 0, b0, 4),
        new Op.Read(0, b1, 4),
        new Op.ObserveHost(0, 0),
        // A non-blocking stream's copy is not: dropped, until the legacy stream waits for its event.
        new Op.ReadAsync(0, 6, 0, 0, b0, 4),
        new Op.Read(0, b1, 4),
        new Op.ObserveHost(0, 0),
        new Op.EventRecord(0, 0, 6),
        new Op.StreamWaitEvent(0, Scheduler.LEGACY_HANDLE, 0),
        new Op.StreamSync(0, 0),
        new Op.ObserveHost(0, 0));
    var kept = Program.wellFormed(ops);
    var expected = new java.util.ArrayList<>(ops);
    expected.remove(10);
    assertEquals(expected, kept);
  }

  @Test
  void wellFormedDropsHostBlockingCallsWhileAHostFunctionWaitsForTheHost() {
    var ops = java.util.List.<Op>of(
        new Op.AllocHost(0, 0, 64, true),
        new Op.HostFunction(0, 0, 3, 0, 0, 0, 16, 4),
        new Op.SyncContext(0),
        new Op.HostFunction(0, 0, 4, 0, 0, 0, 32, 4),
        new Op.OpenGate(0, 3),
        new Op.SyncContext(0));
    assertEquals(java.util.List.of(ops.get(0), ops.get(1), ops.get(4), ops.get(5)), Program.wellFormed(ops));
  }

  @Test
  void wellFormedDropsUsesOfBuffersNoLongerAllocatedAndUnsynchronizedHostReads() {
    Op.At b0 = new Op.At(0, 0);
    var ops = java.util.List.<Op>of(
        new Op.AllocHost(0, 0, 8, false),
        new Op.Alloc(0, 0, 8, 1),
        new Op.CreateStream(0, 5, true),
        new Op.ReadAsync(0, 5, 0, 0, b0, 4),
        new Op.ObserveHost(0, 0),
        new Op.StreamSync(0, 6),
        new Op.ObserveHost(0, 0),
        new Op.EventRecord(0, 1, 5),
        new Op.EventSync(0, 1),
        new Op.ObserveHost(0, 0),
        new Op.Free(0, 0),
        new Op.Read(0, b0, 4));
    var kept = Program.wellFormed(ops);
    assertEquals(java.util.List.of(ops.get(0), ops.get(1), ops.get(2), ops.get(3), ops.get(5), ops.get(7), ops.get(8),
        ops.get(9), ops.get(10)), kept);
  }
}
