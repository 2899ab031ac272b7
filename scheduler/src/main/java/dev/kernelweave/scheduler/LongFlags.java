package dev.kernelweave.scheduler;

import java.util.Arrays;

/**
 * Long values, each with a few flag bits, with open addressing, allocation-free once grown: what a
 * per-launch lookup can afford where a {@code HashMap<Long, ...>} would box, and one lookup where a
 * set per flag would cost one each. Not thread-safe.
 */
final class LongFlags {

  /** The most values kept; the owner clears the set rather than grow past it. */
  static final int MAX_SIZE = 1 << 16;

  /** Stands for the value 0, which marks an empty cell. */
  private static final long ZERO = 0x5DEECE66DL;

  private long[] cells = new long[64];
  private byte[] flags = new byte[64];
  private int size;

  /** The flags of {@code value}: 0 when it is absent, or was added with none. */
  int flags(long value) {
    long v = value == 0 ? ZERO : value;
    int mask = cells.length - 1;
    for (int i = spread(v) & mask; ; i = (i + 1) & mask) {
      long c = cells[i];
      if (c == v) {
        return flags[i];
      }
      if (c == 0) {
        return 0;
      }
    }
  }

  /** Adds {@code value} if absent, and sets {@code bits} (at most eight) among its flags. */
  void add(long value, int bits) {
    long v = value == 0 ? ZERO : value;
    if (2 * (size + 1) > cells.length) {
      grow();
    }
    int mask = cells.length - 1;
    for (int i = spread(v) & mask; ; i = (i + 1) & mask) {
      long c = cells[i];
      if (c == v) {
        flags[i] |= (byte) bits;
        return;
      }
      if (c == 0) {
        cells[i] = v;
        flags[i] = (byte) bits;
        size++;
        return;
      }
    }
  }

  int size() {
    return size;
  }

  void clear() {
    Arrays.fill(cells, 0);
    Arrays.fill(flags, (byte) 0);
    size = 0;
  }

  private void grow() {
    long[] old = cells;
    byte[] oldFlags = flags;
    cells = new long[old.length * 2];
    flags = new byte[old.length * 2];
    size = 0;
    for (int i = 0; i < old.length; i++) {
      if (old[i] != 0) {
        add(old[i] == ZERO ? 0 : old[i], oldFlags[i]);
      }
    }
  }

  /** Spreads a long's bits over an int, for open addressing. */
  static int spread(long v) {
    long h = v * 0x9E3779B97F4A7C15L;
    return (int) (h ^ (h >>> 32));
  }
}
