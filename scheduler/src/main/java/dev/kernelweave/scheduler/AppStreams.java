package dev.kernelweave.scheduler;

import dev.kernelweave.call.CallRecord;

/**
 * What the scheduler knows of each application stream, by key (see {@link Scheduler#streamKey}):
 * whether CUDA's legacy default stream synchronizes with it, where its work went, and what its later
 * work must follow. The legacy stream (key 0), by far the most common, has a field of its own; other
 * keys live in a small open-addressing map that grows, never shrinks, and allocates only when it
 * meets a new key.
 */
final class AppStreams {

  /** One application stream. */
  static final class Stream {
    /** Created with {@code CU_STREAM_NON_BLOCKING}: exempt from the legacy stream's implicit ordering. */
    boolean nonBlocking;
    /** Destroyed by the program: its handle may name nothing, or freed memory, until a stream reuses it. */
    boolean destroyed;
    /** Per lane, the newest position holding some of this stream's work. */
    final LanePositions footprint;
    /** Positions this stream's later work must follow: barriers on it, events it was made to wait for. */
    final LanePositions follow;
    /**
     * Lanes' waits for this stream's own records of timed events, and for events it waited for that
     * the agent did not see recorded: its later work follows them too. Unlike {@link #follow}, no
     * join of the stream itself covers them: the stream already waits for what they wait for, so
     * making it wait for them would only queue work on it (a query would answer not ready).
     */
    final LanePositions recordFollow;
    /** Positions this stream was already made to wait for: joining them again adds nothing. */
    final LanePositions joined;
    /**
     * For a stream the legacy stream synchronizes with: the host-visible work of the legacy and
     * blocking streams that was pending when each of its calls was issued, which CUDA ordered that
     * call after. A query or synchronize of this stream covers it, and nothing issued later.
     */
    final LanePositions implied;
    /**
     * How often CUDA had completed the legacy and blocking streams' work for the host when this
     * stream was last given work ({@link StreamJoins#noteStreamWork}); -1 before its first.
     */
    long completionsAtLastWork = -1;

    Stream(int laneCount) {
      footprint = new LanePositions(laneCount);
      follow = new LanePositions(laneCount);
      recordFollow = new LanePositions(laneCount);
      joined = new LanePositions(laneCount);
      implied = new LanePositions(laneCount);
    }

    /** Forgets what the stream's earlier work was and followed: a new stream under a reused handle. */
    void clear() {
      footprint.clear();
      follow.clear();
      recordFollow.clear();
      joined.clear();
      implied.clear();
      completionsAtLastWork = -1;
      destroyed = false;
    }
  }

  private final int laneCount;
  /** {@link OrderingRules.Rule#LEGACY_HANDLE_IS_LEGACY_STREAM}: whether {@code 0x1} names the legacy stream. */
  private final boolean legacyHandleIsLegacy;
  private final Stream legacy;
  private long[] keys = new long[16];
  private Stream[] values = new Stream[16];
  private int size;

  AppStreams(int laneCount, OrderingRules rules) {
    this.laneCount = laneCount;
    this.legacyHandleIsLegacy = rules.keeps(OrderingRules.Rule.LEGACY_HANDLE_IS_LEGACY_STREAM);
    legacy = new Stream(laneCount);
  }

  /** The stream with {@code key}, created on first use as a blocking stream. */
  Stream of(long key) {
    if (key == 0) {
      return legacy;
    }
    int i = indexOf(key);
    if (values[i] == null) {
      if ((size + 1) * 2 > keys.length) {
        rehash(keys.length * 2);
        i = indexOf(key);
      }
      keys[i] = key;
      values[i] = new Stream(laneCount);
      size++;
    }
    return values[i];
  }

  /** The stream a call names, for its thread (see {@link Scheduler#streamKey}). */
  Stream of(CallRecord call) {
    if (!legacyHandleIsLegacy && call.appStream == Scheduler.LEGACY_HANDLE) {
      return of(Scheduler.LEGACY_HANDLE);
    }
    return of(Scheduler.streamKey(call.appStream, call.threadId));
  }

  /** The legacy default stream. */
  Stream legacy() {
    return legacy;
  }

  /** Calls {@code action} with every stream created non-blocking and not destroyed since, and its handle. */
  void forEachLiveNonBlocking(java.util.function.ObjLongConsumer<Stream> action) {
    for (int i = 0; i < keys.length; i++) {
      Stream s = values[i];
      if (s != null && s.nonBlocking && !s.destroyed) {
        action.accept(s, keys[i]);
      }
    }
  }

  /**
   * Calls {@code action} with every stream a handle of the program names (neither the legacy stream
   * nor a per-thread default stream), blocking or not, not destroyed since, and its handle.
   */
  void forEachLiveNamed(java.util.function.ObjLongConsumer<Stream> action) {
    for (int i = 0; i < keys.length; i++) {
      Stream s = values[i];
      if (s != null && !s.destroyed && !Scheduler.isPerThreadKey(keys[i])) {
        action.accept(s, keys[i]);
      }
    }
  }

  /** Calls {@code action} with every per-thread default stream met, and the id of its thread. */
  void forEachPerThread(java.util.function.ObjLongConsumer<Stream> action) {
    for (int i = 0; i < keys.length; i++) {
      if (values[i] != null && Scheduler.isPerThreadKey(keys[i])) {
        action.accept(values[i], Scheduler.threadOfPerThreadKey(keys[i]));
      }
    }
  }

  /**
   * Calls {@code action} with every stream the legacy stream synchronizes with that cannot be named
   * from any thread: per-thread default streams (only their own thread names them) and destroyed
   * blocking streams.
   */
  void forEachUnnamedBlocking(java.util.function.Consumer<Stream> action) {
    for (int i = 0; i < keys.length; i++) {
      Stream s = values[i];
      if (s != null && (Scheduler.isPerThreadKey(keys[i]) || s.destroyed && !s.nonBlocking)) {
        action.accept(s);
      }
    }
  }

  /** The stream with {@code key}, or null where none was met; creates nothing. */
  Stream find(long key) {
    if (key == 0) {
      return legacy;
    }
    return values[indexOf(key)];
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
    Stream[] oldValues = values;
    keys = new long[capacity];
    values = new Stream[capacity];
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
