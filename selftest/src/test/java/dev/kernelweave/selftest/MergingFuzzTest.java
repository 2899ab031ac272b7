package dev.kernelweave.selftest;

import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kernelweave.scheduler.Scheduler;
import dev.kernelweave.sim.SimDevice;
import org.junit.jupiter.api.Test;

/**
 * The differential fuzz over windows whose launches the agent merges into one launch of a kernel;
 * the mutants {@code merge-overlapping-writes} and {@code merge-ignores-grid} are caught with every
 * other in {@link DifferentialFuzzTest}.
 */
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
}
