package dev.kernelweave.selftest;

import dev.kernelweave.call.CallRecord;
import java.util.BitSet;

/** What the scheduler decided over one or more runs: how much it spread, waited and synchronized. */
public final class RunStats {

  private long calls;
  private long onPool;
  private final BitSet lanes = new BitSet();
  private long crossLaneWaits;
  private long eventsRecorded;
  private long hostWaits;
  private long barriers;

  /** Counts one decided call; {@code legacyLane} tells the pool's lanes from the legacy one. */
  void note(CallRecord call, int legacyLane) {
    calls++;
    if (call.stream >= 0 && call.stream < legacyLane) {
      onPool++;
      lanes.set(call.stream);
    }
    if (!call.hostWaited) {
      crossLaneWaits += call.predecessorCount;
    }
    if (call.eventRecorded) {
      eventsRecorded++;
    }
    if (call.hostWaited) {
      hostWaits++;
    }
    if (call.barrier) {
      barriers++;
    }
  }

  /** Adds {@code other}'s counts to these. */
  public void add(RunStats other) {
    calls += other.calls;
    onPool += other.onPool;
    lanes.or(other.lanes);
    crossLaneWaits += other.crossLaneWaits;
    eventsRecorded += other.eventsRecorded;
    hostWaits += other.hostWaits;
    barriers += other.barriers;
  }

  public long calls() {
    return calls;
  }

  public int lanesUsed() {
    return lanes.cardinality();
  }

  public long crossLaneWaits() {
    return crossLaneWaits;
  }

  @Override
  public String toString() {
    return calls + " calls decided, " + onPool + " on " + lanes.cardinality() + " pool streams, " + crossLaneWaits
        + " cross-stream waits, " + eventsRecorded + " with an event recorded, " + hostWaits + " host waits, "
        + barriers + " barriers";
  }
}
