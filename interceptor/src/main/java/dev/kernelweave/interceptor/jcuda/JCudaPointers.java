package dev.kernelweave.interceptor.jcuda;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.Buffer;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.CharBuffer;
import java.nio.DoubleBuffer;
import java.nio.FloatBuffer;
import java.nio.IntBuffer;
import java.nio.LongBuffer;
import java.nio.ShortBuffer;
import jcuda.NativePointerObject;
import jcuda.Pointer;

/**
 * Reads what a JCuda {@link Pointer} holds without going through native code: its native address,
 * its byte offset, the Java buffer or the pointer array it wraps.
 *
 * <p>JCuda keeps these fields private; they are read through {@link VarHandle}s found once, which
 * costs a field read per access and allocates nothing. Thread-safe.
 */
public final class JCudaPointers {

  private static final VarHandle NATIVE_POINTER;
  private static final VarHandle BYTE_OFFSET;
  private static final VarHandle BUFFER;
  private static final VarHandle POINTERS;

  static {
    try {
      MethodHandles.Lookup npo = MethodHandles.privateLookupIn(NativePointerObject.class, MethodHandles.lookup());
      NATIVE_POINTER = npo.findVarHandle(NativePointerObject.class, "nativePointer", long.class);
      MethodHandles.Lookup p = MethodHandles.privateLookupIn(Pointer.class, MethodHandles.lookup());
      BYTE_OFFSET = p.findVarHandle(Pointer.class, "byteOffset", long.class);
      BUFFER = p.findVarHandle(Pointer.class, "buffer", Buffer.class);
      POINTERS = p.findVarHandle(Pointer.class, "pointers", NativePointerObject[].class);
    } catch (ReflectiveOperationException e) {
      throw new ExceptionInInitializerError(e);
    }
  }

  private JCudaPointers() {}

  /** The raw handle or address held by a JCuda object (0 for null). */
  public static long nativePointer(NativePointerObject object) {
    return object == null ? 0 : (long) NATIVE_POINTER.get(object);
  }

  /** Sets the raw handle of a JCuda object, to hand an application an object it would have received. */
  public static void setNativePointer(NativePointerObject object, long value) {
    NATIVE_POINTER.set(object, value);
  }

  /** The most bytes of parameters a kernel takes (CUDA 12.1 and later; 4096 before). */
  public static final int MAX_PARAMETER_BYTES = 32764;

  /**
   * The address a pointer designates: its native address plus its byte offset. Meaningful for
   * device pointers and native host pointers, 0 for a null pointer.
   */
  public static long address(NativePointerObject object) {
    if (object == null) {
      return 0;
    }
    long base = (long) NATIVE_POINTER.get(object);
    if (object instanceof Pointer p) {
      if (base == 0 && BUFFER.get(p) instanceof Buffer b && b.isDirect()) {
        // Pointer.to(directBuffer): JCuda resolves the buffer's address in native code.
        base = DirectBuffers.address(b);
      }
      base += (long) BYTE_OFFSET.get(object);
    }
    return base;
  }

  /** The address of a direct buffer's memory, read once the JDK's {@code java.nio} is open to the agent. */
  private static final class DirectBuffers {
    private static final VarHandle ADDRESS = find();

    private static VarHandle find() {
      try {
        return MethodHandles.privateLookupIn(Buffer.class, MethodHandles.lookup())
            .findVarHandle(Buffer.class, "address", long.class);
      } catch (ReflectiveOperationException | RuntimeException e) {
        return null;
      }
    }

    /** The address, or 0 when the JDK does not let the agent read it (the memory is then unknown). */
    static long address(Buffer buffer) {
      return ADDRESS == null ? 0 : (long) ADDRESS.get(buffer);
    }
  }

  /** The Java buffer or array a pointer wraps ({@code Pointer.to(float[])}), or null. */
  public static Buffer buffer(Pointer pointer) {
    return (Buffer) BUFFER.get(pointer);
  }

  /** The byte offset a pointer adds to what it points to ({@code withByteOffset}). */
  public static long byteOffset(Pointer pointer) {
    return (long) BYTE_OFFSET.get(pointer);
  }

  /** The objects a pointer to pointers holds ({@code Pointer.to(devicePtr, ...)}), or null. */
  public static NativePointerObject[] pointers(Pointer pointer) {
    return (NativePointerObject[]) POINTERS.get(pointer);
  }

