package dev.kernelweave.scheduler;

import static dev.kernelweave.text.ConstantNames.constantNamed;

import java.util.Locale;

/** How a known window is issued: as the device judges, always as its graph, or always in order ({@code judge=}). */
public enum WindowJudging {
  /** Sampled device times choose, per window shape, between its graph and its launches in order ({@link WindowVerdict}). */
  ON,
  /** Always its graph; nothing is timed. */
  OFF,
  /**
   * Always its launches in order on one lane, after the same predecessors as its graph: for comparing
   * the two ways on a device, and for tests of the in-order way.
   */
  IN_ORDER;

  /** The option's value: {@code on}, {@code off}, {@code in-order}. */
  public String option() {
    return name().toLowerCase(Locale.ROOT).replace('_', '-');
  }

  /** The mode an option value names; null for none. */
  public static WindowJudging ofOption(String value) {
    return constantNamed(values(), WindowJudging::option, value);
  }
}
