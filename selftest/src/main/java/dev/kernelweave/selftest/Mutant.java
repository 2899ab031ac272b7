package dev.kernelweave.selftest;

import static dev.kernelweave.text.ConstantNames.constantNamed;

import dev.kernelweave.calltable.CudaCallTable;
import dev.kernelweave.calltable.HostBlocking;
import dev.kernelweave.scheduler.OrderingRules;
import dev.kernelweave.scheduler.OrderingRules.Rule;
import dev.kernelweave.scheduler.Placement;
import java.util.function.UnaryOperator;

/**
 * Deliberately broken schedulers, to prove the differential fuzz catches each kind of missing
 * ordering. {@link #NONE} is the real scheduler. Each mutant's {@link #description} says the bug it
 * carries; each changes what some valid program observes, so the fuzz must catch every one: on the
 * simulator, or, for those the simulator's programs cannot show ({@link #caughtOnTheSimulator}
 * false: query answers, callback arguments), through the whole agent over the stand-in driver.
 *
 * <p>A mutant is a strategy, not a check: {@link #rules()} gives the {@link OrderingRules} it breaks
 * (CUDA's, less one {@link Rule}, or with a row of the call table broken), and the fuzz hands them
 * to the {@code Dispatch} it drives ({@link ProgramRunner}) or, through {@link #PROPERTY}, to the
 * agent's settings. The scheduler and the interceptor never name a mutant. To add one: a constant
 * here whose operator breaks the rules (a rule CUDA's rules already have, or a new {@link Rule}
 * named for the guarantee, read once where the behaviour lives, at construction), its option name
 * and its description; the fuzz then runs it with the others ({@code selftest --sim --mutant},
 * {@code DifferentialFuzzTest}, the it-tests' {@code InterceptedProgramsOnCpuDeviceTest}), and must
 * catch it.
 */
