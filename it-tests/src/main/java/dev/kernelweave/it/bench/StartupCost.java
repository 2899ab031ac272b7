package dev.kernelweave.it.bench;

import java.util.ArrayList;
import java.util.List;

/**
 * What the agent adds to the start of a JVM: the wall-clock time of a program that only calls
 * {@code cuInit}, from starting the JVM to its exit, without and with the agent, measured in pairs
 * of fresh JVMs whose order alternates. Not thread-safe: one benchmark fills it.
 */
public final class StartupCost {
  private final String program;
  private final List<Double> without = new ArrayList<>();
  private final List<Double> with = new ArrayList<>();
  private String failure;

  /** @param program the main class that was started */
  public StartupCost(String program) {
    this.program = program;
  }

  /** Adds one pair of runs. */
  public void add(double withoutMs, double withMs) {
    without.add(withoutMs);
    with.add(withMs);
  }

  /** Marks the measurement failed; the pairs before it still stand. */
  public void fail(String why) {
    failure = why;
  }

  public String program() {
    return program;
  }

  /** Why a run failed, or null. */
  public String failure() {
    return failure;
  }

  /** The pairs measured. */
  public int pairs() {
    return without.size();
  }

  /** Milliseconds of each run without the agent, in order. */
  public List<Double> withoutMs() {
    return List.copyOf(without);
  }

  /** Milliseconds of each run with the agent, in order. */
  public List<Double> withMs() {
    return List.copyOf(with);
  }

  /** Centre and spread of the runs without the agent; null where none finished. */
  public RepetitionStats.Summary without() {
    return without.isEmpty() ? null : RepetitionStats.summarize(without);
  }

  /** Centre and spread of the runs with the agent; null where none finished. */
  public RepetitionStats.Summary with() {
    return with.isEmpty() ? null : RepetitionStats.summarize(with);
  }

  /** The median with the agent less the median without it; NaN where nothing was measured. */
  public double extraMs() {
    return without.isEmpty() ? Double.NaN : RepetitionStats.median(with) - RepetitionStats.median(without);
  }

  /**
   * Centre and spread of each pair's difference (with less without): how far the extra time varies
   * between neighbouring runs. Null where nothing was measured.
   */
  public RepetitionStats.Summary pairedExtra() {
    if (without.isEmpty()) {
      return null;
    }
    List<Double> differences = new ArrayList<>();
    for (int i = 0; i < without.size(); i++) {
      differences.add(with.get(i) - without.get(i));
    }
    return RepetitionStats.summarize(differences);
  }
}
