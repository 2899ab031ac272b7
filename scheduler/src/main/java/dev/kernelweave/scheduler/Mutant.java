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
  NO_FREE_WAIT("no-free-wait"),
  /** A host wait covers only the call's own predecessors, not pending work whose effect the host sees. */
  NARROW_PAST_HOST_EFFECTS("narrow-past-host-effects"),
  /** Takes the handle {@code 0x1} for a stream of its own instead of the legacy default stream. */
  LEGACY_ALIAS("legacy-alias"),
  /** Launches ignore the module variables their kernels read. */
  UNTRACKED_CONSTANT("untracked-constant"),
  /** A kernel whose code the agent cannot read is ordered by its pointer parameters alone. */
  NO_PTX_OPTIMISTIC("no-ptx-optimistic"),
  /** A host function is a host-side barrier: the host waits for everything before enqueuing it. */
  HOSTFUNC_BLOCKS("hostfunc-blocks");

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
        "unknown mutant '" + option + "': expected one of " + names());
  }

  /** The mutants' option names, comma-separated, {@link #NONE} excluded. */
  public static String names() {
    StringBuilder b = new StringBuilder();
    for (Mutant m : values()) {
      if (m != NONE) {
        b.append(b.length() == 0 ? "" : ", ").append(m.option);
      }
    }
    return b.toString();
  }
}
