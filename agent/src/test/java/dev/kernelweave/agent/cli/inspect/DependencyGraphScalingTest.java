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

  /** Nanoseconds to build and print the graph of {@code n} launches that all read one buffer of weights. */
  private static long drawLaunches(int n) {
    CallRecord r = new CallRecord();
    DependencyGraph graph = new DependencyGraph(Long.MIN_VALUE, Long.MAX_VALUE, n);
    long t0 = System.nanoTime();
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
    return System.nanoTime() - t0;
  }

  private static long best(int n) {
    long best = Long.MAX_VALUE;
    for (int i = 0; i < 3; i++) {
      best = Math.min(best, drawLaunches(n));
    }
    return best;
  }

  @Test
  void aBufferReadByEveryLaunchCostsLinearlyNotQuadratically() {
    drawLaunches(10_000); // warm up
    long small = best(5_000);
    long large = best(20_000);
    System.out.println("dag of 5k launches: " + small / 1_000_000 + " ms, of 20k: " + large / 1_000_000 + " ms");
    // Four times the calls: about four times the time when linear, sixteen when quadratic.
    assertTrue(large < 8 * small, "5k calls took " + small / 1_000_000 + " ms, 40k took " + large / 1_000_000 + " ms");
  }
}
