package dev.kernelweave.journal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kernelweave.call.CallRecord;
import dev.kernelweave.call.TestCalls;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ChronicleLaunchJournalTest {

  @TempDir Path temp;

  private final List<String> warnings = new CopyOnWriteArrayList<>();

  static List<CallRecord> readAll(Path dir) throws Exception {
    List<CallRecord> all = new ArrayList<>();
    try (JournalReader reader = JournalReader.open(dir)) {
      CallRecord r = new CallRecord();
      while (reader.next(r)) {
        CallRecord copy = new CallRecord();
        copy.copyFrom(r);
        all.add(copy);
      }
    }
    return all;
  }

  @Test
  void journalsEveryAppendedCallInOrder() throws Exception {
    Path dir = temp.resolve("journal");
    ChronicleLaunchJournal journal = ChronicleLaunchJournal.builder(dir).warn(warnings::add).open();
    CallRecord call = new CallRecord();
    int n = 5_000;
    for (int i = 0; i < n; i++) {
      journal.append(TestCalls.fill(call, i));
    }
    journal.close();
    assertEquals(n, journal.written());
    List<CallRecord> read = readAll(dir);
    assertEquals(n, read.size());
    CallRecord expected = new CallRecord();
    for (int i = 0; i < n; i++) {
      TestCalls.assertSameCall(TestCalls.fill(expected, i), read.get(i));
    }
    assertEquals(List.of(), warnings);
  }

  @Test
  void aFullRingMakesCallersWaitButLosesNothing() throws Exception {
    Path dir = temp.resolve("journal");
    ChronicleLaunchJournal journal =
        ChronicleLaunchJournal.builder(dir).ringCapacity(2).warn(warnings::add).open();
    int threads = 4;
    int perThread = 5_000;
    List<Thread> producers = new ArrayList<>();
    for (int t = 0; t < threads; t++) {
      long base = t * 1_000_000L;
      Thread p = new Thread(() -> {
        CallRecord call = new CallRecord();
        for (int i = 0; i < perThread; i++) {
          TestCalls.fill(call, base + i);
          journal.append(call);
        }
      });
      p.start();
      producers.add(p);
    }
    for (Thread p : producers) {
      p.join();
    }
    journal.close();
    assertTrue(journal.fullWaits() > 0, "a two-slot ring must have been full at times");
    List<CallRecord> read = readAll(dir);
    assertEquals(threads * perThread, read.size());
    long[] next = new long[threads];
    CallRecord expected = new CallRecord();
    for (CallRecord r : read) {
      int t = (int) (r.seq / 1_000_000L);
      assertEquals(t * 1_000_000L + next[t], r.seq, "each thread's calls stay in order");
      TestCalls.assertSameCall(TestCalls.fill(expected, r.seq), r);
      next[t]++;
    }
    assertEquals(List.of(), warnings);
  }

  @Test
  void createsTheDirectoryAndARunInItReadableByTheOwnerOnly() throws Exception {
    Path dir = temp.resolve("a/b/journal");
    LaunchJournal journal = LaunchJournals.open(dir, warnings::add);
    journal.close();
    assertTrue(Files.isDirectory(dir));
    assertEquals("rwx------", PosixFilePermissions.toString(Files.getPosixFilePermissions(dir)));
    Path run = ((ChronicleLaunchJournal) journal).directory();
    assertEquals(dir.toRealPath(), run.getParent());
    assertTrue(JournalDirectories.isRunName(run.getFileName().toString()), run.toString());
    assertEquals("rwx------", PosixFilePermissions.toString(Files.getPosixFilePermissions(run)));
    assertEquals(List.of(), warnings);
  }

  @Test
  void anUncreatableDirectoryWarnsOnceAndTheJournalIsHarmless() throws Exception {
    Path file = Files.writeString(temp.resolve("not-a-directory"), "x");
    Path dir = file.resolve("journal");
    LaunchJournal journal = LaunchJournals.open(dir, warnings::add);
    assertSame(LaunchJournal.OFF, journal);
    CallRecord call = TestCalls.fill(new CallRecord(), 1);
    for (int i = 0; i < 10_000; i++) {
      journal.append(call);
    }
    journal.close();
    assertEquals(1, warnings.size(), warnings.toString());
    assertTrue(warnings.get(0).contains(dir.toString()), warnings.get(0));
    assertTrue(warnings.get(0).contains("not a directory"), warnings.get(0));
  }

  @Test
  void aDirectoryInTheWayOfAFileWarnsOnce() throws Exception {
    Path file = Files.writeString(temp.resolve("journal"), "x");
    LaunchJournal journal = LaunchJournals.open(file, warnings::add);
    assertSame(LaunchJournal.OFF, journal);
    assertEquals(1, warnings.size(), warnings.toString());
    assertTrue(warnings.get(0).contains(file.toString()), warnings.get(0));
  }

  @Test
  void aQueueChronicleCannotOpenWarnsOnceAndAppendsAreHarmless() throws Exception {
    Path dir = Files.createDirectories(temp.resolve("journal"));
    Files.createDirectory(dir.resolve("metadata.cq4t"));
    LaunchJournal journal = ChronicleLaunchJournal.builder(dir).queueAtOnce().warn(warnings::add).open();
    CallRecord call = TestCalls.fill(new CallRecord(), 1);
    assertTimeoutPreemptively(Duration.ofSeconds(20), () -> {
      for (int i = 0; i < 100_000; i++) {
        journal.append(call);
      }
      journal.close();
    });
    assertEquals(1, warnings.size(), warnings.toString());
    assertTrue(warnings.get(0).startsWith("kernelweave: journal off, cannot write to " + dir + ": "),
        warnings.get(0));
  }

  @Test
  void aFullDiskStopsJournalingWithOneWarningAndAppendsNeverBlock() throws Exception {
    Path dir = temp.resolve("journal");
    ChronicleLaunchJournal journal = ChronicleLaunchJournal.builder(dir)
        .ringCapacity(4)
        .minFreeBytes(Long.MAX_VALUE)
        .warn(warnings::add)
        .open();
    CallRecord call = TestCalls.fill(new CallRecord(), 1);
    assertTimeoutPreemptively(Duration.ofSeconds(20), () -> {
      for (int i = 0; i < 100_000; i++) {
        journal.append(call);
      }
      journal.close();
    });
    assertFalse(journal.isOpen());
    assertEquals(1, warnings.size(), warnings.toString());
    assertTrue(warnings.get(0).contains(dir.toString()), warnings.get(0));
    assertTrue(warnings.get(0).contains("disk nearly full"), warnings.get(0));
  }

  @Test
  void appendsAfterCloseAreIgnored() throws Exception {
    Path dir = temp.resolve("journal");
    ChronicleLaunchJournal journal = ChronicleLaunchJournal.builder(dir).warn(warnings::add).open();
    CallRecord call = new CallRecord();
    journal.append(TestCalls.fill(call, 0));
    journal.close();
    journal.append(TestCalls.fill(call, 1));
    journal.close();
    assertEquals(1, readAll(dir).size());
    assertEquals(List.of(), warnings);
  }

  @Test
  void awaitWrittenReturnsOnceTheRingIsDrained() throws Exception {
    Path dir = temp.resolve("journal");
    ChronicleLaunchJournal journal = ChronicleLaunchJournal.builder(dir).warn(warnings::add).open();
    CallRecord call = new CallRecord();
    for (int i = 0; i < 1000; i++) {
      journal.append(TestCalls.fill(call, i));
    }
    assertTrue(journal.awaitWritten(10, TimeUnit.SECONDS));
    assertEquals(1000, journal.written());
    assertEquals(1000, readAll(dir).size(), "a reader sees the calls while the writer is open");
    journal.close();
  }

  @Test
  void theDefaultDirectoryIsOnePrivateDirectoryPerUserInTheStateHome() throws Exception {
    Path state = temp.resolve("state");
    Path parent = JournalDirectories.defaultParent(state.toString(), "/nonexistent-home", temp.toString(), "me");
    assertEquals(state.resolve("kernelweave").toRealPath(), parent);
    assertEquals("rwx------", PosixFilePermissions.toString(Files.getPosixFilePermissions(parent)));
    assertEquals(parent, JournalDirectories.defaultParent(state.toString(), null, temp.toString(), "me"),
        "the same directory for every run");
    Path home = Files.createDirectory(temp.resolve("home"));
    Path inHome = JournalDirectories.defaultParent(null, home.toString(), temp.toString(), "me");
    assertEquals(home.resolve(".local/state/kernelweave").toRealPath(), inHome);
  }

  @Test
  void theDefaultDirectoryFallsBackToAPrivateOneUnderTmpWhenTheStateHomeIsShared() throws Exception {
    Path shared = Files.createDirectory(temp.resolve("shared"));
    Files.setPosixFilePermissions(shared, PosixFilePermissions.fromString("rwxrwx---"));
    Path parent = JournalDirectories.defaultParent(shared.resolve("state").toString(), null, temp.toString(), "me");
    assertEquals(temp.resolve("kernelweave-me").toRealPath(), parent);
    assertEquals("rwx------", PosixFilePermissions.toString(Files.getPosixFilePermissions(parent)));
    assertFalse(Files.exists(shared.resolve("state")), "nothing created under the shared directory");
  }

  @Test
  void aFileErrorIsDescribedByTheSystemsReasonAndItsFile() {
    assertEquals("permission denied: /j/a.cq4",
        JournalFailures.describe(new java.nio.file.AccessDeniedException("/j/a.cq4")));
    assertEquals("no such file or directory: /j/b.cq4",
        JournalFailures.describe(new java.nio.file.NoSuchFileException("/j/b.cq4")));
    assertEquals("Input/output error: /j/c.cq4",
        JournalFailures.describe(new java.nio.file.FileSystemException("/j/c.cq4", null, "Input/output error")));
    assertEquals("disk nearly full", JournalFailures.describe(new java.io.IOException("disk nearly full")));
  }
}
