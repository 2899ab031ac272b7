package dev.kernelweave.interceptor;

import java.util.Arrays;

/**
 * A map from native handles to values for lookups on the launch path: reads are lock-free and
 * allocate nothing (no boxing); writes, which are rare (a module load, a new context), copy the
 * table under a lock.
 */
final class LongMap<V> {

  private static final class Table {
    final long[] keys;
    final Object[] values;

    Table(int capacity) {
      keys = new long[capacity];
      values = new Object[capacity];
    }
  }

  private volatile Table table = new Table(16);
  private volatile int size;

  @SuppressWarnings("unchecked")
  V get(long key) {
    Table t = table;
    int mask = t.keys.length - 1;
    for (int i = index(key, mask); ; i = (i + 1) & mask) {
      Object v = t.values[i];
      if (v == null) {
        return null;
      }
      if (t.keys[i] == key) {
        return (V) v;
      }
    }
  }

  synchronized void put(long key, V value) {
    Table old = table;
    int capacity = old.keys.length;
    if ((size + 1) * 2 > capacity) {
      capacity *= 2;
    }
    Table t = new Table(capacity);
    int n = 0;
    for (int i = 0; i < old.keys.length; i++) {
      if (old.values[i] != null && old.keys[i] != key) {
        insert(t, old.keys[i], old.values[i]);
        n++;
      }
    }
    if (value != null) {
      insert(t, key, value);
      n++;
    }
    size = n;
    table = t;
  }

  /** The number of entries, read without the lock. */
  int size() {
    return size;
  }

  /** Calls {@code action} with every entry of a snapshot of the map. */
  void forEach(java.util.function.BiConsumer<Long, V> action) {
    Table t = table;
    for (int i = 0; i < t.keys.length; i++) {
      @SuppressWarnings("unchecked")
      V v = (V) t.values[i];
      if (v != null) {
        action.accept(t.keys[i], v);
      }
    }
  }

  synchronized void remove(long key) {
    if (get(key) != null) {
      put(key, null);
    }
  }

  synchronized void clear() {
    table = new Table(16);
    size = 0;
  }

  private static void insert(Table t, long key, Object value) {
    int mask = t.keys.length - 1;
    int i = index(key, mask);
    while (t.values[i] != null) {
      i = (i + 1) & mask;
    }
    t.keys[i] = key;
    t.values[i] = value;
  }

  private static int index(long key, int mask) {
    long h = key * 0x9E3779B97F4A7C15L;
    return (int) (h ^ (h >>> 32)) & mask;
  }

  @Override
  public String toString() {
    return "LongMap" + Arrays.toString(table.keys);
  }
}
