package dev.kernelweave.scheduler;

import java.util.Arrays;

/**
 * A set of long values with open addressing, allocation-free once grown: what a per-launch lookup
 * can afford where a {@code HashSet<Long>} would box. Not thread-safe.
 */
final class LongSet {

  /** The most values kept; the owner clears the set rather than grow past it. */
  static final int MAX_SIZE = 1 << 16;

  /** Stands for the value 0, which marks an empty cell. */
  private static final long ZERO = 0x5DEECE66DL;

  private long[] cells = new long[64];
  private int size;

  boolean contains(long value) {
    long v = value == 0 ? ZERO : value;
    int mask = cells.length - 1;
    for (int i = spread(v) & mask; ; i = (i + 1) & mask) {
      long c = cells[i];
      if (c == v) {
        return true;
      }
      if (c == 0) {
        return false;
      }
    }
  }

  void add(long value) {
    long v = value == 0 ? ZERO : value;
    if (2 * (size + 1) > cells.length) {
      grow();
    }
    int mask = cells.length - 1;
    for (int i = spread(v) & mask; ; i = (i + 1) & mask) {
      long c = cells[i];
      if (c == v) {
        return;
      }
      if (c == 0) {
        cells[i] = v;
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
    size = 0;
  }

  private void grow() {
    long[] old = cells;
    cells = new long[old.length * 2];
    size = 0;
    for (long c : old) {
      if (c != 0) {
        add(c == ZERO ? 0 : c);
      }
    }
  }

  private static int spread(long v) {
    long h = v * 0x9E3779B97F4A7C15L;
    return (int) (h ^ (h >>> 32));
  }
}