  /**
   * A launch's parameters as JCuda hands them to the driver: the pointers {@code kernelParams}
   * holds, from its byte offset on (a copy where that is not 0); null where it holds none, or its
   * offset is not a whole number of entries.
   */
  public static NativePointerObject[] kernelParameters(Pointer kernelParams) {
    NativePointerObject[] all = pointers(kernelParams);
    long offset = byteOffset(kernelParams);
    if (all == null || offset == 0) {
      return all;
    }
    return offset % 8 == 0 && offset > 0 && offset <= 8L * all.length
        ? java.util.Arrays.copyOfRange(all, (int) (offset / 8), all.length) : null;
  }

  /**
   * Whether the pointer designates Java memory (an array, a heap buffer, an array of pointers)
   * rather than native memory. A direct buffer is native memory: page-locked memory from
   * {@code cuMemAllocHost} carries one, and one may be registered with {@code cuMemHostRegister}.
   */
  public static boolean isJavaMemory(Pointer pointer) {
    if (pointer == null) {
      return false;
    }
    Buffer buffer = (Buffer) BUFFER.get(pointer);
    return POINTERS.get(pointer) != null || buffer != null && !buffer.isDirect();
  }

  /**
   * The bytes a pointer to a byte buffer or array hands the driver, from its byte offset to the end
   * of the buffer as JCuda sees it ({@link #element}); null when it wraps no bytes.
   */
  public static byte[] bytes(Pointer pointer) {
    if (!(BUFFER.get(pointer) instanceof ByteBuffer buffer)) {
      return null;
    }
    long offset = (long) BYTE_OFFSET.get(pointer);
    int length = elements(buffer);
    if (offset < 0 || offset > length) {
      return null;
    }
    byte[] bytes = new byte[length - (int) offset];
    if (!buffer.isDirect() && buffer.hasArray()) {
      System.arraycopy(buffer.array(), (int) offset, bytes, 0, bytes.length);
    } else {
      buffer.duplicate().clear().position((int) offset).get(bytes);
    }
    return bytes;
  }

  /**
   * Copies the bytes a kernel parameter pointer designates into {@code into} at {@code at}, in the
   * device's little-endian order, and returns how many were written ({@link #parameterSize}, which
   * gives the size to reserve), or -1 when they cannot be read from Java (a native host address).
   * Reads what JCuda hands the driver ({@link #element}), which is not where the buffer's position
   * is, from the pointer's byte offset, whole elements or not.
   */
  public static int copyParameter(Pointer parameter, byte[] into, int at) {
    int n = parameterSize(parameter);
    long offset = byteOffset(parameter);
    NativePointerObject[] pointers = pointers(parameter);
    if (pointers != null) {
      for (int k = 0; k < n; k++) {
        long b = offset + k;
        into[at + k] = (byte) (address(pointers[(int) (b >>> 3)]) >>> (8 * (b & 7)));
      }
      return n;
    }
    Buffer buffer = buffer(parameter);
    if (n < 0 || buffer == null) {
      return -1;
    }
    int size = elementSize(buffer);
    int k = 0;
    if (offset % size == 0) { // whole elements at once; what is left (a cut parameter) byte by byte
      int first = (int) (offset / size);
      for (; k + size <= n; k += size) {
        putBytes(into, at + k, element(buffer, first + k / size), size);
      }
    }
    for (; k < n; k++) {
      into[at + k] = byteAt(buffer, size, offset + k);
    }
    return n;
  }

  /** Byte {@code b} of what JCuda hands the driver for {@code buffer}, whose elements are {@code size} bytes. */
  private static byte byteAt(Buffer buffer, int size, long b) {
    return (byte) (element(buffer, (int) (b / size)) >>> (8 * (b % size)));
  }

