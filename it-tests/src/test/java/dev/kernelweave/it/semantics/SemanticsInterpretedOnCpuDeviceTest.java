package dev.kernelweave.it.semantics;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeFalse;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.kernelweave.it.agent.ChildJvm;
import java.nio.file.Files;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The semantics programs with their kernels run from semantics.ptx by the stand-in's PTX
 * interpreter ({@code KW_CPU_DEVICE_PTX=interpret}) rather than compiled in: no observation may be
 * wrong, and all must be the compiled-in run's: for the printing kernels of the pointer programs,
 * the same lines in the same order from the interpreter's {@code vprintf}. Left out: the cubin and
 * fatbin variants, the unload ones too (no PTX of theirs to interpret), and the stream callback and
 * the two allocation-range programs (they load no module).
 */
class SemanticsInterpretedOnCpuDeviceTest {

  static final String[] OPTIONS = {"--reps", "3", "--timeout-ms", SemanticsOnCpuDeviceTest.TIMEOUT_MS,
      "--calls-never-block", "true"};

  @ParameterizedTest
  @EnumSource(value = SemanticsCase.class, mode = EnumSource.Mode.EXCLUDE,
      names = {"CUBIN_KERNEL_IS_ORDERED_BEFORE_A_READ", "FATBIN_KERNEL_IS_ORDERED_BEFORE_A_READ",
          "A_CUBIN_KERNEL_LOADED_AFTER_A_PTX_MODULES_UNLOAD", "A_FATBIN_KERNEL_LOADED_AFTER_A_PTX_MODULES_UNLOAD",
          "STREAM_CALLBACK_RECEIVES_ITS_STREAM", "ALLOCATION_RANGES_HAVE_THE_SIZE_ASKED_FOR",
          "THE_BYTE_PAST_AN_ALLOCATION_IS_NOT_IN_ITS_RANGE"})
  void interpretedKernelsObserveWhatCompiledInKernelsDo(SemanticsCase c) throws Exception {
    assumeTrue(Files.isRegularFile(SemanticsOnCpuDeviceTest.CPU_DEVICE.resolve("libcuda.so.1")),
        "no stand-in CUDA driver (it is built where g++ is present): skipped");
    assumeFalse(c.needsGpu, c + " calls what the stand-in driver does not have: it runs in SemanticsGpuTest");
    Map<String, String> env = new HashMap<>(Map.of(
        "LD_LIBRARY_PATH", SemanticsOnCpuDeviceTest.CPU_DEVICE.toAbsolutePath().toString(),
        "KW_CPU_DEVICE_SEED", Integer.toString(SemanticsOnCpuDeviceTest.SEED), "KW_CPU_DEVICE_PTX_STATS", "1"));
    ChildJvm.Result compiled = c.run(false, env, OPTIONS);
    assertEquals(0, compiled.exitCode(), SemanticsCase.describe("compiled in", compiled));
    env.put("KW_CPU_DEVICE_PTX", "interpret");
    ChildJvm.Result interpreted = c.run(false, env, OPTIONS);
    assertEquals(0, interpreted.exitCode(), SemanticsCase.describe("interpreted", interpreted));
    assertFalse(interpreted.stdout().contains("WRONG"), SemanticsCase.describe("interpreted", interpreted));
    assertTrue(interpreted.stderr().contains("PTX interpreter: "), SemanticsCase.describe("interpreted", interpreted));
    assertEquals(SemanticsCase.observed(compiled), SemanticsCase.observed(interpreted),
        SemanticsCase.describe("interpreted", interpreted));
  }
}
