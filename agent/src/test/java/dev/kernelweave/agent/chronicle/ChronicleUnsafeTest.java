package dev.kernelweave.agent.chronicle;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.nio.ByteBuffer;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

/**
 * {@link ChronicleUnsafe} against the real {@code sun.misc.Unsafe} ({@link SunMiscUnsafe}'s handles):
 * what one writes the other reads, on an off-heap block and in arrays, and both agree on offsets and
 * refusals. The build's test JVM exports {@code jdk.internal.misc}, so the shim's calls go to the
 * internal class here, as in a run with the agent.
 */
class ChronicleUnsafeTest {

  private static final ChronicleUnsafe SHIM = instance();

  /** The instance, found as Chronicle finds {@code sun.misc.Unsafe}'s. */
  private static ChronicleUnsafe instance() {
    try {
      Field theUnsafe = ChronicleUnsafe.class.getDeclaredField("theUnsafe");
      theUnsafe.setAccessible(true);
      return (ChronicleUnsafe) theUnsafe.get(null);
    } catch (ReflectiveOperationException e) {
      throw new AssertionError(e);
    }
  }

  @Test
  void callsGoToTheInternalClassWhereJavaBaseExportsIt() {
    assertTrue(Object.class.getModule().isExported("jdk.internal.misc", ChronicleUnsafe.class.getModule()),
        "the build's surefire argLine exports jdk.internal.misc");
    assertTrue(ChronicleUnsafe.usesJdkInternalUnsafe());
    assertSame(SHIM, instance());
  }

  @Test
  void everyMethodHasTheNameAndDescriptorOfSunMiscUnsafes() throws Exception {
    Class<?> real = Class.forName("sun.misc.Unsafe");
    int methods = 0;
    for (Method m : ChronicleUnsafe.class.getDeclaredMethods()) {
      if (Modifier.isStatic(m.getModifiers()) || !Modifier.isPublic(m.getModifiers())) {
        continue;
      }
      Method same = real.getMethod(m.getName(), m.getParameterTypes());
      assertEquals(same.getReturnType(), m.getReturnType(), m.toString());
      assertFalse(Modifier.isStatic(same.getModifiers()), m.toString());
      methods++;
    }
    assertTrue(methods > 60, methods + " methods");
    for (String constant : new String[] {"ARRAY_BYTE_BASE_OFFSET", "ARRAY_CHAR_BASE_OFFSET", "ARRAY_OBJECT_INDEX_SCALE"}) {
      assertEquals(real.getField(constant).getInt(null), ChronicleUnsafe.class.getField(constant).getInt(null), constant);
    }
  }

  @Test
  void offHeapBlockReadsBackWhatEitherWrote() {
    long block = SHIM.allocateMemory(64);
    try {
      SHIM.setMemory(block, 64, (byte) 0);
      assertEquals(0L, SunMiscUnsafe.getLong(block + 56));
      SHIM.putLong(block, 0x0123_4567_89ab_cdefL);
      assertEquals(0x0123_4567_89ab_cdefL, SunMiscUnsafe.getLong(block));
      SunMiscUnsafe.putInt(block + 8, -7);
      assertEquals(-7, SHIM.getInt(block + 8));
      SHIM.putDouble(block + 16, Math.PI);
      assertEquals(Math.PI, SunMiscUnsafe.getDouble(block + 16));
      SunMiscUnsafe.putShort(block + 24, (short) 0x7eef);
      assertEquals((short) 0x7eef, SHIM.getShort(block + 24));
      SHIM.putByte(block + 26, (byte) -1);
      assertEquals((byte) -1, SunMiscUnsafe.getByte(block + 26));
      SHIM.putFloat(block + 28, 1.5f);
      assertEquals(1.5f, SunMiscUnsafe.getFloat(block + 28));

      // Addressed as (null, address), the way Chronicle's memory-mapped stores are.
      assertTrue(SHIM.compareAndSwapLong(null, block + 32, 0, 41));
      assertFalse(SunMiscUnsafe.compareAndSwapLong(null, block + 32, 0, 99));
      assertEquals(41, SunMiscUnsafe.getAndAddLong(null, block + 32, 1));
      assertEquals(42, SHIM.getLongVolatile(null, block + 32));
      assertTrue(SunMiscUnsafe.compareAndSwapInt(null, block + 40, 0, 5));
      assertFalse(SHIM.compareAndSwapInt(null, block + 40, 0, 6));
      assertEquals(5, SHIM.getAndSetInt(null, block + 40, 9));
      assertEquals(9, SHIM.getAndAddInt(null, block + 40, 1));
      SHIM.putOrderedInt(null, block + 44, 77);
      assertEquals(77, SunMiscUnsafe.getIntVolatile(null, block + 44));
      SHIM.putOrderedLong(null, block + 48, -3);
      assertEquals(-3, SunMiscUnsafe.getLongVolatile(null, block + 48));

      long copy = SunMiscUnsafe.allocateMemory(64);
      try {
        SHIM.copyMemory(block, copy, 64);
        for (long i = 0; i < 64; i += 8) {
          assertEquals(SunMiscUnsafe.getLong(block + i), SHIM.getLong(copy + i), "at " + i);
        }
      } finally {
        SHIM.freeMemory(copy);
      }
    } finally {
      SHIM.freeMemory(block);
    }
  }

