package dev.kernelweave.journal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kernelweave.call.CallRecord;
import dev.kernelweave.call.TestCalls;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import net.openhft.chronicle.queue.rollcycles.TestRollCycles;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Journal directories as strict as ssh's: shared directories above the journal, links planted in
 * them and directories swapped after the check. Meaningful as root: the checks are on mode bits and
 * on what the journal opened, not on who may write.
 */
class JournalDirectorySafetyTest {

  @TempDir Path temp;

  private final List<String> warnings = new CopyOnWriteArrayList<>();

  private Path dir(String name, String permissions) throws IOException {
    Path d = Files.createDirectories(temp.resolve(name));
    Files.setPosixFilePermissions(d, PosixFilePermissions.fromString(permissions));
    return d;
  }

  private static List<Path> list(Path dir) throws IOException {
    try (Stream<Path> files = Files.list(dir)) {
      return files.sorted().toList();
    }
  }

  @Test
  void aPrivateDirectoryUnderAGroupWritableParentWithoutTheStickyBitIsRefusedWithOneLine() throws Exception {
    Path shared = dir("project", "rwxrwx---");
    Path mine = dir("project/journal", "rwx------");
    assertSame(LaunchJournal.OFF, LaunchJournals.open(mine, warnings::add));
    assertEquals(1, warnings.size(), warnings.toString());
    assertEquals(1, warnings.get(0).lines().count(), warnings.get(0));
    assertTrue(warnings.get(0).contains(shared.toRealPath() + " is writable by its group without the sticky bit"
        + " (rwxrwx---)"), warnings.get(0));
    assertEquals(List.of(), list(mine));
  }

  @Test
  void missingDirectoriesAreNotCreatedUnderASharedOne() throws Exception {
    Path shared = dir("shared", "rwxrwxrwx");
    assertSame(LaunchJournal.OFF, LaunchJournals.open(shared.resolve("a/b"), warnings::add));
    assertTrue(warnings.get(0).contains("writable by others"), warnings.get(0));
    assertEquals(List.of(), list(shared));
  }

  @Test
  void aLinkInASharedDirectoryIsRefusedEvenWhenItLeadsToTheUsersOwnDirectory() throws Exception {
    Path mine = dir("mine", "rwx------");
    Path shared = dir("shared", "rwxrwxrwx");
    Path planted = Files.createSymbolicLink(shared.resolve("journal"), mine);
    assertSame(LaunchJournal.OFF, LaunchJournals.open(planted, warnings::add));
    assertTrue(warnings.get(0).contains(shared.toRealPath() + " is writable by others"), warnings.get(0));
    assertEquals(List.of(), list(mine));
  }

  @Test
  void aTemporaryDirectoryInsideAGroupWritableOneIsNotADefault() throws Exception {
    Path tmp = dir("group/tmp", "rwx------");
    Files.setPosixFilePermissions(tmp.getParent(), PosixFilePermissions.fromString("rwxrwxr-x"));
    IOException e = assertThrows(IOException.class,
        () -> JournalDirectories.defaultParent(null, null, tmp.toString(), "me"));
    assertTrue(e.getMessage().contains(tmp.getParent().toRealPath() + " is writable by its group"), e.getMessage());
    assertEquals(List.of(), list(tmp));
  }

  @Test
  void aStickySharedDirectoryAboveIsAcceptedAndALinkInAPrivateOneIsFollowed() throws Exception {
    Path sticky = dir("tmp", "rwxrwxrwx");
    Process chmod = new ProcessBuilder("chmod", "1777", sticky.toString()).start();
    assertEquals(0, chmod.waitFor());
    Path target = dir("tmp/journal", "rwx------");
    Path link = Files.createSymbolicLink(dir("private", "rwx------").resolve("link"), target);
    assertEquals(target.toRealPath(), JournalDirectories.preparePrivateParent(link));
    assertEquals(target.toRealPath(), JournalDirectories.preparePrivateParent(target.resolve("../journal/.")));
    // The journal's own directory may not be the sticky one: its runs' names are predictable.
    IOException e = assertThrows(IOException.class, () -> JournalDirectories.preparePrivateParent(sticky));
    assertTrue(e.getMessage().contains("writable by others (rwxrwxrwt)"), e.getMessage());
  }

