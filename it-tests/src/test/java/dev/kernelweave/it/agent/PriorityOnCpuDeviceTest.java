package dev.kernelweave.it.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * {@link PriorityProgram} over the stand-in driver, which prints the stream priority each kernel is
 * queued with (its range: least 0, greatest -5). With the packaged agent's default
 * {@code priority=thread}, the request thread's launches run on a stream of the greatest priority
 * and the background's never do; the results equal those without the agent, and with
 * {@code priority=off} no stream has a priority.
 */
class PriorityOnCpuDeviceTest {

  private static final String REQUEST_ON_HIGH = "cpu-device: queued sum_into on priority -5";
  private static final String REQUEST_ON_DEFAULT = "cpu-device: queued sum_into on priority 0";
  private static final String BACKGROUND_ON_HIGH = "cpu-device: queued spin_scale on priority -5";

  private static Map<String, String> tracing(int seed) {
    Map<String, String> env = new HashMap<>(StandInDriver.environment(seed));
    env.put("KW_CPU_DEVICE_TRACE_PRIORITY", "1");
    return env;
  }

  @Test
  void theRequestThreadsLaunchesRunOnAHighPriorityStreamWithTheSameResults() throws Exception {
    StandInDriver.assumeBuilt();
    String java = ChildJvm.java(System.getProperty("java.home"));
    ChildJvm.Result plain = ChildJvm.run(java, null, List.of(), tracing(1), PriorityProgram.class.getName());
    assertEquals(0, plain.exitCode(), () -> "stdout:\n" + plain.stdout() + "\nstderr:\n" + plain.stderr());
    List<String> expected = plain.observable();
    assertEquals(2, expected.size(), plain.stdout());
    assertTrue(plain.stderr().contains(REQUEST_ON_DEFAULT), "without the agent, the legacy stream: " + plain.stderr());
    assertFalse(plain.stderr().contains("on priority -5"), plain.stderr());
    for (int seed = 1; seed <= 3; seed++) {
      ChildJvm.Result agent = ChildJvm.run(java, "journal=off", List.of(), tracing(seed), PriorityProgram.class.getName());
      assertEquals(0, agent.exitCode(), () -> "stdout:\n" + agent.stdout() + "\nstderr:\n" + agent.stderr());
      assertEquals(expected, agent.observable(), "seed " + seed + ": " + agent.stderr());
      assertTrue(agent.stderr().contains(REQUEST_ON_HIGH), agent.stderr());
      assertFalse(agent.stderr().contains(REQUEST_ON_DEFAULT), "every request launch on the high lanes: " + agent.stderr());
      assertFalse(agent.stderr().contains(BACKGROUND_ON_HIGH), agent.stderr());
    }
  }

  @Test
  void withPriorityOffNoStreamHasAPriority() throws Exception {
    StandInDriver.assumeBuilt();
    String java = ChildJvm.java(System.getProperty("java.home"));
    ChildJvm.Result plain = ChildJvm.run(java, null, List.of(), tracing(2), PriorityProgram.class.getName());
    ChildJvm.Result off = ChildJvm.run(java, "journal=off,priority=off", List.of(), tracing(2),
        PriorityProgram.class.getName());
    assertEquals(0, off.exitCode(), () -> "stdout:\n" + off.stdout() + "\nstderr:\n" + off.stderr());
    assertEquals(plain.observable(), off.observable(), off.stderr());
    assertTrue(off.stderr().contains(REQUEST_ON_DEFAULT), off.stderr());
    assertFalse(off.stderr().contains("on priority -5"), off.stderr());
  }
}
