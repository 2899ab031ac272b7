package dev.kernelweave.it.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@code TenantsServiceMain} on the stand-in driver, without and with the agent: three workers
 * serving at once give the CPU reference's labels and scores, and the line it prints says a
 * throughput and latency percentiles that are in order (p50 at most p99 at most max).
 */
class TenantsServiceOnCpuDeviceTest {

  private static final Pattern LINE = Pattern.compile(
      "tenants-service: 3 workers x 2 requests, 2 rounds \\(.*\\): (\\d+) requests/s, request p50 ([0-9.]+) us,"
          + " p99 ([0-9.]+) us, max ([0-9.]+) us; outputs equal the CPU reference");

  @ParameterizedTest(name = "agent options: {0}")
  @ValueSource(strings = {"none", "journal=off"})
  void workersServingAtOnceGiveTheReferenceAndOrderedPercentiles(String agent) throws Exception {
    StandInDriver.assumeBuilt();
    String java = ChildJvm.java(System.getProperty("java.home"));
    ChildJvm.Result r = ChildJvm.run(java, agent.equals("none") ? null : agent, List.of(), StandInDriver.environment(5),
        "dev.kernelweave.kernels.TenantsServiceMain", "--workers", "3", "--requests", "2", "--rounds", "2",
        "--warmup-rounds", "1");
    assertEquals(0, r.exitCode(), r.stderr());
    Matcher m = LINE.matcher(r.stdout());
    assertTrue(m.find(), r.stdout());
    assertTrue(Long.parseLong(m.group(1)) > 0, r.stdout());
    double p50 = Double.parseDouble(m.group(2));
    double p99 = Double.parseDouble(m.group(3));
    double max = Double.parseDouble(m.group(4));
    assertTrue(0 < p50 && p50 <= p99 && p99 <= max, r.stdout());
  }

  /**
   * Eight workers, each request staged in through the agent's page-locked buffers and read back
   * through them while the other workers' copies and graphs queue: every round (warm-ups included)
   * gives the reference. A host that settled more than it waited for once freed a buffer a copy
   * still had to read, and a worker got another's request (about one run in three, before).
   */
  @ParameterizedTest(name = "stand-in seed {0}")
  @ValueSource(ints = {11, 12, 13, 14})
  void eightWorkersEachGetTheirOwnResultsEveryRound(int seed) throws Exception {
    StandInDriver.assumeBuilt();
    String java = ChildJvm.java(System.getProperty("java.home"));
    ChildJvm.Result r = ChildJvm.run(java, "journal=off", List.of(), StandInDriver.environment(seed),
        "dev.kernelweave.kernels.TenantsServiceMain", "--workers", "8", "--requests", "8", "--rounds", "12",
        "--warmup-rounds", "0");
    assertEquals(0, r.exitCode(), r.stdout() + r.stderr());
    assertTrue(r.stdout().contains("outputs equal the CPU reference"), r.stdout());
  }

  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"--workers 0", "--rounds x", "--requests", "--threads 4"})
  void aBadArgumentNamesItAndExitsWith2(String words) throws Exception {
    String java = ChildJvm.java(System.getProperty("java.home"));
    ChildJvm.Result r = ChildJvm.run(java, null, List.of(), StandInDriver.environment(6),
        "dev.kernelweave.kernels.TenantsServiceMain", words.split(" "));
    assertEquals(2, r.exitCode(), r.stdout() + r.stderr());
    assertTrue(r.stderr().startsWith("tenants-service: " + words.split(" ")[0]) || r.stderr().contains(words.split(" ")[0]),
        r.stderr());
  }
}
