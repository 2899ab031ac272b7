package dev.kernelweave.it.fuzz;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kernelweave.it.agent.ChildJvm;
import dev.kernelweave.it.agent.StandInDriver;
import dev.kernelweave.scheduler.Mutant;
import dev.kernelweave.selftest.Program;
import dev.kernelweave.selftest.ProgramGenerator;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The differential fuzz through the whole agent: generated programs played as a JCuda application
 * writes them ({@link ScriptedProgramPlayer}), over the stand-in driver, in child JVMs. Everything
 * the agent does to a program's calls is in the loop (parameter scanning, PTX analysis, held
 * launches and graph replay, staged copies, cuBLAS, the deadline of a held launch, real application
 * threads with their priorities, the host pausing between calls, the program's own captures, stream
 * callbacks, a module unloaded and the primary context released between programs), and the stand-in
 * runs the work it is given in a random order that CUDA's stream semantics allow.
 *
 * <p>The reference plays every call on the legacy stream, so that each sees all before it done. The
 * agent orders any two calls that touch the same bytes as the program made them, whatever their
 * streams: with it, a program played as written must observe the same bytes, return codes, query
 * answers and callback arguments.
 *
 * <p>{@code -Dkernelweave.fuzz.programs=N} and {@code -Dkernelweave.fuzz.seed=S} widen or move it.
 */
class InterceptedProgramsOnCpuDeviceTest {

  static final Path SELFTEST_PTX =
      Path.of("../interceptor/src/main/resources/dev/kernelweave/interceptor/selftest/selftest.ptx");
  private static final int[] STAND_IN_SEEDS = {1, 2};
  private static final long SEED = Long.getLong("kernelweave.fuzz.seed", 20261127L);

  @TempDir
  Path temp;

  @Test
  void generatedProgramsObserveWithTheAgentWhatTheyObserveSerially() throws Exception {
    StandInDriver.assumeBuilt();
    Programs programs = programs(Integer.getInteger("kernelweave.fuzz.programs", 40), SEED);
    List<String> reference = observations(List.of(), null, STAND_IN_SEEDS[0], programs.script, true);
    assertEquals(programs.byName.size(), reference.stream().map(l -> l.split(" ")[0]).distinct().count(),
        "every program observed something");
    System.out.println(programs.byName.size() + " programs from seed " + SEED + ", " + reference.size() + " observations");
    for (int standInSeed : STAND_IN_SEEDS) {
      List<String> agent = observations(List.of(), "journal=" + temp.resolve("journal-" + standInSeed), standInSeed,
          programs.script, false);
      Optional<String> difference = firstDifference(reference, agent, programs.byName);
      assertTrue(difference.isEmpty(), () -> "with the agent, stand-in seed " + standInSeed + ": " + difference.get());
    }
  }

  /** The programs the fuzz once found observing the agent, shrunk, kept as they are. */
  @Test
  void foundProgramsObserveWithTheAgentWhatTheyObserveSerially() throws Exception {
    StandInDriver.assumeBuilt();
    Path script = Path.of("src/test/resources/fuzz/regressions.txt");
    List<String> reference = observations(List.of(), null, STAND_IN_SEEDS[0], script, true);
    for (int standInSeed : STAND_IN_SEEDS) {
      assertEquals(reference, observations(List.of(), "journal=off", standInSeed, script, false),
          "with the agent, stand-in seed " + standInSeed);
    }
  }

  /**
   * A deliberately broken scheduler inside the agent changes what some program observes, or ends it
   * (a crash, a host function that never runs). Every mutant but {@code no-free-wait}: the stand-in's
   * {@code cuMemFree}, like CUDA's, itself waits for the device. A kernel's pointer range is seen
   * wrong only where the PTX is not read ({@code ptx=off}): read, it gives the exact range.
   */
  @ParameterizedTest
  @MethodSource("mutants")
  void catchesABrokenScheduler(String mutant, int count, String options) throws Exception {
    StandInDriver.assumeBuilt();
    Programs programs = programs(count, SEED);
    List<String> reference = observations(List.of(), null, STAND_IN_SEEDS[0], programs.script, true);
    ChildJvm.Result r = play(List.of("-D" + "dev.kernelweave.mutant=" + mutant),
        "journal=off" + (options == null ? "" : "," + options), STAND_IN_SEEDS[0], programs.script, false);
    assertTrue(r.stderr().contains("deliberately broken"), () -> "the agent did not take the mutant:\n" + r.stderr());
    assertTrue(r.exitCode() != 0 || firstDifference(reference, lines(r), programs.byName).isPresent(),
        "no program observed the mutant " + mutant);
  }

  /** Each mutant, with the programs it takes and the agent options it needs. */
  static Stream<Arguments> mutants() {
    return Arrays.stream(Mutant.values()).filter(m -> m != Mutant.NONE && m != Mutant.NO_FREE_WAIT)
        .map(m -> m == Mutant.KERNEL_RANGE_FROM_POINTER ? Arguments.of(m.option(), 300, "ptx=off")
            : Arguments.of(m.option(), 40, null));
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

  private record Programs(Map<String, Program> byName, Path script) {}

  private Programs programs(int count, long seed) throws Exception {
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
    Path file = Files.createTempFile(temp, "programs", ".txt");
    Files.writeString(file, script.text(), StandardCharsets.UTF_8);
    return new Programs(byName, file);
  }

  /** What the player printed, after checking that it ended well. */
  private static List<String> observations(List<String> jvmOptions, String agentOptions, int standInSeed, Path script,
      boolean serial) throws Exception {
    ChildJvm.Result r = play(jvmOptions, agentOptions, standInSeed, script, serial);
    assertEquals(0, r.exitCode(), () -> (agentOptions == null ? "without" : "with") + " the agent:\nstdout:\n"
        + r.stdout() + "\nstderr:\n" + r.stderr());
    return lines(r);
  }

  private static ChildJvm.Result play(List<String> jvmOptions, String agentOptions, int standInSeed, Path script,
      boolean serial) throws Exception {
    return ChildJvm.runOnClassPath(ChildJvm.java(System.getProperty("java.home")), jvmOptions, agentOptions,
        ChildJvm.programClassPath(List.of()), StandInDriver.environment(standInSeed),
        ScriptedProgramPlayer.class.getName(), script.toString(), SELFTEST_PTX.toAbsolutePath().toString(),
        serial ? "serial" : "as-written");
  }

  private static List<String> lines(ChildJvm.Result r) {
    return List.of(r.stdout().split("\n"));
  }

  /** The first program whose observations differ, with what differs and its calls. */
  private static Optional<String> firstDifference(List<String> expected, List<String> actual,
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
