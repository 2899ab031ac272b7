package dev.kernelweave.it.semantics;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assumptions.assumeFalse;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.kernelweave.it.agent.ChildJvm;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * CUDA's semantics as the oracle, over the stand-in driver that {@code kernels} builds where g++ is
 * ({@code kernels/target/cpu-device}): each of the ten sequences of issue 8 runs without the agent
 * and with the packaged agent scheduling, {@value #REPS} times each way: one process each, with the
 * stand-in's seed {@value #SEED}, repeats the sequence, so every repetition meets its own random
 * order of the ready work (a process per repetition would spend minutes starting the agent). Without
 * the agent every observation must be the one CUDA documents (no {@code WRONG} line); with it, the
 * same lines.
 */
class SemanticsOnCpuDeviceTest {

  static final Path CPU_DEVICE = Path.of("../kernels/target/cpu-device");
  static final int SEED = 1;
  static final int REPS = 50;
  /** How long a host function or thread waits for the host; the stand-in needs no more. */
  static final String TIMEOUT_MS = "3000";
  /** The stand-in never makes one thread's call wait for another's: any such wait is the agent's. */
  static final String[] OPTIONS = {"--reps", Integer.toString(REPS), "--timeout-ms", TIMEOUT_MS,
      "--calls-never-block", "true"};

  @ParameterizedTest
  @EnumSource(SemanticsCase.class)
  void agentPrintsWhatTheProgramPrintsWithoutIt(SemanticsCase c) throws Exception {
    assumeTrue(Files.isRegularFile(CPU_DEVICE.resolve("libcuda.so.1")),
        "no stand-in CUDA driver at " + CPU_DEVICE + " (it is built where g++ is present): skipped");
    assumeFalse(c.needsGpu, c + " calls what the stand-in driver does not have: it runs in SemanticsGpuTest");
    Path kernelsRun = Files.createTempFile("kernels-run", ".txt");
    // A call on a destroyed stream may crash a GPU's driver: here it stops the process.
    Map<String, String> env = Map.of("LD_LIBRARY_PATH", CPU_DEVICE.toAbsolutePath().toString(),
        "KW_CPU_DEVICE_SEED", Integer.toString(SEED), "KW_CPU_DEVICE_KERNELS_FILE", kernelsRun.toString(),
        "KW_CPU_DEVICE_STALE_STREAMS", "abort");
    ChildJvm.Result plain = c.run(false, env, OPTIONS);
    assertEquals(0, plain.exitCode(), SemanticsCase.describe("without the agent", plain));
    assertFalse(plain.stdout().contains("WRONG"), SemanticsCase.describe("without the agent", plain));
    ChildJvm.Result agent = c.run(true, env, OPTIONS);
    assertEquals(SemanticsCase.observed(plain), SemanticsCase.observed(agent), SemanticsCase.describe("with the agent", agent));
    assertEquals(0, agent.exitCode(), SemanticsCase.describe("with the agent", agent));
  }
}
