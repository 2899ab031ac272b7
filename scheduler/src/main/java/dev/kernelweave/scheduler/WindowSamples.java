package dev.kernelweave.scheduler;

/**
 * Timed executions of windows still on the device: a timing event recorded on the window's lane
 * before it and one after it, read back without waiting once the device has passed both, and
 * handed to the window's {@link WindowVerdict}.
 *
 * <p>Per sampled execution: {@link #start} before the window is issued on its lane, {@link #end}
 * after, then {@link #poll} at later windows until the device has passed it. At most
 * {@link #SLOTS} samples are in flight; a window finding none free is simply not timed. Only the
 * timing events are the sampler's: recording them orders nothing, so sampling never changes what
 * runs after what.
 *
 * <p>Not thread-safe: used under the context's {@link Dispatch} lock, as its windows are.
 */
final class WindowSamples {

  /** Hears of each sample read back, to journal it. */
  interface Listener {
    /** A sample was read back; {@code time} is reused once this returns. */
    void sampled(WindowTime time);
  }

  static final int SLOTS = 8;

  private final StreamDevice device;
  private final Listener listener;
  private final KnownWindow[] windows = new KnownWindow[SLOTS];
  private final long[] shapes = new long[SLOTS];
  private final long[] numbers = new long[SLOTS];
  private final int[] ways = new int[SLOTS];
  private final int[] lanes = new int[SLOTS];
  private final long[] issueStarts = new long[SLOTS];
  private final long[] hostNanos = new long[SLOTS];
  private final WindowTime time = new WindowTime();
  private final boolean[] created = new boolean[SLOTS];
  private int inFlight;
  /** False once the device said it cannot time: nothing is sampled from then on. */
  private boolean usable = true;

  WindowSamples(StreamDevice device, Listener listener) {
    this.device = device;
    this.listener = listener;
  }

  /**
   * Records a sample's start on {@code lane}, before window {@code window} of shape {@code shape} is
   * issued there {@code way}.
   *
   * @return the sample's slot for {@link #end}, or -1 where it is not timed (the verdict is told)
   */
  int start(KnownWindow window, long shape, int way, int lane) {
    int slot = usable ? freeSlot() : -1;
    if (slot < 0 || !created(slot)) {
      window.verdict.sampleLost();
      return -1;
    }
    device.recordTimingEvent(2 * slot, lane);
    windows[slot] = window;
    shapes[slot] = shape;
    ways[slot] = way;
    lanes[slot] = lane;
    numbers[slot] = 0;
    hostNanos[slot] = -1;
    inFlight++;
    return slot;
  }

  /**
   * Records the sample's end on its lane, after the window was issued as window {@code windowNumber},
   * from {@code issueStart} for {@code issueNanos} of host time.
   */
  void end(int slot, long issueStart, long issueNanos, long windowNumber) {
    device.recordTimingEvent(2 * slot + 1, lanes[slot]);
    issueStarts[slot] = issueStart;
    hostNanos[slot] = issueNanos;
    numbers[slot] = windowNumber;
  }

  /** A sample started whose window could not be issued: forgotten. */
  void cancel(int slot) {
    windows[slot].verdict.sampleLost();
    release(slot);
  }

  /** Reads back the samples the device has passed; never waits. */
  void poll() {
    for (int slot = 0; inFlight > 0 && slot < SLOTS; slot++) {
      if (windows[slot] == null || hostNanos[slot] < 0) {
        continue;
      }
      long deviceNanos = device.elapsedNanos(2 * slot, 2 * slot + 1);
      if (deviceNanos == StreamDevice.NOT_YET) {
        continue;
      }
      WindowVerdict verdict = windows[slot].verdict;
      if (deviceNanos < 0) {
        verdict.sampleLost();
      } else {
        verdict.sampled(ways[slot], hostNanos[slot], deviceNanos);
        time.shape = shapes[slot];
        time.windowNumber = numbers[slot];
        time.inOrder = ways[slot] == WindowVerdict.SERIAL;
        time.lane = lanes[slot];
        time.issueStartNanos = issueStarts[slot];
        time.hostNanos = hostNanos[slot];
        time.deviceNanos = deviceNanos;
        time.judged = verdict.judged();
        time.inOrderChosen = verdict.chosen() == WindowVerdict.SERIAL;
        listener.sampled(time);
      }
      release(slot);
    }
  }

  private void release(int slot) {
    windows[slot] = null;
    inFlight--;
  }

  private int freeSlot() {
    if (inFlight == SLOTS) {
      return -1;
    }
    for (int slot = 0; slot < SLOTS; slot++) {
      if (windows[slot] == null) {
        return slot;
      }
    }
    return -1;
  }

  private boolean created(int slot) {
    if (!created[slot]) {
      if (!device.createTimingEvent(2 * slot) || !device.createTimingEvent(2 * slot + 1)) {
        usable = false;
        return false;
      }
      created[slot] = true;
    }
    return true;
  }
}
