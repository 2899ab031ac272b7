package dev.kernelweave.it.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.util.List;
import org.junit.jupiter.api.Test;

class LaunchHostTimeTest {

  /** The shape of {@code inspect stats} around its kernel table. */
  private static List<String> stats(String... kernelRows) {
    List<String> lines = new java.util.ArrayList<>(List.of(
        "journal /tmp/j", "100 calls from a to b (UTC), 1 ms", "", "calls by kind", "  launch  70", "",
        "kernels                      launches   mean host us"));
    lines.addAll(List.of(kernelRows));
    lines.addAll(List.of("", "threads                         calls        host ms", "  main (1)   100    2.500"));
    return lines;
  }

  @Test
  void eachKernelsMeanCountsByItsLaunches() {
    LaunchHostTime t =
        LaunchHostTime.parse(stats("  pipe_prepare                  560          30.00", "  pipe_smooth     1680          10.00"));
    assertEquals(2240, t.launches());
    assertEquals(15.0, t.meanMicros(), 1e-9);
  }

  @Test
  void kernelNamesWithSpacesAreRead() {
    LaunchHostTime t = LaunchHostTime.parse(stats("  (unknown kernel)     4      2.50"));
    assertEquals(new LaunchHostTime(4, 2.5), t);
  }

  @Test
  void theGraphReplaySectionGivesTheHostTimeOfReplayedLaunches() {
    List<String> lines = new java.util.ArrayList<>(stats("  step   100   3.00"));
    lines.addAll(List.of("", "graph replays", "  windows replayed                  3", "  windows captured                  2",
        "  launches in replays              80", "  share of launches             80.0%", "  launches saved                   77",
        "  mean host us, in replay        1.25", "  mean host us, on its own      10.00"));
    LaunchHostTime t = LaunchHostTime.parse(lines);
    assertEquals(80, t.replayedLaunches());
    assertEquals(1.25, t.replayedMeanMicros(), 1e-9);
    assertEquals(100, t.launches());
    assertEquals(0, LaunchHostTime.parse(stats("  step   100   3.00")).replayedLaunches());
  }

  @Test
  void noKernelTableOrAnUnreadableRowGivesNothing() {
    assertNull(LaunchHostTime.parse(List.of("calls 42, kernels 30, streams 4")));
    assertNull(LaunchHostTime.parse(stats()));
    assertNull(LaunchHostTime.parse(stats("  step   many   2.5")));
    assertNull(LaunchHostTime.parse(List.of("journal /tmp/j", "no calls")));
  }
}
