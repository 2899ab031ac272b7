package dev.kernelweave.journal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.kernelweave.call.CallRecord;
import dev.kernelweave.call.TestCalls;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Every way a journal can lose calls is reported, with the file and the first missing call. */
class JournalGapsTest {

  @TempDir Path temp;

  /** Writes calls with these sequence numbers into {@code dir}; returns its one data file. */
  private static Path journalOf(Path dir, long... seqs) throws IOException {
    ChronicleLaunchJournal journal = ChronicleLaunchJournal.builder(dir).queueAtOnce().warn(w -> { }).open();
    CallRecord call = new CallRecord();
    for (long seq : seqs) {
      journal.append(TestCalls.fill(call, seq));
    }
    journal.close();
    return JournalReader.dataFiles(dir).get(0);
  }

  private static long[] range(long from, long to) {
    long[] seqs = new long[(int) (to - from)];
    for (int i = 0; i < seqs.length; i++) {
      seqs[i] = from + i;
    }
    return seqs;
  }

  /** The result of reading to the end: calls read, damage thrown, gaps and partial end after. */
  private record Read(long calls, JournalFormatException damage, JournalFormatException gaps, String partialEnd) {}

  private static Read read(Path dir) throws IOException {
    long calls = 0;
    try (JournalReader reader = JournalReader.open(dir)) {
      CallRecord r = new CallRecord();
      try {
        while (reader.next(r)) {
          calls++;
        }
      } catch (JournalFormatException e) {
        return new Read(calls, e, null, null);
      }
      return new Read(calls, null, reader.gapDamage(), reader.partialEnd());
    }
  }

  /** The byte offsets of the data documents (calls) of a queue file, in order. */
  private static List<Long> callOffsets(Path file) throws IOException {
    ByteBuffer b = ByteBuffer.wrap(Files.readAllBytes(file)).order(ByteOrder.LITTLE_ENDIAN);
    List<Long> calls = new ArrayList<>();
    int pos = 0;
    while (b.getInt(pos) != 0 && b.getInt(pos) != JournalReader.END_OF_DATA) {
      int h = b.getInt(pos);
      if ((h & JournalReader.META_DATA) == 0) {
        calls.add((long) pos);
      }
      pos = (pos + 4 + (h & JournalReader.LENGTH_MASK) + 3) & ~3;
    }
    return calls;
  }