  @Test
  void theJournalsFilesAreOwnerOnlyIncludingThoseOfLaterRolls() throws Exception {
    Path run = JournalDirectories.createRun(dir("journal", "rwx------"));
    ChronicleLaunchJournal journal = ChronicleLaunchJournal.builder(run).warn(warnings::add)
        .rollCycle(TestRollCycles.TEST_SECONDLY).queueAtOnce().open();
    CallRecord call = new CallRecord();
    journal.append(TestCalls.fill(call, 0));
    assertTrue(journal.awaitWritten(30, TimeUnit.SECONDS));
    Thread.sleep(1100);
    journal.append(TestCalls.fill(call, 1));
    assertTrue(journal.awaitWritten(30, TimeUnit.SECONDS));
    journal.close();
    assertEquals(List.of(), warnings);
    List<Path> files = list(run);
    assertTrue(files.stream().filter(f -> f.toString().endsWith(".cq4")).count() >= 2, files.toString());
    for (Path f : files) {
      assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(f)), f.toString());
    }
    assertEquals("rwx------", PosixFilePermissions.toString(Files.getPosixFilePermissions(run)));
  }

  /**
   * The run directory is renamed away and a link to another directory put in its place after the
   * journal opened it: a file the writer creates afterwards (the next roll's) still goes into the
   * directory it opened, and nothing into the other.
   */
  @Test
  void aRunDirectorySwappedAfterTheCheckIsNeverWrittenThroughItsNewName() throws Exception {
    Path parent = dir("journal", "rwx------");
    Path run = JournalDirectories.createRun(parent);
    ChronicleLaunchJournal journal = ChronicleLaunchJournal.builder(run).warn(warnings::add)
        .rollCycle(TestRollCycles.TEST_SECONDLY).open();
    CallRecord call = new CallRecord();
    journal.append(TestCalls.fill(call, 0));
    assertTrue(journal.awaitWritten(30, TimeUnit.SECONDS));
    Path moved = Files.move(run, parent.resolve("moved"));
    Path other = dir("other", "rwx------");
    Files.createSymbolicLink(run, other);
    Thread.sleep(1100); // the next call rolls to a new file
    journal.append(TestCalls.fill(call, 1));
    assertTrue(journal.awaitWritten(30, TimeUnit.SECONDS));
    journal.close();
    assertEquals(List.of(), list(other), "nothing written through the swapped name");
    assertEquals(2, ChronicleLaunchJournalTest.readAll(moved).size(), "both calls in the directory opened");
    assertEquals(List.of(), warnings);
  }

  @Test
  void withoutAHandleASwappedDirectoryIsRefused() throws Exception {
    Path parent = dir("journal", "rwx------");
    Path run = JournalDirectories.createRun(parent);
    DirectoryHandle byPath = DirectoryHandle.byPath(run);
    byPath.verify();
    Files.move(run, parent.resolve("moved"));
    Files.createSymbolicLink(run, dir("other", "rwx------"));
    IOException e = assertThrows(IOException.class, byPath::verify);
    assertEquals(run + " was replaced after the journal opened it; not writing there", e.getMessage());
    assertThrows(IOException.class, () -> DirectoryHandle.open(run), "a link is not opened at all");
  }

  @Test
  void aFullDiskIsNamedAsSuch() {
    assertEquals("disk full (No space left on device)",
        JournalFailures.describe(new IOException("write failed", new IOException("No space left on device"))));
    InternalError fault = new InternalError("a fault occurred in a recent unsafe memory access operation");
    String unknownSpace = JournalFailures.describeWrite(fault, null, 1);
    assertTrue(unknownSpace.contains("disk full (No space left on device), or the file was truncated"), unknownSpace);
    assertFalse(unknownSpace.contains("InternalError"), unknownSpace);
  }
}
