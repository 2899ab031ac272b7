package dev.kernelweave.agent.chronicle;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.lang.reflect.Field;
import java.lang.reflect.UndeclaredThrowableException;
import java.nio.ByteBuffer;

/**
 * {@code ChronicleUnsafe}'s calls where {@code jdk.internal.misc} is not exported to it: the same
 * methods of the real {@code sun.misc.Unsafe}, through method handles bound to its instance. The
 * handles are constants, which the JIT inlines to the call they stand for.
 *
 * <p>Why handles and not the class itself: the agent jar relocates every reference to
 * {@code sun.misc.Unsafe}, this class's too, and every string that starts with the name, to
 * {@code ChronicleUnsafe}. So the class is looked up by a name put together at run time, and
 * nothing here names it in the class file.
 *
 * <p>Initialized at the first call only: a JVM whose calls go to the internal class never loads
 * it. Thread-safe: stateless.
 */
final class SunMiscUnsafe {

  private static final Object UNSAFE;
  private static final Class<?> UNSAFE_CLASS;

  static {
    try {
      UNSAFE_CLASS = Class.forName(String.join(".", "sun", "misc", "Unsafe"));
      Field theUnsafe = UNSAFE_CLASS.getDeclaredField("theUnsafe");
      theUnsafe.setAccessible(true);
      UNSAFE = theUnsafe.get(null);
    } catch (ReflectiveOperationException e) {
      throw new ExceptionInInitializerError(e);
    }
  }