  private static void orHeader(Path file, long at, int bits) throws IOException {
    try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
      ByteBuffer h = ByteBuffer.allocate(4).order(ByteOrder.LITTLE_ENDIAN);
      ch.read(h, at);
      h.putInt(0, h.getInt(0) | bits);
      h.rewind();
      ch.write(h, at);
    }
  }

  @Test
  void aWholeJournalReadOutOfOrderHasNoGap() throws Exception {
    // Calls are journaled as they return: a long call's number comes after later ones.
    Path dir = temp.resolve("j");
    journalOf(dir, 5, 3, 4, 6, 8, 7, 9);
    Read r = read(dir);
    assertEquals(7, r.calls());
    assertNull(r.damage());
    assertNull(r.gaps(), () -> r.gaps().getMessage());
    assertNull(r.partialEnd());
  }

  @Test
  void aMissingNumberIsDamageNamingTheFileAndTheFirstMissingCall() throws Exception {
    Path dir = temp.resolve("j");
    Path file = journalOf(dir, 1, 2, 4, 3, 5, 9, 10);
    Read r = read(dir);
    assertEquals(7, r.calls());
    assertTrue(r.gaps() != null, "6 to 8 are missing");
    assertEquals(6, r.gaps().firstMissing());
    assertEquals(file, r.gaps().file());
    assertTrue(r.gaps().getMessage().contains("seq 6 to 8 (3 calls) are missing before seq 9"), r.gaps().getMessage());
    assertEquals(1, r.gaps().getMessage().lines().count());
  }

  @Test
  void aCallWhoseHeaderIsFlaggedMetadataIsDamageNotSkipped() throws Exception {
    Path dir = temp.resolve("j");
    Path file = journalOf(dir, range(0, 100));
    long at = callOffsets(file).get(40);
    orHeader(file, at, JournalReader.META_DATA);
    Read r = read(dir);
    assertEquals(40, r.calls(), "the calls before it are read");
    assertTrue(r.damage() != null, "the hidden call is reported");
    assertEquals(at, r.damage().readableEnd());
    assertEquals(40, r.damage().firstMissing());
    assertTrue(r.damage().getMessage().contains("marked as queue metadata"), r.damage().getMessage());
  }

  @Test
  void aCallFlaggedIncompleteWithCallsAfterItIsDamageNotTheEnd() throws Exception {
    Path dir = temp.resolve("j");
    Path file = journalOf(dir, range(0, 100));
    long at = callOffsets(file).get(30);
    orHeader(file, at, JournalReader.NOT_COMPLETE);
    Read r = read(dir);
    assertEquals(30, r.calls());
    assertTrue(r.damage() != null, "the early end is reported");
    assertEquals(30, r.damage().firstMissing());
    assertTrue(r.damage().getMessage().contains("marked incomplete (header flag bit 31) has records after it"),
        r.damage().getMessage());
  }

  @Test
  void anIncompleteLastRecordIsTheJournalsEndAndSaidSo() throws Exception {
    // A writer killed, or whose disk filled, mid-record: the journal ends there, with one line.
    Path dir = temp.resolve("j");
    Path file = journalOf(dir, range(0, 100));
    long at = callOffsets(file).get(99);
    orHeader(file, at, JournalReader.NOT_COMPLETE);
    Read r = read(dir);
    assertEquals(99, r.calls());
    assertNull(r.damage());
    assertNull(r.gaps());
    assertEquals("journal ends in a partial record at " + file + " byte " + at + " (the writer stopped mid-record)",
        r.partialEnd());
  }

  @Test
  void aZeroedFileIsDamageNotAnEmptyJournal() throws Exception {
    Path dir = temp.resolve("j");
    Path file = journalOf(dir, range(0, 10));
    Files.write(file, new byte[(int) Files.size(file)]);
    Read r = read(dir);
    assertEquals(0, r.calls());
    assertTrue(r.damage() != null && r.damage().getMessage().contains("the file is zeroed"), String.valueOf(r.damage()));
    assertEquals(file, r.damage().file());
  }

  @Test
  void anEmptyFileIsDamageNotAnEmptyJournal() throws Exception {
    Path dir = temp.resolve("j");
    Path file = journalOf(dir, range(0, 10));
    Files.write(file, new byte[0]);
    Read r = read(dir);
    assertEquals(0, r.calls());
    assertTrue(r.damage() != null && r.damage().getMessage().contains("the file is empty (0 bytes)"),
        String.valueOf(r.damage()));
  }

  /**
   * A journal of three hourly files (calls 0-99, 100-199, 200-299), as a queue rolling every hour
   * writes it: each written apart and renamed to the hour it stands for.
   */
  private Path threeHourlyFiles() throws Exception {
    Path dir = temp.resolve("three");
    Files.createDirectories(dir);
    for (int hour = 0; hour < 3; hour++) {
      Path part = temp.resolve("part" + hour);
      Path file = journalOf(part, range(hour * 100L, hour * 100L + 100));
      Files.move(file, dir.resolve("20260101-0" + hour + "F.cq4"));
      if (hour == 0) {
        Files.move(part.resolve("metadata.cq4t"), dir.resolve("metadata.cq4t"));
      }
    }
    Read whole = read(dir);
    assertEquals(300, whole.calls());
    assertNull(whole.gaps(), () -> whole.gaps().getMessage());
    return dir;
  }

  @Test
  void aDeletedMiddleFileIsDamageNamingTheMissingFileAndCalls() throws Exception {
    Path dir = threeHourlyFiles();
    Files.delete(dir.resolve("20260101-01F.cq4"));
    Read r = read(dir);
    assertEquals(200, r.calls(), "the files there are read");
    assertTrue(r.gaps() != null, "the deleted file's calls are reported");
    assertEquals(100, r.gaps().firstMissing());
    assertEquals(dir.resolve("20260101-02F.cq4"), r.gaps().file());
    assertTrue(r.gaps().getMessage().contains("seq 100 to 199 (100 calls) are missing before seq 200"),
        r.gaps().getMessage());
    assertTrue(r.gaps().getMessage().contains("missing: 20260101-01F.cq4"), r.gaps().getMessage());
  }

  @Test
  void aZeroedMiddleFileIsDamageNamingItAndTheFirstMissingCall() throws Exception {
    Path dir = threeHourlyFiles();
    Path middle = dir.resolve("20260101-01F.cq4");
    Files.write(middle, new byte[(int) Files.size(middle)]);
    Read r = read(dir);
    assertEquals(100, r.calls());
    assertEquals(middle, r.damage().file());
    assertEquals(100, r.damage().firstMissing());
    assertTrue(r.damage().getMessage().endsWith("; the first call missing is seq 100"), r.damage().getMessage());
  }

  @Test
  void aFifoNamedLikeAQueueFileIsRefusedNotOpened() throws Exception {
    Path dir = temp.resolve("j");
    journalOf(dir, range(0, 3));
    Path fifo = dir.resolve("20991231-23F.cq4");
    Process mkfifo;
    try {
      mkfifo = new ProcessBuilder("mkfifo", fifo.toString()).start();
    } catch (IOException e) {
      mkfifo = null;
    }
    assumeTrue(mkfifo != null && mkfifo.waitFor(10, TimeUnit.SECONDS) && mkfifo.exitValue() == 0, "mkfifo");
    JournalReader.NotRegularFileException e =
        assertThrows(JournalReader.NotRegularFileException.class, () -> JournalReader.open(dir));
    assertTrue(e.getMessage().startsWith(fifo + " is not a regular file"), e.getMessage());
  }

  @Test
  void pendingGapsAreBoundedAndTooManyAreReported() {
    SequenceGaps gaps = new SequenceGaps(10);
    for (long seq = 0; seq < 20; seq += 2) {
      gaps.seen(seq, Path.of("f"), seq, false);
    }
    assertEquals(9, gaps.missing());
    assertTrue(!gaps.overflowed());
    gaps.seen(22, Path.of("f"), 22, false);
    gaps.seen(24, Path.of("f"), 24, false);
    assertTrue(gaps.overflowed(), "11 runs pending, more than 10");
    for (long seq = 1; seq < 24; seq += 2) {
      gaps.seen(seq, Path.of("f"), seq, false);
    }
    assertEquals(20, gaps.firstMissing(), "19..21 was split by 19 and 21");
    gaps.seen(20, Path.of("f"), 20, false);
    assertNull(gaps.firstGap(), "every number filled in");
    assertEquals(25, gaps.firstMissing());
  }
}
