package dev.kernelweave.journal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kernelweave.call.CallRecord;
import dev.kernelweave.call.TestCalls;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The calls a journal takes before Chronicle has started go to the run's spill file, and a reader
 * reads them, then the queue's, as one journal: nothing lost, nothing out of order.
 */
class SpillFileTest {

  @TempDir Path temp;

  private final List<String> warnings = new CopyOnWriteArrayList<>();

  private static final RunHeader HEADER = new RunHeader("9.9.9-test", "17.0.0");
  private static final RunEnd END = new RunEnd(3, "a long program", "");

  private ChronicleLaunchJournal journal(Path dir, AtomicBoolean chronicleStarted) throws Exception {
    return ChronicleLaunchJournal.builder(dir)
        .ringCapacity(64) // many batches, and full waits
        .header(HEADER)
        .queueWhen(chronicleStarted::get)
        .warn(warnings::add)
        .open();
  }

  private static List<String> names(Path dir) throws Exception {
    try (Stream<Path> files = Files.list(dir)) {
      return files.map(p -> p.getFileName().toString()).sorted().toList();
    }
  }

  private static void assertReadsCalls(Path dir, int n) throws Exception {
    List<CallRecord> read = ChronicleLaunchJournalTest.readAll(dir);
    assertEquals(n, read.size());
    CallRecord expected = new CallRecord();
    for (int i = 0; i < n; i++) {
      TestCalls.assertSameCall(TestCalls.fill(expected, i), read.get(i));
    }
  }

  /** What a reader knows once it has read the journal to its end. */
  private record ReadToEnd(RunHeader header, RunEnd end, String partialEnd, JournalFormatException gap) {}

  private static ReadToEnd readToEnd(Path dir) throws Exception {
    try (JournalReader reader = JournalReader.open(dir)) {
      CallRecord r = new CallRecord();
      while (reader.next(r)) {
        // to the end
      }
      return new ReadToEnd(reader.runHeader(), reader.runEnd(), reader.partialEnd(), reader.gapDamage());
    }
  }

