package dev.kernelweave.agent.chronicle;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.lang.reflect.Field;
import java.lang.reflect.UndeclaredThrowableException;
import java.nio.ByteBuffer;
import jdk.internal.misc.Unsafe;

/**
 * What the bundled Chronicle sees as {@code sun.misc.Unsafe}: the agent jar relocates that name to
 * this class, so that Chronicle's off-heap and memory-mapped access goes through the JDK's internal
 * {@code jdk.internal.misc.Unsafe}, for which no JDK prints the warning that Java 24 and later print
 * at the first memory access through {@code sun.misc.Unsafe} (JEP 471, 498). The methods are those
 * Chronicle, Chronicle Posix and Byte Buddy call, with {@code sun.misc.Unsafe}'s names and
 * descriptors, the static constants among them, and Chronicle finds the instance as it finds
 * {@code sun.misc.Unsafe}'s: the private static field {@code theUnsafe}.
 *
 * <p>The internal class is used only where {@code java.base} exports {@code jdk.internal.misc} to
 * this class's module, which the agent arranges before the journal starts ({@code JdkAccess}) and
 * the jar's manifest does for {@code java -jar}. Elsewhere (the jar on a plain class path) every
 * call goes to {@code sun.misc.Unsafe} as before ({@link SunMiscUnsafe}): Java 17 to 23 print
 * nothing for it, later ones their warning. The choice is made once, when the class initializes,
 * into a constant the JIT folds.
 *
 * <p>Each method does what {@code sun.misc.Unsafe}'s does on Java 17, which delegates the same way;
 * the renamed ones are {@code getObject} ({@code getReference}), {@code putObject}
 * ({@code putReference}), {@code compareAndSwap*} ({@code compareAndSet*}) and
 * {@code putOrdered*} ({@code put*Release}).
 *
 * <p>Thread-safe as {@code sun.misc.Unsafe} is: stateless, every caller responsible for its memory.
 */
public final class ChronicleUnsafe {

  /** Whether the JDK's internal class serves the calls; false means {@code sun.misc.Unsafe} does. */
  private static final boolean INTERNAL = Object.class.getModule().isExported("jdk.internal.misc",
      ChronicleUnsafe.class.getModule());
  private static final Unsafe U = INTERNAL ? Unsafe.getUnsafe() : null;
  /** {@code arrayBaseOffset} returns an int up to Java 23 and a long from Java 24 on. */
  private static final MethodHandle ARRAY_BASE_OFFSET = INTERNAL ? arrayBaseOffsetAsInt() : null;
  /** Read reflectively by name, as Chronicle reads {@code sun.misc.Unsafe.theUnsafe}. */
  private static final ChronicleUnsafe theUnsafe = new ChronicleUnsafe();

  /** The constants of {@code sun.misc.Unsafe} that Chronicle reads (computed there at start too). */
  public static final int ARRAY_BYTE_BASE_OFFSET = theUnsafe.arrayBaseOffset(byte[].class);
  public static final int ARRAY_CHAR_BASE_OFFSET = theUnsafe.arrayBaseOffset(char[].class);
  public static final int ARRAY_OBJECT_INDEX_SCALE = theUnsafe.arrayIndexScale(Object[].class);

  private ChronicleUnsafe() {}

  /** Whether this JVM's calls go to {@code jdk.internal.misc.Unsafe} (no warning on any Java). */
  public static boolean usesJdkInternalUnsafe() {
    return INTERNAL;
  }

  private static MethodHandle arrayBaseOffsetAsInt() {
    try {
      Class<?> returned = Unsafe.class.getMethod("arrayBaseOffset", Class.class).getReturnType();
      MethodHandle internal = MethodHandles.lookup()
          .findVirtual(Unsafe.class, "arrayBaseOffset", MethodType.methodType(returned, Class.class)).bindTo(U);
      return MethodHandles.explicitCastArguments(internal, MethodType.methodType(int.class, Class.class));
    } catch (ReflectiveOperationException e) {
      throw new ExceptionInInitializerError(e);
    }
  }

  public int addressSize() {
    return INTERNAL ? U.addressSize() : SunMiscUnsafe.addressSize();
  }

