package dev.kernelweave.agent.cli;

import static dev.kernelweave.agent.cli.InspectCommandTest.inspect;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.kernelweave.agent.cli.InspectCommandTest.Run;
import dev.kernelweave.call.AccessMode;
import dev.kernelweave.call.CallKind;
import dev.kernelweave.call.CallRecord;
import dev.kernelweave.journal.ChronicleLaunchJournal;
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
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What every subcommand says about a journal that lost calls (exit 3, one line naming the file and
 * the first missing call), and how the writing subcommands guard their output: never a file of the
 * journal, never a FIFO read.
 */
class InspectDamageTest {

  private static final int DAMAGED = 3;

  @TempDir Path temp;

  private static CallRecord launch(long seq) {
    CallRecord r = new CallRecord();
    r.seq = seq;
    r.kind = CallKind.LAUNCH;
    r.name = "cuLaunchKernel";
    r.kernel = "k" + seq;
    r.addAccess(1 + (int) (seq % 5), 0, 0x1000, 0, 256, AccessMode.READ_WRITE);
    return r;
  }

  /** A journal of calls {@code first .. first + n - 1}; returns its one data file. */
  private Path journal(Path dir, long first, int n) throws IOException {
    ChronicleLaunchJournal journal = ChronicleLaunchJournal.builder(dir).queueAtOnce().warn(w -> { }).open();
    for (long seq = first; seq < first + n; seq++) {
      journal.append(launch(seq));
    }
    journal.close();
    return dataFiles(dir).get(0);
  }

  private static List<Path> dataFiles(Path dir) throws IOException {
    try (Stream<Path> files = Files.list(dir)) {
      return files.filter(p -> p.toString().endsWith(".cq4")).sorted().toList();
    }
  }

  private List<String[]> everySubcommand(Path dir) {
    return List.of(
        new String[] {"stats", dir.toString()},
        new String[] {"tail", dir.toString()},
        new String[] {"dag", dir.toString()},
        new String[] {"trace", dir.toString(), "-o", temp.resolve("out.json").toString()});
  }

  private void assertDamaged(Path dir, Path file, String... said) {
    for (String[] args : everySubcommand(dir)) {
      Run run = inspect(args);
      String what = args[0] + ": " + run.err();
      assertEquals(DAMAGED, run.code(), what);
      assertEquals(1, run.err().lines().count(), what);
      assertTrue(run.err().startsWith("kernelweave inspect: " + file + " is damaged"), what);
      for (String s : said) {
        assertTrue(run.err().contains(s), what);
      }
    }
  }

  /** The byte offset of the {@code index}th call's header in a queue file. */
  private static long callOffset(Path file, int index) throws IOException {
    ByteBuffer b = ByteBuffer.wrap(Files.readAllBytes(file)).order(ByteOrder.LITTLE_ENDIAN);
    int pos = 0;
    int calls = 0;
    while (b.getInt(pos) != 0) {
      int h = b.getInt(pos);
      if ((h & 0x4000_0000) == 0 && calls++ == index) {
        return pos;
      }
      pos = (pos + 4 + (h & 0x3FFF_FFFF) + 3) & ~3;
    }
    throw new AssertionError("no call " + index);
  }

