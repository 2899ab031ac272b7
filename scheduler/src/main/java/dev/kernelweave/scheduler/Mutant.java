package dev.kernelweave.scheduler;

/**
 * Deliberately broken schedulers, to prove the differential fuzz catches each kind of missing
 * ordering. {@link #NONE} is the real scheduler. Each mutant's {@link #description} says the bug it
 * carries; each changes what some valid program observes, so the fuzz must catch every one: on the
 * simulator, or, for those the simulator's programs cannot show ({@link #caughtOnTheSimulator}
 * false: query answers, callback arguments), through the whole agent over the stand-in driver.
 */
public enum Mutant {
  NONE("none", "the real scheduler"),
  DROP_RAW("drop-raw", "drops read-after-write edges"),
  DROP_WAR("drop-war", "drops write-after-read edges"),
  NO_FREE_WAIT("no-free-wait", "frees without waiting for the allocation's pending users"),
  NARROW_PAST_HOST_EFFECTS("narrow-past-host-effects",
      "a host wait covers only the call's own predecessors, not pending work whose effect the host sees"),
  LEGACY_ALIAS("legacy-alias", "takes the handle 0x1 for a stream of its own instead of the legacy default stream"),
  UNTRACKED_CONSTANT("untracked-constant", "launches ignore the module variables their kernels read"),
  NO_PTX_OPTIMISTIC("no-ptx-optimistic", "a kernel whose code the agent cannot read is ordered by its pointer parameters alone"),
  HOSTFUNC_BLOCKS("hostfunc-blocks", "a host function is a host-side barrier: the host waits for everything before enqueuing it"),
  IGNORE_RANGE_OVERLAP("ignore-range-overlap",
      "two byte ranges of one allocation conflict only when one holds the other: partial overlaps run unordered"),
  KERNEL_RANGE_FROM_POINTER("kernel-range-from-pointer",
      "a kernel's pointer parameter stands for [pointer, end of allocation), not the whole allocation: a kernel "
          + "indexing back from an interior pointer runs unordered"),
  REPLAY_STALE_PARAMETERS("replay-stale-parameters",
      "a held window replays the graph of one with the same kernels and memory but other scalar arguments"),
  STAGED_READ_UNJOINED("staged-read-unjoined",
      "a staged read-back is queued on the legacy stream without waiting, device-side, for the work it must follow"),
  PRIORITY_SKIPS_DEPENDENCY("priority-skips-dependency",
      "a high-priority call does not wait for the lower-priority work it depends on on another lane"),
  SYNC_COPY_MARKED_ASYNC("sync-copy-marked-async",
      "the call table's row of cuMemcpyDtoH, a synchronous copy to the host, says asynchronous: the host reads "
          + "before the work the copy must follow is done"),
  QUERY_IGNORES_HOST_COMPLETION("query-ignores-host-completion",
      "a stream query does not wait for the work CUDA completed at an earlier synchronous copy (through the agent only)",
      false),
  EVENT_QUERY_IGNORES_HOST_COMPLETION("event-query-ignores-host-completion",
      "an event query does not wait for a record CUDA completed at an earlier synchronous copy (through the agent only)",
      false),
  CALLBACK_GETS_AGENT_STREAM("callback-gets-agent-stream",
      "a stream callback moved to the agent's stream is told that stream, not its own (through the agent only)", false),
  POINTER_DIFFERENCE_LOST("pointer-difference-lost",
      "the PTX analysis takes the difference of two pointers for a plain number: a kernel writing one "
          + "allocation through another's pointer is not seen to write it (through the agent only)", false),
  PRINTS_UNORDERED("prints-unordered",
      "a kernel that prints is ordered by the memory it touches alone, not as a barrier: two printing kernels "
          + "of one stream may print out of order (through the agent only)", false),
  MERGE_OVERLAPPING_WRITES("merge-overlapping-writes",
      "launches of one kernel whose writes overlap are merged into one launch, their blocks unordered"),
  MERGE_IGNORES_GRID("merge-ignores-grid",
      "a merged launch's table gives every instance the first instance's grid");

  /**
   * The system property naming a mutant for the agent, for the fuzz that plays programs through
   * it; outside the {@code kernelweave.} prefix, whose properties are the agent's options.
   */
  public static final String PROPERTY = "dev.kernelweave.mutant";

  private final String option;
  private final String description;
  private final boolean simulated;

  Mutant(String option, String description) {
    this(option, description, true);
  }

  Mutant(String option, String description, boolean simulated) {
    this.option = option;
    this.description = description;
    this.simulated = simulated;
  }

  /**
   * Whether the simulator's programs show the bug; false where only a call the simulator does not
   * model does (a query, a callback), which the fuzz through the agent plays.
   */
  public boolean caughtOnTheSimulator() {
    return simulated;
  }

  /** The name used on the command line. */
  public String option() {
    return option;
  }

  /** The bug, in a few words. */
  public String description() {
    return description;
  }

  /** The mutant {@link #PROPERTY} names, {@link #NONE} when it names none or one unknown. */
  public static Mutant ofSystemProperty() {
    String name = System.getProperty(PROPERTY);
    for (Mutant m : values()) {
      if (m.option.equals(name)) {
        return m;
      }
    }
    return NONE;
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