  @Test
  void arraysReadBackWhatEitherWrote() {
    assertEquals(SunMiscUnsafe.arrayBaseOffset(byte[].class), SHIM.arrayBaseOffset(byte[].class));
    assertEquals(SunMiscUnsafe.arrayBaseOffset(long[].class), SHIM.arrayBaseOffset(long[].class));
    assertEquals(SunMiscUnsafe.arrayIndexScale(Object[].class), SHIM.arrayIndexScale(Object[].class));

    byte[] bytes = new byte[32];
    long at = SHIM.arrayBaseOffset(byte[].class);
    SHIM.putLong(bytes, at, 0x1122_3344_5566_7788L);
    assertEquals(0x1122_3344_5566_7788L, SunMiscUnsafe.getLong(bytes, at));
    SunMiscUnsafe.putInt(bytes, at + 8, 123_456);
    assertEquals(123_456, SHIM.getInt(bytes, at + 8));
    SHIM.setMemory(bytes, at + 16, 16, (byte) 0x5a);
    byte[] expected = new byte[16];
    Arrays.fill(expected, (byte) 0x5a);
    assertArrayEquals(expected, Arrays.copyOfRange(bytes, 16, 32));

    long[] longs = new long[4];
    long base = SHIM.arrayBaseOffset(long[].class);
    assertTrue(SHIM.compareAndSwapLong(longs, base + 8, 0, 10));
    assertFalse(SunMiscUnsafe.compareAndSwapLong(longs, base + 8, 0, 11));
    assertEquals(10, longs[1]);
    SHIM.copyMemory(bytes, at, longs, base + 16, 16);
    assertEquals(SunMiscUnsafe.getLong(bytes, at), longs[2]);

    Object[] refs = new Object[2];
    long refBase = SHIM.arrayBaseOffset(Object[].class);
    SHIM.putObject(refs, refBase + SHIM.arrayIndexScale(Object[].class), "second");
    assertEquals("second", refs[1]);
    assertSame(refs[1], SunMiscUnsafe.getObject(refs, refBase + SunMiscUnsafe.arrayIndexScale(Object[].class)));
  }

  /** A field of a plain class, and one of a record, which {@code sun.misc.Unsafe} refuses. */
  static final class Plain {
    long value;
  }

  record Point(int x, int y) {}

  @Test
  void fieldOffsetsAndRefusalsAreSunMiscUnsafes() throws Exception {
    Field value = Plain.class.getDeclaredField("value");
    assertEquals(SunMiscUnsafe.objectFieldOffset(value), SHIM.objectFieldOffset(value));
    Plain p = new Plain();
    SHIM.putLong(p, SHIM.objectFieldOffset(value), 99);
    assertEquals(99, p.value);

    Field x = Point.class.getDeclaredField("x");
    assertThrows(UnsupportedOperationException.class, () -> SunMiscUnsafe.objectFieldOffset(x));
    assertThrows(UnsupportedOperationException.class, () -> SHIM.objectFieldOffset(x));

    ByteBuffer heap = ByteBuffer.allocate(8);
    assertThrows(IllegalArgumentException.class, () -> SunMiscUnsafe.invokeCleaner(heap));
    assertThrows(IllegalArgumentException.class, () -> SHIM.invokeCleaner(heap));
    SHIM.invokeCleaner(ByteBuffer.allocateDirect(8));
  }
}
