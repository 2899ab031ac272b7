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
  /** Launches the windows held and issued later, graphs captured, windows replayed, windows that diverged. */
  private long held;
  private long captured;
  private long replayed;
  private long diverged;
  /** Merged launches replayed, and the launches they stood for. */
  private long mergedLaunches;
  private long launchesMerged;

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

  /** Counts a launch the windows held, once issued. */
  void noteHeld() {
    held++;
  }

  /** Counts what a run's windows did: {@code LaunchWindows.counters()}. */
  void noteWindows(long[] counters) {
    captured += counters[0];
    replayed += counters[1];
    diverged += counters[4];
    mergedLaunches += counters[5];
    launchesMerged += counters[6];
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
    held += other.held;
    captured += other.captured;
    replayed += other.replayed;
    diverged += other.diverged;
    mergedLaunches += other.mergedLaunches;
    launchesMerged += other.launchesMerged;
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

  /** Launches held and issued later, alone or in a graph. */
  public long held() {
    return held;
  }

  /** Graphs captured from windows that repeated. */
  public long captured() {
    return captured;
  }

  /** Windows replayed as graphs, at capture or later. */
  public long replayed() {
    return replayed;
  }

  /** Held windows that turned out to differ from the one they began like. */
  public long diverged() {
    return diverged;
  }

  /** Merged launches replayed from graphs. */
  public long mergedLaunches() {
    return mergedLaunches;
  }

  /** The launches the replayed merged launches stood for. */
  public long launchesMerged() {
    return launchesMerged;
  }

  @Override
  public String toString() {
    return calls + " calls decided, " + onPool + " on " + lanes.cardinality() + " pool streams, " + crossLaneWaits
        + " cross-stream waits, " + eventsRecorded + " with an event recorded, " + hostWaits + " host waits, "
        + barriers + " barriers; " + held + " launches held, " + captured + " graphs captured, " + replayed
        + " windows replayed, " + diverged + " diverged, " + mergedLaunches + " merged launches for "
        + launchesMerged;
  }
}
