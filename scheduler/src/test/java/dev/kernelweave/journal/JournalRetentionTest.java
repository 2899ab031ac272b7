package dev.kernelweave.journal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The default journal keeps its newest runs within a count and a size, and removes nothing else. */
class JournalRetentionTest {

  @TempDir Path temp;

  /** Runs one second apart, oldest first, each with a file of {@code bytes}. */
  private List<Path> runs(Path parent, int n, int bytes) throws Exception {
    List<Path> runs = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      Path run = JournalDirectories.createRun(parent, LocalDateTime.of(2026, 1, 1, 0, 0, i), 100);
      Files.write(run.resolve("20260101-00T.cq4"), new byte[bytes]);
      runs.add(run);
    }
    return runs;
  }

  private static List<Path> left(Path parent) throws Exception {
    try (Stream<Path> s = Files.list(parent)) {
      return s.sorted().toList();
    }
  }

  @Test
  void theNewestRunsUpToTheCountAreKeptAndOtherEntriesAreLeftAlone() throws Exception {
    Path parent = Files.createDirectory(temp.resolve("journal"));
    List<Path> runs = runs(parent, 25, 10);
    Path notes = Files.createDirectory(parent.resolve("notes"));
    Path elsewhere = Files.createDirectory(temp.resolve("elsewhere"));
    Files.writeString(elsewhere.resolve("keep.txt"), "mine");
    Path link = Files.createSymbolicLink(parent.resolve("run-20250101-000000-1"), elsewhere);
    Path current = runs.get(24);
    assertEquals(runs.subList(0, 5), JournalRetention.prune(parent, current, 20, 1L << 30));
    List<Path> expected = new ArrayList<>(runs.subList(5, 25));
    expected.add(notes);
    expected.add(link);
    assertEquals(expected.stream().sorted().toList(), left(parent));
    assertEquals("mine", Files.readString(elsewhere.resolve("keep.txt")), "a link is never followed");
  }

  @Test
  void theSizeBoundRemovesTheOldestAndNeverTheCurrentRun() throws Exception {
    Path parent = Files.createDirectory(temp.resolve("journal"));
    List<Path> runs = runs(parent, 5, 1000);
    assertEquals(runs.subList(0, 3), JournalRetention.prune(parent, runs.get(4), 20, 2500));
    assertEquals(runs.subList(3, 5), left(parent));
    assertEquals(runs.subList(3, 4), JournalRetention.prune(parent, runs.get(4), 20, 10));
    assertEquals(List.of(runs.get(4)), left(parent), "the current run stays whatever its size");
  }

  @Test
  void repeatedDefaultRunsLeaveAtMostTheConfiguredNumberOfRuns() throws Exception {
    Path parent = Files.createDirectory(temp.resolve("journal"));
    for (int i = 0; i < 6; i++) {
      Path run = JournalDirectories.createRun(parent);
      JournalRetention.prune(parent, run, 3, 1L << 30);
      assertTrue(left(parent).size() <= 3, left(parent).toString());
      assertTrue(Files.isDirectory(run));
    }
    assertEquals(3, left(parent).size());
  }

  @Test
  void badBoundsAreRefused() {
    assertThrows(IllegalArgumentException.class, () -> JournalRetention.prune(temp, null, 0, 1));
  }
}
