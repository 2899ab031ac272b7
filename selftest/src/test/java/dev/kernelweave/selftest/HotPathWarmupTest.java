package dev.kernelweave.selftest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kernelweave.scheduler.Scheduler;
import dev.kernelweave.sim.SimDevice;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class HotPathWarmupTest {

  @Test
  void runsProgramsUntilItsCpuBudgetIsSpentAndSaysSo() {
    List<String> lines = new ArrayList<>();
    HotPathWarmup warmup = new HotPathWarmup(TimeUnit.MILLISECONDS.toNanos(50), 1000, 4, 0, true, lines::add, () -> { });
    warmup.run();
    assertTrue(warmup.programs() > 0, "no program ran");
    assertEquals(1, lines.size(), lines::toString);
    assertTrue(lines.get(0).startsWith("warm-up: " + warmup.programs() + " self-test programs in "), lines.get(0));
  }

  @Test
  void itsLoopsAreReplayedAsGraphsAndObserveWhatTheyObserveSerially() {
    assertEquals(HotPathWarmup.LOOPS, HotPathWarmup.Loops.ALL.size(), "a warm-up of LOOPS programs runs each loop once");
    for (Program loop : HotPathWarmup.Loops.ALL) {
      assertTrue(loop.size() > HotPathWarmup.ITERATIONS * 10, "a loop lost calls to wellFormed: " + loop.size());
      assertNull(new DifferentialFuzz(SimDevice.FACTORY, 8, Mutant.NONE).check(loop, 1));
      RunResult scheduled;
      try (SimDevice device = new SimDevice(8, 2)) {
        scheduled = ProgramRunner.runScheduled(loop, device, Mutant.NONE, true);
      }
      assertTrue(scheduled.faults().isEmpty(), scheduled.faults()::toString);
      assertTrue(scheduled.stats().replayed() >= HotPathWarmup.ITERATIONS / 2,
          "replayed " + scheduled.stats().replayed() + " windows of " + HotPathWarmup.ITERATIONS);
    }
  }

  @Test
  void runsWithPriorityLanesWithoutGraphs() {
    List<String> lines = new ArrayList<>();
    HotPathWarmup warmup =
        new HotPathWarmup(TimeUnit.MILLISECONDS.toNanos(20), 1000, 2, Scheduler.AGENT_CLASS_LANES, false, lines::add, () -> { });
    warmup.run();
    assertTrue(warmup.programs() > 0, "no program ran");
    assertTrue(lines.get(0).startsWith("warm-up: "), lines.get(0));
  }

  @Test
  void runsNoMoreThanItsProgramsWhateverItsBudget() {
    List<String> lines = new ArrayList<>();
    HotPathWarmup warmup = new HotPathWarmup(TimeUnit.SECONDS.toNanos(60), 3, 4, 0, true, lines::add, () -> { });
    warmup.run();
    assertEquals(3, warmup.programs());
    assertTrue(lines.get(0).startsWith("warm-up: 3 self-test programs in "), lines.get(0));
    assertEquals(160, HotPathWarmup.programsFor(1000));
    assertEquals(1, HotPathWarmup.programsFor(1));
    assertEquals(9600, HotPathWarmup.programsFor(60_000));
  }

  @Test
  void aStoppedWarmupRunsNothingMore() throws InterruptedException {
    List<String> lines = new ArrayList<>();
    HotPathWarmup warmup = new HotPathWarmup(TimeUnit.SECONDS.toNanos(60), 1000, 4, 0, true, lines::add, () -> { });
    warmup.stop("at exit");
    warmup.stop("later");
    warmup.run();
    assertEquals(0, warmup.programs());
    assertTrue(lines.get(0).endsWith(", stopped at exit"), lines.get(0));
  }
}