  public int pageSize() {
    return INTERNAL ? U.pageSize() : SunMiscUnsafe.pageSize();
  }

  public Object allocateInstance(Class<?> type) throws InstantiationException {
    return INTERNAL ? U.allocateInstance(type) : SunMiscUnsafe.allocateInstance(type);
  }

  /** As {@code sun.misc.Unsafe}'s: refuses the fields of hidden classes and records. */
  public long objectFieldOffset(Field field) {
    if (!INTERNAL) {
      return SunMiscUnsafe.objectFieldOffset(field);
    }
    Class<?> declaring = field.getDeclaringClass();
    if (declaring.isHidden() || declaring.isRecord()) {
      throw new UnsupportedOperationException("can't get field offset on a hidden class or a record: " + field);
    }
    return U.objectFieldOffset(field);
  }

  public int arrayBaseOffset(Class<?> arrayClass) {
    if (!INTERNAL) {
      return SunMiscUnsafe.arrayBaseOffset(arrayClass);
    }
    try {
      return (int) ARRAY_BASE_OFFSET.invokeExact(arrayClass);
    } catch (RuntimeException | Error e) {
      throw e;
    } catch (Throwable t) {
      throw new UndeclaredThrowableException(t);
    }
  }

  public int arrayIndexScale(Class<?> arrayClass) {
    return INTERNAL ? U.arrayIndexScale(arrayClass) : SunMiscUnsafe.arrayIndexScale(arrayClass);
  }

  public long allocateMemory(long bytes) {
    return INTERNAL ? U.allocateMemory(bytes) : SunMiscUnsafe.allocateMemory(bytes);
  }

  public void freeMemory(long address) {
    if (INTERNAL) U.freeMemory(address); else SunMiscUnsafe.freeMemory(address);
  }

  public void setMemory(long address, long bytes, byte value) {
    if (INTERNAL) U.setMemory(address, bytes, value); else SunMiscUnsafe.setMemory(address, bytes, value);
  }

  public void setMemory(Object o, long offset, long bytes, byte value) {
    if (INTERNAL) U.setMemory(o, offset, bytes, value); else SunMiscUnsafe.setMemory(o, offset, bytes, value);
  }

  public void copyMemory(long from, long to, long bytes) {
    if (INTERNAL) U.copyMemory(from, to, bytes); else SunMiscUnsafe.copyMemory(from, to, bytes);
  }

  public void copyMemory(Object from, long fromOffset, Object to, long toOffset, long bytes) {
    if (INTERNAL) {
      U.copyMemory(from, fromOffset, to, toOffset, bytes);
    } else {
      SunMiscUnsafe.copyMemory(from, fromOffset, to, toOffset, bytes);
    }
  }

  /** As {@code sun.misc.Unsafe}'s: a buffer that is not direct is refused. */
  public void invokeCleaner(ByteBuffer directBuffer) {
    if (!INTERNAL) {
      SunMiscUnsafe.invokeCleaner(directBuffer);
      return;
    }
    if (!directBuffer.isDirect()) {
      throw new IllegalArgumentException("buffer is non-direct");
    }
    U.invokeCleaner(directBuffer);
  }

  public void fullFence() {
    if (INTERNAL) U.fullFence(); else SunMiscUnsafe.fullFence();
  }

  public void loadFence() {
    if (INTERNAL) U.loadFence(); else SunMiscUnsafe.loadFence();
  }

  public void storeFence() {
    if (INTERNAL) U.storeFence(); else SunMiscUnsafe.storeFence();
  }

  public boolean compareAndSwapInt(Object o, long offset, int expected, int x) {
    return INTERNAL ? U.compareAndSetInt(o, offset, expected, x) : SunMiscUnsafe.compareAndSwapInt(o, offset, expected, x);
  }

  public boolean compareAndSwapLong(Object o, long offset, long expected, long x) {
    return INTERNAL ? U.compareAndSetLong(o, offset, expected, x)
        : SunMiscUnsafe.compareAndSwapLong(o, offset, expected, x);
  }