  private static final MethodHandle ADDRESS_SIZE = handle("addressSize", int.class);
  private static final MethodHandle PAGE_SIZE = handle("pageSize", int.class);
  private static final MethodHandle ALLOCATE_INSTANCE = handle("allocateInstance", Object.class, Class.class);
  private static final MethodHandle OBJECT_FIELD_OFFSET = handle("objectFieldOffset", long.class, Field.class);
  private static final MethodHandle ARRAY_BASE_OFFSET = handle("arrayBaseOffset", int.class, Class.class);
  private static final MethodHandle ARRAY_INDEX_SCALE = handle("arrayIndexScale", int.class, Class.class);
  private static final MethodHandle ALLOCATE_MEMORY = handle("allocateMemory", long.class, long.class);
  private static final MethodHandle FREE_MEMORY = handle("freeMemory", void.class, long.class);
  private static final MethodHandle SET_MEMORY_AT_ADDRESS =
      handle("setMemory", void.class, long.class, long.class, byte.class);
  private static final MethodHandle SET_MEMORY =
      handle("setMemory", void.class, Object.class, long.class, long.class, byte.class);
  private static final MethodHandle COPY_MEMORY_AT_ADDRESS =
      handle("copyMemory", void.class, long.class, long.class, long.class);
  private static final MethodHandle COPY_MEMORY =
      handle("copyMemory", void.class, Object.class, long.class, Object.class, long.class, long.class);
  private static final MethodHandle INVOKE_CLEANER = handle("invokeCleaner", void.class, ByteBuffer.class);
  private static final MethodHandle FULL_FENCE = handle("fullFence", void.class);
  private static final MethodHandle LOAD_FENCE = handle("loadFence", void.class);
  private static final MethodHandle STORE_FENCE = handle("storeFence", void.class);
  private static final MethodHandle COMPARE_AND_SWAP_INT =
      handle("compareAndSwapInt", boolean.class, Object.class, long.class, int.class, int.class);
  private static final MethodHandle COMPARE_AND_SWAP_LONG =
      handle("compareAndSwapLong", boolean.class, Object.class, long.class, long.class, long.class);
  private static final MethodHandle GET_AND_ADD_INT =
      handle("getAndAddInt", int.class, Object.class, long.class, int.class);
  private static final MethodHandle GET_AND_ADD_LONG =
      handle("getAndAddLong", long.class, Object.class, long.class, long.class);
  private static final MethodHandle GET_AND_SET_INT =
      handle("getAndSetInt", int.class, Object.class, long.class, int.class);
  private static final MethodHandle PUT_ORDERED_INT =
      handle("putOrderedInt", void.class, Object.class, long.class, int.class);
  private static final MethodHandle PUT_ORDERED_LONG =
      handle("putOrderedLong", void.class, Object.class, long.class, long.class);
  private static final MethodHandle GET_OBJECT = handle("getObject", Object.class, Object.class, long.class);
  private static final MethodHandle PUT_OBJECT =
      handle("putObject", void.class, Object.class, long.class, Object.class);
  private static final MethodHandle GET_BOOLEAN = handle("getBoolean", boolean.class, Object.class, long.class);
  private static final MethodHandle PUT_BOOLEAN =
      handle("putBoolean", void.class, Object.class, long.class, boolean.class);
  private static final MethodHandle GET_CHAR = handle("getChar", char.class, Object.class, long.class);
  private static final MethodHandle PUT_CHAR = handle("putChar", void.class, Object.class, long.class, char.class);
  private static final MethodHandle GET_BYTE_AT_ADDRESS = handle("getByte", byte.class, long.class);
  private static final MethodHandle GET_BYTE = handle("getByte", byte.class, Object.class, long.class);
  private static final MethodHandle GET_BYTE_VOLATILE = handle("getByteVolatile", byte.class, Object.class, long.class);
  private static final MethodHandle PUT_BYTE_AT_ADDRESS = handle("putByte", void.class, long.class, byte.class);
  private static final MethodHandle PUT_BYTE = handle("putByte", void.class, Object.class, long.class, byte.class);
  private static final MethodHandle PUT_BYTE_VOLATILE =
      handle("putByteVolatile", void.class, Object.class, long.class, byte.class);
  private static final MethodHandle GET_SHORT_AT_ADDRESS = handle("getShort", short.class, long.class);
  private static final MethodHandle GET_SHORT = handle("getShort", short.class, Object.class, long.class);
  private static final MethodHandle GET_SHORT_VOLATILE =
      handle("getShortVolatile", short.class, Object.class, long.class);
  private static final MethodHandle PUT_SHORT_AT_ADDRESS = handle("putShort", void.class, long.class, short.class);
  private static final MethodHandle PUT_SHORT = handle("putShort", void.class, Object.class, long.class, short.class);
  private static final MethodHandle PUT_SHORT_VOLATILE =
      handle("putShortVolatile", void.class, Object.class, long.class, short.class);
  private static final MethodHandle GET_INT_AT_ADDRESS = handle("getInt", int.class, long.class);
  private static final MethodHandle GET_INT = handle("getInt", int.class, Object.class, long.class);
  private static final MethodHandle GET_INT_VOLATILE = handle("getIntVolatile", int.class, Object.class, long.class);
  private static final MethodHandle PUT_INT_AT_ADDRESS = handle("putInt", void.class, long.class, int.class);
  private static final MethodHandle PUT_INT = handle("putInt", void.class, Object.class, long.class, int.class);
  private static final MethodHandle PUT_INT_VOLATILE =
      handle("putIntVolatile", void.class, Object.class, long.class, int.class);
  private static final MethodHandle GET_LONG_AT_ADDRESS = handle("getLong", long.class, long.class);
  private static final MethodHandle GET_LONG = handle("getLong", long.class, Object.class, long.class);
  private static final MethodHandle GET_LONG_VOLATILE = handle("getLongVolatile", long.class, Object.class, long.class);
  private static final MethodHandle PUT_LONG_AT_ADDRESS = handle("putLong", void.class, long.class, long.class);
  private static final MethodHandle PUT_LONG = handle("putLong", void.class, Object.class, long.class, long.class);
  private static final MethodHandle PUT_LONG_VOLATILE =
      handle("putLongVolatile", void.class, Object.class, long.class, long.class);
  private static final MethodHandle GET_FLOAT_AT_ADDRESS = handle("getFloat", float.class, long.class);
  private static final MethodHandle GET_FLOAT = handle("getFloat", float.class, Object.class, long.class);
  private static final MethodHandle GET_FLOAT_VOLATILE =
      handle("getFloatVolatile", float.class, Object.class, long.class);
  private static final MethodHandle PUT_FLOAT_AT_ADDRESS = handle("putFloat", void.class, long.class, float.class);
  private static final MethodHandle PUT_FLOAT = handle("putFloat", void.class, Object.class, long.class, float.class);
  private static final MethodHandle PUT_FLOAT_VOLATILE =
      handle("putFloatVolatile", void.class, Object.class, long.class, float.class);
  private static final MethodHandle GET_DOUBLE_AT_ADDRESS = handle("getDouble", double.class, long.class);
  private static final MethodHandle GET_DOUBLE = handle("getDouble", double.class, Object.class, long.class);
  private static final MethodHandle GET_DOUBLE_VOLATILE =
      handle("getDoubleVolatile", double.class, Object.class, long.class);
  private static final MethodHandle PUT_DOUBLE_AT_ADDRESS = handle("putDouble", void.class, long.class, double.class);
  private static final MethodHandle PUT_DOUBLE =
      handle("putDouble", void.class, Object.class, long.class, double.class);
  private static final MethodHandle PUT_DOUBLE_VOLATILE =
      handle("putDoubleVolatile", void.class, Object.class, long.class, double.class);

