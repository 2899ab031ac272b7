package dev.kernelweave.it.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/** The packaged agent in a separate JVM, on any machine: options, programs without CUDA, newer JDKs. */
class AgentStartupTest {

  private static final Path JDK_25 = Path.of("/usr/lib/jvm/temurin-25-jdk-amd64");

  @Test
  void badOptionValueIsNamedWithTheAcceptedValuesAndTheProgramKeepsItsExitCode() throws Exception {
    ChildJvm.Result r = ChildJvm.run("mode=fast", PlainPrograms.NoCuda.class, "7");
    assertEquals(7, r.exitCode());
    assertTrue(r.stdout().contains("hello from a program without CUDA"));
    assertTrue(r.stderr().contains("mode=fast"), r.stderr());
    assertTrue(r.stderr().contains("schedule or passthrough"), r.stderr());
    assertEquals(1, r.stderr().lines().count(), "one line: " + r.stderr());
  }

  @Test
  void unknownOptionIsNamedWithTheAcceptedKeys() throws Exception {
    ChildJvm.Result r = ChildJvm.run("mode=schedule,colour=blue", PlainPrograms.NoCuda.class, "0");
    assertEquals(0, r.exitCode());
    assertTrue(r.stderr().contains("'colour'"), r.stderr());
    assertTrue(r.stderr().contains("mode, journal, streams, ptx, log"), r.stderr());
  }

  @Test
  void programThatNeverTouchesCudaIsNotDisturbed() throws Exception {
    Path journal = Files.createTempDirectory("kw-journal").resolve("never");
    ChildJvm.Result r = ChildJvm.run("journal=" + journal, PlainPrograms.NoCuda.class, "3");
    assertEquals(3, r.exitCode());
    assertEquals("", r.stderr());
    assertFalse(Files.exists(journal), "no journal directory for a program without CUDA");
  }

  @Test
  void programCallingJCudaBehavesAsWithoutTheAgent() throws Exception {
    ChildJvm.Result without = ChildJvm.run(null, PlainPrograms.TouchesJCuda.class);
    ChildJvm.Result with = ChildJvm.run("log=debug,journal=off", PlainPrograms.TouchesJCuda.class);
    assertEquals(without.exitCode(), with.exitCode());
    assertEquals(without.stdout(), with.stdout());
    assertTrue(with.stderr().contains("instrumented jcuda.driver.JCudaDriver"), with.stderr());
  }

  @Test
  void agentRunsOnANewerJdk() throws Exception {
    assumeTrue(Files.isExecutable(JDK_25.resolve("bin/java")), "no JDK 25 at " + JDK_25 + ": skipped");
    String java25 = ChildJvm.java(JDK_25.toString());
    ChildJvm.Result without = ChildJvm.run(java25, null, PlainPrograms.TouchesJCuda.class);
    ChildJvm.Result with = ChildJvm.run(java25, "log=debug", PlainPrograms.TouchesJCuda.class);
    assertEquals(without.exitCode(), with.exitCode());
    assertEquals(without.stdout(), with.stdout());
    assertTrue(with.stderr().contains("instrumented jcuda.driver.JCudaDriver"), with.stderr());
    try (Stream<String> lines = with.stderr().lines()) {
      assertFalse(lines.anyMatch(l -> l.contains("could not")), with.stderr());
    }
  }

  /**
   * A program that only calls cuInit (over the stand-in driver where it is built, else failing for
   * want of a driver), without and with the agent, interleaved: the agent's median extra time must
   * stay far below what it was before it wove JCuda at build time (about 1.2 s on the GPU machine;
   * the target is 250 ms; 2.8 s on a loaded 2-core CI machine where a JVM alone took 1 s). The bound
   * is generous, and scales with the JVM's own time, so that a loaded machine cannot fail it.
   */
  @Test
  void startUpCostIsWithinBudget() throws Exception {
    Path cpuDevice = Path.of("../kernels/target/cpu-device");
    Map<String, String> env = Files.isRegularFile(cpuDevice.resolve("libcuda.so.1"))
        ? Map.of("LD_LIBRARY_PATH", cpuDevice.toAbsolutePath().toString()) : Map.of();
    String java = ChildJvm.java(System.getProperty("java.home"));
    int runs = 5;
    long[] without = new long[runs];
    long[] with = new long[runs];
    for (int i = 0; i < runs; i++) {
      without[i] = timed(java, null, env);
      with[i] = timed(java, "journal=off", env);
    }
    Arrays.sort(without);
    Arrays.sort(with);
    long extra = with[runs / 2] - without[runs / 2];
    System.out.printf("[start-up] cuInit program: %d ms without the agent, %d ms with it: %d ms extra (median of %d)%n",
        without[runs / 2], with[runs / 2], extra, runs);
    long bound = Math.max(1500, without[runs / 2]);
    assertTrue(extra < bound, "the agent added " + extra + " ms to the start of a JVM (bound " + bound + " ms)");
  }

  private static long timed(String java, String agentOptions, Map<String, String> env) throws Exception {
    long start = System.nanoTime();
    ChildJvm.Result r = ChildJvm.run(java, agentOptions, List.of(), env, PlainPrograms.TouchesJCuda.class.getName());
    long ms = (System.nanoTime() - start) / 1_000_000;
    assertEquals(0, r.exitCode(), r.stderr());
    assertTrue(r.stdout().contains("cuInit"), r.stdout());
    assertEquals("", r.stderr());
    return ms;
  }

  @Test
  void programWithItsOwnCaffeineKeepsItWhileTheAgentUsesItsRelocatedOne() throws Exception {
    Path other;
    try (Stream<Path> jars = Files.list(Path.of("target/other-caffeine"))) {
      other = jars.filter(p -> p.getFileName().toString().startsWith("caffeine-2.")).findFirst().orElseThrow();
    }
    Path journal = Files.createTempDirectory("kw-journal").resolve("caffeine");
    ChildJvm.Result r = ChildJvm.run(ChildJvm.java(System.getProperty("java.home")), "journal=" + journal,
        java.util.List.of(other), PlainPrograms.OwnCaffeine.class);
    assertEquals(0, r.exitCode(), r.stderr());
    assertTrue(r.stdout().contains("caffeine v from"), r.stdout());
    assertTrue(r.stdout().contains(other.getFileName().toString()), "the program's own Caffeine: " + r.stdout());
    assertTrue(r.stdout().contains("cuInit threw"), r.stdout());
    assertFalse(r.stderr().contains("could not"), r.stderr());
  }
}