  /**
   * The number of bytes a kernel parameter pointer designates, as far as Java can tell (at most
   * {@link #MAX_PARAMETER_BYTES}); -1 when unknown. From the pointer's byte offset to the end of what
   * JCuda hands the driver: an array of pointers, or a buffer from its start ({@link #element}).
   */
  public static int parameterSize(Pointer parameter) {
    long offset = byteOffset(parameter);
    if (offset < 0) {
      return -1;
    }
    NativePointerObject[] pointers = pointers(parameter);
    Buffer buffer = buffer(parameter);
    long bytes;
    if (pointers != null) {
      bytes = 8L * pointers.length - offset;
    } else if (buffer != null) {
      bytes = (long) elements(buffer) * elementSize(buffer) - offset;
    } else {
      return -1;
    }
    return (int) Math.max(0, Math.min(bytes, MAX_PARAMETER_BYTES));
  }

  private static int elementSize(Buffer buffer) {
    if (buffer instanceof ByteBuffer) {
      return 1;
    } else if (buffer instanceof ShortBuffer || buffer instanceof CharBuffer) {
      return 2;
    } else if (buffer instanceof IntBuffer || buffer instanceof FloatBuffer) {
      return 4;
    } else {
      return 8;
    }
  }

  /**
   * How many elements JCuda's native code may read from a buffer: its whole backing array, or a
   * direct buffer's capacity.
   */
  private static int elements(Buffer buffer) {
    if (buffer.isDirect() || !buffer.hasArray()) {
      return buffer.capacity();
    }
    return java.lang.reflect.Array.getLength(buffer.array()); // an intrinsic: no reflection at run time
  }

  /**
   * Element {@code index} of a buffer as JCuda's {@code Pointer.to(buffer)} hands it to the driver,
   * as the bits the device holds (sign-extended). JCuda ignores the buffer's position and array
   * offset: a heap buffer is its whole backing array from index 0 (a slice's too), a direct buffer
   * its memory from the buffer's address, in that memory's byte order ({@code Pointer.toBuffer}
   * puts the position into the pointer's byte offset instead). Allocates nothing.
   */
  static long element(Buffer buffer, int index) {
    if (!buffer.isDirect() && buffer.hasArray()) {
      Object array = buffer.array();
      if (array instanceof byte[] a) {
        return a[index];
      } else if (array instanceof short[] a) {
        return a[index];
      } else if (array instanceof int[] a) {
        return a[index];
      } else if (array instanceof float[] a) {
        return Float.floatToRawIntBits(a[index]);
      } else if (array instanceof long[] a) {
        return a[index];
      } else if (array instanceof double[] a) {
        return Double.doubleToRawLongBits(a[index]);
      }
      return ((char[]) array)[index];
    }
    // A direct buffer: absolute reads, bounded by the limit the program may have set below the capacity.
    Buffer b = index < buffer.limit() ? buffer : buffer.duplicate().limit(buffer.capacity());
    if (b instanceof ByteBuffer d) {
      return d.get(index);
    } else if (b instanceof ShortBuffer d) {
      short v = d.get(index);
      return d.order() == ByteOrder.LITTLE_ENDIAN ? v : Short.reverseBytes(v);
    } else if (b instanceof IntBuffer d) {
      int v = d.get(index);
      return d.order() == ByteOrder.LITTLE_ENDIAN ? v : Integer.reverseBytes(v);
    } else if (b instanceof FloatBuffer d) {
      int v = Float.floatToRawIntBits(d.get(index));
      return d.order() == ByteOrder.LITTLE_ENDIAN ? v : Integer.reverseBytes(v);
    } else if (b instanceof LongBuffer d) {
      long v = d.get(index);
      return d.order() == ByteOrder.LITTLE_ENDIAN ? v : Long.reverseBytes(v);
    } else if (b instanceof DoubleBuffer d) {
      long v = Double.doubleToRawLongBits(d.get(index));
      return d.order() == ByteOrder.LITTLE_ENDIAN ? v : Long.reverseBytes(v);
    }
    char v = ((CharBuffer) b).get(index);
    return ((CharBuffer) b).order() == ByteOrder.LITTLE_ENDIAN ? v : Character.reverseBytes(v);
  }

  /** Whether {@code pointer} names at least 8 bytes of a Java array or buffer: a {@code size_t} answer the driver wrote there. */
  public static boolean holdsLong(Pointer pointer) {
    return buffer(pointer) != null && parameterSize(pointer) >= Long.BYTES;
  }

