package dev.kernelweave.interceptor;

import dev.kernelweave.interceptor.jcuda.JCudaNatives;
import dev.kernelweave.scheduler.Scheduler;
import java.nio.Buffer;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.CharBuffer;
import java.nio.DoubleBuffer;
import java.nio.FloatBuffer;
import java.nio.IntBuffer;
import java.nio.LongBuffer;
import java.nio.ShortBuffer;
import jcuda.Pointer;

/**
 * One context's page-locked buffers that synchronous copies between Java memory and the device are
 * staged through. To the device: the agent copies the source into a buffer and issues the copy
 * asynchronously, so the program may reuse its array as soon as the call returns, and the device
 * reads the agent's buffer, which nothing else writes until that copy is known complete. From the
 * device: the copy lands in a buffer, queued behind the work it must follow, and the host copies it
 * into the program's array once it waited for it.
 *
 * <p>Bounded: at most {@link #COUNT} buffers of {@link #BYTES} bytes, allocated on first need (in
 * the context current at the time, which is the context they belong to) and reused. A buffer is free
 * again once the scheduler knows the lane position of the copy that last read it complete (the host
 * waited for that lane). A copy larger than a buffer, or made while every buffer is still being
 * read, is not staged.
 *
 * <p>Not thread-safe: used under the context's dispatch lock.
 */
final class StagingBuffers {

  /** Buffers per context. */
  static final int COUNT = 4;
  /** Bytes per buffer: the largest copy staged. */
  static final long BYTES = 4L << 20;
  /**
   * Bytes staged and issued at a time: a larger copy goes to the device in pieces of this size, so
   * that the device copies one piece while the host stages the next (as CUDA's own synchronous copy
   * from pageable memory does), rather than only once the whole source is staged.
   */
  static final long PIECE = 256L << 10;

  private final Pointer[] host = new Pointer[COUNT];
  private final ByteBuffer[] bytes = new ByteBuffer[COUNT];
  private final Buffer[][] views = new Buffer[COUNT][];
  /** The lane and position of the copy that last read each buffer; position 0: none. */
  private final int[] readerLane = new int[COUNT];
  private final long[] readerPosition = new long[COUNT];
  private boolean allocationFailed;

  /**
   * A buffer no pending copy reads, allocating one when none is free and fewer than {@link #COUNT}
   * exist; -1 when every buffer is still being read or page-locked memory could not be had.
   */
  int reserve(Scheduler scheduler) {
    int unallocated = -1;
    for (int i = 0; i < COUNT; i++) {
      if (host[i] == null) {
        if (unallocated < 0) {
          unallocated = i;
        }
      } else if (scheduler.isComplete(readerLane[i], readerPosition[i])) {
        return i;
      }
    }
    if (unallocated < 0 || allocationFailed) {
      return -1;
    }
    Pointer p = new Pointer();
    if (JCudaNatives.allocateHost(p, BYTES) != 0) {
      allocationFailed = true; // not retried: an allocation failing once would cost its time again at every copy
      return -1;
    }
    ByteBuffer b = p.getByteBuffer(0, BYTES).order(ByteOrder.nativeOrder());
    host[unallocated] = p;
    bytes[unallocated] = b;
    views[unallocated] = new Buffer[] {
      b, b.asCharBuffer(), b.asShortBuffer(), b.asIntBuffer(), b.asFloatBuffer(), b.asLongBuffer(), b.asDoubleBuffer(),
    };
    return unallocated;
  }

  /** The page-locked memory of buffer {@code i}. */
  Pointer pointer(int i) {
    return host[i];
  }

  /** Buffer {@code i} is read by the copy at {@code position} of {@code lane}. */
  void readBy(int i, int lane, long position) {
    readerLane[i] = lane;
    readerPosition[i] = position;
  }

