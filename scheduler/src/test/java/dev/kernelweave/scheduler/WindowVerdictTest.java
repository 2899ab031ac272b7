package dev.kernelweave.scheduler;

import static dev.kernelweave.scheduler.WindowVerdict.GRAPH;
import static dev.kernelweave.scheduler.WindowVerdict.SAMPLE;
import static dev.kernelweave.scheduler.WindowVerdict.SERIAL;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class WindowVerdictTest {

  private final WindowVerdict verdict = new WindowVerdict();

  /** Runs executions until one is to be sampled, and returns its way (without the sample bit). */
  private int nextSampled() {
    for (int i = 0; i < 1_000_000; i++) {
      int way = verdict.next();
      executions++;
      if ((way & SAMPLE) != 0) {
        return way & ~SAMPLE;
      }
      assertEquals(verdict.chosen(), way, "an execution not sampled takes the chosen way");
    }
    throw new AssertionError("no sample asked for");
  }

  /** Samples until judged, each way costing its host and device nanoseconds. */
  private void judge(long graphHost, long graphDevice, long serialHost, long serialDevice) {
    while (!verdict.judged()) {
      int way = nextSampled();
      verdict.sampled(way, way == GRAPH ? graphHost : serialHost, way == GRAPH ? graphDevice : serialDevice);
    }
  }

  /** The executions so far, counted as {@link #nextSampled} runs them. */
  private long executions;

  @Test
  void theGraphIsSampledFirstAndTheLaunchesInOrderOnlyFromTheirTrialOn() {
    assertEquals(GRAPH, verdict.chosen());
    assertEquals(GRAPH, nextSampled(), "the graph is sampled first");
    for (int i = 0; i < 3 * WindowVerdict.JUDGING_PERIOD; i++) {
      assertEquals(GRAPH, verdict.next(), "no second sample while one is in flight");
      executions++;
    }
    verdict.sampled(GRAPH, 1_000, 50_000);
    assertEquals(GRAPH, nextSampled());
    verdict.sampled(GRAPH, 1_000, 50_000);
    assertEquals(GRAPH, nextSampled());
    verdict.sampled(GRAPH, 1_000, 50_000);
    assertEquals(SERIAL, nextSampled(), "then the other way");
    assertTrue(executions >= WindowVerdict.TRIAL_AFTER, "not before its trial: " + executions);
    assertFalse(verdict.judged());
  }

  @Test
  void aTrialFarBehindTheGraphEndsTheJudgingAtOnceAndIsRepeatedEverMoreRarely() {
    for (int i = 0; i < 3; i++) {
      assertEquals(GRAPH, nextSampled());
      verdict.sampled(GRAPH, 10_000, 40_000);
    }
    assertEquals(SERIAL, nextSampled());
    verdict.sampled(SERIAL, 120_000, 130_000); // three times the graph's cost
    assertTrue(verdict.judged());
    assertEquals(GRAPH, verdict.chosen());
    List<Long> trials = new ArrayList<>();
    long start = executions;
    while (executions - start < 1_000_000) {
      int way = nextSampled();
      if (way == SERIAL) {
        trials.add(executions);
        verdict.sampled(SERIAL, 120_000, 130_000);
      } else {
        verdict.sampled(GRAPH, 10_000, 40_000);
      }
    }
    assertTrue(trials.size() >= 3, trials.toString());
    for (int i = 2; i < trials.size(); i++) {
      assertTrue(trials.get(i) - trials.get(i - 1) >= trials.get(i - 1) - trials.get(i - 2),
          "each trial further from the last: " + trials);
    }
    long last = trials.get(trials.size() - 1) - trials.get(trials.size() - 2);
    assertEquals((long) WindowVerdict.MAX_EXPLORE_EVERY * WindowVerdict.JUDGED_PERIOD, last,
        "at most every " + WindowVerdict.MAX_EXPLORE_EVERY + "th sample: " + trials);
  }

  @Test
  void theLaunchesInOrderReplaceTheGraphWhereTheDeviceRunsThemClearlyFaster() {
    judge(2_000, 100_000, 20_000, 60_000);
    assertEquals(SERIAL, verdict.chosen());
    assertEquals(100_000, verdict.median(GRAPH));
    assertEquals(60_000, verdict.median(SERIAL));
  }

  @Test
  void aWayWithinTenPercentDoesNotReplaceTheOneTaken() {
    judge(1_000, 100_000, 1_000, 95_000);
    assertEquals(GRAPH, verdict.chosen(), "5% faster is within the noise of the samples");
  }

  @Test
  void theHostsTimeCountsWhereItIsLongerThanTheDevices() {
    // In order, the device runs the window in 10 us, but the host needs 80 us to issue it.
    judge(8_000, 30_000, 80_000, 10_000);
    assertEquals(GRAPH, verdict.chosen());
    assertEquals(80_000, verdict.median(SERIAL));
  }

  @Test
  void onceJudgedTheOtherWayIsStillSampledNowAndThenAndTheVerdictFollowsIt() {
    judge(1_000, 100_000, 1_000, 50_000);
    assertEquals(SERIAL, verdict.chosen());
    int explored = 0;
    for (int i = 0; i < 4 * WindowVerdict.EXPLORE_EVERY; i++) {
      int way = nextSampled();
      if (way == GRAPH) {
        explored++;
        verdict.sampled(GRAPH, 1_000, 20_000); // the graph became the faster way
      } else {
        verdict.sampled(SERIAL, 1_000, 50_000);
      }
    }
    assertTrue(explored >= 3, "the way not taken is sampled every " + WindowVerdict.EXPLORE_EVERY + "th sample");
    assertEquals(GRAPH, verdict.chosen(), "the verdict follows the device");
  }

  @Test
  void aShortProgramPaysForNoJudging() {
    for (int i = 1; i < WindowVerdict.FIRST_SAMPLE; i++) {
      assertEquals(GRAPH, verdict.next(), "execution " + i + ": the graph, not timed");
    }
    for (int i = WindowVerdict.FIRST_SAMPLE; i < WindowVerdict.TRIAL_AFTER; i++) {
      int way = verdict.next();
      assertEquals(GRAPH, way & ~SAMPLE, "execution " + i);
      if ((way & SAMPLE) != 0) {
        verdict.sampled(GRAPH, 1_000, 1_000_000);
      }
    }
    assertEquals(3, verdict.samples(GRAPH));
  }

  @Test
  void aLostSampleLetsTheNextOneBeAsked() {
    assertEquals(GRAPH, nextSampled());
    verdict.sampleLost();
    assertEquals(GRAPH, nextSampled(), "the graph still has no sample");
    assertEquals(0, verdict.samples(GRAPH));
  }
}