  private SunMiscUnsafe() {}

  /** What a handle threw, as it was: {@code sun.misc.Unsafe}'s methods throw no checked exception. */
  private static RuntimeException unchecked(Throwable t) {
    if (t instanceof RuntimeException r) {
      throw r;
    }
    if (t instanceof Error e) {
      throw e;
    }
    throw new UndeclaredThrowableException(t);
  }

  /** The instance method {@code name} of {@code sun.misc.Unsafe}, bound to its instance. */
  private static MethodHandle handle(String name, Class<?> returned, Class<?>... parameters) {
    try {
      return MethodHandles.lookup().findVirtual(UNSAFE_CLASS, name, MethodType.methodType(returned, parameters))
          .bindTo(UNSAFE);
    } catch (ReflectiveOperationException e) {
      throw new ExceptionInInitializerError(e);
    }
  }

  static int addressSize() {
    try { return (int) ADDRESS_SIZE.invokeExact(); } catch (Throwable t) { throw unchecked(t); }
  }

  static int pageSize() {
    try { return (int) PAGE_SIZE.invokeExact(); } catch (Throwable t) { throw unchecked(t); }
  }

  static Object allocateInstance(Class<?> type) throws InstantiationException {
    try {
      return (Object) ALLOCATE_INSTANCE.invokeExact(type);
    } catch (InstantiationException e) {
      throw e;
    } catch (Throwable t) {
      throw unchecked(t);
    }
  }

  static long objectFieldOffset(Field field) {
    try { return (long) OBJECT_FIELD_OFFSET.invokeExact(field); } catch (Throwable t) { throw unchecked(t); }
  }

  static int arrayBaseOffset(Class<?> arrayClass) {
    try { return (int) ARRAY_BASE_OFFSET.invokeExact(arrayClass); } catch (Throwable t) { throw unchecked(t); }
  }

  static int arrayIndexScale(Class<?> arrayClass) {
    try { return (int) ARRAY_INDEX_SCALE.invokeExact(arrayClass); } catch (Throwable t) { throw unchecked(t); }
  }

  static long allocateMemory(long bytes) {
    try { return (long) ALLOCATE_MEMORY.invokeExact(bytes); } catch (Throwable t) { throw unchecked(t); }
  }

  static void freeMemory(long address) {
    try { FREE_MEMORY.invokeExact(address); } catch (Throwable t) { throw unchecked(t); }
  }

  static void setMemory(long address, long bytes, byte value) {
    try { SET_MEMORY_AT_ADDRESS.invokeExact(address, bytes, value); } catch (Throwable t) { throw unchecked(t); }
  }

  static void setMemory(Object o, long offset, long bytes, byte value) {
    try { SET_MEMORY.invokeExact(o, offset, bytes, value); } catch (Throwable t) { throw unchecked(t); }
  }

  static void copyMemory(long from, long to, long bytes) {
    try { COPY_MEMORY_AT_ADDRESS.invokeExact(from, to, bytes); } catch (Throwable t) { throw unchecked(t); }
  }

  static void copyMemory(Object from, long fromOffset, Object to, long toOffset, long bytes) {
    try { COPY_MEMORY.invokeExact(from, fromOffset, to, toOffset, bytes); } catch (Throwable t) { throw unchecked(t); }
  }

  static void invokeCleaner(ByteBuffer directBuffer) {
    try { INVOKE_CLEANER.invokeExact(directBuffer); } catch (Throwable t) { throw unchecked(t); }
  }

  static void fullFence() {
    try { FULL_FENCE.invokeExact(); } catch (Throwable t) { throw unchecked(t); }
  }

  static void loadFence() {
    try { LOAD_FENCE.invokeExact(); } catch (Throwable t) { throw unchecked(t); }
  }

  static void storeFence() {
    try { STORE_FENCE.invokeExact(); } catch (Throwable t) { throw unchecked(t); }
  }

  static boolean compareAndSwapInt(Object o, long offset, int expected, int x) {
    try { return (boolean) COMPARE_AND_SWAP_INT.invokeExact(o, offset, expected, x); }
    catch (Throwable t) { throw unchecked(t); }
  }

