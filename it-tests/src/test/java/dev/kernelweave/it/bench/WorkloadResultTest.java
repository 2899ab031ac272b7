package dev.kernelweave.it.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

class WorkloadResultTest {

  static final String LINE =
      "KW-RESULT {\"name\":\"rl-sim\",\"variant\":\"serial\",\"size\":\"bench\",\"sizes\":\"envs=64 steps=32\","
          + "\"ms\":[12.5,12.25,13],\"checksum\":\"ab12\",\"reference\":\"ok\","
          + "\"warmups\":42,\"timedFrom\":\"2026-11-25T14:30:00.5Z\"}";

  @Test
  void readsTheResultLineAmongOtherOutput() {
    WorkloadResult result = WorkloadResult.parse(List.of("sizes: envs=64 steps=32", "[agent] journal at /tmp/x", LINE, ""));
    assertEquals(
        new WorkloadResult(
            "rl-sim", "serial", "bench", "envs=64 steps=32", List.of(12.5, 12.25, 13.0), "ab12", "ok",
            "2026-11-25T14:30:00.5Z", 42),
        result);
    assertTrue(result.referenceOk());
  }

  @Test
  void aLineWithoutTheTimedRepetitionsStartStillReads() {
    assertEquals(null, WorkloadResult.parseLine(LINE.replace(",\"timedFrom\":\"2026-11-25T14:30:00.5Z\"", "")).timedFrom());
  }

  @Test
  void aLineWithoutAWholeCountOfWarmUpsSaysNone() {
    assertEquals(-1, WorkloadResult.parseLine(LINE.replace("\"warmups\":42,", "")).warmups());
    assertEquals(-1, WorkloadResult.parseLine(LINE.replace("42", "4.5")).warmups());
    assertEquals(-1, WorkloadResult.parseLine(LINE.replace("42", "\"42\"")).warmups());
  }

  @Test
  void theLastResultLineWins() {
    String later = LINE.replace("\"ab12\"", "\"cd34\"");
    assertEquals("cd34", WorkloadResult.parse(List.of(LINE, "  " + later + "  ")).checksum());
  }

  @Test
  void aMismatchIsNotOkButSkippedIs() {
    assertFalse(WorkloadResult.parseLine(LINE.replace("\"ok\"", "\"mismatch: at 3\"")).referenceOk());
    assertTrue(WorkloadResult.parseLine(LINE.replace("\"ok\"", "\"skipped\"")).referenceOk());
  }

  @Test
  void rejectsOutputWithoutAResult() {
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> WorkloadResult.parse(List.of("sizes: n=3", "boom")));
    assertTrue(e.getMessage().contains("KW-RESULT"), e.getMessage());
  }

  @Test
  void rejectsResultsThatBreakTheProtocol() {
    for (String bad :
        List.of(
            "KW-RESULT [1]",
            "KW-RESULT {\"name\":\"x\"",
            LINE.replace("\"checksum\":\"ab12\",", ""),
            LINE.replace("[12.5,12.25,13]", "\"12\""),
            LINE.replace("[12.5,12.25,13]", "[12.5,\"fast\"]"),
            LINE.replace("[12.5,12.25,13]", "[-1]"),
            LINE.replace("\"variant\":\"serial\"", "\"variant\":3"))) {
      assertThrows(IllegalArgumentException.class, () -> WorkloadResult.parseLine(bad), bad);
    }
  }
}
