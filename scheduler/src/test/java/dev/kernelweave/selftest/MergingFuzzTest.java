package dev.kernelweave.selftest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kernelweave.scheduler.Mutant;
import dev.kernelweave.scheduler.Scheduler;
import dev.kernelweave.sim.SimDevice;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** The differential fuzz over windows whose launches the agent merges into one launch of a kernel. */
class MergingFuzzTest {

  @Test
  void mergedWindowsObserveWhatSerialRunsObserveAndLaunchesDoMerge() {
    DifferentialFuzz fuzz = new DifferentialFuzz(SimDevice.FACTORY, Scheduler.DEFAULT_STREAMS, Mutant.NONE);
    DifferentialFuzz.Report report = fuzz.run(3, 1000, 1, null);
    if (report.failed() > 0) {
      throw new AssertionError("merging broke a program:\n" + fuzz.shrink(report.failures().get(0)).describe());
    }
    assertTrue(report.shapes().getOrDefault(Shape.MERGEABLE_WINDOW, 0) > 0, report.shapes().toString());
    assertTrue(report.stats().mergedLaunches() > 0, "no launch merged: " + report.stats());
    assertTrue(report.stats().launchesMerged() >= 2 * report.stats().mergedLaunches(), report.stats().toString());
  }

  @ParameterizedTest
  @EnumSource(value = Mutant.class, names = {"MERGE_OVERLAPPING_WRITES", "MERGE_IGNORES_GRID"})
  void aWrongMergeIsCaught(Mutant mutant) {
    for (long seed : new long[] {1, 7, 11}) {
      DifferentialFuzz fuzz = new DifferentialFuzz(SimDevice.FACTORY, Scheduler.DEFAULT_STREAMS, mutant);
      DifferentialFuzz.Report report = fuzz.run(seed, 500, 1, null);
      assertEquals(1, report.failed(), mutant + " not caught in 500 programs of seed " + seed);
      System.out.println(mutant + " seed " + seed + ": " + report.failures().get(0).reason());
    }
  }
}
