package dev.kernelweave.scheduler;

import dev.kernelweave.call.AccessMode;
import dev.kernelweave.call.CallRecord;
import java.util.Arrays;

/**
 * Per allocation slot, the pending accesses a later call may have to follow, each with its byte
 * range: read-after-write, write-after-read and write-after-write, where two accesses of one
 * allocation conflict only when their byte ranges overlap and at least one of them writes.
 *
 * <p>An entry is a byte range {@code [start, end)} of the allocation, whether it stands for a write,
 * and the newest position per lane of the calls it stands for (one lane for a recorded access; more
 * once entries are merged). A call must follow every entry that overlaps one of its accesses and
 * conflicts with it. Invariants that keep this sound with fewer entries than accesses:
 *
 * <ul>
 *   <li><b>covered:</b> recording an access N drops each entry E whose range lies inside N's and that
 *       N makes redundant: N writes and followed E (a write always follows an overlapping write, and
 *       an overlapping read unless the rules drop that edge: {@link OrderingRules.Rule#WRITES_FOLLOW_READS}), or E's only
 *       lane is N's own lane (FIFO) and N writes or E only reads. Every later access that conflicts
 *       with E overlaps N and conflicts with N, so it follows N, which comes after E.
 *   <li><b>same reads:</b> reads of exactly the same range share one entry, the newest position per
 *       lane: a write that overlaps one overlaps all.
 *   <li><b>complete:</b> an entry none of whose positions is pending any more orders nothing; such
 *       entries are dropped when the slot is full, before any merge.
 *   <li><b>merged:</b> when a slot holds {@link #MAX_ENTRIES} entries, two are merged into one: the
 *       smallest range holding both, a write if either was, the later position per lane (a lane runs
 *       in order, so waiting for its later position covers the earlier). Whatever conflicted with
 *       either conflicts with the merge: it orders more, never less.
 * </ul>
 *
 * <p>Bounds: at most {@link #MAX_ENTRIES} entries per slot; {@link #collect} costs the entries of the
 * slots a call touches times the lanes they stand for. Slots are small reused indices (see
 * {@code AllocationTable}); a slot's arrays are made at its first use and reused after
 * {@link #clear}, so steady-state calls allocate nothing.
 *
 * <p>Not thread-safe: owned by one {@link Scheduler}, used under its dispatch's lock. A call's
 * {@link #collect} and {@link #record} must see the same entries (no other call recorded in
 * between), which the lock held from a call's placement to its commit guarantees.
 */
final class DependencyTracker {

  /** Entries per slot before two are merged. Sixteen disjoint slices of one buffer stay apart. */
  static final int MAX_ENTRIES = 16;

  private static final int READ = AccessMode.READ.ordinal();

  private final int laneCount;
  private final StreamPool pool;
  private final boolean followWrites;
  private final boolean followReads;
  private final boolean trackModuleVariables;
  private final boolean partialOverlapsConflict;
  private Entries[] slots = new Entries[64];

  /**
   * @param pool the lanes whose positions the entries name; what it knows complete is pruned
   * @param rules which edges are recorded: {@link OrderingRules#CUDA} all of them; the fuzz's broken
   *     schedulers drop {@link OrderingRules.Rule#READS_FOLLOW_WRITES}, {@link
   *     OrderingRules.Rule#WRITES_FOLLOW_READS}, {@link OrderingRules.Rule#MODULE_VARIABLES_ORDER} or
   *     {@link OrderingRules.Rule#PARTIAL_OVERLAPS_CONFLICT} (ranges overlapping without one holding
   *     the other are taken for disjoint)
   */
  DependencyTracker(StreamPool pool, OrderingRules rules) {
    this.laneCount = pool.laneCount;
    this.pool = pool;
    this.followWrites = rules.keeps(OrderingRules.Rule.READS_FOLLOW_WRITES);
    this.followReads = rules.keeps(OrderingRules.Rule.WRITES_FOLLOW_READS);
    this.trackModuleVariables = rules.keeps(OrderingRules.Rule.MODULE_VARIABLES_ORDER);
    this.partialOverlapsConflict = rules.keeps(OrderingRules.Rule.PARTIAL_OVERLAPS_CONFLICT);
  }

