package dev.kernelweave.interceptor.jcuda;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;


import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.FloatBuffer;
import java.nio.IntBuffer;
import jcuda.NativePointerObject;
import jcuda.Pointer;
import jcuda.driver.CUdeviceptr;
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

  /** The bytes the agent records for a parameter, checked to be as many as it reserves. */
  private static byte[] recorded(Pointer p) {
    int size = JCudaPointers.parameterSize(p);
    byte[] bytes = new byte[size];
    assertEquals(size, JCudaPointers.copyParameter(p, bytes, 0));
    return bytes;
  }

  /** {@code values}' bytes in the host's order, as JCuda hands an array to the driver, from byte {@code from}. */
  private static byte[] hostBytes(long[] values, int from) {
    ByteBuffer b = ByteBuffer.allocate(8 * values.length).order(ByteOrder.nativeOrder());
    b.asLongBuffer().put(values);
    return java.util.Arrays.copyOfRange(b.array(), from, b.capacity());
  }

  @Test
  void charsAreRecordedAsTheTwoBytesEachTheyAre() {
    assertArrayEquals(new byte[] {(byte) 0xfe, (byte) 0xca, 1, 0}, recorded(Pointer.to(new char[] {0xcafe, 1})));
    java.nio.CharBuffer direct = ByteBuffer.allocateDirect(4).order(ByteOrder.LITTLE_ENDIAN).asCharBuffer();
    direct.put(0, (char) 0xcafe);
    assertArrayEquals(new byte[] {(byte) 0xfe, (byte) 0xca, 0, 0}, recorded(Pointer.to(direct)));
  }

  @Test
  void aByteOffsetInsideAnElementIsRecordedFromThatByte() {
    long[] values = {0x0102030405060708L, 0x1112131415161718L};
    assertArrayEquals(hostBytes(values, 3), recorded(Pointer.to(values).withByteOffset(3)));
    assertArrayEquals(hostBytes(values, 8), recorded(Pointer.to(values).withByteOffset(8)));
  }

  @Test
  void anArrayOfPointersWithAByteOffsetIsRecordedFromThatByte() {
    long[] addresses = {0x7f0000001000L, 0x7f0000002000L, 0x7f0000003000L};
    Pointer table = Pointer.to(new CUdeviceptr(), new CUdeviceptr(), new CUdeviceptr());
    NativePointerObject[] entries = JCudaPointers.pointers(table);
    for (int i = 0; i < 3; i++) {
      JCudaPointers.setNativePointer(entries[i], addresses[i]);
    }
    assertArrayEquals(hostBytes(addresses, 8), recorded(table.withByteOffset(8)), "entries 1 and 2, as the driver reads them");
    assertArrayEquals(hostBytes(addresses, 12), recorded(table.withByteOffset(12)));
  }

  @Test
  void aLaunchsParametersStartAtItsPointersByteOffset() {
    Pointer a = Pointer.to(new float[] {1f});
    Pointer b = Pointer.to(new int[] {2});
    Pointer params = Pointer.to(a, b);
    assertArrayEquals(new NativePointerObject[] {a, b}, JCudaPointers.kernelParameters(params));
    assertArrayEquals(new NativePointerObject[] {b}, JCudaPointers.kernelParameters(params.withByteOffset(8)));
    assertNull(JCudaPointers.kernelParameters(params.withByteOffset(4)), "half an entry: not a list of parameters");
  }

  @Test
  void aParameterOfMoreThan4096BytesIsRecordedWhole() {
    float[] big = new float[2048];
    big[2047] = 5f;
    byte[] bytes = recorded(Pointer.to(big));
    assertEquals(8192, bytes.length);
    assertEquals(5f, ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN).getFloat(8188));
    assertEquals(JCudaPointers.MAX_PARAMETER_BYTES, JCudaPointers.parameterSize(Pointer.to(new double[8192])),
        "no more than a kernel can take");
    assertEquals(JCudaPointers.MAX_PARAMETER_BYTES, recorded(Pointer.to(new double[8192])).length);
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
