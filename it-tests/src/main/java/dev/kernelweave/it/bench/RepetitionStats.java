package dev.kernelweave.it.bench;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;

/** Order statistics for repetition times, and the geometric mean of speedups. */
public final class RepetitionStats {
  private RepetitionStats() {}

  /**
   * The centre and spread of a sample.
   *
   * @param median the median
   * @param min the smallest value
   * @param p10 the 10th percentile
   * @param p90 the 90th percentile
   * @param max the largest value
   * @param mad the median absolute deviation from the median (unscaled)
   * @param n the sample size
   */
  public record Summary(double median, double min, double p10, double p90, double max, double mad, int n) {}

  /** Summarizes a non-empty sample. */
  public static Summary summarize(Collection<Double> sample) {
    List<Double> sorted = sorted(sample);
    double median = percentile(sorted, 50);
    List<Double> deviations = new ArrayList<>();
    for (double x : sorted) {
      deviations.add(Math.abs(x - median));
    }
    return new Summary(
        median,
        sorted.get(0),
        percentile(sorted, 10),
        percentile(sorted, 90),
        sorted.get(sorted.size() - 1),
        percentile(sorted(deviations), 50),
        sorted.size());
  }

  /** The median of a non-empty sample. */
  public static double median(Collection<Double> sample) {
    return percentile(sorted(sample), 50);
  }

  /**
   * The {@code p}-th percentile of a sorted, non-empty sample, interpolating linearly between
   * the closest ranks (the definition of R's type 7 and NumPy's default).
   */
  public static double percentile(List<Double> sorted, double p) {
    if (sorted.isEmpty()) {
      throw new IllegalArgumentException("percentile of an empty sample");
    }
    if (p < 0 || p > 100) {
      throw new IllegalArgumentException("percentile " + p + " outside 0..100");
    }
    double rank = p / 100 * (sorted.size() - 1);
    int below = (int) Math.floor(rank);
    int above = Math.min(below + 1, sorted.size() - 1);
    double fraction = rank - below;
    return sorted.get(below) + fraction * (sorted.get(above) - sorted.get(below));
  }

  /** The geometric mean of positive values; NaN for none. */
  public static double geometricMean(Collection<Double> values) {
    if (values.isEmpty()) {
      return Double.NaN;
    }
    double logs = 0;
    for (double v : values) {
      if (!(v > 0) || !Double.isFinite(v)) {
        throw new IllegalArgumentException("geometric mean of " + v);
      }
      logs += Math.log(v);
    }
    return Math.exp(logs / values.size());
  }

  private static List<Double> sorted(Collection<Double> sample) {
    if (sample.isEmpty()) {
      throw new IllegalArgumentException("statistics of an empty sample");
    }
    List<Double> sorted = new ArrayList<>(sample);
    sorted.sort(null);
    return sorted;
  }
}
