package dev.kernelweave.it.semantics;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.kernelweave.it.agent.ChildJvm;
import java.nio.file.Files;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * An allocation that fills the device exactly: CUDA gives it, though the agent's padded try does
 * not fit; the program sees neither the try nor its error, with JCuda's exceptions on or off. Over
 * the stand-in, whose device memory {@code KW_CPU_DEVICE_MEMORY} makes exactly that large.
 */
class FullDeviceOnCpuDeviceTest {

  @ParameterizedTest
  @ValueSource(strings = {"full", "full-exceptions"})
  void allocationOfAllTheMemoryLeftSucceedsWithTheAgent(String variant) throws Exception {
    assumeTrue(Files.isRegularFile(SemanticsOnCpuDeviceTest.CPU_DEVICE.resolve("libcuda.so.1")),
        "no stand-in CUDA driver at " + SemanticsOnCpuDeviceTest.CPU_DEVICE + " (built where g++ is): skipped");
    Map<String, String> env = Map.of(
        "LD_LIBRARY_PATH", SemanticsOnCpuDeviceTest.CPU_DEVICE.toAbsolutePath().toString(),
        "KW_CPU_DEVICE_MEMORY", Long.toString(AllocationProgram.FULL));
    String[] args = {"--variant", variant, "--reps", "3"};
    ChildJvm.Result plain = ChildJvm.run(ChildJvm.java(System.getProperty("java.home")), null, List.of(), env,
        AllocationProgram.class.getName(), args);
    assertEquals(0, plain.exitCode(), SemanticsCase.describe("without the agent", plain));
    assertFalse(plain.stdout().contains("WRONG"), SemanticsCase.describe("without the agent", plain));
    assertTrue(plain.stdout().contains("cuMemAlloc(" + AllocationProgram.FULL + ") returned 0"),
        SemanticsCase.describe("without the agent", plain));
    ChildJvm.Result agent = ChildJvm.run(ChildJvm.java(System.getProperty("java.home")), SemanticsCase.AGENT,
        List.of(), env, AllocationProgram.class.getName(), args);
    assertEquals(SemanticsCase.observed(plain), SemanticsCase.observed(agent), SemanticsCase.describe("with the agent", agent));
    assertEquals(0, agent.exitCode(), SemanticsCase.describe("with the agent", agent));
  }
}
