package dev.kernelweave.scheduler;

/**
 * Deliberately broken schedulers, to prove the differential fuzz catches each kind of missing
 * ordering. {@link #NONE} is the real scheduler.
 */
public enum Mutant {
  NONE("none"),
  /** Drops read-after-write edges. */
  DROP_RAW("drop-raw"),
  /** Drops write-after-read edges. */
  DROP_WAR("drop-war"),
  /** Frees without waiting for the allocation's pending users. */
  NO_FREE_WAIT("no-free-wait");

  private final String option;

  Mutant(String option) {
    this.option = option;
  }

  /** The name used on the command line. */
  public String option() {
    return option;
  }

  public static Mutant ofOption(String option) {
    for (Mutant m : values()) {
      if (m.option.equals(option)) {
        return m;
      }
    }
    throw new IllegalArgumentException(
        "unknown mutant '" + option + "': expected one of drop-raw, drop-war, no-free-wait");
  }
}