  @Test
  void aRunThatEndsBeforeChronicleStartsIsWholeInTheSpillFileAlone() throws Exception {
    Path dir = temp.resolve("journal");
    ChronicleLaunchJournal journal = journal(dir, new AtomicBoolean(false));
    CallRecord call = new CallRecord();
    int n = 3_000;
    for (int i = 0; i < n; i++) {
      journal.append(TestCalls.fill(call, i));
    }
    journal.endOfRun(END);
    journal.close();
    assertEquals(n, journal.written());
    assertEquals(List.of(JournalStorage.SPILL_FILE), names(dir), "no file of Chronicle's");
    assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(dir.resolve(JournalStorage.SPILL_FILE))));
    assertReadsCalls(dir, n);
    ReadToEnd read = readToEnd(dir);
    assertEquals(HEADER, read.header());
    assertEquals(END, read.end());
    assertNull(read.partialEnd());
    assertNull(read.gap());
    assertEquals(List.of(), warnings);
  }

  @Test
  void theCallsAfterChronicleStartsGoToTheQueueAndAFollowerReadsAcross() throws Exception {
    Path dir = temp.resolve("journal");
    AtomicBoolean started = new AtomicBoolean(false);
    ChronicleLaunchJournal journal = journal(dir, started);
    CallRecord call = new CallRecord();
    BlockingQueue<Long> seen = new LinkedBlockingQueue<>();
    journal.append(TestCalls.fill(call, 0));
    assertTrue(journal.awaitWritten(10, TimeUnit.SECONDS));
    Thread follower = new Thread(() -> {
      try (JournalReader reader = JournalReader.open(dir)) {
        CallRecord r = new CallRecord();
        while (reader.follow(r)) {
          seen.add(r.seq);
        }
      } catch (Exception e) {
        seen.add(-1L);
      }
    });
    follower.start();
    int half = 1_000;
    for (int i = 1; i < half; i++) {
      journal.append(TestCalls.fill(call, i));
    }
    assertTrue(journal.awaitWritten(10, TimeUnit.SECONDS));
    started.set(true);
    for (int i = half; i < 2 * half; i++) {
      journal.append(TestCalls.fill(call, i));
    }
    for (long seq = 0; seq < 2 * half; seq++) {
      assertEquals(seq, seen.poll(10, TimeUnit.SECONDS), "the follower reads every call once, in order");
    }
    follower.interrupt();
    follower.join(10_000);
    journal.endOfRun(END);
    journal.close();
    List<String> files = names(dir);
    assertTrue(files.contains(JournalStorage.SPILL_FILE), files.toString());
    assertTrue(files.stream().anyMatch(f -> f.endsWith(JournalStorage.DATA_SUFFIX)), files.toString());
    assertReadsCalls(dir, 2 * half);
    ReadToEnd read = readToEnd(dir);
    assertEquals(HEADER, read.header(), "the header is the spill file's");
    assertEquals(END, read.end(), "the end is the queue's");
    assertNull(read.gap());
    assertEquals(List.of(), warnings);
  }

  @Test
  void aCloseWhileTheQueueIsBuiltLosesNothing() throws Exception {
    // Chronicle starts just before the program exits: the writer may have begun building the queue,
    // built it, or moved on to it by the close. Every way, the journal reads whole.
    for (int run = 0; run < 20; run++) {
      Path dir = temp.resolve("journal-" + run);
      AtomicBoolean started = new AtomicBoolean(false);
      ChronicleLaunchJournal journal = journal(dir, started);
      CallRecord call = new CallRecord();
      int n = 400;
      for (int i = 0; i < n; i++) {
        if (i == n / 2) {
          started.set(true);
        }
        journal.append(TestCalls.fill(call, i));
      }
      journal.endOfRun(END);
      journal.close();
      assertEquals(n, journal.written());
      assertReadsCalls(dir, n);
      ReadToEnd read = readToEnd(dir);
      assertEquals(END, read.end(), "run " + run + ": " + names(dir));
      assertNull(read.gap());
      assertNull(read.partialEnd());
    }
    assertEquals(List.of(), warnings);
  }

  @Test
  void aSpillFileCutByAKilledWriterIsReadToItsLastWholeRecord() throws Exception {
    Path dir = temp.resolve("journal");
    ChronicleLaunchJournal journal = journal(dir, new AtomicBoolean(false));
    CallRecord call = new CallRecord();
    int n = 100;
    for (int i = 0; i < n; i++) {
      journal.append(TestCalls.fill(call, i));
    }
    journal.close();
    Path spill = dir.resolve(JournalStorage.SPILL_FILE);
    long size = Files.size(spill);
    // Without its end mark (4 bytes): the writer stopped between records.
    try (FileChannel ch = FileChannel.open(spill, StandardOpenOption.WRITE)) {
      ch.truncate(size - 4);
    }
    assertReadsCalls(dir, n);
    assertNull(readToEnd(dir).partialEnd());
    // Inside the last record: the writer stopped while writing it.
    try (FileChannel ch = FileChannel.open(spill, StandardOpenOption.WRITE)) {
      ch.truncate(size - 4 - 10);
    }
    assertReadsCalls(dir, n - 1);
    String partialEnd = readToEnd(dir).partialEnd();
    assertNotNull(partialEnd);
    assertTrue(partialEnd.contains(JournalStorage.SPILL_FILE), partialEnd);
  }

  @Test
  void aRunWithOnlyASpillFileIsListedAsARun() throws Exception {
    Path run = JournalDirectories.createRun(temp);
    ChronicleLaunchJournal journal = journal(run, new AtomicBoolean(false));
    journal.append(TestCalls.fill(new CallRecord(), 0));
    journal.close();
    assertEquals(List.of(run), JournalDirectories.runs(temp));
    assertFalse(Files.exists(run.resolve(JournalStorage.METADATA_FILE)));
  }
}
