package dev.kernelweave.it.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Files;
import java.nio.file.Path;
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
