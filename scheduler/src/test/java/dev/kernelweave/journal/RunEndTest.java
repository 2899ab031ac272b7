package dev.kernelweave.journal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kernelweave.call.CallRecord;
import dev.kernelweave.call.TestCalls;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class RunEndTest {

  @TempDir Path temp;

  /** Writes {@code calls} calls, then {@code end} where not null, and closes the journal. */
  private static Path journal(Path dir, int calls, RunEnd end) throws Exception {
    ChronicleLaunchJournal journal = ChronicleLaunchJournal.builder(dir).warn(w -> { })
        .header(new RunHeader("1.2.3", "17.0.15")).open();
    CallRecord call = new CallRecord();
    for (int i = 0; i < calls; i++) {
      journal.append(TestCalls.fill(call, i));
    }
    if (end != null) {
      journal.endOfRun(end);
    }
    journal.close();
    return dir;
  }

  /** Reads every call; the run's end as the reader found it, and the number of calls. */
  private static RunEnd readEnd(Path dir, int expectedCalls) throws Exception {
    try (JournalReader reader = JournalReader.open(dir)) {
      CallRecord r = new CallRecord();
      int calls = 0;
      while (reader.next(r)) {
        assertEquals(calls, r.seq, "the run's end is no call");
        calls++;
      }
      assertEquals(expectedCalls, calls);
      assertNull(reader.gapDamage());
      assertEquals(new RunHeader("1.2.3", "17.0.15"), reader.runHeader());
      return reader.runEnd();
    }
  }

  @Test
  void theCallsMadeAsWrittenAndWhyTheAgentEngagedAndStoppedAreReadAfterTheLastCall() throws Exception {
    RunEnd end = new RunEnd(37, "16 launches without a host wait", "a stream waits for a value\nin memory");
    RunEnd read = readEnd(journal(temp.resolve("j"), 250, end), 250);
    assertEquals(new RunEnd(37, "16 launches without a host wait", "a stream waits for a value in memory"), read);
    assertFalse(read.neverEngaged());
  }

  @Test
  void aRunTheAgentNeverEngagedSaysSoWithItsCallsMadeAsWritten() throws Exception {
    RunEnd read = readEnd(journal(temp.resolve("j"), 12, new RunEnd(468, "", "")), 12);
    assertTrue(read.neverEngaged());
    assertEquals(468, read.callsAsWritten());
  }

  @Test
  void aJournalClosedWithoutItsEndSaysNothing() throws Exception {
    assertNull(readEnd(journal(temp.resolve("j"), 5, null), 5));
  }

  @Test
  void anAgentTrackingFromTheFirstCallNeverCountsAsNeverEngaged() {
    assertFalse(new RunEnd(0, "", "").neverEngaged());
  }
}