  static boolean compareAndSwapLong(Object o, long offset, long expected, long x) {
    try { return (boolean) COMPARE_AND_SWAP_LONG.invokeExact(o, offset, expected, x); }
    catch (Throwable t) { throw unchecked(t); }
  }

  static int getAndAddInt(Object o, long offset, int delta) {
    try { return (int) GET_AND_ADD_INT.invokeExact(o, offset, delta); } catch (Throwable t) { throw unchecked(t); }
  }

  static long getAndAddLong(Object o, long offset, long delta) {
    try { return (long) GET_AND_ADD_LONG.invokeExact(o, offset, delta); } catch (Throwable t) { throw unchecked(t); }
  }

  static int getAndSetInt(Object o, long offset, int x) {
    try { return (int) GET_AND_SET_INT.invokeExact(o, offset, x); } catch (Throwable t) { throw unchecked(t); }
  }

  static void putOrderedInt(Object o, long offset, int x) {
    try { PUT_ORDERED_INT.invokeExact(o, offset, x); } catch (Throwable t) { throw unchecked(t); }
  }

  static void putOrderedLong(Object o, long offset, long x) {
    try { PUT_ORDERED_LONG.invokeExact(o, offset, x); } catch (Throwable t) { throw unchecked(t); }
  }

  static Object getObject(Object o, long offset) {
    try { return (Object) GET_OBJECT.invokeExact(o, offset); } catch (Throwable t) { throw unchecked(t); }
  }

  static void putObject(Object o, long offset, Object x) {
    try { PUT_OBJECT.invokeExact(o, offset, x); } catch (Throwable t) { throw unchecked(t); }
  }

  static boolean getBoolean(Object o, long offset) {
    try { return (boolean) GET_BOOLEAN.invokeExact(o, offset); } catch (Throwable t) { throw unchecked(t); }
  }

  static void putBoolean(Object o, long offset, boolean x) {
    try { PUT_BOOLEAN.invokeExact(o, offset, x); } catch (Throwable t) { throw unchecked(t); }
  }

  static char getChar(Object o, long offset) {
    try { return (char) GET_CHAR.invokeExact(o, offset); } catch (Throwable t) { throw unchecked(t); }
  }

  static void putChar(Object o, long offset, char x) {
    try { PUT_CHAR.invokeExact(o, offset, x); } catch (Throwable t) { throw unchecked(t); }
  }

  static byte getByte(long address) {
    try { return (byte) GET_BYTE_AT_ADDRESS.invokeExact(address); } catch (Throwable t) { throw unchecked(t); }
  }

  static byte getByte(Object o, long offset) {
    try { return (byte) GET_BYTE.invokeExact(o, offset); } catch (Throwable t) { throw unchecked(t); }
  }

  static byte getByteVolatile(Object o, long offset) {
    try { return (byte) GET_BYTE_VOLATILE.invokeExact(o, offset); } catch (Throwable t) { throw unchecked(t); }
  }

  static void putByte(long address, byte x) {
    try { PUT_BYTE_AT_ADDRESS.invokeExact(address, x); } catch (Throwable t) { throw unchecked(t); }
  }

  static void putByte(Object o, long offset, byte x) {
    try { PUT_BYTE.invokeExact(o, offset, x); } catch (Throwable t) { throw unchecked(t); }
  }

  static void putByteVolatile(Object o, long offset, byte x) {
    try { PUT_BYTE_VOLATILE.invokeExact(o, offset, x); } catch (Throwable t) { throw unchecked(t); }
  }

  static short getShort(long address) {
    try { return (short) GET_SHORT_AT_ADDRESS.invokeExact(address); } catch (Throwable t) { throw unchecked(t); }
  }

  static short getShort(Object o, long offset) {
    try { return (short) GET_SHORT.invokeExact(o, offset); } catch (Throwable t) { throw unchecked(t); }
  }

  static short getShortVolatile(Object o, long offset) {
    try { return (short) GET_SHORT_VOLATILE.invokeExact(o, offset); } catch (Throwable t) { throw unchecked(t); }
  }

  static void putShort(long address, short x) {
    try { PUT_SHORT_AT_ADDRESS.invokeExact(address, x); } catch (Throwable t) { throw unchecked(t); }
  }

  static void putShort(Object o, long offset, short x) {
    try { PUT_SHORT.invokeExact(o, offset, x); } catch (Throwable t) { throw unchecked(t); }
  }

  static void putShortVolatile(Object o, long offset, short x) {
    try { PUT_SHORT_VOLATILE.invokeExact(o, offset, x); } catch (Throwable t) { throw unchecked(t); }
  }