  private static void setHeaderBit(Path file, long at, int bit) throws IOException {
    try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
      ByteBuffer h = ByteBuffer.allocate(4).order(ByteOrder.LITTLE_ENDIAN);
      ch.read(h, at);
      h.putInt(0, h.getInt(0) | bit);
      h.rewind();
      ch.write(h, at);
    }
  }

  @Test
  void aZeroedJournalIsDamageNotNoCalls() throws Exception {
    Path dir = temp.resolve("j");
    Path file = journal(dir, 1, 50);
    Files.write(file, new byte[(int) Files.size(file)]);
    assertDamaged(dir, file, "zeroed");
    assertFalse(inspect("stats", dir.toString()).out().contains("no calls"));
  }

  @Test
  void anEmptyJournalFileIsDamageNotNoCalls() throws Exception {
    Path dir = temp.resolve("j");
    Path file = journal(dir, 1, 50);
    Files.write(file, new byte[0]);
    assertDamaged(dir, file, "empty (0 bytes)");
  }

  @Test
  void aCallHiddenByItsMetadataFlagIsDamageNamingTheFirstMissingCall() throws Exception {
    Path dir = temp.resolve("j");
    Path file = journal(dir, 1, 200);
    setHeaderBit(file, callOffset(file, 120), 0x4000_0000);
    assertDamaged(dir, file, "the first call missing is seq 121");
    assertEquals(120, inspect("tail", dir.toString()).lines().size(), "the calls before it are printed");
  }

  @Test
  void anEarlyEndByTheIncompleteFlagIsDamageNamingTheFirstMissingCall() throws Exception {
    Path dir = temp.resolve("j");
    Path file = journal(dir, 1, 200);
    setHeaderBit(file, callOffset(file, 60), 0x8000_0000);
    assertDamaged(dir, file, "the first call missing is seq 61");
  }

  @Test
  void anIncompleteLastRecordEndsTheJournalWithOneLineAndExitZero() throws Exception {
    Path dir = temp.resolve("j");
    Path file = journal(dir, 1, 20);
    long at = callOffset(file, 19);
    setHeaderBit(file, at, 0x8000_0000);
    Run run = inspect("tail", dir.toString());
    assertEquals(0, run.code(), run.err());
    assertEquals(19, run.lines().size());
    assertEquals("kernelweave inspect: journal ends in a partial record at " + file + " byte " + at
        + " (the writer stopped mid-record)\n", run.err());
  }

  @Test
  void aDeletedMiddleFileIsDamageNamingTheCallsAndTheFileMissing() throws Exception {
    // Three hourly files, each written apart and named for the hour it stands for.
    Path dir = temp.resolve("three");
    Files.createDirectories(dir);
    for (int hour = 0; hour < 3; hour++) {
      Path part = temp.resolve("part" + hour);
      Files.move(journal(part, 1 + hour * 100L, 100), dir.resolve("20260101-0" + hour + "F.cq4"));
      if (hour == 0) {
        Files.move(part.resolve("metadata.cq4t"), dir.resolve("metadata.cq4t"));
      }
    }
    assertEquals(0, inspect("stats", dir.toString()).code(), "whole, it is read without damage");
    Files.delete(dir.resolve("20260101-01F.cq4"));
    assertDamaged(dir, dir.resolve("20260101-02F.cq4"), "seq 101 to 200 (100 calls) are missing",
        "20260101-01F.cq4", "the first call missing is seq 101");
    assertEquals(200, inspect("tail", dir.toString()).lines().size(), "the files there are printed");
  }

  @Test
  void anOutputLinkedToAJournalFileIsRefusedAndTheJournalKept() throws Exception {
    Path dir = temp.resolve("j");
    Path file = journal(dir, 1, 20);
    byte[] before = Files.readAllBytes(file);
    Path symlink = Files.createSymbolicLink(temp.resolve("link.json"), file);
    Path hardLink = Files.createLink(temp.resolve("hard.json"), file);
    for (Path output : List.of(symlink, hardLink)) {
      for (String command : List.of("trace", "dag")) {
        Run run = inspect(command, dir.toString(), "-o", output.toString());
        assertEquals(2, run.code(), command + " " + output + ": " + run.err());
        assertEquals(1, run.err().lines().count(), run.err());
        assertTrue(run.err().startsWith("kernelweave inspect: will not write " + output + ": it is "), run.err());
        assertFalse(run.out().contains("wrote"), run.out());
      }
    }
    assertArrayEquals(before, Files.readAllBytes(file), "the journal is untouched");
  }

  @Test
  void anOutputIsWrittenWholeThroughATemporaryFileOrNotAtAll() throws Exception {
    Path dir = temp.resolve("j");
    journal(dir, 1, 20);
    Path out = temp.resolve("g.dot");
    Run dag = inspect("dag", dir.toString(), "-o", out.toString());
    assertEquals(0, dag.code(), dag.err());
    assertTrue(Files.readString(out).startsWith("digraph kernelweave {"));
    assertEquals("wrote 20 calls to " + out + "\n", dag.out());
    Path missing = temp.resolve("nonexistent/dir/t.json");
    Run trace = inspect("trace", dir.toString(), "-o", missing.toString());
    assertEquals(1, trace.code());
    assertEquals("kernelweave inspect: cannot write " + missing + ": no such directory\n", trace.err());
    try (Stream<Path> left = Files.list(temp)) {
      assertEquals(List.of(), left.filter(p -> p.getFileName().toString().endsWith(".tmp")).toList(),
          "no temporary file is left");
    }
  }

  @Test
  void aFifoNamedLikeAJournalFileIsRefusedInsteadOfHanging() throws Exception {
    Path dir = temp.resolve("j");
    journal(dir, 1, 5);
    Path fifo = dir.resolve("20991231-23F.cq4");
    Process mkfifo;
    try {
      mkfifo = new ProcessBuilder("mkfifo", fifo.toString()).start();
    } catch (IOException e) {
      mkfifo = null;
    }
    assumeTrue(mkfifo != null && mkfifo.waitFor(10, TimeUnit.SECONDS) && mkfifo.exitValue() == 0, "mkfifo");
    List<Run> runs = new ArrayList<>();
    Thread t = new Thread(() -> everySubcommand(dir).forEach(args -> runs.add(inspect(args))));
    t.setDaemon(true);
    t.start();
    t.join(20_000);
    assertFalse(t.isAlive(), "a command hangs on the FIFO");
    for (Run run : runs) {
      assertEquals(2, run.code(), run.err());
      assertEquals(1, run.err().lines().count(), run.err());
      assertTrue(run.err().contains(fifo + " is not a regular file"), run.err());
    }
  }

  @Test
  void dagOfARangeStopsOnceEveryCallOfItIsReadButWaitsForOneReturnedLate() throws Exception {
    Path dir = temp.resolve("j");
    ChronicleLaunchJournal journal = ChronicleLaunchJournal.builder(dir).queueAtOnce().warn(w -> { }).open();
    for (long seq = 1; seq <= 300; seq++) {
      if (seq != 15) {
        journal.append(launch(seq));
      }
      if (seq == 40) {
        journal.append(launch(15)); // a call that returned after later ones
      }
    }
    journal.close();
    Path file = dataFiles(dir).get(0);
    setHeaderBit(file, callOffset(file, 200), 0x4000_0000);
    Run range = inspect("dag", dir.toString(), "--from", "10", "--to", "20");
    assertEquals(0, range.code(), "the damage after the range is not read: " + range.err());
    assertEquals(java.util.Set.of(10L, 11L, 12L, 13L, 14L, 15L, 16L, 17L, 18L, 19L, 20L),
        InspectCommandTest.nodes(range.out()));
    assertEquals(DAMAGED, inspect("dag", dir.toString()).code(), "read to the end, it is");
  }
}
