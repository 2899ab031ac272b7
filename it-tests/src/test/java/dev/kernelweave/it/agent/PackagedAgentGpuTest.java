package dev.kernelweave.it.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * The packaged agent on plain JCuda and JCublas2 programs in separate JVMs, on a GPU: what the
 * program prints is the same without the agent, with it passing through, and with it scheduling.
 * Skips itself where there is no GPU.
 */
class PackagedAgentGpuTest {

  static ChildJvm.Result runOnGpu(String agentOptions, Class<?> program, String... args) throws Exception {
    ChildJvm.Result r = ChildJvm.run(agentOptions, program, args);
    assumeTrue(r.exitCode() != SmokePrograms.NO_GPU, "no GPU on this machine: " + r.stdout().strip());
    assertEquals(0, r.exitCode(), () -> "exit code; stdout:\n" + r.stdout() + "\nstderr:\n" + r.stderr());
    return r;
  }

  static Path journalDir(String name) throws Exception {
    return Files.createTempDirectory("kw-it").resolve(name);
  }

  @Test
  void chainsProgramPrintsTheSameWithTheAgentInEveryMode() throws Exception {
    ChildJvm.Result plain = runOnGpu(null, ChainsProgram.class, "8", "12", "4096", "100", "2");
    assertFalse(plain.observable().isEmpty());
    ChildJvm.Result passthrough =
        runOnGpu("mode=passthrough,journal=" + journalDir("pass"), ChainsProgram.class, "8", "12", "4096", "100", "2");
    ChildJvm.Result schedule =
        runOnGpu("mode=schedule,journal=" + journalDir("sched"), ChainsProgram.class, "8", "12", "4096", "100", "2");
    assertEquals(plain.observable(), passthrough.observable(), passthrough.stderr());
    assertEquals(plain.observable(), schedule.observable(), schedule.stderr());
  }

  @Test
  void blasProgramPrintsTheSameWithTheAgentInEveryMode() throws Exception {
    ChildJvm.Result plain = runOnGpu(null, BlasProgram.class, "8", "64");
    ChildJvm.Result passthrough = runOnGpu("mode=passthrough,journal=" + journalDir("pass"), BlasProgram.class, "8", "64");
    ChildJvm.Result schedule = runOnGpu("mode=schedule,journal=" + journalDir("sched"), BlasProgram.class, "8", "64");
    assertEquals(plain.observable(), passthrough.observable(), passthrough.stderr());
    assertEquals(plain.observable(), schedule.observable(), schedule.stderr());
  }
}
