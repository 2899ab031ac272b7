package dev.kernelweave.interceptor.selftest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** What the GPU self-test hands to {@code cuMemHostRegister}: whole pages of its own, never empty. */
class JCudaProgramTargetTest {

  @ParameterizedTest
  @ValueSource(ints = {0, 4, 256, 4095, 4096, 4097, 3 * 4096 + 12})
  void hostMemoryToRegisterIsWholePagesHoldingTheBytesAsked(int bytes) {
    for (int i = 0; i < 16; i++) {  // wherever the JVM happens to place the buffer
      ByteBuffer buffer = JCudaProgramTarget.wholePages(bytes);
      assertTrue(buffer.capacity() >= Math.max(bytes, 4), "capacity " + buffer.capacity() + " for " + bytes);
      assertEquals(0, buffer.capacity() % 4096, "whole pages");
      assertEquals(0, buffer.alignmentOffset(0, 4096), "starts on a page");
    }
  }
}
