package dev.kernelweave.journal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kernelweave.call.CallRecord;
import dev.kernelweave.call.TestCalls;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.lang.management.ManagementFactory;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.StandardOpenOption;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.NotDirectoryException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import net.openhft.chronicle.queue.rollcycles.TestRollCycles;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class JournalReaderTest {

  @TempDir Path temp;

  @Test
  void readsEveryCompleteRecordOfAWriterKilledMidStream() throws Exception {
    Path dir = temp.resolve("journal");
    long announced = 20_000;
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    for (String arg : ManagementFactory.getRuntimeMXBean().getInputArguments()) {
      if (arg.startsWith("--add-opens") || arg.startsWith("--add-exports")) {
        command.add(arg);
      }
    }
    command.add("-cp");
    command.add(System.getProperty("java.class.path"));
    command.add(KilledWriterMain.class.getName());
    command.add(dir.toString());
    command.add(Long.toString(announced));
    Process child = new ProcessBuilder(command)
        .redirectError(temp.resolve("child.err").toFile())
        .start();
    try (BufferedReader out = new BufferedReader(
        new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8))) {
      String line = out.readLine();
      assertEquals("written " + announced, line, () -> "child said " + line + ", stderr: " + childErr());
      Thread.sleep(300);
      assertTrue(child.isAlive(), "the child must still be writing when killed");
      child.destroyForcibly();
      assertTrue(child.waitFor(30, TimeUnit.SECONDS));
    } finally {
      child.destroyForcibly();
    }
    assertEquals(137, child.exitValue(), "killed by SIGKILL");

    long read = 0;
    CallRecord expected = new CallRecord();
    try (JournalReader reader = JournalReader.open(dir)) {
      CallRecord r = new CallRecord();
      while (reader.next(r)) {
        assertEquals(read, r.seq, "no record is missing or repeated");
        TestCalls.assertSameCall(TestCalls.fill(expected, read), r);
        read++;
      }
    }
    assertTrue(read >= announced, "read " + read + " of at least " + announced);
  }

  private String childErr() {
    try {
      return Files.readString(temp.resolve("child.err"));
    } catch (Exception e) {
      return e.toString();
    }
  }

  @Test
  void followSeesCallsAppendedLaterAndStopsWhenInterrupted() throws Exception {
    Path dir = temp.resolve("journal");
    ChronicleLaunchJournal journal = ChronicleLaunchJournal.builder(dir).warn(w -> {}).open();
    CallRecord call = new CallRecord();
    journal.append(TestCalls.fill(call, 0));
    journal.awaitWritten(10, TimeUnit.SECONDS);
    BlockingQueue<Long> seen = new LinkedBlockingQueue<>();
    boolean[] stoppedCleanly = {false};
    Thread follower = new Thread(() -> {
      try (JournalReader reader = JournalReader.open(dir)) {
        CallRecord r = new CallRecord();
        while (reader.follow(r)) {
          seen.add(r.seq);
        }
        stoppedCleanly[0] = Thread.currentThread().isInterrupted();
      } catch (Exception e) {
        seen.add(-1L);
      }
    });
    follower.start();
    assertEquals(0L, seen.poll(10, TimeUnit.SECONDS));
    for (int i = 1; i <= 3; i++) {
      journal.append(TestCalls.fill(call, i));
    }
    for (long i = 1; i <= 3; i++) {
      assertEquals(i, seen.poll(10, TimeUnit.SECONDS));
    }
    follower.interrupt();
    follower.join(10_000);
    assertFalse(follower.isAlive());
    assertTrue(stoppedCleanly[0], "follow returns false on interrupt and keeps the status");
    journal.close();
  }

  @Test
  void readsAndFollowsAcrossFiles() throws Exception {
    Path dir = temp.resolve("journal");
    ChronicleLaunchJournal journal = ChronicleLaunchJournal.builder(dir)
        .rollCycle(TestRollCycles.TEST_SECONDLY)
        .queueAtOnce()
        .warn(w -> { })
        .open();
    CallRecord call = new CallRecord();
    journal.append(TestCalls.fill(call, 0));
    assertTrue(journal.awaitWritten(10, TimeUnit.SECONDS));
    BlockingQueue<Long> seen = new LinkedBlockingQueue<>();
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
    assertEquals(0L, seen.poll(10, TimeUnit.SECONDS));
    for (long seq = 1; seq < 3; seq++) {
      Thread.sleep(1_100);
      journal.append(TestCalls.fill(call, seq));
      assertEquals(seq, seen.poll(10, TimeUnit.SECONDS), "the follower crossed into the next file");
    }
    follower.interrupt();
    follower.join(10_000);
    journal.close();
    try (var files = Files.list(dir)) {
      assertTrue(files.filter(p -> p.toString().endsWith(".cq4")).count() >= 3, "one file per second");
    }
    try (JournalReader reader = JournalReader.open(dir)) {
      CallRecord r = new CallRecord();
      for (long seq = 0; seq < 3; seq++) {
        assertTrue(reader.next(r));
        assertEquals(seq, r.seq);
      }
      assertFalse(reader.next(r));
    }
  }

  @Test
  void aMissingDirectoryIsNamedInTheError() {
    Path dir = temp.resolve("nowhere");
    NoSuchFileException e = assertThrows(NoSuchFileException.class, () -> JournalReader.open(dir));
    assertTrue(e.getMessage().contains(dir.toString()), e.getMessage());
  }

  @Test
  void aFileIsNotAJournal() throws Exception {
    Path file = Files.writeString(temp.resolve("file"), "x");
    assertThrows(NotDirectoryException.class, () -> JournalReader.open(file));
  }

  @Test
  void aDirectoryWithoutQueueFilesIsNotAJournal() throws Exception {
    Path dir = Files.createDirectory(temp.resolve("empty"));
    Files.writeString(dir.resolve("notes.txt"), "x");
    JournalReader.NoJournalException e =
        assertThrows(JournalReader.NoJournalException.class, () -> JournalReader.open(dir));
    assertTrue(e.getMessage().contains(dir.toString()) && e.getMessage().contains("holds no journal"),
        e.getMessage());
    assertEquals(List.of(dir.resolve("notes.txt")), Files.list(dir).toList(), "reading creates nothing");
  }

  /** A closed journal of {@code n} calls in {@code dir}, and its one data file. */
  private static Path journalOf(Path dir, int n) throws Exception {
    ChronicleLaunchJournal journal = ChronicleLaunchJournal.builder(dir).queueAtOnce().warn(w -> { }).open();
    CallRecord call = new CallRecord();
    for (int i = 0; i < n; i++) {
      journal.append(TestCalls.fill(call, i));
    }
    journal.close();
    List<Path> files = JournalReader.dataFiles(dir);
    assertEquals(1, files.size(), files.toString());
    return files.get(0);
  }

  /** Reads until the end or the damage; returns the calls read and the damage (null if none). */
  private static Object[] readUntilDamage(Path dir) throws Exception {
    long read = 0;
    try (JournalReader reader = JournalReader.open(dir)) {
      CallRecord r = new CallRecord();
      CallRecord expected = new CallRecord();
      try {
        while (reader.next(r)) {
          TestCalls.assertSameCall(TestCalls.fill(expected, read), r);
          read++;
        }
      } catch (JournalFormatException e) {
        return new Object[] {read, e};
      }
    }
    return new Object[] {read, null};
  }

  @Test
  void aTruncatedFileIsReadUpToTheDamageWhichIsNamed() throws Exception {
    Path dir = temp.resolve("journal");
    Path file = journalOf(dir, 1000);
    long cut;
    try (FileChannel ch = FileChannel.open(file, StandardOpenOption.WRITE, StandardOpenOption.READ)) {
      cut = lastRecordEnd(file) / 2 + 1;
      ch.truncate(cut);
    }
    Object[] r = readUntilDamage(dir);
    long read = (Long) r[0];
    JournalFormatException e = (JournalFormatException) r[1];
    assertTrue(e != null, "the truncation is reported");
    assertTrue(read > 100 && read < 1000, "the calls before the cut are read: " + read);
    assertEquals(file, e.file());
    assertTrue(e.readableEnd() <= cut && e.readableEnd() > cut - 1000, e.getMessage());
    assertTrue(e.getMessage().startsWith(file + " is damaged: readable up to byte " + e.readableEnd()),
        e.getMessage());
    assertEquals(1, e.getMessage().lines().count());
  }

  @Test
  void overwrittenBytesAreReportedAsDamageAfterTheRecordsBeforeThem() throws Exception {
    Path dir = temp.resolve("journal");
    Path file = journalOf(dir, 1000);
    long middle = lastRecordEnd(file) / 2;
    byte[] noise = new byte[4096];
    new java.util.Random(7).nextBytes(noise);
    try (FileChannel ch = FileChannel.open(file, StandardOpenOption.WRITE)) {
      ch.write(ByteBuffer.wrap(noise), middle);
    }
    Object[] r = readUntilDamage(dir);
    assertTrue(r[1] != null, "the noise is reported");
    long read = (Long) r[0];
    assertTrue(read > 100 && read < 1000, "read " + read);
    assertTrue(((JournalFormatException) r[1]).readableEnd() <= middle + 4096, r[1].toString());
  }

  @Test
  void aNewerFileWhoseQueueHeaderIsBeingWrittenIsNotDamage() throws Exception {
    // At a roll the writer creates the next file and begins its queue header: for a moment the file
    // starts with NOT_COMPLETE and no length. A follower there must wait, not report damage.
    Path dir = temp.resolve("journal");
    Path file = journalOf(dir, 10);
    Path next = file.resolveSibling("99991231-235959T" + JournalStorage.DATA_SUFFIX);
    Files.write(next, ByteBuffer.allocate(64).order(ByteOrder.LITTLE_ENDIAN)
        .putInt(0, JournalReader.NOT_COMPLETE).array());
    Object[] r = readUntilDamage(dir);
    assertEquals(10L, r[0]);
    assertEquals(null, r[1], "no damage while the header is being written");
    Files.write(next, ByteBuffer.allocate(64).order(ByteOrder.LITTLE_ENDIAN).putInt(0, 8).array());
    r = readUntilDamage(dir);
    assertEquals(10L, r[0]);
    assertTrue(r[1] != null, "a complete data record where the queue header belongs is still damage");
  }

  @Test
  void aFileOfRandomBytesIsDamagedNotEmpty() throws Exception {
    Path dir = temp.resolve("journal");
    Path file = journalOf(dir, 10);
    byte[] noise = new byte[(int) Files.size(file)];
    new java.util.Random(11).nextBytes(noise);
    Files.write(file, noise);
    Object[] r = readUntilDamage(dir);
    assertEquals(0L, r[0]);
    JournalFormatException e = (JournalFormatException) r[1];
    assertTrue(e != null, "random bytes are damage, not an empty journal");
    assertEquals(0, e.readableEnd());
  }

  @Test
  void aFileThatShrinksWhileItIsReadIsDamageNotAFault() throws Exception {
    Path dir = temp.resolve("journal");
    Path file = journalOf(dir, 20_000);
    try (JournalReader reader = JournalReader.open(dir)) {
      CallRecord r = new CallRecord();
      for (int i = 0; i < 10; i++) {
        assertTrue(reader.next(r));
      }
      try (FileChannel ch = FileChannel.open(file, StandardOpenOption.WRITE)) {
        ch.truncate(64 * 1024);
      }
      long read = 10;
      try {
        while (reader.next(r)) {
          read++;
        }
        throw new AssertionError("the shrunk file must be reported after " + read + " calls");
      } catch (JournalFormatException e) {
        assertTrue(e.getMessage().contains("the file ends (at byte 65536)"), e.getMessage());
      }
    }
  }

  @Test
  void aBadMetadataTableIsReportedAndTheCallsAreStillRead() throws Exception {
    Path dir = temp.resolve("journal");
    journalOf(dir, 10);
    Path metadata = dir.resolve("metadata.cq4t");
    byte[] noise = new byte[4096];
    new java.util.Random(3).nextBytes(noise);
    Files.write(metadata, noise);
    Object[] r = readUntilDamage(dir);
    assertEquals(10L, r[0]);
    try (JournalReader reader = JournalReader.open(dir)) {
      JournalFormatException e = reader.metadataDamage();
      assertTrue(e != null, "the table is reported");
      assertEquals(metadata, e.file());
    }
  }

  @Test
  void aWholeJournalHasNoDamage() throws Exception {
    Path dir = temp.resolve("journal");
    journalOf(dir, 100);
    Object[] r = readUntilDamage(dir);
    assertEquals(100L, r[0]);
    assertEquals(null, r[1]);
    try (JournalReader reader = JournalReader.open(dir)) {
      assertEquals(null, reader.metadataDamage());
    }
  }

  /** Where the last document of a queue file ends (the next header is zero). */
  private static long lastRecordEnd(Path file) throws IOException {
    ByteBuffer b = ByteBuffer.wrap(Files.readAllBytes(file)).order(ByteOrder.LITTLE_ENDIAN);
    int pos = 0;
    while (b.getInt(pos) != 0) {
      pos = (pos + 4 + (b.getInt(pos) & JournalReader.LENGTH_MASK) + 3) & ~3;
    }
    return pos;
  }
}
