package dev.kernelweave.journal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import dev.kernelweave.call.CallRecord;
import dev.kernelweave.call.TestCalls;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import net.openhft.chronicle.queue.impl.single.SingleChronicleQueue;
import net.openhft.chronicle.queue.impl.single.SingleChronicleQueueBuilder;
import net.openhft.chronicle.queue.ExcerptTailer;
import net.openhft.chronicle.wire.DocumentContext;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class RunHeaderTest {

  @TempDir Path temp;

  private static Path journal(Path dir, RunHeader header, int calls) throws Exception {
    ChronicleLaunchJournal.Builder builder = ChronicleLaunchJournal.builder(dir).queueAtOnce().warn(w -> { });
    if (header != null) {
      builder.header(header);
    }
    ChronicleLaunchJournal journal = builder.open();
    CallRecord call = new CallRecord();
    for (int i = 0; i < calls; i++) {
      journal.append(TestCalls.fill(call, i));
    }
    journal.close();
    return dir;
  }

  /** The header the reader found after reading every call, and the calls' numbers. */
  private record Read(RunHeader header, List<Long> seqs) {}

  private static Read read(Path dir) throws Exception {
    List<Long> seqs = new ArrayList<>();
    try (JournalReader reader = JournalReader.open(dir)) {
      CallRecord r = new CallRecord();
      while (reader.next(r)) {
        seqs.add(r.seq);
      }
      assertNull(reader.gapDamage());
      return new Read(reader.runHeader(), seqs);
    }
  }

  @Test
  void theWritersVersionIsReadBackAndEveryCallAfterIt() throws Exception {
    Read read = read(journal(temp.resolve("j"), new RunHeader("1.2.3", "17.0.15"), 100));
    assertEquals(new RunHeader("1.2.3", "17.0.15"), read.header());
    assertEquals(100, read.seqs().size());
    assertEquals(0L, read.seqs().get(0));
  }

  @Test
  void aJournalWithoutAHeaderIsReadAsBeforeAndSaysNoWriter() throws Exception {
    Read read = read(journal(temp.resolve("j"), null, 10));
    assertNull(read.header());
    assertEquals(10, read.seqs().size());
  }

  @Test
  void theHeaderIsTheQueuesFirstDocumentAndChroniclesOwnReadersSkipIt() throws Exception {
    Path dir = journal(temp.resolve("j"), RunHeader.of("0.1.0"), 3);
    try (SingleChronicleQueue queue = SingleChronicleQueueBuilder.binary(dir).readOnly(true)
        .rollCycle(net.openhft.chronicle.queue.RollCycles.FAST_HOURLY).build()) {
      ExcerptTailer tailer = queue.createTailer();
      List<Long> seqs = new ArrayList<>();
      while (true) {
        try (DocumentContext dc = tailer.readingDocument()) {
          if (!dc.isPresent()) {
            break;
          }
          CallRecord r = new CallRecord();
          r.readMarshallable(dc.wire().bytes());
          seqs.add(r.seq);
        }
      }
      assertEquals(List.of(0L, 1L, 2L), seqs, "a data reader sees the calls alone");
    }
    assertEquals(System.getProperty("java.version"), read(dir).header().java());
  }

  @Test
  void aLineBreakInAValueCannotAddALine() {
    RunHeader header = new RunHeader("1.0\njava=evil", "17\r\n");
    assertEquals("1.0 java=evil", header.version());
    assertEquals("17", header.java());
  }
}
