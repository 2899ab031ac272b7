package dev.kernelweave.it.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kernelweave.kernels.Workloads;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every workload's graph twin ({@code WorkloadMain NAME --variant graph}, no agent) on the
 * stand-in, which runs a launched graph's nodes in any order their captured edges allow: it equals
 * the CPU reference at check size and gives the serial variant's bytes, in two orders of the work.
 * A fork or join missing from a capture shows here as a reference mismatch or a capture error.
 */
class GraphTwinsOnCpuDeviceTest {

  static Stream<String> workloads() {
    return Workloads.names().stream();
  }

  @ParameterizedTest
  @MethodSource("workloads")
  void theGraphTwinGivesTheSerialBytes(String workload) throws Exception {
    StandInDriver.assumeBuilt();
    String java = ChildJvm.java(System.getProperty("java.home"));
    String serial = checksum(java, workload, "serial", 1);
    for (int seed : new int[] {2, 3}) {
      assertEquals(serial, checksum(java, workload, "graph", seed), workload + " graph, seed " + seed);
    }
  }

  private static String checksum(String java, String workload, String variant, int seed) throws Exception {
    ChildJvm.Result r =
        ChildJvm.run(java, null, List.of(), StandInDriver.environment(seed), "dev.kernelweave.kernels.WorkloadMain",
            workload, "--variant", variant, "--size", "check", "--warmup", "1", "--reps", "2");
    assertTrue(r.stdout().contains("\"variant\":\"" + variant + "\"") && r.stdout().contains("\"reference\":\"ok\""),
        () -> "stdout:\n" + r.stdout() + "\nstderr:\n" + r.stderr());
    return StandInDriver.checksum(r);
  }
}
