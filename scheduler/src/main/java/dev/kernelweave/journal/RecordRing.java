package dev.kernelweave.journal;

import dev.kernelweave.call.CallRecord;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.function.Consumer;

/**
 * A bounded ring of pre-allocated {@link CallRecord}s between any number of producer threads and one
 * consumer (D. Vyukov's bounded queue): a producer claims a slot with one compare-and-set on the
 * tail, copies the call into the slot's record and publishes it by advancing the slot's sequence;
 * the consumer reads slots in order and hands each back the same way. Allocation-free once the
 * records' arrays have grown to the largest call seen.
 *
 * <p>Each slot's sequence says whose turn it is: {@code pos} (free for the producer that claims
 * position {@code pos}), {@code pos + 1} (published, for the consumer), {@code pos + capacity}
 * (free again, one lap later).
 */
final class RecordRing {

  private static final VarHandle SEQUENCE = MethodHandles.arrayElementVarHandle(long[].class);
  private static final VarHandle TAIL;
  private static final VarHandle HEAD;

  static {
    try {
      MethodHandles.Lookup lookup = MethodHandles.lookup();
      TAIL = lookup.findVarHandle(RecordRing.class, "tail", long.class);
      HEAD = lookup.findVarHandle(RecordRing.class, "head", long.class);
    } catch (ReflectiveOperationException e) {
      throw new ExceptionInInitializerError(e);
    }
  }

  private final CallRecord[] records;
  private final long[] sequences;
  private final int mask;

  // Padding keeps the producers' tail and the consumer's head on separate cache lines.
  @SuppressWarnings("unused")
  private long p1, p2, p3, p4, p5, p6, p7;
  private volatile long tail;
  @SuppressWarnings("unused")
  private long q1, q2, q3, q4, q5, q6, q7;
  private volatile long head;
  @SuppressWarnings("unused")
  private long r1, r2, r3, r4, r5, r6, r7;

  /** @param capacity the number of slots, rounded up to a power of two, at least 2 */
  RecordRing(int capacity) {
    int size = capacity <= 2 ? 2 : Integer.highestOneBit(capacity - 1) << 1;
    records = new CallRecord[size];
    sequences = new long[size];
    for (int i = 0; i < size; i++) {
      records[i] = new CallRecord();
      sequences[i] = i;
    }
    mask = size - 1;
  }

  int capacity() {
    return records.length;
  }

  /**
   * Copies {@code call} into a free slot.
   *
   * @return false when the ring is full
   */
  boolean offer(CallRecord call) {
    long pos = (long) TAIL.getOpaque(this);
    for (;;) {
      int index = (int) pos & mask;
      long sequence = (long) SEQUENCE.getAcquire(sequences, index);
      long lag = sequence - pos;
      if (lag == 0) {
        if (TAIL.weakCompareAndSet(this, pos, pos + 1)) {
          records[index].copyFrom(call);
          SEQUENCE.setRelease(sequences, index, pos + 1);
          return true;
        }
        pos = (long) TAIL.getOpaque(this);
      } else if (lag < 0) {
        return false;
      } else {
        pos = (long) TAIL.getOpaque(this);
      }
    }
  }

  /**
   * Hands the oldest published record to {@code consumer}, then frees its slot. Consumer thread
   * only.
   *
   * @return false when no record is published at the head (empty, or its producer is still copying)
   */
  boolean poll(Consumer<CallRecord> consumer) {
    long pos = head;
    int index = (int) pos & mask;
    if ((long) SEQUENCE.getAcquire(sequences, index) != pos + 1) {
      return false;
    }
    try {
      consumer.accept(records[index]);
    } finally {
      SEQUENCE.setRelease(sequences, index, pos + records.length);
      HEAD.setRelease(this, pos + 1);
    }
    return true;
  }

  /** Frees the oldest published record without reading it. Consumer thread only. */
  boolean discard() {
    return poll(record -> {});
  }

  /** Slots claimed and not yet freed: a snapshot, exact only when no other thread is active. */
  int fill() {
    return (int) (tail - head);
  }

  /** Whether a producer has claimed a slot that the consumer has not freed yet. */
  boolean isEmpty() {
    return tail == head;
  }

  /** Slots ever claimed by producers: the number of records offered so far. */
  long claimed() {
    return tail;
  }

  /** Records claimed but not yet consumed (a moment's estimate when producers are running). */
  long size() {
    return tail - head;
  }
}