  public int getAndAddInt(Object o, long offset, int delta) {
    return INTERNAL ? U.getAndAddInt(o, offset, delta) : SunMiscUnsafe.getAndAddInt(o, offset, delta);
  }

  public long getAndAddLong(Object o, long offset, long delta) {
    return INTERNAL ? U.getAndAddLong(o, offset, delta) : SunMiscUnsafe.getAndAddLong(o, offset, delta);
  }

  public int getAndSetInt(Object o, long offset, int x) {
    return INTERNAL ? U.getAndSetInt(o, offset, x) : SunMiscUnsafe.getAndSetInt(o, offset, x);
  }

  public void putOrderedInt(Object o, long offset, int x) {
    if (INTERNAL) U.putIntRelease(o, offset, x); else SunMiscUnsafe.putOrderedInt(o, offset, x);
  }

  public void putOrderedLong(Object o, long offset, long x) {
    if (INTERNAL) U.putLongRelease(o, offset, x); else SunMiscUnsafe.putOrderedLong(o, offset, x);
  }

  public Object getObject(Object o, long offset) {
    return INTERNAL ? U.getReference(o, offset) : SunMiscUnsafe.getObject(o, offset);
  }

  public void putObject(Object o, long offset, Object x) {
    if (INTERNAL) U.putReference(o, offset, x); else SunMiscUnsafe.putObject(o, offset, x);
  }

  public boolean getBoolean(Object o, long offset) {
    return INTERNAL ? U.getBoolean(o, offset) : SunMiscUnsafe.getBoolean(o, offset);
  }

  public void putBoolean(Object o, long offset, boolean x) {
    if (INTERNAL) U.putBoolean(o, offset, x); else SunMiscUnsafe.putBoolean(o, offset, x);
  }

  public char getChar(Object o, long offset) {
    return INTERNAL ? U.getChar(o, offset) : SunMiscUnsafe.getChar(o, offset);
  }

  public void putChar(Object o, long offset, char x) {
    if (INTERNAL) U.putChar(o, offset, x); else SunMiscUnsafe.putChar(o, offset, x);
  }

  public byte getByte(long address) {
    return INTERNAL ? U.getByte(address) : SunMiscUnsafe.getByte(address);
  }

  public byte getByte(Object o, long offset) {
    return INTERNAL ? U.getByte(o, offset) : SunMiscUnsafe.getByte(o, offset);
  }

  public byte getByteVolatile(Object o, long offset) {
    return INTERNAL ? U.getByteVolatile(o, offset) : SunMiscUnsafe.getByteVolatile(o, offset);
  }

  public void putByte(long address, byte x) {
    if (INTERNAL) U.putByte(address, x); else SunMiscUnsafe.putByte(address, x);
  }

  public void putByte(Object o, long offset, byte x) {
    if (INTERNAL) U.putByte(o, offset, x); else SunMiscUnsafe.putByte(o, offset, x);
  }

  public void putByteVolatile(Object o, long offset, byte x) {
    if (INTERNAL) U.putByteVolatile(o, offset, x); else SunMiscUnsafe.putByteVolatile(o, offset, x);
  }

  public short getShort(long address) {
    return INTERNAL ? U.getShort(address) : SunMiscUnsafe.getShort(address);
  }

  public short getShort(Object o, long offset) {
    return INTERNAL ? U.getShort(o, offset) : SunMiscUnsafe.getShort(o, offset);
  }

  public short getShortVolatile(Object o, long offset) {
    return INTERNAL ? U.getShortVolatile(o, offset) : SunMiscUnsafe.getShortVolatile(o, offset);
  }

  public void putShort(long address, short x) {
    if (INTERNAL) U.putShort(address, x); else SunMiscUnsafe.putShort(address, x);
  }

  public void putShort(Object o, long offset, short x) {
    if (INTERNAL) U.putShort(o, offset, x); else SunMiscUnsafe.putShort(o, offset, x);
  }

  public void putShortVolatile(Object o, long offset, short x) {
    if (INTERNAL) U.putShortVolatile(o, offset, x); else SunMiscUnsafe.putShortVolatile(o, offset, x);
  }

