package dev.kernelweave.sim;

import java.util.ArrayList;
import java.util.List;

/**
 * One operation of the simulated device: a piece of work, an event's marker or a wait, queued on a
 * lane (or, as a graph's node, on none) and moved through the timeline by {@link SimEngine}.
 *
 * <p>Not thread-safe: it belongs to the device that made it.
 */
final class SimOp {

  /** The lane of a graph's node, which runs off every lane: after its predecessors alone. */
  static final int NO_LANE = -1;

  enum Kind { WORK, RECORD, WAIT }

  /** What a device operation does: reads when it starts, writes when it completes. */
  interface Work {
    /** When the operation starts, before checking what it touches: resolves pointers read from memory. */
    default void resolve() {}

    void begin();

    void end();
  }

  final long number;
  final int lane;
  final Kind kind;
  /** Its description, as text when read ({@link KernelLabel} defers the formatting to a fault). */
  final Object label;
  SimOp waitFor;
  /** Operations CUDA's implicit synchronization makes this one wait for. */
  final List<SimOp> after = new ArrayList<>(0);
  /** The gate a host function waits for, or -1. */
  int gate = -1;
  Work work;
  final List<long[]> ranges = new ArrayList<>(3); // {address, length, writes (0/1), allocation id}
  long duration;
  /** Ticks after its start at which the operation reads its inputs, before {@code duration}. */
  long readAfter;
  long time;
  boolean scheduled;
  boolean running;
  boolean hasRead;
  boolean done;

  SimOp(long number, int lane, Kind kind, Object label) {
    this.number = number;
    this.lane = lane;
    this.kind = kind;
    this.label = label;
  }

  @Override
  public String toString() {
    return label + " (#" + number + ", lane " + lane + ")";
  }
}
