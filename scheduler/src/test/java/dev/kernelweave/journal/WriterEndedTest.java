package dev.kernelweave.journal;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import org.junit.jupiter.api.Test;

class WriterEndedTest {

  private static String at(LocalDateTime time) {
    return DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss").format(time);
  }

  @Test
  void aRunOfThisLiveProcessHasNotEnded() {
    Path run = Path.of("/tmp/j", "run-" + at(LocalDateTime.now(ZoneOffset.UTC)) + "-" + ProcessHandle.current().pid());
    assertFalse(JournalDirectories.writerEnded(run));
    assertFalse(JournalDirectories.writerEnded(run.resolveSibling(run.getFileName() + "-2")), "a second run of the second");
  }

  @Test
  void aRunWhoseProcessIsGoneOrWasBornLaterHasEnded() throws Exception {
    Process p = new ProcessBuilder("true").start();
    p.waitFor();
    LocalDateTime now = LocalDateTime.now(ZoneOffset.UTC);
    assertTrue(JournalDirectories.writerEnded(Path.of("run-" + at(now) + "-" + p.pid())));
    // This process's id, but the run is from before it started: the id was reused.
    Path older = Path.of("run-" + at(now.minusYears(30)) + "-" + ProcessHandle.current().pid());
    assertTrue(JournalDirectories.writerEnded(older));
  }

  @Test
  void aDirectoryThatIsNoRunIsNeverTakenForEnded() {
    assertFalse(JournalDirectories.writerEnded(Path.of("/tmp/live")));
    assertFalse(JournalDirectories.writerEnded(Path.of("run-2026-1")));
  }
}
