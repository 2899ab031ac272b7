package dev.kernelweave.it.fuzz;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.kernelweave.it.agent.ChildJvm;
import dev.kernelweave.it.agent.StandInDriver;
import dev.kernelweave.selftest.Program;
import dev.kernelweave.selftest.ProgramGenerator;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Collectors;

/** The fuzz's scripts, their runs in child JVMs and the comparison of what the programs observed. */
final class ScriptedRuns {

  static final Path SELFTEST_PTX =
      inRepository("interceptor/src/main/resources/dev/kernelweave/interceptor/selftest/selftest.ptx");

  /** The fuzz's own kernels, with parameters shaped as programs shape them ({@code fuzz_kernels.cu}). */
  static final Path FUZZ_PTX = inRepository("it-tests/src/test/resources/fuzz/fuzz_kernels.ptx");

  private ScriptedRuns() {}

  /** A file of the repository, from {@code it-tests} (where Maven runs the tests) or from the root. */
  static Path inRepository(String path) {
    Path fromModule = Path.of("..", path);
    return (Files.exists(fromModule) ? fromModule : Path.of(path)).toAbsolutePath();
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

  /** Groups of three programs played at the same time, each from threads of its own. */
  private static void addTogether(ProgramScript script, Map<String, Program> byName, int groups, long seed) {
    ProgramGenerator generator = new ProgramGenerator(60);
    long next = seed + 1_000_000;
    for (int g = 0; g < groups; g++) {
      Map<String, Program> group = new LinkedHashMap<>();
      while (group.size() < 3) {
        Program p = generator.generate(next);
        if (ProgramScript.mayRunBesideOthers(p)) {
          group.put("c" + Long.toHexString(next), p);
        }
        next++;
      }
      byName.putAll(group);
      script.addTogether(group);
    }
  }

  /** Generated programs by name, and the script that plays them. */
  record Programs(Map<String, Program> byName, Path script) {}

  /**
   * {@code count} generated programs from {@code seed}, written as one script in {@code dir}: mostly
   * short, every fourth long, groups of three played at the same time, the module reloaded and the
   * primary context retained anew between some, the last exiting with its work pending.
   */
  static Programs programs(Path dir, int count, long seed) throws Exception {
    // Mostly short programs, every fourth a long one (windows split at 128 launches, graphs evicted).
    ProgramGenerator shorter = new ProgramGenerator(60);
    ProgramGenerator longer = new ProgramGenerator(400);
    ProgramScript script = new ProgramScript(seed, 0.04);
    Map<String, Program> byName = new LinkedHashMap<>();
    for (int i = 0; i < count; i++) {
      Program p = (i % 4 == 3 ? longer : shorter).generate(seed + i);
      String name = "p" + Long.toHexString(seed + i);
      byName.put(name, p);
      if (i == count - 1) {
        addTogether(script, byName, count / 10, seed);
        script.addExiting(name, p);
      } else {
        script.add(name, p);
      }
      if (i % 8 == 5) {
        script.recreateContext();
      } else if (i % 8 == 2) {
        script.reloadModule();
      }
    }
    Path file = Files.createTempFile(dir, "programs", ".txt");
    Files.writeString(file, script.text(), StandardCharsets.UTF_8);
    return new Programs(byName, file);
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
    return ChildJvm.runOnClassPath(ChildJvm.java(System.getProperty("java.home")), jvmOptions, agentOptions,
        ChildJvm.programClassPath(List.of()), env,
        ScriptedProgramPlayer.class.getName(), script.toString(), SELFTEST_PTX.toString(),
        serial ? "serial" : "as-written", FUZZ_PTX.toString());
  }

  static List<String> lines(ChildJvm.Result r) {
    return List.of(r.stdout().split("\n"));
  }

  /** The first program whose observations differ, with what differs and its calls. */
  static Optional<String> firstDifference(List<String> expected, List<String> actual,
      Map<String, Program> programs) {
    Map<String, List<String>> want = byProgram(expected);
    Map<String, List<String>> got = byProgram(actual);
    for (Map.Entry<String, Program> p : programs.entrySet()) {
      List<String> w = want.getOrDefault(p.getKey(), List.of());
      List<String> g = got.getOrDefault(p.getKey(), List.of());
      if (!w.equals(g)) {
        List<String> missing = new ArrayList<>(w);
        missing.removeAll(g);
        List<String> extra = new ArrayList<>(g);
        extra.removeAll(w);
        return Optional.of("program " + p.getKey() + " observes otherwise:\n  expected only: " + missing
            + "\n  observed only: " + extra + "\n" + p.getValue().describe());
      }
    }
    return Optional.empty();
  }

  private static Map<String, List<String>> byProgram(List<String> lines) {
    return lines.stream().filter(l -> !l.isBlank())
        .collect(Collectors.groupingBy(l -> l.split(" ")[0], LinkedHashMap::new, Collectors.toList()));
  }
}
