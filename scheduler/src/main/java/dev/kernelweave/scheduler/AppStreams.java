package dev.kernelweave.scheduler;

/**
 * Where each application stream's work went: per application stream, the newest position on each
 * lane that holds some of it. The default stream (handle 0), by far the most common, has a field of
 * its own; other handles live in a small open-addressing map that grows, never shrinks, and
 * allocates only when it meets a new handle.
 */
final class AppStreamFootprints {

  private final int laneCount;
  private final LanePositions defaultStream;
  private long[] keys = new long[16];
  private LanePositions[] values = new LanePositions[16];
  private int size;

  AppStreamFootprints(int laneCount) {
    this.laneCount = laneCount;
    defaultStream = new LanePositions(laneCount);
  }

  /** The footprint of {@code appStream}, created on first use. */
  LanePositions of(long appStream) {
    if (appStream == 0) {
      return defaultStream;
    }
    int i = indexOf(appStream);
    if (values[i] == null) {
      if ((size + 1) * 2 > keys.length) {
        rehash(keys.length * 2);
        i = indexOf(appStream);
      }
      keys[i] = appStream;
      values[i] = new LanePositions(laneCount);
      size++;
    }
    return values[i];
  }

  private int indexOf(long key) {
    int mask = keys.length - 1;
    int i = (int) mix(key) & mask;
    while (values[i] != null && keys[i] != key) {
      i = (i + 1) & mask;
    }
    return i;
  }

  private void rehash(int capacity) {
    long[] oldKeys = keys;
    LanePositions[] oldValues = values;
    keys = new long[capacity];
    values = new LanePositions[capacity];
    for (int j = 0; j < oldKeys.length; j++) {
      if (oldValues[j] != null) {
        int i = indexOf(oldKeys[j]);
        keys[i] = oldKeys[j];
        values[i] = oldValues[j];
      }
    }
  }

  private static long mix(long key) {
    long h = key * 0x9E3779B97F4A7C15L;
    return h ^ (h >>> 29);
  }
}
