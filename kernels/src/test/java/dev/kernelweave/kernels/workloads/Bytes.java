package dev.kernelweave.kernels.workloads;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/** Reads output bytes back in tests. */
final class Bytes {

  private Bytes() {}

  static float[] floats(byte[] bytes, int fromWord, int count) {
    float[] values = new float[count];
    ByteBuffer.wrap(bytes)
        .order(ByteOrder.LITTLE_ENDIAN)
        .position(fromWord * 4)
        .asFloatBuffer()
        .get(values);
    return values;
  }

  static int[] ints(byte[] bytes, int fromWord, int count) {
    int[] values = new int[count];
    ByteBuffer.wrap(bytes)
        .order(ByteOrder.LITTLE_ENDIAN)
        .position(fromWord * 4)
        .asIntBuffer()
        .get(values);
    return values;
  }

  static void assertInsideUnitInterval(float[] values) {
    for (int i = 0; i < values.length; i++) {
      if (!(values[i] > 0.0f && values[i] < 1.0f)) {
        throw new AssertionError("value " + i + " is " + values[i]);
      }
    }
  }
}
