package dev.kernelweave.scheduler;

/**
 * What the device says of one window shape: whether its launches run faster replayed as their
 * graph or issued one after another on one lane, as the program wrote them, judged from sampled
 * costs. A sample's cost is the longer of the host's time to issue the window and the device's
 * time from the window's start to its end on the lane: a window the host cannot issue faster than
 * the device runs it is bound by the host, and one the device runs slower by the device, so the
 * longer of the two is what the program waits for.
 *
 * <p>Both ways order the window's launches after the same predecessors and its successors after
 * all of them (the serial way keeps program order on one lane, which is at least the graph's
 * order): the choice changes only speed, never a result.
 *
 * <p>The graph is the default, and trying the other way costs: on an H100 a window of small kernels
 * issued in order takes 3 to 30 times its graph's time. So the graph is sampled first (every
 * {@link #JUDGING_PERIOD}th execution from the capture), the launches in order only from the
 * {@link #TRIAL_AFTER}th execution on (a short program never pays for the trial), and a trial that
 * costs more than {@link #LOSES_BY} times the graph's median ends the judging at once. Otherwise each
 * way is sampled {@link #SAMPLES_TO_JUDGE} times; the other way then replaces the one taken only
 * where its median cost is below {@link #SWITCH_BELOW} of it (hysteresis: two ways within a few
 * percent never flap). Once judged, samples come {@link #JUDGED_PERIOD} executions apart, and every
 * so often one of the way not taken, so that a verdict follows a program whose kernels change
 * speed: every {@link #EXPLORE_EVERY}th sample, twice as rarely each time that way loses by more
 * than {@link #LOSES_BY} again, up to every {@link #MAX_EXPLORE_EVERY}th.
 *
 * <p>Not thread-safe: used under the context's {@link Dispatch} lock, as its window is.
 */
final class WindowVerdict {
  /** Issue the window as its graph. */
  static final int GRAPH = 0;
  /** Issue the window's launches one by one on one lane, in program order. */
  static final int SERIAL = 1;
  /** Or-ed into {@link #next}'s answer: time this execution. */
  static final int SAMPLE = 2;

  static final int SAMPLES_TO_JUDGE = 3;
  static final double SWITCH_BELOW = 0.9;
  static final double LOSES_BY = 2.0;
  /** Executions between samples before the verdict. */
  static final int JUDGING_PERIOD = 4;
  /** The first execution of a shape that may be timed. */
  static final int FIRST_SAMPLE = 256;
  /** The first execution at which the launches in order may be tried. */
  static final int TRIAL_AFTER = 1024;
  static final int JUDGED_PERIOD = 128;
  static final int EXPLORE_EVERY = 8;
  static final int MAX_EXPLORE_EVERY = 1024;
  /** The samples kept per way: the median of the latest ones. */
  private static final int KEPT = 5;

  private final long[][] costs = new long[2][KEPT];
  private final int[] counts = new int[2];
  private int chosen = GRAPH;
  private boolean judged;
  private long executions;
  private long samplesSinceVerdict;
  private int exploreEvery = EXPLORE_EVERY;
  /** A sample asked for and not yet answered: no second one of this window meanwhile. */
  private boolean pending;

  /** Which way to issue this execution ({@link #GRAPH} or {@link #SERIAL}), with {@link #SAMPLE} when it is to be timed. */
  int next() {
    executions++;
    if (pending || executions < FIRST_SAMPLE || executions % (judged ? JUDGED_PERIOD : JUDGING_PERIOD) != 0) {
      return chosen;
    }
    if (!judged) {
      // The graph until it has its samples, then alternating, the other way not before its trial.
      int way = counts[GRAPH] < SAMPLES_TO_JUDGE || counts[GRAPH] <= counts[SERIAL] ? GRAPH : SERIAL;
      if (way == SERIAL && executions < TRIAL_AFTER) {
        return chosen;
      }
      pending = true;
      return way | SAMPLE;
    }
    pending = true;
    boolean explore = ++samplesSinceVerdict % exploreEvery == 0;
    return (explore ? 1 - chosen : chosen) | SAMPLE;
  }

  /** A sample of {@code way} came back: its host and device nanoseconds. */
  void sampled(int way, long hostNanos, long deviceNanos) {
    pending = false;
    long cost = Math.max(hostNanos, deviceNanos);
    costs[way][counts[way] % KEPT] = cost;
    counts[way]++;
    int other = 1 - chosen;
    if (way == other && counts[chosen] > 0 && cost > LOSES_BY * median(chosen)) {
      // Far behind: judged at once, and tried again more rarely.
      judged = true;
      exploreEvery = Math.min(MAX_EXPLORE_EVERY, exploreEvery * 2);
      return;
    }
    if (way == other) {
      exploreEvery = EXPLORE_EVERY;
    }
    if (counts[GRAPH] < SAMPLES_TO_JUDGE || counts[SERIAL] < SAMPLES_TO_JUDGE) {
      return;
    }
    judged = true;
    if (median(other) < SWITCH_BELOW * median(chosen)) {
      chosen = other;
    }
  }

  /** A sample asked for could not be taken or read: the next one may be asked. */
  void sampleLost() {
    pending = false;
  }

  /** The way taken when not sampling. */
  int chosen() {
    return chosen;
  }

  /** Whether both ways have their samples. */
  boolean judged() {
    return judged;
  }

  /** The median cost of the latest samples of {@code way}, in nanoseconds; -1 where there are none. */
  long median(int way) {
    int n = Math.min(counts[way], KEPT);
    if (n == 0) {
      return -1;
    }
    long[] sorted = java.util.Arrays.copyOf(costs[way], n);
    java.util.Arrays.sort(sorted);
    return sorted[n / 2];
  }

  /** Samples of {@code way} taken so far. */
  int samples(int way) {
    return counts[way];
  }
}
