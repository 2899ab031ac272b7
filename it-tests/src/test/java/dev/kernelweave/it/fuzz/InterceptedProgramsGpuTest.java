package dev.kernelweave.it.fuzz;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.kernelweave.interceptor.selftest.ScriptedPrograms;
import dev.kernelweave.it.agent.ChildJvm;
import dev.kernelweave.it.agent.SmokePrograms;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link InterceptedProgramsOnCpuDeviceTest}'s programs on a GPU: serially without the agent, then
 * as written with the packaged agent, every observation the same. Skips itself where there is no
 * GPU. {@code -Dkernelweave.fuzz.programs=N -Dkernelweave.fuzz.seed=S} as there.
 */
class InterceptedProgramsGpuTest {

  @TempDir
  Path temp;

  @Test
  void generatedProgramsObserveWithTheAgentWhatTheyObserveSerially() throws Exception {
    long seed = Long.getLong("kernelweave.fuzz.seed", 20261127L);
    ScriptedPrograms.Programs programs =
        ScriptedRuns.programs(temp, Integer.getInteger("kernelweave.fuzz.programs", 300), seed);
    ChildJvm.Result serial = ScriptedRuns.play(List.of(), null, Map.of(), programs.script(), true);
    assumeTrue(serial.exitCode() != SmokePrograms.NO_GPU, "no GPU on this machine: " + serial.stdout().strip());
    assertEquals(0, serial.exitCode(), () -> "serially:\n" + serial.stdout() + "\n" + serial.stderr());
    List<String> agent = ScriptedRuns.observations(List.of(), "journal=" + temp.resolve("journal"), Map.of(),
        programs.script(), false);
    Optional<String> difference = ScriptedRuns.firstDifference(ScriptedRuns.lines(serial), agent, programs);
    assertTrue(difference.isEmpty(), () -> "with the agent: " + difference.get());
  }
}
