package dev.kernelweave.interceptor;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

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

  @Test
  void theRangeSizeAttributeIsCorrectedInWhateverJavaMemoryItWasWrittenTo() {
    java.nio.ByteBuffer bytes = java.nio.ByteBuffer.allocate(8).order(java.nio.ByteOrder.LITTLE_ENDIAN).putLong(0, 4097);
    AllocationPadding.correctRangeSizeAttribute(Pointer.to(bytes), BASE);
    assertEquals(4096, bytes.getLong(0), "a heap byte buffer");

    byte[] array = java.nio.ByteBuffer.allocate(8).order(java.nio.ByteOrder.LITTLE_ENDIAN).putLong(0, 4097).array();
    AllocationPadding.correctRangeSizeAttribute(Pointer.to(array), BASE);
    assertEquals(4096, java.nio.ByteBuffer.wrap(array).order(java.nio.ByteOrder.LITTLE_ENDIAN).getLong(0), "a byte[8]");

    int[] halves = {4097, 0};
    AllocationPadding.correctRangeSizeAttribute(Pointer.to(halves), BASE);
    assertArrayEquals(new int[] {4096, 0}, halves, "an int[2], low half first");

    java.nio.ByteBuffer direct = java.nio.ByteBuffer.allocateDirect(8).order(java.nio.ByteOrder.nativeOrder());
    direct.putLong(0, 4097);
    AllocationPadding.correctRangeSizeAttribute(Pointer.to(direct), BASE);
    assertEquals(4096, direct.getLong(0), "a direct buffer");

    long[] other = {12345};
    AllocationPadding.correctRangeSizeAttribute(Pointer.to(other), BASE);
    assertArrayEquals(new long[] {12345}, other, "an answer that is not the padded size is left alone");
  }
}
