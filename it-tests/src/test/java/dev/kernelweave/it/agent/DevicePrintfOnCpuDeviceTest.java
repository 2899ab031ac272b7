package dev.kernelweave.it.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Device printf over the stand-in driver ({@link DevicePrintfProgram}): its PTX interpreter runs
 * {@code vprintf}, formatting as the host's C library does, and prints when the kernel runs, so two
 * launches on one stream print in stream order, before the host's line after the synchronization.
 * The same text with the agent.
 */
class DevicePrintfOnCpuDeviceTest {

  // As glibc's printf formats them; launch T has scale 1.25 T, line i prints x = scale * i.
  static final List<String> EXPECTED = List.of(
      "launch 1 line 0: 4000000000 0x0 0|    0|0   |000.0|0.000000e+00|0|0",
      "launch 1 line 0: weave|   weave|we|a|-1099511627776|9223372036854775808|-1125899906842624|18446744073709551615|%",
      "launch 1 line 0 ends|   0|0.00|0",
      "launch 1 line 1: 4000000001 0xff FF|   -1|1   |001.2|1.250000e+00|0.416667|1.25",
      "launch 1 line 1: weave|   weave|we|b|-1099511627777|9223372036854775808|-1125899906842624|18446744073709551614|%",
      "launch 1 line 1 ends|   1|1.25|-1",
      "launch 2 line 0: 4000000000 0x0 0|    0|0   |000.0|0.000000e+00|0|0",
      "launch 2 line 0: weave|   weave|we|a|-1099511627776|9223372036854775808|-1125899906842624|18446744073709551615|%",
      "launch 2 line 0 ends|   0|0.00|0",
      "launch 2 line 1: 4000000001 0xff FF|   -1|1   |002.5|2.500000e+00|0.833333|2.5",
      "launch 2 line 1: weave|   weave|we|b|-1099511627777|9223372036854775808|-1125899906842624|18446744073709551614|%",
      "launch 2 line 1 ends|   1|2.50|-1",
      "host synchronized",
      // CUDA's device printf returns the number of arguments it read.
      "returns launch 1: [11, 10, 7, 11, 10, 7]",
      "returns launch 2: [11, 10, 7, 11, 10, 7]");

  @Test
  void twoPrintingLaunchesOnOneStreamPrintInStreamOrderWithAndWithoutTheAgent() throws Exception {
    StandInDriver.assumeBuilt();
    String java = ChildJvm.java(System.getProperty("java.home"));
    for (int seed = 1; seed <= 2; seed++) {
      ChildJvm.Result plain = ChildJvm.run(java, null, List.of(), StandInDriver.environment(seed),
          DevicePrintfProgram.class.getName());
      assertEquals(0, plain.exitCode(), () -> "stdout:\n" + plain.stdout() + "\nstderr:\n" + plain.stderr());
      assertEquals(EXPECTED, plain.stdout().lines().toList(), "seed " + seed + ": " + plain.stderr());
      ChildJvm.Result agent = ChildJvm.run(java, "", List.of(), StandInDriver.environment(seed),
          DevicePrintfProgram.class.getName());
      assertEquals(0, agent.exitCode(), () -> "stdout:\n" + agent.stdout() + "\nstderr:\n" + agent.stderr());
      assertEquals(EXPECTED, agent.stdout().lines().toList(), "seed " + seed + " with the agent: " + agent.stderr());
    }
  }

  @Test
  void anExternalFunctionOtherThanVprintfFailsAtLoadNamingIt() throws Exception {
    StandInDriver.assumeBuilt();
    ChildJvm.Result r = ChildJvm.run(ChildJvm.java(System.getProperty("java.home")), null, List.of(),
        StandInDriver.environment(1), DevicePrintfProgram.class.getName(), "other-external");
    assertEquals(0, r.exitCode(), r.stdout() + r.stderr());
    assertTrue(r.stdout().contains("load failed: CUDA_ERROR_NOT_SUPPORTED"), r.stdout());
    assertTrue(r.stderr().contains("does not support the external function malloc"), r.stderr());
    assertFalse(r.stdout().contains("WRONG"), r.stdout());
  }
}
