package dev.kernelweave.agent.cli.inspect;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kernelweave.call.AccessMode;
import dev.kernelweave.call.CallKind;
import dev.kernelweave.call.CallRecord;
import java.io.OutputStream;
import java.io.PrintStream;
import org.junit.jupiter.api.Test;

/** The dependency graph's cost grows near-linearly with the calls, whatever they access. */
class DependencyGraphScalingTest {

  private static final int WEIGHTS = 100;

  /** Earlier accesses examined to build and print the graph of {@code n} launches that all read one buffer of weights. */
  private static long drawLaunches(int n) {
    CallRecord r = new CallRecord();
    DependencyGraph graph = new DependencyGraph(Long.MIN_VALUE, Long.MAX_VALUE, n);
    for (int seq = 1; seq <= n; seq++) {
      r.reset();
      r.seq = seq;
      r.kind = CallKind.LAUNCH;
      r.name = "cuLaunchKernel";
      r.kernel = "layer";
      r.stream = seq % 4;
      r.addAccess(WEIGHTS, 0, 0x9000_0000L, 0, 1 << 20, AccessMode.READ);
      r.addAccess(seq % 8, 0, 0x1000L, 0, 4096, AccessMode.READ_WRITE);
      graph.add(r);
    }
    graph.printDot(new PrintStream(OutputStream.nullOutputStream()));
    assertEquals(n, graph.held());
    return graph.accessesExamined();
  }

  @Test
  void aBufferReadByEveryLaunchCostsLinearlyNotQuadratically() {
    // Counted, not timed: a timing on a loaded machine measures the machine.
    long small = drawLaunches(5_000);
    long large = drawLaunches(20_000);
    assertTrue(small > 0, "the graph examined no access at all");
    // Four times the calls: about four times the work when linear, sixteen when quadratic.
    assertTrue(large < 5 * small, "5k calls examined " + small + " accesses, 20k examined " + large);
  }
}