  /** Adds to {@code needs} every pending call that {@code call} must follow. */
  void collect(CallRecord call, LanePositions needs) {
    for (int i = firstTracked(call), n = call.accessCount; i < n; i++) {
      int slot = call.accessSlot[i];
      Entries e = slot >= 0 && slot < slots.length ? slots[slot] : null;
      if (e == null) {
        continue;
      }
      long start = start(call, i);
      long end = end(call, i);
      boolean writes = call.accessMode[i] != READ;
      for (int k = 0, count = e.count; k < count; k++) {
        if (overlap(start, end, e.start[k], e.end[k]) && (e.writes[k] ? writes || followWrites : writes && followReads)) {
          e.addPending(k, pool, needs);
        }
      }
    }
  }

  /** The index of the call's first access that orders it. */
  private int firstTracked(CallRecord call) {
    return trackModuleVariables ? 0 : call.moduleVariableCount;
  }

  /** Adds to {@code users} every pending call that touched {@code slot}, at any range. */
  void collectUsers(int slot, LanePositions users) {
    Entries e = slot >= 0 && slot < slots.length ? slots[slot] : null;
    if (e == null) {
      return;
    }
    for (int k = 0; k < e.count; k++) {
      e.addPending(k, pool, users);
    }
  }

  /** Records that {@code call} ran at {@code position} of {@code lane}. */
  void record(CallRecord call, int lane, long position) {
    for (int i = firstTracked(call), n = call.accessCount; i < n; i++) {
      int slot = call.accessSlot[i];
      if (slot < 0) {
        continue;
      }
      Entries e = entriesOf(slot);
      long start = start(call, i);
      long end = end(call, i);
      boolean writes = call.accessMode[i] != READ;
      int sameReads = -1; // an entry of reads of exactly this range, which this read joins
      for (int k = 0; k < e.count; ) {
        if (start <= e.start[k] && e.end[k] <= end && madeRedundant(e, k, writes, lane)) {
          if (sameReads == e.count - 1) {
            sameReads = k; // it moves into k
          }
          e.remove(k);
          continue;
        }
        if (!writes && !e.writes[k] && e.start[k] == start && e.end[k] == end) {
          sameReads = k;
        }
        k++;
      }
      if (sameReads >= 0) {
        e.note(sameReads, lane, position, call.seq);
        continue;
      }
      if (e.count == MAX_ENTRIES) {
        e.removeComplete(pool);
      }
      if (e.count == MAX_ENTRIES) {
        e.mergeClosestPair();
      }
      e.add(start, end, writes, lane, position, call.seq);
    }
  }

  /** Whether a new access on {@code lane} covering entry {@code k} makes it redundant (see the class comment). */
  private boolean madeRedundant(Entries e, int k, boolean writes, int lane) {
    boolean sameLaneOnly = e.onlyOn(k, lane);
    if (writes) {
      return e.writes[k] || followReads || sameLaneOnly;
    }
    return !e.writes[k] && sameLaneOnly;
  }

  /** Whether {@code [s1, e1)} and {@code [s2, e2)} share a byte (without {@link OrderingRules.Rule#PARTIAL_OVERLAPS_CONFLICT}: only when one holds the other). */
  private boolean overlap(long s1, long e1, long s2, long e2) {
    if (partialOverlapsConflict) {
      return s1 < e2 && s2 < e1;
    }
    return s1 <= s2 && e2 <= e1 || s2 <= s1 && e1 <= e2;
  }

  /** Where access {@code i} starts in its allocation; a range the record cannot state is the whole allocation. */
  private static long start(CallRecord call, int i) {
    return call.accessSize[i] > 0 && call.accessOffset[i] >= 0 ? call.accessOffset[i] : 0;
  }

  private static long end(CallRecord call, int i) {
    long size = call.accessSize[i];
    long offset = call.accessOffset[i];
    return size > 0 && offset >= 0 && offset + size > offset ? offset + size : Long.MAX_VALUE;
  }

  /** Forgets everything about {@code slot}: a new allocation there starts fresh. */
  void clear(int slot) {
    if (slot >= 0 && slot < slots.length && slots[slot] != null) {
      slots[slot].clear();
    }
  }

  private Entries entriesOf(int slot) {
    if (slot >= slots.length) {
      slots = Arrays.copyOf(slots, Math.max(slots.length * 2, slot + 1));
    }
    Entries e = slots[slot];
    if (e == null) {
      e = new Entries(laneCount);
      slots[slot] = e;
    }
    return e;
  }

