package dev.kernelweave.it.bench;

import java.util.List;

/**
 * The host time of a journal's kernel launches, as {@code inspect stats} prints it: from each call's
 * entry into the agent's advice to the real call's return, so the same measure with the scheduler
 * ({@code mode=schedule}) and without it ({@code mode=passthrough}).
 *
 * @param launches kernel launches in the journal
 * @param meanMicros their mean host time in microseconds
 * @param replayedLaunches of them, those the agent held and issued inside a replayed CUDA graph
 * @param replayedMeanMicros the mean host time of those replayed from a graph captured before their
 *     window (a window that captures its graph pays for that once), NaN where there were none
 */
public record LaunchHostTime(long launches, double meanMicros, long replayedLaunches, double replayedMeanMicros) {

  /** A journal without graph replays. */
  public LaunchHostTime(long launches, double meanMicros) {
    this(launches, meanMicros, 0, Double.NaN);
  }

  /** The lines of {@code inspect stats}'s section on graph replays that the benchmark reads. */
  static final String REPLAYED_LAUNCHES = "launches in replays";
  static final String REPLAYED_MEAN = "mean host us, in replay";

  /** The heading of the kernel table in {@code inspect stats}. */
  static final String HEADING = "mean host us";

  /**
   * Reads the kernel table of {@code inspect stats} output (one row a kernel: name, launches, mean
   * host us) and weighs each kernel's mean by its launches. Null where the output has no such table
   * or a row does not read as one.
   */
  public static LaunchHostTime parse(List<String> statsLines) {
    int at = 0;
    while (at < statsLines.size()
        && !(statsLines.get(at).startsWith("kernels") && statsLines.get(at).contains(HEADING))) {
      at++;
    }
    long launches = 0;
    double micros = 0;
    for (at++; at < statsLines.size() && !statsLines.get(at).isBlank(); at++) {
      // The kernel's name may hold spaces ("(unknown kernel)"): the numbers are the last two words.
      String[] words = statsLines.get(at).strip().split("\\s+");
      if (words.length < 3) {
        return null;
      }
      try {
        long n = Long.parseLong(words[words.length - 2]);
        double mean = Double.parseDouble(words[words.length - 1]);
        launches += n;
        micros += n * mean;
      } catch (NumberFormatException e) {
        return null;
      }
    }
    if (launches == 0) {
      return null;
    }
    long replayed = 0;
    double replayedMean = Double.NaN;
    for (String line : statsLines) {
      String t = line.strip();
      try {
        if (t.startsWith(REPLAYED_LAUNCHES)) {
          replayed = Long.parseLong(t.substring(REPLAYED_LAUNCHES.length()).strip());
        } else if (t.startsWith(REPLAYED_MEAN)) {
          String v = t.substring(REPLAYED_MEAN.length()).strip();
          replayedMean = v.equals("-") ? Double.NaN : Double.parseDouble(v);
        }
      } catch (NumberFormatException e) {
        return null;
      }
    }
    return new LaunchHostTime(launches, micros / launches, replayed, replayedMean);
  }
}
