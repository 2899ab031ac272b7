package dev.kernelweave.selftest;

import dev.kernelweave.scheduler.Scheduler;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;

/**
 * What CUDA itself orders in a program, without any agent: the oracle for which host observations
 * a program may make. Streams are FIFO; an operation on the legacy default stream (handles 0 and
 * {@code 0x1}) follows all earlier work of every blocking stream, and an operation on a blocking
 * stream follows all earlier work of the legacy stream; non-blocking streams are exempt; {@code 0x2}
 * is the calling thread's own default stream, blocking; {@code cuStreamWaitEvent} orders a stream's
 * later work after the event's last record. The host knows an operation complete only after a call
 * that CUDA documents to wait for it: a synchronous copy, a stream, event or context
 * synchronization.
 *
 * <p>Each operation gets a token (stream key, position on that stream); a vector clock per stream's
 * newest operation says which position of every stream it follows. Not thread-safe.
 */
final class CudaOrder {

  private final Set<Long> nonBlocking = new HashSet<>();
  private final Map<Long, Long> positions = new HashMap<>();
  /** Per stream key, the clock of its newest operation (what it follows, itself included). */
  private final Map<Long, Map<Long, Long>> newest = new HashMap<>();
  private final Map<Integer, Map<Long, Long>> events = new HashMap<>();
  /** Per stream key, the newest position the host knows complete. */
  private final Map<Long, Long> known = new HashMap<>();

  /** An operation: position {@code position} of the stream with key {@code stream}. */
  record Token(long stream, long position) {}

  /** The key of the stream a handle names on {@code thread}. */
  static long key(long handle, int thread) {
    return Scheduler.streamKey(handle, thread);
  }

  void created(long handle, boolean isNonBlocking) {
    if (isNonBlocking) {
      nonBlocking.add(handle);
    } else {
      nonBlocking.remove(handle);
    }
  }

  /** Whether the stream a key names synchronizes with the legacy stream. */
  boolean blocking(long key) {
    return key != 0 && !nonBlocking.contains(key);
  }

  /** Enqueues an operation on the stream {@code handle} names for {@code thread}. */
  Token enqueue(long handle, int thread) {
    long key = key(handle, thread);
    Map<Long, Long> clock = clockOfNext(key);
    long p = positions.merge(key, 1L, Long::sum);
    clock.put(key, p);
    newest.put(key, clock);
    return new Token(key, p);
  }

  /** {@code cuEventRecord}: the event stands for the stream's work so far (with its implicit ordering). */
  void record(int event, long handle, int thread) {
    enqueue(handle, thread);
    events.put(event, newest.get(key(handle, thread)));
  }

  /** {@code cuStreamWaitEvent}: the stream's later work follows what the event stands for. */
  void waitFor(long handle, int thread, int event) {
    Map<Long, Long> e = events.get(event);
    if (e != null) {
      long key = key(handle, thread);
      Map<Long, Long> clock = new HashMap<>(newest.getOrDefault(key, Map.of()));
      merge(clock, e);
      newest.put(key, clock);
    }
  }

  /** A synchronous copy on the legacy stream returned: it, and all it follows, is complete. */
  void synchronousCopy(int thread) {
    enqueue(0, thread);
    merge(known, newest.get(0L));
  }

  void streamSynchronized(long handle, int thread) {
    merge(known, newest.getOrDefault(key(handle, thread), Map.of()));
  }

  void eventSynchronized(int event) {
    merge(known, events.getOrDefault(event, Map.of()));
  }

  void contextSynchronized() {
    merge(known, positions);
  }

  /** Whether the host knows the operation complete. */
  boolean complete(Token t) {
    return known.getOrDefault(t.stream(), 0L) >= t.position();
  }

  /** Whether CUDA orders work enqueued from now on on {@code handle} after operation {@code t}. */
  boolean orderedAfter(Token t, long handle, int thread) {
    return clockOfNext(key(handle, thread)).getOrDefault(t.stream(), 0L) >= t.position();
  }

  /** What the next operation on stream {@code key} follows: its stream's work and the implicit ordering. */
  private Map<Long, Long> clockOfNext(long key) {
    Map<Long, Long> clock = new HashMap<>(newest.getOrDefault(key, Map.of()));
    if (key == 0) {
      newest.forEach((other, c) -> {
        if (blocking(other)) {
          merge(clock, c);
        }
      });
    } else if (blocking(key)) {
      merge(clock, newest.getOrDefault(0L, Map.of()));
    }
    return clock;
  }

  private static void merge(Map<Long, Long> into, Map<Long, Long> from) {
    from.forEach((k, v) -> into.merge(k, v, Math::max));
  }
}
