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
 * line, and says in one line how to build the jar where there is none. The command line is quiet on
 * Java 25, with the script or without it.
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
  void everyCommandOnJava25PrintsNothingFromBundledLibraries(@TempDir Path out) throws Exception {
    assumeTrue(Files.isExecutable(JDK_25.resolve("bin/java")), "no JDK 25 at " + JDK_25 + ": skipped");
    // The commands that read a journal are the ones that used to reach Chronicle's sun.misc.Unsafe.
    List<List<String>> commands = List.of(
        List.of("inspect", "stats", SAMPLE_JOURNAL.toString()),
        List.of("inspect", "stats", SAMPLE_JOURNAL.toString(), "--format", "json"),
        List.of("inspect", "tail", SAMPLE_JOURNAL.toString(), "-n", "3"),
        List.of("inspect", "dag", SAMPLE_JOURNAL.toString()),
        List.of("inspect", "trace", SAMPLE_JOURNAL.toString(), "-o", out.resolve("t.json").toString()),
        List.of("ptx", "src/test/resources/ptx/smoke.ptx"),
        List.of("selftest", "--sim", "--programs", "5", "--seed", "1"),
        List.of("--version"));
    for (List<String> args : commands) {
      List<String> plain = new ArrayList<>(List.of(ChildJvm.java(JDK_25.toString()), "-jar",
          ChildJvm.agentJar().toString()));
      plain.addAll(args);
      ChildJvm.Result direct = ChildJvm.start(plain, Map.of());
      assertEquals(0, direct.exitCode(), args + ": " + direct.stderr());
      assertFalse(direct.stdout().isEmpty(), args + " printed its output");
      assertEquals("", direct.stderr(), args + " with java -jar on Java 25");
      ChildJvm.Result scripted = script(SCRIPT, JDK_25.toString(), args.toArray(String[]::new));
      assertEquals(0, scripted.exitCode(), args + " through the script: " + scripted.stderr());
      // The first line only: selftest ends with the time it took.
      assertEquals(direct.stdout().lines().findFirst(), scripted.stdout().lines().findFirst(),
          args + " through the script");
      assertEquals("", scripted.stderr(), args + " through the script");
    }
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
