package dev.kernelweave.journal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.kernelweave.call.CallRecord;
import dev.kernelweave.call.TestCalls;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.nio.file.attribute.UserPrincipal;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The journal's directories: nobody else can read, replace or redirect them. */
class JournalDirectoriesTest {

  @TempDir Path temp;

  private final List<String> warnings = new CopyOnWriteArrayList<>();

  private static List<Path> list(Path dir) throws IOException {
    try (Stream<Path> files = Files.list(dir)) {
      return files.sorted().toList();
    }
  }

  @Test
  void runNamesStampTheTimeAsTheFormatterWould() {
    java.time.format.DateTimeFormatter formatter = java.time.format.DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss");
    for (LocalDateTime t : List.of(LocalDateTime.of(2026, 1, 2, 3, 4, 5), LocalDateTime.of(2026, 12, 31, 23, 59, 59),
        LocalDateTime.of(999, 10, 10, 0, 0, 0))) {
      assertEquals(formatter.format(t), JournalDirectories.stamp(t));
    }
  }

  @Test
  void aPreCreatedPrivateDirectoryGetsARunDirectoryPerRun() throws Exception {
    Path dir = Files.createDirectory(temp.resolve("journal"),
        PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwxr-xr-x")));
    List<Path> runs = new ArrayList<>();
    for (int i = 0; i < 2; i++) {
      LaunchJournal journal = LaunchJournals.open(dir, warnings::add);
      journal.append(TestCalls.fill(new CallRecord(), i));
      journal.close();
      runs.add(((ChronicleLaunchJournal) journal).directory());
    }
    assertEquals(List.of(), warnings);
    assertFalse(runs.get(0).equals(runs.get(1)), "two runs, two directories: " + runs);
    assertEquals(runs, JournalDirectories.runs(dir.toRealPath()), "both listed, oldest first");
    for (int i = 0; i < 2; i++) {
      assertEquals(1, ChronicleLaunchJournalTest.readAll(runs.get(i)).size(), "each run holds its own call");
      assertEquals(i, ChronicleLaunchJournalTest.readAll(runs.get(i)).get(0).seq);
    }
  }

  @Test
  void aRunNameTakenByAPlantedLinkIsNeverFollowed() throws Exception {
    Path dir = Files.createDirectory(temp.resolve("journal"));
    Path victim = Files.createDirectory(temp.resolve("victim"));
    LocalDateTime now = LocalDateTime.of(2026, 1, 2, 3, 4, 5);
    Path planted = Files.createSymbolicLink(dir.resolve("run-20260102-030405-42"), victim);
    Path run = JournalDirectories.createRun(dir, now, 42);
    assertEquals(dir.resolve("run-20260102-030405-42-1"), run);
    assertTrue(Files.isSymbolicLink(planted), "the planted link is left alone");
    assertEquals(List.of(), list(victim), "nothing is created through the link");
    assertEquals("rwx------", PosixFilePermissions.toString(Files.getPosixFilePermissions(run)));
  }

  @Test
  void linksPlantedForEveryLikelyRunNameLeaveTheirTargetsUntouched() throws Exception {
    Path dir = Files.createDirectory(temp.resolve("journal"));
    Path victim = Files.createDirectory(temp.resolve("victim"));
    Path precious = Files.writeString(victim.resolve("metadata.cq4t"), "14 bytes here.");
    long pid = ProcessHandle.current().pid();
    LocalDateTime now = LocalDateTime.now().withNano(0);
    for (int s = -1; s <= 5; s++) {
      for (String suffix : List.of("", "-1", "-2")) {
        String stamp = java.time.format.DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss").format(now.plusSeconds(s));
        Files.createSymbolicLink(dir.resolve("run-" + stamp + "-" + pid + suffix), victim);
      }
    }
    LaunchJournal journal = LaunchJournals.open(dir, warnings::add);
    journal.append(TestCalls.fill(new CallRecord(), 1));
    journal.close();
    assertEquals(List.of(), warnings);
    assertEquals(List.of(precious), list(victim), "nothing created in the link's target");
    assertEquals("14 bytes here.", Files.readString(precious), "nothing overwritten there");
    Path run = ((ChronicleLaunchJournal) journal).directory();
    assertFalse(Files.isSymbolicLink(run));
    assertEquals(1, ChronicleLaunchJournalTest.readAll(run).size());
  }

  @Test
  void aDirectoryWritableByOthersIsRefusedWithOneWarningAndNothingIsWrittenThere() throws Exception {
    Path dir = Files.createDirectory(temp.resolve("shared"));
    Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwxrwxrwx"));
    LaunchJournal journal = LaunchJournals.open(dir, warnings::add);
    assertSame(LaunchJournal.OFF, journal);
    journal.append(TestCalls.fill(new CallRecord(), 1));
    journal.close();
    assertEquals(1, warnings.size(), warnings.toString());
    assertTrue(warnings.get(0).startsWith("kernelweave: journal off, cannot use " + dir.toRealPath() + ": "),
        warnings.get(0));
    assertTrue(warnings.get(0).contains(dir.toRealPath() + " is writable by others (rwxrwxrwx)"), warnings.get(0));
    assertEquals(List.of(), list(dir));
  }

  @Test
  void aDirectoryWritableByItsGroupIsRefused() throws Exception {
    Path dir = Files.createDirectory(temp.resolve("group"));
    Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwxrwx---"));
    assertSame(LaunchJournal.OFF, LaunchJournals.open(dir, warnings::add));
    assertTrue(warnings.get(0).contains("writable by its group"), warnings.get(0));
    assertEquals(List.of(), list(dir));
  }

  @Test
  void aDirectoryOfAnotherOwnerIsRefusedAndSoIsALinkToIt() throws Exception {
    Path dir = Files.createDirectory(temp.resolve("theirs"));
    UserPrincipal other;
    try {
      other = dir.getFileSystem().getUserPrincipalLookupService().lookupPrincipalByName("nobody");
      Files.setOwner(dir, other);
    } catch (IOException | UnsupportedOperationException e) {
      assumeTrue(false, "cannot give a directory to another user here (" + e + "): skipped");
      return;
    }
    Path link = Files.createSymbolicLink(temp.resolve("mine"), dir);
    for (Path named : List.of(dir, link)) {
      warnings.clear();
      assertSame(LaunchJournal.OFF, LaunchJournals.open(named, warnings::add));
      assertEquals(1, warnings.size(), warnings.toString());
      assertTrue(warnings.get(0).contains("owned by nobody"), warnings.get(0));
    }
    assertEquals(List.of(), list(dir));
  }

  @Test
  void runsAreListedOldestFirstAndOtherEntriesAreIgnored() throws Exception {
    Path dir = Files.createDirectory(temp.resolve("journal"));
    Path later = JournalDirectories.createRun(dir, LocalDateTime.of(2026, 1, 2, 3, 4, 6), 7);
    Path earlier = JournalDirectories.createRun(dir, LocalDateTime.of(2026, 1, 2, 3, 4, 5), 99);
    Path empty = JournalDirectories.createRun(dir, LocalDateTime.of(2026, 1, 2, 3, 4, 7), 1);
    Files.createDirectory(dir.resolve("notes"));
    for (Path run : List.of(later, earlier)) {
      ChronicleLaunchJournal j = ChronicleLaunchJournal.builder(run).warn(warnings::add).open();
      j.append(TestCalls.fill(new CallRecord(), 1));
      j.close();
    }
    assertEquals(List.of(earlier, later), JournalDirectories.runs(dir));
    assertTrue(Files.isDirectory(empty));
    assertTrue(JournalDirectories.isRunName("run-20260102-030405-42-3"));
    assertFalse(JournalDirectories.isRunName("run-2026"));
  }
}
