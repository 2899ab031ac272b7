package dev.kernelweave.it.fuzz;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kernelweave.interceptor.selftest.ProgramScript;
import dev.kernelweave.interceptor.selftest.ScriptedPrograms;
import dev.kernelweave.it.agent.ChildJvm;
import dev.kernelweave.it.agent.StandInDriver;
import dev.kernelweave.selftest.Mutant;
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
 * writes them ({@code selftest.player.ScriptedProgramPlayer}), over the stand-in driver, in child JVMs. Everything
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

  private static final int[] STAND_IN_SEEDS = {1, 2};
  private static final long SEED = Long.getLong("kernelweave.fuzz.seed", 20261127L);
  /**
   * Groups of programs played at the same time, at the fewest: their real threads race in one
   * context, which the rest of the script's programs, one at a time, never do (4 groups of 3 did
   * not catch a staged read that settled more than it waited for; 40 of 6 catch it for most seeds,
   * in about ten seconds more).
   */
  private static final int TOGETHER_GROUPS = 40;

  @TempDir
  Path temp;

  @Test
  void generatedProgramsObserveWithTheAgentWhatTheyObserveSerially() throws Exception {
    StandInDriver.assumeBuilt();
    int count = Integer.getInteger("kernelweave.fuzz.programs", 40);
    ScriptedPrograms.Programs programs =
        ScriptedPrograms.programs(temp, count, Math.max(TOGETHER_GROUPS, count / 10), SEED);
    List<String> reference = ScriptedRuns.observations(List.of(), null, ScriptedRuns.standIn(STAND_IN_SEEDS[0]),
        programs.script(), true);
    assertEquals(programs.byName().size(),
        reference.stream().filter(l -> !l.startsWith("device-print ")).map(l -> l.split(" ")[0]).distinct().count(),
        "every program observed something");
    assertTrue(reference.stream().filter(l -> l.startsWith("device-print ")).count() >= 20,
        "kernels that only print ran, and printed through the stand-in's vprintf");
    assertTrue(reference.stream().anyMatch(l -> l.contains(" read b" + ProgramScript.SECOND_CONTEXT_RESULT + "+0 ")),
        "some program did work in a second context");
    System.out.println(programs.byName().size() + " programs from seed " + SEED + ", " + reference.size() + " observations");
    for (int standInSeed : STAND_IN_SEEDS) {
      // The second seed merges launches of one kernel too: the stand-in interprets the merged variants.
      List<String> agent = ScriptedRuns.observations(List.of(), "journal=" + temp.resolve("journal-" + standInSeed)
          + (standInSeed == STAND_IN_SEEDS[1] ? ",merge=on" : ""), ScriptedRuns.standIn(standInSeed), programs.script(),
          false);
      Optional<String> difference = ScriptedRuns.firstDifference(reference, agent, programs);
      assertTrue(difference.isEmpty(), () -> "with the agent, stand-in seed " + standInSeed + ": " + difference.get());
    }
    // Other paths through the agent: no graphs, two lanes, no priority classes; and the agent engaging
    // after calls made as written (interceptor/Engagement), here at the second: the first program's
    // set-up copies are the calls before it. Not later: calls made as written keep only CUDA's order,
    // and these programs race as written where the serial reference (and the engaged agent) orders
    // them; mid-program hand-overs are EngagementOnCpuDeviceTest's, on programs without races.
    for (String options : List.of("journal=off,graphs=off,streams=2,priority=off", "journal=off,engage=2")) {
      List<String> agent = ScriptedRuns.observations(List.of(), options, ScriptedRuns.standIn(STAND_IN_SEEDS[0]),
          programs.script(), false);
      Optional<String> difference = ScriptedRuns.firstDifference(reference, agent, programs);
      assertTrue(difference.isEmpty(), () -> "with the agent, " + options + ": " + difference.get());
    }
  }

  /** The programs the fuzz once found observing the agent, shrunk, kept as they are. */
  @Test
  void foundProgramsObserveWithTheAgentWhatTheyObserveSerially() throws Exception {
    StandInDriver.assumeBuilt();
    Path script = ScriptedRuns.inRepository("it-tests/src/test/resources/fuzz/regressions.txt");
    List<String> reference =
        ScriptedRuns.observations(List.of(), null, ScriptedRuns.standIn(STAND_IN_SEEDS[0]), script, true);
    for (int standInSeed : STAND_IN_SEEDS) {
      assertEquals(reference,
          ScriptedRuns.observations(List.of(), "journal=off", ScriptedRuns.standIn(standInSeed), script, false),
          "with the agent, stand-in seed " + standInSeed);
    }
  }

  /**
   * A deliberately broken scheduler inside the agent changes what some program observes, or ends it
   * (a crash, a host function that never runs). Every mutant but {@code merge-overlapping-writes}
   * (see {@link #mutants}): {@code no-free-wait} shows since the
   * stand-in's {@code cuMemFree} does not wait for the agent's lanes ({@link ScriptedRuns#standIn}).
   * A kernel's pointer range is seen wrong only where the PTX is not read ({@code ptx=off}): read, it
   * gives the exact range.
   */
  @ParameterizedTest
  @MethodSource("mutants")
  void catchesABrokenScheduler(String mutant, int count, String options) throws Exception {
    StandInDriver.assumeBuilt();
    ScriptedPrograms.Programs programs = ScriptedRuns.programs(temp, count, SEED);
    List<String> reference = ScriptedRuns.observations(List.of(), null, ScriptedRuns.standIn(STAND_IN_SEEDS[0]),
        programs.script(), true);
    ChildJvm.Result r = ScriptedRuns.play(List.of("-D" + "dev.kernelweave.mutant=" + mutant),
        "journal=off" + (options == null ? "" : "," + options), ScriptedRuns.standIn(STAND_IN_SEEDS[0]),
        programs.script(), false);
    assertTrue(r.stderr().contains("deliberately broken"), () -> "the agent did not take the mutant:\n" + r.stderr());
    Optional<String> difference = ScriptedRuns.firstDifference(reference, ScriptedRuns.lines(r), programs);
    assertTrue(r.exitCode() != 0 || difference.isPresent(), "no program observed the mutant " + mutant);
    // How: the exit, or the first lines of the difference; and whether a kernel touched memory outside
    // every allocation (the stand-in's CUDA_ERROR_ILLEGAL_ADDRESS rather than a crash).
    System.out.println(mutant + " caught: " + (r.exitCode() != 0 ? "exit " + r.exitCode()
        : String.join(" | ", difference.get().lines().limit(3).toList()))
        + (r.stderr().contains("illegal address") ? " [a kernel faulted: CUDA_ERROR_ILLEGAL_ADDRESS]" : ""));
  }

  /** Each mutant, with the programs it takes and the agent options it needs. */
  static Stream<Arguments> mutants() {
    // The stand-in runs a merged launch's blocks in order, instance after instance: overlapping
    // writes merged land as separate launches' would. The simulator, which runs them together, shows it.
    // The programs played here never make the agent hand them back; the simulator's fuzz hands a
    // quarter of its programs back, and HandBackOnCpuDeviceTest plays the hand-back through the agent.
    return Arrays.stream(Mutant.values())
        .filter(m -> m != Mutant.NONE && m != Mutant.MERGE_OVERLAPPING_WRITES && m != Mutant.HAND_BACK_JOINS_LEGACY_ONLY)
        .map(m -> m == Mutant.KERNEL_RANGE_FROM_POINTER ? Arguments.of(m.option(), 300, "ptx=off")
            // More programs: a loaded host's pauses end windows early, and fewer of them merge.
            : m == Mutant.MERGE_IGNORES_GRID ? Arguments.of(m.option(), 240, "merge=on")
            : Arguments.of(m.option(), 40, null));
  }

}