  public int getInt(long address) {
    return INTERNAL ? U.getInt(address) : SunMiscUnsafe.getInt(address);
  }

  public int getInt(Object o, long offset) {
    return INTERNAL ? U.getInt(o, offset) : SunMiscUnsafe.getInt(o, offset);
  }

  public int getIntVolatile(Object o, long offset) {
    return INTERNAL ? U.getIntVolatile(o, offset) : SunMiscUnsafe.getIntVolatile(o, offset);
  }

  public void putInt(long address, int x) {
    if (INTERNAL) U.putInt(address, x); else SunMiscUnsafe.putInt(address, x);
  }

  public void putInt(Object o, long offset, int x) {
    if (INTERNAL) U.putInt(o, offset, x); else SunMiscUnsafe.putInt(o, offset, x);
  }

  public void putIntVolatile(Object o, long offset, int x) {
    if (INTERNAL) U.putIntVolatile(o, offset, x); else SunMiscUnsafe.putIntVolatile(o, offset, x);
  }

  public long getLong(long address) {
    return INTERNAL ? U.getLong(address) : SunMiscUnsafe.getLong(address);
  }

  public long getLong(Object o, long offset) {
    return INTERNAL ? U.getLong(o, offset) : SunMiscUnsafe.getLong(o, offset);
  }

  public long getLongVolatile(Object o, long offset) {
    return INTERNAL ? U.getLongVolatile(o, offset) : SunMiscUnsafe.getLongVolatile(o, offset);
  }

  public void putLong(long address, long x) {
    if (INTERNAL) U.putLong(address, x); else SunMiscUnsafe.putLong(address, x);
  }

  public void putLong(Object o, long offset, long x) {
    if (INTERNAL) U.putLong(o, offset, x); else SunMiscUnsafe.putLong(o, offset, x);
  }

  public void putLongVolatile(Object o, long offset, long x) {
    if (INTERNAL) U.putLongVolatile(o, offset, x); else SunMiscUnsafe.putLongVolatile(o, offset, x);
  }

  public float getFloat(long address) {
    return INTERNAL ? U.getFloat(address) : SunMiscUnsafe.getFloat(address);
  }

  public float getFloat(Object o, long offset) {
    return INTERNAL ? U.getFloat(o, offset) : SunMiscUnsafe.getFloat(o, offset);
  }

  public float getFloatVolatile(Object o, long offset) {
    return INTERNAL ? U.getFloatVolatile(o, offset) : SunMiscUnsafe.getFloatVolatile(o, offset);
  }

  public void putFloat(long address, float x) {
    if (INTERNAL) U.putFloat(address, x); else SunMiscUnsafe.putFloat(address, x);
  }

  public void putFloat(Object o, long offset, float x) {
    if (INTERNAL) U.putFloat(o, offset, x); else SunMiscUnsafe.putFloat(o, offset, x);
  }

  public void putFloatVolatile(Object o, long offset, float x) {
    if (INTERNAL) U.putFloatVolatile(o, offset, x); else SunMiscUnsafe.putFloatVolatile(o, offset, x);
  }

  public double getDouble(long address) {
    return INTERNAL ? U.getDouble(address) : SunMiscUnsafe.getDouble(address);
  }

  public double getDouble(Object o, long offset) {
    return INTERNAL ? U.getDouble(o, offset) : SunMiscUnsafe.getDouble(o, offset);
  }

  public double getDoubleVolatile(Object o, long offset) {
    return INTERNAL ? U.getDoubleVolatile(o, offset) : SunMiscUnsafe.getDoubleVolatile(o, offset);
  }

  public void putDouble(long address, double x) {
    if (INTERNAL) U.putDouble(address, x); else SunMiscUnsafe.putDouble(address, x);
  }

  public void putDouble(Object o, long offset, double x) {
    if (INTERNAL) U.putDouble(o, offset, x); else SunMiscUnsafe.putDouble(o, offset, x);
  }

  public void putDoubleVolatile(Object o, long offset, double x) {
    if (INTERNAL) U.putDoubleVolatile(o, offset, x); else SunMiscUnsafe.putDoubleVolatile(o, offset, x);
  }
}