  static int getInt(long address) {
    try { return (int) GET_INT_AT_ADDRESS.invokeExact(address); } catch (Throwable t) { throw unchecked(t); }
  }

  static int getInt(Object o, long offset) {
    try { return (int) GET_INT.invokeExact(o, offset); } catch (Throwable t) { throw unchecked(t); }
  }

  static int getIntVolatile(Object o, long offset) {
    try { return (int) GET_INT_VOLATILE.invokeExact(o, offset); } catch (Throwable t) { throw unchecked(t); }
  }

  static void putInt(long address, int x) {
    try { PUT_INT_AT_ADDRESS.invokeExact(address, x); } catch (Throwable t) { throw unchecked(t); }
  }

  static void putInt(Object o, long offset, int x) {
    try { PUT_INT.invokeExact(o, offset, x); } catch (Throwable t) { throw unchecked(t); }
  }

  static void putIntVolatile(Object o, long offset, int x) {
    try { PUT_INT_VOLATILE.invokeExact(o, offset, x); } catch (Throwable t) { throw unchecked(t); }
  }

  static long getLong(long address) {
    try { return (long) GET_LONG_AT_ADDRESS.invokeExact(address); } catch (Throwable t) { throw unchecked(t); }
  }

  static long getLong(Object o, long offset) {
    try { return (long) GET_LONG.invokeExact(o, offset); } catch (Throwable t) { throw unchecked(t); }
  }

  static long getLongVolatile(Object o, long offset) {
    try { return (long) GET_LONG_VOLATILE.invokeExact(o, offset); } catch (Throwable t) { throw unchecked(t); }
  }

  static void putLong(long address, long x) {
    try { PUT_LONG_AT_ADDRESS.invokeExact(address, x); } catch (Throwable t) { throw unchecked(t); }
  }

  static void putLong(Object o, long offset, long x) {
    try { PUT_LONG.invokeExact(o, offset, x); } catch (Throwable t) { throw unchecked(t); }
  }

  static void putLongVolatile(Object o, long offset, long x) {
    try { PUT_LONG_VOLATILE.invokeExact(o, offset, x); } catch (Throwable t) { throw unchecked(t); }
  }

  static float getFloat(long address) {
    try { return (float) GET_FLOAT_AT_ADDRESS.invokeExact(address); } catch (Throwable t) { throw unchecked(t); }
  }

  static float getFloat(Object o, long offset) {
    try { return (float) GET_FLOAT.invokeExact(o, offset); } catch (Throwable t) { throw unchecked(t); }
  }

  static float getFloatVolatile(Object o, long offset) {
    try { return (float) GET_FLOAT_VOLATILE.invokeExact(o, offset); } catch (Throwable t) { throw unchecked(t); }
  }

  static void putFloat(long address, float x) {
    try { PUT_FLOAT_AT_ADDRESS.invokeExact(address, x); } catch (Throwable t) { throw unchecked(t); }
  }

  static void putFloat(Object o, long offset, float x) {
    try { PUT_FLOAT.invokeExact(o, offset, x); } catch (Throwable t) { throw unchecked(t); }
  }

  static void putFloatVolatile(Object o, long offset, float x) {
    try { PUT_FLOAT_VOLATILE.invokeExact(o, offset, x); } catch (Throwable t) { throw unchecked(t); }
  }

  static double getDouble(long address) {
    try { return (double) GET_DOUBLE_AT_ADDRESS.invokeExact(address); } catch (Throwable t) { throw unchecked(t); }
  }

  static double getDouble(Object o, long offset) {
    try { return (double) GET_DOUBLE.invokeExact(o, offset); } catch (Throwable t) { throw unchecked(t); }
  }

  static double getDoubleVolatile(Object o, long offset) {
    try { return (double) GET_DOUBLE_VOLATILE.invokeExact(o, offset); } catch (Throwable t) { throw unchecked(t); }
  }

  static void putDouble(long address, double x) {
    try { PUT_DOUBLE_AT_ADDRESS.invokeExact(address, x); } catch (Throwable t) { throw unchecked(t); }
  }

  static void putDouble(Object o, long offset, double x) {
    try { PUT_DOUBLE.invokeExact(o, offset, x); } catch (Throwable t) { throw unchecked(t); }
  }

  static void putDoubleVolatile(Object o, long offset, double x) {
    try { PUT_DOUBLE_VOLATILE.invokeExact(o, offset, x); } catch (Throwable t) { throw unchecked(t); }
  }
}
