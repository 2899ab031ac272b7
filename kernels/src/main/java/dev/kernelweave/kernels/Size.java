package dev.kernelweave.kernels;

import java.util.Locale;

/** The two sizes of each workload. */
public enum Size {
  /**
   * Small data and few rounds, the same dependency structure as {@link #BENCH}: checked against the
   * CPU reference.
   */
  CHECK,
  /** The size that is timed; not checked against the reference (too slow on the CPU). */
  BENCH;

  /** The name used on the command line and in results. */
  public String label() {
    return name().toLowerCase(Locale.ROOT);
  }

  /** Parses {@link #label()}. */
  public static Size of(String label) {
    for (Size s : values()) {
      if (s.label().equals(label)) {
        return s;
      }
    }
    throw new IllegalArgumentException("unknown size '" + label + "' (check or bench)");
  }
}
