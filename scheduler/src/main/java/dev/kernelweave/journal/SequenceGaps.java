package dev.kernelweave.journal;

import java.nio.file.Path;
import java.util.Map;
import java.util.TreeMap;

/**
 * The sequence numbers a journal's records should carry and do not: every intercepted call gets the
 * next number, so a number never seen between the lowest and the highest seen is a call that the
 * journal lost (a deleted or zeroed file, a record whose header flags hide it).
 *
 * <p>Records are journaled in the order their calls returned, not the order they began: a number
 * may come after larger ones. So a number skipped is only <em>pending</em> until the end: each run
 * of skipped numbers is kept as one range, and filled in as its numbers arrive. Memory is bounded:
 * at most {@value #MAX_RANGES} ranges are pending at once (a run has about as many as it has calls
 * in flight at a time); more is reported as damage by {@link #overflowed}.
 *
 * <p>Invariants: pending ranges are disjoint, non-empty and lie between {@code lowest} and {@code
 * highest}; every number in {@code [lowest, highest]} outside them was seen. Numbers seen twice are
 * not counted (the gap they may leave is). Not thread-safe.
 */
final class SequenceGaps {

  /** Pending ranges beyond this are damage: no run has that many calls in flight at once. */
  static final int MAX_RANGES = 1 << 16;

  /**
   * One run of numbers not seen: {@code [first, last]}, noticed before the record of {@code before}
   * at {@code file:position} ({@code atFileStart}: the first record read in that file).
   */
  record Gap(long first, long last, long before, Path file, long position, boolean atFileStart) {
    long count() {
      return last - first + 1;
    }
  }

  private final int maxRanges;
  private final TreeMap<Long, Gap> pending = new TreeMap<>();
  private boolean any;
  private long lowest;
  private long highest;

  SequenceGaps() {
    this(MAX_RANGES);
  }

  SequenceGaps(int maxRanges) {
    this.maxRanges = maxRanges;
  }

  /** Counts {@code seq}, read from the record at {@code position} of {@code file}. */
  void seen(long seq, Path file, long position, boolean atFileStart) {
    if (!any) {
      any = true;
      lowest = seq;
      highest = seq;
    } else if (seq == highest + 1) {
      highest = seq; // the common case: no allocation
    } else if (seq > highest) {
      add(new Gap(highest + 1, seq - 1, seq, file, position, atFileStart));
      highest = seq;
    } else if (seq < lowest) {
      // A call begun before the first one journaled, returned after it.
      if (seq < lowest - 1) {
        add(new Gap(seq + 1, lowest - 1, lowest, file, position, atFileStart));
      }
      lowest = seq;
    } else {
      fill(seq);
    }
  }

  private void add(Gap gap) {
    pending.put(gap.first(), gap);
  }

  /** Removes {@code seq} from the pending range holding it, if any (else it was seen before). */
  private void fill(long seq) {
    Map.Entry<Long, Gap> e = pending.floorEntry(seq);
    if (e == null || e.getValue().last() < seq) {
      return;
    }
    Gap g = e.getValue();
    pending.remove(g.first());
    if (g.first() < seq) {
      add(new Gap(g.first(), seq - 1, g.before(), g.file(), g.position(), g.atFileStart()));
    }
    if (seq < g.last()) {
      add(new Gap(seq + 1, g.last(), g.before(), g.file(), g.position(), g.atFileStart()));
    }
  }

  /**
   * Whether every number in {@code [from, to]} was seen: no later record can carry one of them
   * (each call is journaled once). False while a number below the lowest seen may still come.
   */
  boolean seenAll(long from, long to) {
    if (!any || lowest > from || highest < to) {
      return false;
    }
    Map.Entry<Long, Gap> e = pending.floorEntry(to);
    return e == null || e.getValue().last() < from;
  }

  /** Whether more ranges are pending than a run can explain. */
  boolean overflowed() {
    return pending.size() > maxRanges;
  }

  /** The lowest pending range, or null when every number from the lowest to the highest was seen. */
  Gap firstGap() {
    Map.Entry<Long, Gap> e = pending.firstEntry();
    return e == null ? null : e.getValue();
  }

  /** How many numbers are missing in all. */
  long missing() {
    long n = 0;
    for (Gap g : pending.values()) {
      n += g.count();
    }
    return n;
  }

  /**
   * The first number the journal lacks if it stopped here: the lowest pending one, else the one
   * after the highest; -1 before any record.
   */
  long firstMissing() {
    Gap g = firstGap();
    return g != null ? g.first() : any ? highest + 1 : -1;
  }
}
