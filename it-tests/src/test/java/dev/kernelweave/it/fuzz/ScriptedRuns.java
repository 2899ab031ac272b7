package dev.kernelweave.it.fuzz;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.kernelweave.interceptor.selftest.PlayerFiles;
import dev.kernelweave.interceptor.selftest.ScriptedPrograms;
import dev.kernelweave.it.agent.ChildJvm;
import dev.kernelweave.it.agent.StandInDriver;
import dev.kernelweave.selftest.Program;
import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The fuzz's runs in child JVMs: the scripts ({@link ScriptedPrograms}) and the player ({@link
 * PlayerFiles#PLAYER}) are those {@code selftest --gpu} ships, the player copied out of the
 * self-test module's classes as the command copies it out of the agent jar.
 */
final class ScriptedRuns {

  /** The player's classes and PTX, copied out once per test JVM. */
  private static PlayerFiles.Extracted player;

  private ScriptedRuns() {}

  /** A file of the repository, from {@code it-tests} (where Maven runs the tests) or from the root. */
  static Path inRepository(String path) {
    Path fromModule = Path.of("..", path);
    return (Files.exists(fromModule) ? fromModule : Path.of(path)).toAbsolutePath();
  }

  private static synchronized PlayerFiles.Extracted player() {
    if (player == null) {
      try {
        Path dir = Files.createTempDirectory("kw-fuzz-player");
        dir.toFile().deleteOnExit();
        player = PlayerFiles.extract(dir);
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
    return player;
  }

  /**
   * The stand-in as the fuzz plays over it: its work ordered by {@code standInSeed}, and a {@code
   * cuMemFree} that waits only for what the legacy default stream waits for ({@code
   * KW_CPU_DEVICE_FREE=legacy}; CUDA says only that it may synchronize), so that work still using
   * freed memory on a non-blocking stream, an agent's lane, runs after the free: the agent itself
   * must wait for an allocation's users before it is freed.
   */
  static Map<String, String> standIn(int standInSeed) {
    Map<String, String> env = new java.util.HashMap<>(StandInDriver.environment(standInSeed));
    env.put("KW_CPU_DEVICE_FREE", "legacy");
    return env;
  }

  /** {@link ScriptedPrograms#programs}. */
  static ScriptedPrograms.Programs programs(Path dir, int count, long seed) throws Exception {
    return ScriptedPrograms.programs(dir, count, seed);
  }

  /** What the player printed, after checking that it ended well. */
  static List<String> observations(List<String> jvmOptions, String agentOptions, Map<String, String> env, Path script,
      boolean serial) throws Exception {
    ChildJvm.Result r = play(jvmOptions, agentOptions, env, script, serial);
    assertEquals(0, r.exitCode(), () -> (agentOptions == null ? "without" : "with") + " the agent:\nstdout:\n"
        + r.stdout() + "\nstderr:\n" + r.stderr());
    return lines(r);
  }

  /** Plays the script in a child JVM, without the agent where {@code agentOptions} is null. */
  static ChildJvm.Result play(List<String> jvmOptions, String agentOptions, Map<String, String> env, Path script,
      boolean serial) throws Exception {
    PlayerFiles.Extracted p = player();
    return ChildJvm.runOnClassPath(ChildJvm.java(System.getProperty("java.home")), jvmOptions, agentOptions,
        p.classes() + File.pathSeparator + ChildJvm.programClassPath(List.of()), env,
        PlayerFiles.PLAYER, p.arguments(script, serial).toArray(String[]::new));
  }

  static List<String> lines(ChildJvm.Result r) {
    return List.of(r.stdout().split("\n"));
  }

  /** {@link ScriptedPrograms#firstDifference}. */
  static Optional<String> firstDifference(List<String> expected, List<String> actual,
      ScriptedPrograms.Programs programs) {
    return ScriptedPrograms.firstDifference(expected, actual, programs.byName(), programs.printChannels());
  }
}
