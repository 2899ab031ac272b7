package dev.kernelweave.scheduler;

/**
 * One sampled execution of a window, as the device timed it ({@link LaunchWindows.Listener#windowTimed}).
 * Reused: valid only during the call that hands it over.
 */
public final class WindowTime {
  /** The window's shape: the key its executions share. */
  public long shape;
  /** The execution's window number (as a replay's {@code graphWindow}). */
  public long windowNumber;
  /** Whether it was issued as its launches in order on one lane rather than as its graph. */
  public boolean inOrder;
  /** The lane it ran on. */
  public int lane;
  /** When the host began to issue it, on the windows' clock ({@code System.nanoTime} outside tests). */
  public long issueStartNanos;
  /** The host's time to issue it. */
  public long hostNanos;
  /** The device's time from its start to its end on the lane. */
  public long deviceNanos;
  /** Whether both ways of the shape now have their samples. */
  public boolean judged;
  /** The way the shape is issued from now on: in order (true) or as its graph. */
  public boolean inOrderChosen;
}
