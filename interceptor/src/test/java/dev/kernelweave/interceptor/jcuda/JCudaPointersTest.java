package dev.kernelweave.interceptor.jcuda;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.FloatBuffer;
import java.nio.IntBuffer;
import jcuda.Pointer;
import org.junit.jupiter.api.Test;

/**
 * What the agent reads from a JCuda pointer to a Java buffer must be what JCuda hands the driver:
 * {@code Pointer.to(buffer)} ignores the buffer's position and a heap buffer's array offset (its
 * javadoc says so, and the native code reads the array or the direct address from its start),
 * {@code Pointer.toBuffer(buffer)} turns them into the pointer's byte offset.
 */
class JCudaPointersTest {

  /** The first four bytes the agent records for a parameter, as a float. */
  private static float parameter(Pointer p) {
    byte[] bytes = new byte[4096];
    assertEquals(JCudaPointers.parameterSize(p), JCudaPointers.copyParameter(p, bytes, 0));
    return ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN).getFloat(0);
  }

  @Test
  void aHeapBufferIsReadFromItsArraysStartWhateverItsPosition() {
    float[] values = {1f, 99f, 7f};
    FloatBuffer buffer = FloatBuffer.wrap(values);
    buffer.position(1); // as after a relative put
    assertEquals(1f, parameter(Pointer.to(buffer)));
    assertEquals(12, JCudaPointers.parameterSize(Pointer.to(buffer)), "the whole array, not what remains");
    assertEquals(99f, parameter(Pointer.toBuffer(buffer)), "toBuffer counts the position, in the byte offset");
  }

  @Test
  void aSliceOfAHeapBufferIsReadFromTheWholeArraysStart() {
    FloatBuffer slice = FloatBuffer.wrap(new float[] {1f, 2f, 3f, 4f}).position(2).slice();
    assertEquals(1f, parameter(Pointer.to(slice)));
    assertEquals(3f, parameter(Pointer.toBuffer(slice)));
  }

  @Test
  void aDirectBufferIsReadFromItsAddressInItsMemorysByteOrder() {
    FloatBuffer nativeOrder = ByteBuffer.allocateDirect(16).order(ByteOrder.nativeOrder()).asFloatBuffer();
    nativeOrder.put(5f).put(6f).flip(); // limit 2, position 0
    nativeOrder.position(1);
    assertEquals(5f, parameter(Pointer.to(nativeOrder)));
    assertEquals(6f, parameter(Pointer.toBuffer(nativeOrder)));
    assertEquals(16, JCudaPointers.parameterSize(Pointer.to(nativeOrder)), "its capacity, past the limit");

    ByteBuffer bytes = ByteBuffer.allocateDirect(8); // big-endian, as Java allocates it
    bytes.asIntBuffer().put(0x01020304);
    byte[] device = new byte[8];
    JCudaPointers.copyParameter(Pointer.to(bytes.asIntBuffer()), device, 0);
    assertArrayEquals(new byte[] {1, 2, 3, 4}, java.util.Arrays.copyOf(device, 4), "the bytes in memory, as the driver reads them");
  }

  @Test
  void anElementPastADirectBuffersLimitIsReadAsJCudaReadsIt() {
    IntBuffer ints = ByteBuffer.allocateDirect(16).order(ByteOrder.nativeOrder()).asIntBuffer();
    ints.put(3, 42).limit(1);
    byte[] device = new byte[16];
    assertEquals(16, JCudaPointers.copyParameter(Pointer.to(ints), device, 0));
    assertEquals(42, ByteBuffer.wrap(device).order(ByteOrder.LITTLE_ENDIAN).getInt(12));
  }

  @Test
  void theBytesOfAByteBufferPointerStartAtItsByteOffsetNotItsPosition() {
    ByteBuffer heap = ByteBuffer.wrap(new byte[] {10, 11, 12, 13});
    heap.position(4); // read to its end, never flipped
    assertArrayEquals(new byte[] {10, 11, 12, 13}, JCudaPointers.bytes(Pointer.to(heap)));
    assertArrayEquals(new byte[] {12, 13}, JCudaPointers.bytes(Pointer.to(heap).withByteOffset(2)));
    ByteBuffer direct = ByteBuffer.allocateDirect(3).put(new byte[] {1, 2, 3});
    assertArrayEquals(new byte[] {1, 2, 3}, JCudaPointers.bytes(Pointer.to(direct)));
  }
}
