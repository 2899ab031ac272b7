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
  void noKernelTableOrAnUnreadableRowGivesNothing() {
    assertNull(LaunchHostTime.parse(List.of("calls 42, kernels 30, streams 4")));
    assertNull(LaunchHostTime.parse(stats()));
    assertNull(LaunchHostTime.parse(stats("  step   many   2.5")));
    assertNull(LaunchHostTime.parse(List.of("journal /tmp/j", "no calls")));
  }
}
