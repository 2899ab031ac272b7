package dev.kernelweave.scheduler;

import dev.kernelweave.call.CallRecord;

/**
 * The scheduler's own events: a few per lane, each remembering the lane position it was last
 * recorded at and the recording lane's clock at that moment.
 *
 * <p>An event only ever belongs to one lane, so "event e marks position p of lane b" stays true
 * until e is recorded again on b, at a newer position; a wait already issued captured the older
 * recording and is not affected. A wait for position {@code p} uses the earliest recording at or
 * after {@code p}; only when none exists is an event recorded, at the lane's tail, re-using the
 * lane's oldest event. Events are recorded lazily, only for a wait that needs one.
 */
final class EventPool {

  /** Events per lane: recent recordings kept so that waits for older positions stay precise. */
  static final int PER_LANE = 4;

  private final int laneCount;
  private final long[] recordedAt;
  /** The recording lane's clock, {@code laneCount} entries per event. */
  private final long[] clocks;
  private final boolean[] created;
  /** Whether the last {@link #cover} had to record. */
  boolean recorded;

  EventPool(int laneCount) {
    this.laneCount = laneCount;
    recordedAt = new long[laneCount * PER_LANE];
    clocks = new long[laneCount * PER_LANE * laneCount];
    created = new boolean[laneCount * PER_LANE];
  }

  /**
   * An event that completes no earlier than position {@code p} of {@code lane} and no later than
   * the lane's tail; recorded now when no existing recording qualifies.
   */
  int cover(int lane, long p, StreamPool pool, StreamDevice device) {
    int best = covering(lane, p);
    if (best >= 0) {
      recorded = false;
      return best;
    }
    int first = lane * PER_LANE;
    int oldest = first;
    for (int e = first + 1; e < first + PER_LANE; e++) {
      if (recordedAt[e] < recordedAt[oldest]) {
        oldest = e;
      }
    }
    if (!created[oldest]) {
      device.createEvent(oldest);
      created[oldest] = true;
    }
    device.recordEvent(oldest, lane);
    recordedAt[oldest] = pool.tail(lane);
    pool.copyClock(lane, clocks, oldest * laneCount);
    recorded = true;
    return oldest;
  }

  /**
   * The earliest existing recording of {@code lane} at or after position {@code p}, or -1 when none
   * qualifies; records nothing.
   */
  int covering(int lane, long p) {
    int first = lane * PER_LANE;
    int best = -1;
    for (int e = first; e < first + PER_LANE; e++) {
      long at = recordedAt[e];
      if (at >= p && (best < 0 || at < recordedAt[best])) {
        best = e;
      }
    }
    return best;
  }

  /** The lane an event belongs to. */
  static int laneOf(int event) {
    return event / PER_LANE;
  }

  long recordedAt(int event) {
    return recordedAt[event];
  }

  long[] clocks() {
    return clocks;
  }

  int clockOffset(int event) {
    return event * laneCount;
  }

  /**
   * Notes in {@code ticket} the host's wait for position {@code p} of {@code lane}: on an event
   * already covering it, else on the whole lane where {@code p} is its tail (no event), else on an
   * event recorded for it now; {@code call} gets the predecessor {@code seq}.
   */
  void addHostWait(CallRecord call, Ticket ticket, int lane, long p, long seq, StreamPool pool, StreamDevice device) {
    int event = covering(lane, p);
    if (event < 0 && p == pool.tail(lane)) {
      event = Ticket.WHOLE_LANE;
    } else if (event < 0) {
      event = cover(lane, p, pool, device);
      call.eventRecorded |= recorded;
    }
    ticket.addWait(event, lane, p);
    call.addPredecessor(seq);
  }
}