  /**
   * Whether {@link #copy} can copy {@code size} bytes from {@code source} at {@code byteOffset}: a
   * heap buffer over a whole array (as {@code Pointer.to(float[])} makes), whole elements, within
   * the array and within one buffer.
   */
  static boolean canCopy(Buffer source, long byteOffset, long size) {
    if (source == null || source.isDirect() || !source.hasArray() || source.arrayOffset() != 0
        || source.position() != 0 || size <= 0 || size > BYTES || byteOffset < 0) {
      return false;
    }
    int element = elementSize(source);
    return element > 0 && byteOffset % element == 0 && size % element == 0
        && byteOffset + size <= (long) source.capacity() * element;
  }

  /**
   * Copies {@code size} bytes of {@code source} from {@code byteOffset} into buffer {@code i} at
   * {@code into}; {@link #canCopy} holds for the whole copy, and {@code into} and {@code size} are
   * whole elements.
   */
  void copy(int i, Buffer source, long byteOffset, long into, long size) {
    Buffer[] v = views[i];
    int element = elementSize(source);
    int from = (int) (byteOffset / element);
    int at = (int) (into / element);
    int count = (int) (size / element);
    if (source instanceof ByteBuffer s) {
      ((ByteBuffer) v[0]).put(at, s.array(), from, count);
    } else if (source instanceof CharBuffer s) {
      ((CharBuffer) v[1]).put(at, s.array(), from, count);
    } else if (source instanceof ShortBuffer s) {
      ((ShortBuffer) v[2]).put(at, s.array(), from, count);
    } else if (source instanceof IntBuffer s) {
      ((IntBuffer) v[3]).put(at, s.array(), from, count);
    } else if (source instanceof FloatBuffer s) {
      ((FloatBuffer) v[4]).put(at, s.array(), from, count);
    } else if (source instanceof LongBuffer s) {
      ((LongBuffer) v[5]).put(at, s.array(), from, count);
    } else if (source instanceof DoubleBuffer s) {
      ((DoubleBuffer) v[6]).put(at, s.array(), from, count);
    } else {
      throw new IllegalArgumentException("no copy from " + source.getClass());
    }
  }

  /**
   * Copies {@code size} bytes of buffer {@code i} into {@code destination} at {@code byteOffset};
   * {@link #canCopy} holds for {@code destination}.
   */
  void copyOut(int i, Buffer destination, long byteOffset, long size) {
    Buffer[] v = views[i];
    int element = elementSize(destination);
    int to = (int) (byteOffset / element);
    int count = (int) (size / element);
    if (destination instanceof ByteBuffer d) {
      ((ByteBuffer) v[0]).get(0, d.array(), to, count);
    } else if (destination instanceof CharBuffer d) {
      ((CharBuffer) v[1]).get(0, d.array(), to, count);
    } else if (destination instanceof ShortBuffer d) {
      ((ShortBuffer) v[2]).get(0, d.array(), to, count);
    } else if (destination instanceof IntBuffer d) {
      ((IntBuffer) v[3]).get(0, d.array(), to, count);
    } else if (destination instanceof FloatBuffer d) {
      ((FloatBuffer) v[4]).get(0, d.array(), to, count);
    } else if (destination instanceof LongBuffer d) {
      ((LongBuffer) v[5]).get(0, d.array(), to, count);
    } else if (destination instanceof DoubleBuffer d) {
      ((DoubleBuffer) v[6]).get(0, d.array(), to, count);
    } else {
      throw new IllegalArgumentException("no copy into " + destination.getClass());
    }
  }

  private static int elementSize(Buffer b) {
    if (b instanceof ByteBuffer) {
      return 1;
    } else if (b instanceof CharBuffer || b instanceof ShortBuffer) {
      return 2;
    } else if (b instanceof IntBuffer || b instanceof FloatBuffer) {
      return 4;
    } else if (b instanceof LongBuffer || b instanceof DoubleBuffer) {
      return 8;
    }
    return 0;
  }
}