public enum Mutant {
  NONE("none", "the real scheduler", r -> r),
  DROP_RAW("drop-raw", "drops read-after-write edges", without(Rule.READS_FOLLOW_WRITES)),
  DROP_WAR("drop-war", "drops write-after-read edges", without(Rule.WRITES_FOLLOW_READS)),
  NO_FREE_WAIT("no-free-wait", "frees without waiting for the allocation's pending users",
      without(Rule.FREE_WAITS_FOR_USERS)),
  NARROW_PAST_HOST_EFFECTS("narrow-past-host-effects",
      "a host wait covers only the call's own predecessors, not pending work whose effect the host sees",
      without(Rule.HOST_WAITS_COVER_VISIBLE_WORK)),
  LEGACY_ALIAS("legacy-alias", "takes the handle 0x1 for a stream of its own instead of the legacy default stream",
      without(Rule.LEGACY_HANDLE_IS_LEGACY_STREAM)),
  UNTRACKED_CONSTANT("untracked-constant", "launches ignore the module variables their kernels read",
      without(Rule.MODULE_VARIABLES_ORDER)),
  NO_PTX_OPTIMISTIC("no-ptx-optimistic", "a kernel whose code the agent cannot read is ordered by its pointer parameters alone",
      without(Rule.BARRIERS_FOLLOW_EVERYTHING)),
  HOSTFUNC_BLOCKS("hostfunc-blocks", "a host function is a host-side barrier: the host waits for everything before enqueuing it",
      without(Rule.HOST_FUNCTIONS_QUEUE_ON_DEVICE)),
  IGNORE_RANGE_OVERLAP("ignore-range-overlap",
      "two byte ranges of one allocation conflict only when one holds the other: partial overlaps run unordered",
      without(Rule.PARTIAL_OVERLAPS_CONFLICT)),
  /** Broken where the fuzz itself turns pointers into ranges ({@link CallRecording}): the rules stay CUDA's. */
  KERNEL_RANGE_FROM_POINTER("kernel-range-from-pointer",
      "a kernel's pointer parameter stands for [pointer, end of allocation), not the whole allocation: a kernel "
          + "indexing back from an interior pointer runs unordered", r -> r),
  REPLAY_STALE_PARAMETERS("replay-stale-parameters",
      "a held window replays the graph of one with the same kernels and memory but other scalar arguments",
      without(Rule.REPLAY_MATCHES_SCALAR_ARGUMENTS)),
  STAGED_READ_UNJOINED("staged-read-unjoined",
      "a staged read-back is queued on the legacy stream without waiting, device-side, for the work it must follow",
      without(Rule.STAGED_READS_JOIN_THEIR_WORK)),
  PRIORITY_SKIPS_DEPENDENCY("priority-skips-dependency",
      "a high-priority call does not wait for the lower-priority work it depends on on another lane",
      without(Rule.PRIORITY_KEEPS_DEPENDENCIES)),
  SYNC_COPY_MARKED_ASYNC("sync-copy-marked-async",
      "the call table's row of cuMemcpyDtoH, a synchronous copy to the host, says asynchronous: the host reads "
          + "before the work the copy must follow is done",
      r -> r.withTable(syncCopyMarkedAsync())),
  QUERY_IGNORES_HOST_COMPLETION("query-ignores-host-completion",
      "a stream query does not wait for the work CUDA completed at an earlier synchronous copy (through the agent only)",
      false, without(Rule.STREAM_QUERIES_SEE_HOST_COMPLETION)),
  EVENT_QUERY_IGNORES_HOST_COMPLETION("event-query-ignores-host-completion",
      "an event query does not wait for a record CUDA completed at an earlier synchronous copy (through the agent only)",
      false, without(Rule.EVENT_QUERIES_SEE_HOST_COMPLETION)),
  CALLBACK_GETS_AGENT_STREAM("callback-gets-agent-stream",
      "a stream callback moved to the agent's stream is told that stream, not its own (through the agent only)", false,
      without(Rule.CALLBACKS_SEE_APPLICATION_STREAM)),
  POINTER_DIFFERENCE_LOST("pointer-difference-lost",
      "the PTX analysis takes the difference of two pointers for a plain number: a kernel writing one "
          + "allocation through another's pointer is not seen to write it (through the agent only)", false,
      without(Rule.POINTER_DIFFERENCES_KEEP_PROVENANCE)),
  PRINTS_UNORDERED("prints-unordered",
      "a kernel that prints is ordered by the memory it touches alone, not as a barrier: two printing kernels "
          + "of one stream may print out of order (through the agent only)", false,
      without(Rule.PRINTING_KERNELS_ARE_BARRIERS)),
  MERGE_OVERLAPPING_WRITES("merge-overlapping-writes",
      "launches of one kernel whose writes overlap are merged into one launch, their blocks unordered",
      without(Rule.MERGED_INSTANCES_NEVER_OVERLAP)),
  MERGE_IGNORES_GRID("merge-ignores-grid",
      "a merged launch's table gives every instance the first instance's grid",
      without(Rule.MERGED_TABLE_KEEPS_EACH_GRID)),
  HAND_BACK_JOINS_LEGACY_ONLY("hand-back-joins-legacy-only",
      "at the hand-back, only the legacy and non-blocking streams wait for the work the agent moved: a blocking or "
          + "per-thread stream synchronized with no later work waits for none of it",
      without(Rule.HAND_BACK_JOINS_EACH_STREAM));

  /**
   * The system property naming a mutant for the agent, for the fuzz that plays programs through
   * it; outside the {@code kernelweave.} prefix, whose properties are the agent's options.
   */
  public static final String PROPERTY = "dev.kernelweave.mutant";

  private final String option;
  private final String description;
  private final boolean simulated;
  private final OrderingRules rules;

  Mutant(String option, String description, UnaryOperator<OrderingRules> breaks) {
    this(option, description, true, breaks);
  }

  Mutant(String option, String description, boolean simulated, UnaryOperator<OrderingRules> breaks) {
    this.option = option;
    this.description = description;
    this.simulated = simulated;
    this.rules = breaks.apply(OrderingRules.CUDA);
  }

  private static UnaryOperator<OrderingRules> without(Rule rule) {
    return r -> r.without(rule);
  }

  /** The canonical call table with the row of {@code cuMemcpyDtoH} saying asynchronous. */
  private static CudaCallTable syncCopyMarkedAsync() {
    CudaCallTable canonical = CudaCallTable.canonical();
    return canonical.withRow(
        canonical.row(CudaCallTable.COPY_TO_HOST).placedAs(Placement.ASYNC, Placement.NONE, HostBlocking.NO));
  }

  /** The rules this mutant's scheduler keeps: {@link OrderingRules#CUDA} broken where the mutant breaks them. */
  public OrderingRules rules() {
    return rules;
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
    Mutant m = constantNamed(values(), Mutant::option, System.getProperty(PROPERTY));
    return m == null ? NONE : m;
  }

  public static Mutant ofOption(String option) {
    Mutant m = constantNamed(values(), Mutant::option, option);
    if (m == null) {
      throw new IllegalArgumentException("unknown mutant '" + option + "': expected one of " + names());
    }
    return m;
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
