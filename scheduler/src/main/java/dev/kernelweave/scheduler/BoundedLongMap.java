package dev.kernelweave.scheduler;

import java.util.Arrays;
import java.util.function.Consumer;

/**
 * A map from long keys to values that holds at most a bound of them: making room drops an entry not
 * used since the eviction last passed it (second chance, a constant-time approximation of least
 * recently used) and hands it to the owner. Open addressing over arrays rather than a {@code
 * LinkedHashMap<Long, V>} in access order: a lookup, made once per graph replay and often with cold
 * caches, touches a few array cells where the linked map boxes the key and relinks two neighbours.
 *
 * <p>Not thread-safe.
 */
final class BoundedLongMap<V> {

  private final int bound;
  private final Consumer<V> evicted;
  private final long[] keys;
  /** Null marks an empty cell. */
  private final Object[] values;
  private final boolean[] used;
  private final int mask;
  private int size;
  private int hand;

  /**
   * @param bound the most entries kept
   * @param evicted told of each entry dropped to make room (not of those removed or cleared)
   */
  BoundedLongMap(int bound, Consumer<V> evicted) {
    if (bound < 1) {
      throw new IllegalArgumentException("bound " + bound);
    }
    this.bound = bound;
    this.evicted = evicted;
    int cells = Integer.highestOneBit(bound) * 4; // at most half full
    keys = new long[cells];
    values = new Object[cells];
    used = new boolean[cells];
    mask = cells - 1;
  }

  /** The value for {@code key}, marked used, or null. */
  @SuppressWarnings("unchecked")
  V get(long key) {
    int i = indexOf(key);
    if (i < 0) {
      return null;
    }
    used[i] = true;
    return (V) values[i];
  }

  /** Maps {@code key} to {@code value} (not null), dropping another entry first when full. */
  void put(long key, V value) {
    int i = indexOf(key);
    if (i < 0) {
      if (size == bound) {
        evictOne();
      }
      i = LongFlags.spread(key) & mask;
      while (values[i] != null) {
        i = (i + 1) & mask;
      }
      keys[i] = key;
      size++;
    }
    values[i] = value;
    used[i] = true;
  }

  /** Removes and returns the value for {@code key}, or null. */
  @SuppressWarnings("unchecked")
  V remove(long key) {
    int i = indexOf(key);
    if (i < 0) {
      return null;
    }
    V value = (V) values[i];
    removeAt(i);
    return value;
  }

  @SuppressWarnings("unchecked")
  void forEach(Consumer<V> action) {
    for (Object v : values) {
      if (v != null) {
        action.accept((V) v);
      }
    }
  }

  void clear() {
    Arrays.fill(values, null);
    Arrays.fill(used, false);
    size = 0;
  }

  int size() {
    return size;
  }

  private int indexOf(long key) {
    for (int i = LongFlags.spread(key) & mask; ; i = (i + 1) & mask) {
      if (values[i] == null) {
        return -1;
      }
      if (keys[i] == key) {
        return i;
      }
    }
  }

  @SuppressWarnings("unchecked")
  private void evictOne() {
    while (true) {
      hand = (hand + 1) & mask;
      if (values[hand] == null) {
        continue;
      }
      if (used[hand]) {
        used[hand] = false;
        continue;
      }
      V value = (V) values[hand];
      removeAt(hand);
      evicted.accept(value);
      return;
    }
  }

  /** Empties cell {@code i}, moving back the entries after it that could no longer be found. */
  private void removeAt(int i) {
    values[i] = null;
    used[i] = false;
    size--;
    for (int j = (i + 1) & mask; values[j] != null; j = (j + 1) & mask) {
      int home = LongFlags.spread(keys[j]) & mask;
      if (((j - home) & mask) >= ((j - i) & mask)) {
        keys[i] = keys[j];
        values[i] = values[j];
        used[i] = used[j];
        values[j] = null;
        used[j] = false;
        i = j;
      }
    }
  }
}
