package dev.kernelweave.it.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * Under the agent no small buffer starts where the previous one ends, so a buffer's base names it
 * alone and kernels over neighbouring buffers are not ordered after each other; what the driver
 * does without the agent is printed beside it (on a GPU, consecutive allocations are mostly
 * adjacent). Skips itself where there is no GPU.
 */
class AllocationLayoutGpuTest {

  private static final Pattern LAYOUT = Pattern.compile("layout (\\d+) adjacent (\\d+) strides (.*)");

  @Test
  void smallAllocationsAreNeverAdjacentUnderTheAgentAndCostAtMostAGranuleMore() throws Exception {
    ChildJvm.Result plain = PackagedAgentGpuTest.runOnGpu(null, AllocationLayoutProgram.class);
    ChildJvm.Result agent = PackagedAgentGpuTest.runOnGpu("mode=schedule,journal=off", AllocationLayoutProgram.class);
    System.out.println("without the agent:\n" + plain.stdout() + "with the agent:\n" + agent.stdout());
    int sizes = 0;
    for (String line : agent.stdout().split("\n")) {
      Matcher m = LAYOUT.matcher(line.strip());
      long size = m.matches() ? Long.parseLong(m.group(1)) : Long.MAX_VALUE;
      if (size < 1L << 20) {
        sizes++;
        assertEquals("0", m.group(2), "adjacent buffers under the agent: " + line);
        // Consecutive buffers of one chunk: the padding costs at most the driver's small granule.
        long closest = Arrays.stream(m.group(3).trim().split(" ")).mapToLong(Long::parseLong)
            .filter(stride -> stride > 0).min().orElseThrow();
        assertTrue(closest <= size + 4096, "buffers of " + size + " bytes " + closest + " apart: " + line);
      }
    }
    assertEquals(6, sizes, "the program printed a layout for each size below 1 MiB:\n" + agent.stdout());
  }
}