  /**
   * One slot's entries, in parallel arrays. Entry {@code k} stands for {@code laneCount[k]} lanes;
   * its {@code i}th is {@code lanes[i * MAX_ENTRIES + k]}, with the newest position there and that
   * call's sequence number at the same index. Lane-list-major, so that the first lane of every
   * entry (usually its only one) lies in a few cache lines.
   */
  private static final class Entries {
    int count;
    final long[] start = new long[MAX_ENTRIES];
    final long[] end = new long[MAX_ENTRIES];
    final boolean[] writes = new boolean[MAX_ENTRIES];
    final int[] laneCount = new int[MAX_ENTRIES];
    final int[] lanes;
    final long[] position;
    final long[] seq;

    Entries(int lanesInPool) {
      lanes = new int[MAX_ENTRIES * lanesInPool];
      position = new long[MAX_ENTRIES * lanesInPool];
      seq = new long[MAX_ENTRIES * lanesInPool];
    }

    /** Whether some position of entry {@code k} is still pending. */
    boolean pending(int k, StreamPool pool) {
      for (int i = 0, at = k, n = laneCount[k]; i < n; i++, at += MAX_ENTRIES) {
        if (pool.pending(lanes[at], position[at])) {
          return true;
        }
      }
      return false;
    }

    void addPending(int k, StreamPool pool, LanePositions into) {
      for (int i = 0, at = k, n = laneCount[k]; i < n; i++, at += MAX_ENTRIES) {
        if (pool.pending(lanes[at], position[at])) {
          into.add(lanes[at], position[at], seq[at]);
        }
      }
    }

    /** Whether entry {@code k} stands for {@code lane} alone. */
    boolean onlyOn(int k, int lane) {
      return laneCount[k] == 1 && lanes[k] == lane;
    }

    void add(long from, long to, boolean write, int lane, long p, long callSeq) {
      int k = count++;
      start[k] = from;
      end[k] = to;
      writes[k] = write;
      laneCount[k] = 0;
      note(k, lane, p, callSeq);
    }

    /** Adds position {@code p} of {@code lane} to entry {@code k}, keeping the later one per lane. */
    void note(int k, int lane, long p, long callSeq) {
      int n = laneCount[k];
      int at = k;
      for (int i = 0; i < n; i++, at += MAX_ENTRIES) {
        if (lanes[at] == lane) {
          if (p > position[at]) {
            position[at] = p;
            seq[at] = callSeq;
          }
          return;
        }
      }
      lanes[at] = lane;
      position[at] = p;
      seq[at] = callSeq;
      laneCount[k] = n + 1;
    }

    /** Removes the entries none of whose positions is pending any more. */
    void removeComplete(StreamPool pool) {
      for (int k = 0; k < count; ) {
        if (pending(k, pool)) {
          k++;
        } else {
          remove(k);
        }
      }
    }

    /** Removes entry {@code k}; the last entry takes its place. */
    void remove(int k) {
      int last = --count;
      if (k != last) {
        start[k] = start[last];
        end[k] = end[last];
        writes[k] = writes[last];
        int n = laneCount[last];
        for (int i = 0, to = k, from = last; i < n; i++, to += MAX_ENTRIES, from += MAX_ENTRIES) {
          lanes[to] = lanes[from];
          position[to] = position[from];
          seq[to] = seq[from];
        }
        laneCount[k] = n;
      }
    }

    /**
     * Merges the two entries whose merge widens least (bytes the merged range adds beyond the two
     * ranges, and the whole range again when a read becomes a write), so that neighbouring slices
     * merge first and lose nothing.
     */
    void mergeClosestPair() {
      int bestA = 0;
      int bestB = 1;
      long bestCost = Long.MAX_VALUE;
      for (int a = 0; a < count; a++) {
        for (int b = a + 1; b < count; b++) {
          long from = Math.min(start[a], start[b]);
          long to = Math.max(end[a], end[b]);
          long span = to - from;
          long cost = span - (end[a] - start[a]) - (end[b] - start[b]);
          if (writes[a] != writes[b]) {
            cost = cost > Long.MAX_VALUE - span ? Long.MAX_VALUE : cost + span;
          }
          if (cost < bestCost) {
            bestCost = cost;
            bestA = a;
            bestB = b;
          }
        }
      }
      start[bestA] = Math.min(start[bestA], start[bestB]);
      end[bestA] = Math.max(end[bestA], end[bestB]);
      writes[bestA] |= writes[bestB];
      for (int i = 0, at = bestB, n = laneCount[bestB]; i < n; i++, at += MAX_ENTRIES) {
        note(bestA, lanes[at], position[at], seq[at]);
      }
      remove(bestB);
    }

    void clear() {
      count = 0;
    }
  }
}
