package dev.kernelweave.kernels;

import static jcuda.driver.JCudaDriver.cuMemcpyDtoHAsync;
import static jcuda.driver.JCudaDriver.cuMemcpyHtoDAsync;
import static jcuda.driver.JCudaDriver.cuStreamSynchronize;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.FloatBuffer;
import jcuda.Pointer;
import jcuda.driver.CUdeviceptr;
import jcuda.driver.CUstream;

/** Page-locked host floats ({@code cuMemAllocHost}), the endpoints of asynchronous copies. */
public final class PinnedFloats {

  private final Pointer pointer;
  private final FloatBuffer floats;

  PinnedFloats(Pointer pointer, int count) {
    this.pointer = pointer;
    ByteBuffer bytes = pointer.getByteBuffer(0, (long) count * Float.BYTES);
    if (bytes == null) {
      throw new IllegalStateException("JCuda gave no buffer for cuMemAllocHost memory");
    }
    this.floats = bytes.order(ByteOrder.nativeOrder()).asFloatBuffer();
  }

  /** How many floats. */
  public int size() {
    return floats.capacity();
  }

  /** Copies {@code values} in, starting at float {@code at}. */
  public void put(int at, float[] values) {
    floats.put(at, values);
  }

  /**
   * Copies {@code count} floats starting at float {@code at} into {@code into} at {@code offset}.
   */
  public void get(int at, float[] into, int offset, int count) {
    floats.get(at, into, offset, count);
  }

  /** All floats, copied into a new array. */
  public float[] toArray() {
    float[] values = new float[size()];
    get(0, values, 0, values.length);
    return values;
  }

  /**
   * Queues a copy of {@code count} floats from float {@code at} to {@code device} on {@code
   * stream}.
   */
  public void copyToDevice(int at, CUdeviceptr device, int count, CUstream stream) {
    cuMemcpyHtoDAsync(device, pointer.withByteOffset(bytes(at)), bytes(count), stream);
  }

  /**
   * Queues a copy of {@code count} floats from {@code device} to float {@code at} on {@code
   * stream}.
   */
  public void copyFromDevice(int at, CUdeviceptr device, int count, CUstream stream) {
    cuMemcpyDtoHAsync(pointer.withByteOffset(bytes(at)), device, bytes(count), stream);
  }

  /**
   * Copies all of these floats from {@code device} on {@code stream}, then waits for the stream:
   * how a run brings a result, or what the host decides on, into this memory.
   */
  public void readBack(CUdeviceptr device, CUstream stream) {
    copyFromDevice(0, device, size(), stream);
    cuStreamSynchronize(stream);
  }

  Pointer pointer() {
    return pointer;
  }

  private static long bytes(int floats) {
    return (long) floats * Float.BYTES;
  }
}
