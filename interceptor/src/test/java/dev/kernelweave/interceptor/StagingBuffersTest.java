package dev.kernelweave.interceptor;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.FloatBuffer;
import java.nio.IntBuffer;
import org.junit.jupiter.api.Test;

/** Which sources a synchronous copy may be staged from: whole elements of a whole array, in range. */
class StagingBuffersTest {

  @Test
  void anArrayAsPointerToMakesItIsStaged() {
    FloatBuffer array = FloatBuffer.wrap(new float[256]);
    assertTrue(StagingBuffers.canCopy(array, 0, 1024));
    assertTrue(StagingBuffers.canCopy(array, 512, 512), "withByteOffset within the array");
  }

  @Test
  void aCopyPastTheArrayIsLeftToJCuda() {
    FloatBuffer array = FloatBuffer.wrap(new float[256]);
    assertFalse(StagingBuffers.canCopy(array, 0, 1028));
    assertFalse(StagingBuffers.canCopy(array, 4, 1024));
  }

  @Test
  void partialElementsAndEmptyCopiesAreLeftToJCuda() {
    IntBuffer array = IntBuffer.wrap(new int[16]);
    assertFalse(StagingBuffers.canCopy(array, 0, 6));
    assertFalse(StagingBuffers.canCopy(array, 2, 4));
    assertFalse(StagingBuffers.canCopy(array, 0, 0));
  }

  @Test
  void directBuffersSlicesAndLargeCopiesAreLeftToJCuda() {
    assertFalse(StagingBuffers.canCopy(ByteBuffer.allocateDirect(64), 0, 64), "native memory, maybe pinned");
    assertFalse(StagingBuffers.canCopy(FloatBuffer.wrap(new float[64], 8, 8), 0, 32), "a buffer at a position");
    byte[] large = new byte[(int) StagingBuffers.BYTES + 1];
    assertFalse(StagingBuffers.canCopy(ByteBuffer.wrap(large), 0, large.length), "larger than a buffer");
    assertTrue(StagingBuffers.canCopy(ByteBuffer.wrap(large), 0, StagingBuffers.BYTES));
  }
}
