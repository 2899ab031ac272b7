package dev.kernelweave.agent.cli.inspect;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kernelweave.call.CallKind;
import dev.kernelweave.call.CallRecord;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.ZoneOffset;
import org.junit.jupiter.api.Test;

/** What {@code inspect stats} and {@code trace} say of launches that ran merged. */
class JournalStatsMergedLaunchesTest {

  /** A launch replayed in window 1: alone, or an instance of a merged launch (the first or not). */
  private static CallRecord replayed(long seq, boolean merged, boolean first) {
    CallRecord r = new CallRecord();
    r.seq = seq;
    r.kind = CallKind.LAUNCH;
    r.name = "cuLaunchKernel";
    r.kernel = "k";
    r.startNanos = 1_000_000_000L + seq * 1000;
    r.durationNanos = 1000;
    r.graphWindow = 1;
    r.stream = 0;
    r.merged = merged;
    r.firstMerged = first;
    return r;
  }

  @Test
  void statsCountTheMergedLaunchesOfReplaysAndTheLaunchesTheyStoodFor() {
    JournalStats stats = new JournalStats();
    stats.add(replayed(1, true, true));
    stats.add(replayed(2, true, false));
    stats.add(replayed(3, true, false));
    stats.add(replayed(4, true, true));
    stats.add(replayed(5, true, false));
    stats.add(replayed(6, false, false));
    ByteArrayOutputStream text = new ByteArrayOutputStream();
    stats.print(new PrintStream(text, true, StandardCharsets.UTF_8), "j", ZoneOffset.UTC);
    String out = text.toString(StandardCharsets.UTF_8);
    assertTrue(out.contains("  merged launches                   2\n"), out);
    assertTrue(out.contains("  launches they merged              5\n"), out);
    ByteArrayOutputStream json = new ByteArrayOutputStream();
    stats.printJson(new PrintStream(json, true, StandardCharsets.UTF_8), "j");
    String j = json.toString(StandardCharsets.UTF_8);
    assertTrue(j.contains("\"merged_launches\": 2, \"launches_merged\": 5"), j);
  }

  @Test
  void theTraceFlagsEachMergedInstanceAndCountsTheReplaysMergedLaunches() throws Exception {
    java.io.StringWriter text = new java.io.StringWriter();
    try (ChromeTrace trace = new ChromeTrace(text, 1_000_000_000L)) {
      trace.add(replayed(1, true, true));
      trace.add(replayed(2, true, false));
      trace.add(replayed(3, false, false));
    }
    String json = text.toString();
    assertTrue(json.contains("\"mergedLaunches\":1"), json);
    // Each merged instance on its thread's track and on its stream's.
    assertEquals(4, json.split("\"merged\":true", -1).length - 1, json);
  }

  @Test
  void statsWithoutMergedLaunchesSayNothingOfThem() {
    JournalStats stats = new JournalStats();
    stats.add(replayed(1, false, false));
    stats.add(replayed(2, false, false));
    ByteArrayOutputStream text = new ByteArrayOutputStream();
    stats.print(new PrintStream(text, true, StandardCharsets.UTF_8), "j", ZoneOffset.UTC);
    assertTrue(!text.toString(StandardCharsets.UTF_8).contains("merged"), text.toString(StandardCharsets.UTF_8));
  }
}
