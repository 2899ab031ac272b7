package dev.kernelweave.it.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The JIT warm-up as a program meets it, over the stand-in driver: it starts after {@code cuInit},
 * stops once the program's own calls are many, and leaves the program's bytes as they are.
 */
class JitWarmupOnCpuDeviceTest {

  private static final String MAIN = "dev.kernelweave.kernels.WorkloadMain";

  @Test
  void stopsOnceTheProgramsOwnCallsAreManyAndKeepsItsBytes() throws Exception {
    StandInDriver.assumeBuilt();
    String java = ChildJvm.java(System.getProperty("java.home"));
    String plain = StandInDriver.checksum(ChildJvm.run(java, null, List.of(), StandInDriver.environment(1),
        MAIN, "branches", "--size", "check", "--warmup", "0", "--reps", "4"));
    // branches makes about 500 calls a repetition: the 2000th comes in the fourth.
    ChildJvm.Result agent = ChildJvm.run(java, "journal=off,log=debug,warmup=60000", List.of(),
        StandInDriver.environment(2), MAIN, "branches", "--size", "check", "--warmup", "0", "--reps", "4");
    assertEquals(plain, StandInDriver.checksum(agent), agent.stderr());
    assertTrue(agent.stderr().contains("[kernelweave] warm-up started: "), agent.stderr());
    assertTrue(agent.stderr().matches("(?s).*\\[kernelweave\\] warm-up: \\d+ self-test programs in \\d+ ms of CPU, \\d+ ms, "
        + "stopped after 2000 calls of the program\n.*"), agent.stderr());
    assertFalse(agent.stderr().contains("interception warm-up stopped"), agent.stderr());
  }

  /** The warm-up's GEMMs and launches run beside a program's own cuBLAS calls and change none of its bytes. */
  @Test
  void runsBesideAProgramsCublasCallsAndKeepsItsBytes() throws Exception {
    StandInDriver.assumeBuilt();
    String java = ChildJvm.java(System.getProperty("java.home"));
    String[] args = {"mlp", "--size", "check", "--warmup", "2", "--reps", "4"};
    String plain = StandInDriver.checksum(ChildJvm.run(java, null, List.of(), StandInDriver.environment(1), MAIN, args));
    ChildJvm.Result agent = ChildJvm.run(java, "journal=off,log=debug,warmup=60000", List.of(),
        StandInDriver.environment(2), MAIN, args);
    assertEquals(plain, StandInDriver.checksum(agent), agent.stderr());
    // Started in the program's call; its report comes only if it ends before the JVM does.
    assertTrue(agent.stderr().contains("[kernelweave] warm-up started: "), agent.stderr());
    assertFalse(agent.stderr().contains("interception warm-up stopped"), agent.stderr());
  }

  @Test
  void aProgramThatOnlyInitializesCudaStartsNoWarmup() throws Exception {
    StandInDriver.assumeBuilt();
    String java = ChildJvm.java(System.getProperty("java.home"));
    ChildJvm.Result agent = ChildJvm.run(java, "journal=off,log=debug,warmup=1000", List.of(),
        StandInDriver.environment(1), "dev.kernelweave.kernels.CuInitMain");
    assertEquals(0, agent.exitCode(), agent.stderr());
    assertTrue(agent.stderr().contains("instrumented jcuda.driver.JCudaDriver"), agent.stderr());
    assertFalse(agent.stderr().contains("warm-up"), agent.stderr());
  }

  @Test
  void warmupOffStartsNone() throws Exception {
    StandInDriver.assumeBuilt();
    String java = ChildJvm.java(System.getProperty("java.home"));
    ChildJvm.Result agent = ChildJvm.run(java, "journal=off,log=debug,warmup=off", List.of(),
        StandInDriver.environment(1), MAIN, "branches", "--size", "check", "--warmup", "0", "--reps", "4");
    assertEquals(0, agent.exitCode(), agent.stderr());
    assertFalse(agent.stderr().contains("warm-up"), agent.stderr());
  }
}
