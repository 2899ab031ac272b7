package dev.kernelweave.kernels;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.Locale;

/** Output bytes: how workloads write them, hash them and compare them. */
public final class Outputs {

  private Outputs() {}

  /** Collects floats and ints as little-endian bytes. */
  public static final class Builder {
    private final ByteBuffer bytes;

    private Builder(int words) {
      bytes = ByteBuffer.allocate(Math.multiplyExact(words, 4)).order(ByteOrder.LITTLE_ENDIAN);
    }

    public Builder floats(float[] values) {
      bytes.asFloatBuffer().put(values);
      bytes.position(bytes.position() + values.length * 4);
      return this;
    }

    /** Each of {@code rows} in turn. */
    public Builder floats(float[][] rows) {
      for (float[] row : rows) {
        floats(row);
      }
      return this;
    }

    public Builder ints(int[] values) {
      bytes.asIntBuffer().put(values);
      bytes.position(bytes.position() + values.length * 4);
      return this;
    }

    /** The bytes; all {@code words} must have been written. */
    public byte[] toBytes() {
      if (bytes.hasRemaining()) {
        throw new IllegalStateException(bytes.remaining() + " bytes not written");
      }
      return bytes.array();
    }
  }

  /** A builder for {@code words} 4-byte values. */
  public static Builder builder(int words) {
    return new Builder(words);
  }

  /** {@code values} as little-endian bytes. */
  public static byte[] floats(float[] values) {
    return builder(values.length).floats(values).toBytes();
  }

  /** {@code rows} one after the other, as little-endian bytes. */
  public static byte[] floats(float[][] rows) {
    return builder(words(rows)).floats(rows).toBytes();
  }

  /** {@code rows} one after the other, then {@code tail}, as little-endian bytes. */
  public static byte[] floats(float[][] rows, float[] tail) {
    return builder(Math.addExact(words(rows), tail.length)).floats(rows).floats(tail).toBytes();
  }

  /** {@code values} as little-endian bytes. */
  public static byte[] ints(int[] values) {
    return builder(values.length).ints(values).toBytes();
  }

  private static int words(float[][] rows) {
    int words = 0;
    for (float[] row : rows) {
      words = Math.addExact(words, row.length);
    }
    return words;
  }

  /** Lower-case hex SHA-256 of {@code bytes}. */
  public static String sha256(byte[] bytes) {
    try {
      return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every Java platform has SHA-256", e);
    }
  }

  /**
   * Null when {@code actual} equals {@code expected}; otherwise where they first differ and how
   * much, read as 4-byte little-endian words.
   */
  public static String difference(byte[] actual, byte[] expected) {
    if (Arrays.equals(actual, expected)) {
      return null;
    }
    if (actual.length != expected.length) {
      return "length " + actual.length + " bytes, expected " + expected.length;
    }
    int words = actual.length / 4;
    ByteBuffer a = ByteBuffer.wrap(actual).order(ByteOrder.LITTLE_ENDIAN);
    ByteBuffer e = ByteBuffer.wrap(expected).order(ByteOrder.LITTLE_ENDIAN);
    int first = -1;
    int differing = 0;
    for (int w = 0; w < words; w++) {
      if (a.getInt(w * 4) != e.getInt(w * 4)) {
        differing++;
        if (first < 0) {
          first = w;
        }
      }
    }
    if (first < 0) {
      return "trailing bytes differ";
    }
    int got = a.getInt(first * 4);
    int want = e.getInt(first * 4);
    return String.format(
        Locale.ROOT,
        "%d of %d words differ; first at word %d: 0x%08x (%s as float) expected 0x%08x (%s)",
        differing,
        words,
        first,
        got,
        Float.intBitsToFloat(got),
        want,
        Float.intBitsToFloat(want));
  }
}
