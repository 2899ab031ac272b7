package dev.kernelweave.it.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Workloads whose repeated windows launch one kernel several times on independent buffers
 * ({@code branches}: the same kernel per branch, {@code rl-sim}: the same kernels per environment),
 * over the stand-in CUDA driver, whose PTX interpreter runs the merged variants: with {@code
 * merge=on} the agent replays merged launches (its exit counters and {@code inspect stats} say how
 * many), and the bytes are
 * the program's own, as with {@code merge=off} and without the agent.
 */
class MergedLaunchesOnCpuDeviceTest {

  private static final Pattern MERGED = Pattern.compile("(\\d+) merged launches replayed for (\\d+) launches");
  private static final Pattern STATS = Pattern.compile("merged launches\\s+(\\d+)\\s+launches they merged\\s+(\\d+)");

  @ParameterizedTest
  @ValueSource(strings = {"branches", "rl-sim"})
  void mergedLaunchesGiveTheProgramsOwnBytes(String workload) throws Exception {
    StandInDriver.assumeBuilt();
    String[] args = {workload, "--size", "check", "--warmup", "4", "--reps", "2"};
    String plain = StandInDriver.checksum(StandInDriver.workload(null, 1, args));
    for (int seed = 1; seed <= 2; seed++) {
      Path journal = Files.createTempDirectory("kw-merge").resolve(workload);
      ChildJvm.Result on = StandInDriver.workload("journal=" + journal + ",merge=on,log=debug", seed, args);
      assertEquals(plain, StandInDriver.checksum(on), "merge on, seed " + seed + ": " + on.stderr());
      long merged = 0;
      long replaced = 0;
      for (Matcher m = MERGED.matcher(on.stderr()); m.find(); ) {
        merged += Long.parseLong(m.group(1));
        replaced += Long.parseLong(m.group(2));
      }
      assertTrue(merged > 0 && replaced >= 2 * merged, "launches were merged:\n" + on.stderr());
      // The journal says the same: each instance is journaled, flagged, the first of each merged launch too.
      ChildJvm.Result stats = ChildJvm.command("inspect", "stats", journal.toString());
      Matcher s = STATS.matcher(stats.stdout());
      assertTrue(s.find(), stats.stdout());
      assertEquals(merged, Long.parseLong(s.group(1)), stats.stdout());
      assertEquals(replaced, Long.parseLong(s.group(2)), stats.stdout());
      System.out.println(workload + ", seed " + seed + ": " + merged + " merged launches replayed for " + replaced
          + " launches");
    }
    ChildJvm.Result off = StandInDriver.workload("journal=off,merge=off", 3, args);
    assertEquals(plain, StandInDriver.checksum(off), "merge off: " + off.stderr());
  }

  /** The other workloads with windows: whatever merges, their bytes stay their own. */
  @ParameterizedTest
  @ValueSource(strings = {"dynamic", "chain", "heads", "pipeline"})
  void otherWorkloadsKeepTheirBytesWithMergeOn(String workload) throws Exception {
    StandInDriver.assumeBuilt();
    String[] args = {workload, "--size", "check", "--warmup", "4", "--reps", "2"};
    String plain = StandInDriver.checksum(StandInDriver.workload(null, 1, args));
    ChildJvm.Result on = StandInDriver.workload("journal=off,merge=on,log=debug", 2, args);
    assertEquals(plain, StandInDriver.checksum(on), "merge on: " + on.stderr());
    Matcher m = MERGED.matcher(on.stderr());
    System.out.println(workload + ": " + (m.find() ? m.group() : "no counters"));
  }
}
