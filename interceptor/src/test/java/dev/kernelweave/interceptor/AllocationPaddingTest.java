package dev.kernelweave.interceptor;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;

import dev.kernelweave.memory.MemoryKind;
import java.nio.LongBuffer;
import jcuda.Pointer;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** A padded allocation's size, as a program asks for it, is the size it asked for. */
class AllocationPaddingTest {

  private static final long BASE = 0x7f00_0000_0000L;

  @BeforeEach
  void padOneAllocation() {
    AgentState state = AgentState.replaceForTesting();
    state.allocations.add(BASE, 4097, MemoryKind.DEVICE);
    AllocationPadding.allocated(BASE, 4096, true);
  }

  @Test
  void theRangeSizeAttributeIsCorrectedWhereJCudaWroteItNotAtTheBuffersPosition() {
    long[] answer = {4097, 4097};
    LongBuffer buffer = LongBuffer.wrap(answer);
    buffer.position(1); // JCuda's Pointer.to(buffer) writes at the array's start all the same
    AllocationPadding.correctRangeSizeAttribute(Pointer.to(buffer), BASE + 8);
    assertArrayEquals(new long[] {4096, 4097}, answer);
    AllocationPadding.correctRangeSizeAttribute(Pointer.to(answer).withByteOffset(8), BASE);
    assertArrayEquals(new long[] {4096, 4096}, answer);
  }
}
