package dev.kernelweave.it.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The {@code kernelweave} script at the repository's root: it runs the built agent jar's command
 * line, quietly on Java 25, and says in one line how to build the jar where there is none.
 */
class LauncherScriptTest {

  private static final Path SCRIPT = Path.of("../kernelweave");
  private static final Path SAMPLE_JOURNAL = Path.of("../samples/journal");
  private static final Path JDK_25 = Path.of("/usr/lib/jvm/temurin-25-jdk-amd64");

  private static ChildJvm.Result script(Path script, String javaHome, String... args) throws Exception {
    List<String> command = new ArrayList<>(List.of("bash", script.toAbsolutePath().toString()));
    command.addAll(List.of(args));
    return ChildJvm.start(command, Map.of("JAVA_HOME", javaHome));
  }

  @Test
  void runsTheBuiltJar() throws Exception {
    ChildJvm.agentJar();
    ChildJvm.Result r = script(SCRIPT, System.getProperty("java.home"), "--version");
    assertEquals(0, r.exitCode(), r.stderr());
    assertEquals("kernelweave " + System.getProperty("project.version"), r.stdout().strip());
  }

  @Test
  void inspectOnJava25PrintsNoUnsafeWarningThroughTheScript() throws Exception {
    assumeTrue(Files.isExecutable(JDK_25.resolve("bin/java")), "no JDK 25 at " + JDK_25 + ": skipped");
    ChildJvm.Result quiet = script(SCRIPT, JDK_25.toString(), "inspect", "stats", SAMPLE_JOURNAL.toString());
    assertEquals(0, quiet.exitCode(), quiet.stderr());
    assertTrue(quiet.stdout().contains("calls by kind"), quiet.stdout());
    assertEquals("", quiet.stderr());
    // The same command without the script's flag: the warning this test is about, so that a quiet
    // result above means the flag silenced it, not that the command stopped touching Chronicle.
    ChildJvm.Result plain = ChildJvm.start(List.of(ChildJvm.java(JDK_25.toString()), "-jar",
        ChildJvm.agentJar().toString(), "inspect", "stats", SAMPLE_JOURNAL.toString()), Map.of());
    assertTrue(plain.stderr().contains("sun.misc.Unsafe"), "expected the JDK's warning without the flag: " + plain.stderr());
  }

  @Test
  void missingJarIsOneLineSayingHowToBuildIt(@TempDir Path elsewhere) throws Exception {
    Path copy = Files.copy(SCRIPT, elsewhere.resolve("kernelweave"));
    ChildJvm.Result r = script(copy, System.getProperty("java.home"), "--version");
    assertEquals(2, r.exitCode());
    assertEquals(1, r.stderr().lines().count(), r.stderr());
    assertTrue(r.stderr().contains("mvn -B -DskipTests package"), r.stderr());
    assertFalse(r.stdout().contains("kernelweave "), r.stdout());
  }
}