  /** The 8 bytes at a pointer that {@link #holdsLong}, as the driver wrote them (the host's order). */
  public static long readLong(Pointer pointer) {
    Buffer buffer = buffer(pointer);
    int size = elementSize(buffer);
    long offset = byteOffset(pointer);
    long value = 0;
    for (int k = 0; k < Long.BYTES; k++) {
      value |= (byteAt(buffer, size, offset + k) & 0xFFL) << (8 * k);
    }
    return value;
  }

  /**
   * Writes {@code value} as the 8 bytes the driver writes through {@code pointer} (a {@code size_t}
   * answer), into the Java array or buffer JCuda hands it, from the pointer's byte offset, in the
   * host's order; false where the pointer does not {@link #holdsLong}, or its buffer is read-only.
   */
  public static boolean writeLong(Pointer pointer, long value) {
    Buffer buffer = buffer(pointer);
    long offset = byteOffset(pointer);
    if (!holdsLong(pointer) || buffer.isReadOnly()) {
      return false;
    }
    int size = elementSize(buffer);
    for (int k = 0; k < Long.BYTES; k++) {
      long b = offset + k;
      int index = (int) (b / size);
      int shift = (int) (8 * (b % size));
      long bits = element(buffer, index) & ~(0xFFL << shift) | ((value >>> (8 * k)) & 0xFFL) << shift;
      setElement(buffer, index, bits);
    }
    return true;
  }

  /** Sets element {@code index} of a buffer as JCuda hands it to the driver to {@code bits}: {@link #element}'s inverse. */
  private static void setElement(Buffer buffer, int index, long bits) {
    Buffer b = buffer.isDirect() ? buffer.duplicate().limit(buffer.capacity()) : buffer;
    boolean swap = b.isDirect() && order(b) != ByteOrder.LITTLE_ENDIAN; // what element() undoes
    if (!b.isDirect() && b.hasArray()) {
      Object array = b.array();
      if (array instanceof byte[] a) {
        a[index] = (byte) bits;
      } else if (array instanceof short[] a) {
        a[index] = (short) bits;
      } else if (array instanceof char[] a) {
        a[index] = (char) bits;
      } else if (array instanceof int[] a) {
        a[index] = (int) bits;
      } else if (array instanceof float[] a) {
        a[index] = Float.intBitsToFloat((int) bits);
      } else if (array instanceof long[] a) {
        a[index] = bits;
      } else if (array instanceof double[] a) {
        a[index] = Double.longBitsToDouble(bits);
      }
    } else if (b instanceof ByteBuffer d) {
      d.put(index, (byte) bits);
    } else if (b instanceof ShortBuffer d) {
      d.put(index, swap ? Short.reverseBytes((short) bits) : (short) bits);
    } else if (b instanceof CharBuffer d) {
      d.put(index, swap ? Character.reverseBytes((char) bits) : (char) bits);
    } else if (b instanceof IntBuffer d) {
      d.put(index, swap ? Integer.reverseBytes((int) bits) : (int) bits);
    } else if (b instanceof FloatBuffer d) {
      d.put(index, Float.intBitsToFloat(swap ? Integer.reverseBytes((int) bits) : (int) bits));
    } else if (b instanceof LongBuffer d) {
      d.put(index, swap ? Long.reverseBytes(bits) : bits);
    } else if (b instanceof DoubleBuffer d) {
      d.put(index, Double.longBitsToDouble(swap ? Long.reverseBytes(bits) : bits));
    }
  }

  private static ByteOrder order(Buffer b) {
    if (b instanceof ShortBuffer d) {
      return d.order();
    } else if (b instanceof CharBuffer d) {
      return d.order();
    } else if (b instanceof IntBuffer d) {
      return d.order();
    } else if (b instanceof FloatBuffer d) {
      return d.order();
    } else if (b instanceof LongBuffer d) {
      return d.order();
    } else if (b instanceof DoubleBuffer d) {
      return d.order();
    }
    return ByteOrder.LITTLE_ENDIAN; // bytes have no order
  }

  /** Writes the low {@code size} bytes of {@code bits} into {@code a} at {@code at}, lowest first. */
  private static void putBytes(byte[] a, int at, long bits, int size) {
    for (int k = 0; k < size; k++) {
      a[at + k] = (byte) (bits >>> (8 * k));
    }
  }

  static {
    // Kernel parameters are copied in the device's byte order.
    assert ByteOrder.nativeOrder() == ByteOrder.LITTLE_ENDIAN;
  }
}
