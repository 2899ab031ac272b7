package dev.kernelweave.selftest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kernelweave.call.CallRecord;
import dev.kernelweave.scheduler.GraphDevice;
import dev.kernelweave.scheduler.Scheduler;
import dev.kernelweave.sim.SimDevice;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Launch windows replayed as graphs on the simulator: a loop's results are what they are without
 * graphs only when a replay uses the launches' own parameters and keeps every edge between them.
 */
class GraphReplayTest {

  /**
   * Five iterations of a dependent chain on one stream, each read back: the first launches every
   * kernel once, the second is recorded, the third captured and replayed, the fourth replayed, the
   * fifth has a new scalar in its first launch.
   */
  static Program loop() {
    List<Op> ops = new ArrayList<>();
    ops.add(new Op.Alloc(0, 0, 16, 1));
    ops.add(new Op.Alloc(0, 1, 16, 2));
    Op.At b0 = new Op.At(0, 0);
    Op.At b1 = new Op.At(1, 0);
    for (int it = 0; it < 5; it++) {
      ops.add(new Op.Launch(0, 0, SelfTestKernel.FILL, b0, null, null, 16, it < 4 ? 7 : 8, Op.LaunchMode.PRECISE));
      ops.add(new Op.Launch(0, 0, SelfTestKernel.SCALE, b1, b0, null, 16, 3, Op.LaunchMode.PRECISE));
      ops.add(new Op.Launch(0, 0, SelfTestKernel.UPDATE, b0, b1, null, 16, 5, Op.LaunchMode.PRECISE));
      ops.add(new Op.Read(0, b0, 16));
    }
    return new Program(1, Program.wellFormed(ops));
  }

  @Test
  void aReplayedLoopObservesWhatTheSerialRunObserves() {
    Program program = loop();
    assertEquals(22, program.size());
    DifferentialFuzz fuzz = new DifferentialFuzz(SimDevice.FACTORY, 4, Mutant.NONE);
    for (long seed = 0; seed < 50; seed++) {
      assertNull(fuzz.check(program, seed), "target seed " + seed);
    }
    try (SimDevice device = new SimDevice(4, 3)) {
      RunResult result = ProgramRunner.runScheduled(program, device, Mutant.NONE, true);
      assertNull(result.error());
      assertEquals(1, result.stats().captured(), result.stats().toString());
      assertEquals(2, result.stats().replayed(), result.stats().toString());
      assertEquals(6, result.stats().held(), result.stats().toString());
    }
  }

  @Test
  void aReplayWithTheScalarsOfTheCapturedWindowIsCaught() {
    DifferentialFuzz fuzz = new DifferentialFuzz(SimDevice.FACTORY, 4, Mutant.REPLAY_STALE_PARAMETERS);
    String reason = fuzz.check(loop(), 0);
    assertNotNull(reason);
    assertTrue(reason.contains("observed results differ"), reason);
  }

  @Test
  void aGraphThatLostItsEdgesIsCaughtByTheObservedBytes() {
    Program program = loop();
    DifferentialFuzz correct = new DifferentialFuzz(BytesOnlyTarget.FACTORY, 4, Mutant.NONE);
    DifferentialFuzz edgeless = new DifferentialFuzz(
        (streams, seed) -> new WithoutEdges(new SimDevice(streams, seed)), 4, Mutant.NONE);
    int caught = 0;
    for (long seed = 0; seed < 20; seed++) {
      assertNull(correct.check(program, seed), "target seed " + seed);
      String reason = edgeless.check(program, seed);
      if (reason != null) {
        assertTrue(reason.contains("observed results differ"), reason);
        caught++;
      }
    }
    assertTrue(caught > 0, "a graph whose launches all run at once went unnoticed");
  }

  @Test
  void theFuzzCapturesReplaysAndDivergesWindowsAndPassesWithGraphsOnAndOff() {
    for (boolean graphs : new boolean[] {true, false}) {
      DifferentialFuzz fuzz = new DifferentialFuzz(SimDevice.FACTORY, Scheduler.DEFAULT_STREAMS, Mutant.NONE,
          new ProgramGenerator(), graphs);
      DifferentialFuzz.Report report = fuzz.run(3, 1000, 1, null);
      if (report.failed() > 0) {
        throw new AssertionError("graphs " + graphs + ":\n" + fuzz.shrink(report.failures().get(0)).describe());
      }
      RunStats stats = report.stats();
      if (graphs) {
        assertTrue(stats.captured() > 0 && stats.replayed() > stats.captured() && stats.diverged() > 0, stats.toString());
        assertTrue(report.shapes().getOrDefault(Shape.REPEATED_WINDOW, 0) > 0);
      } else {
        assertEquals(0, stats.held(), stats.toString());
      }
    }
  }

  /** The simulator, faults hidden, whose graphs run every launch at once: captured without edges. */
  private static final class WithoutEdges extends BytesOnlyTarget {
    WithoutEdges(ProgramTarget target) {
      super(target);
    }

    @Override
    public GraphDevice graphs() {
      GraphDevice graphs = target.graphs();
      return new GraphDevice() {
        @Override
        public int launch(CallRecord call, int lane) {
          return graphs.launch(call, lane);
        }

        @Override
        public long capture(CallRecord[] calls, int count, int[] predecessorStart, int[] predecessors) {
          return graphs.capture(calls, count, new int[count + 1], predecessors);
        }

        @Override
        public int launchGraph(long graph, int lane) {
          return graphs.launchGraph(graph, lane);
        }

        @Override
        public void destroyGraph(long graph) {
          graphs.destroyGraph(graph);
        }
      };
    }
  }
}
