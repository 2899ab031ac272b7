package dev.kernelweave.scheduler;

import dev.kernelweave.calltable.CudaCallTable;
import java.util.EnumSet;
import java.util.Objects;
import java.util.Set;

/**
 * The orderings the agent keeps and the call table it places calls by: {@link #CUDA}, every rule of
 * CUDA's semantics and the canonical table, on every real run. The differential fuzz alone builds
 * others ({@link #without}, {@link #withTable}): a scheduler deliberately broken in one place, to
 * show that the fuzz catches each kind of missing ordering (its mutants, in the self-test module).
 *
 * <p>Each class whose behaviour a rule governs reads it once, at construction, into a field of its
 * own (or an object chosen then, as the table): a call's path asks no rules object anything, and
 * nothing on it names a mutant.
 *
 * <p>Immutable and thread-safe.
 */
public final class OrderingRules {

  /**
   * One ordering CUDA guarantees and the agent keeps. A mutant drops one rule; to let a new one
   * drop something not listed here, add a rule named for the guarantee, read it where the
   * behaviour lives (at construction), and keep it in {@link #CUDA}.
   */
  public enum Rule {
    /** A read follows the pending writes it overlaps (read-after-write). */
    READS_FOLLOW_WRITES,
    /** A write follows the pending reads it overlaps (write-after-read). */
    WRITES_FOLLOW_READS,
    /** A launch's uses of its module's variables order it like its pointer parameters. */
    MODULE_VARIABLES_ORDER,
    /** Two byte ranges of one allocation conflict when they share a byte, not only when one holds the other. */
    PARTIAL_OVERLAPS_CONFLICT,
    /** A free waits for the pending users of the allocation it frees. */
    FREE_WAITS_FOR_USERS,
    /**
     * A host wait CUDA makes complete the legacy stream (a synchronous copy, a staged one) also
     * covers the pending work of the legacy and blocking streams whose effect the host sees, not
     * only the call's own predecessors.
     */
    HOST_WAITS_COVER_VISIBLE_WORK,
    /** A call touching memory the agent cannot see (a kernel whose code it cannot read) follows everything pending. */
    BARRIERS_FOLLOW_EVERYTHING,
    /** A high-priority call waits for the lower-priority work it depends on, on other lanes too. */
    PRIORITY_KEEPS_DEPENDENCIES,
    /** The handle {@code 0x1} names the legacy default stream, not a stream of its own. */
    LEGACY_HANDLE_IS_LEGACY_STREAM,
    /** A host function is enqueued after the work it follows; the host does not wait for that work first. */
    HOST_FUNCTIONS_QUEUE_ON_DEVICE,
    /** A staged read-back waits, device-side, for the work it must follow before it is queued. */
    STAGED_READS_JOIN_THEIR_WORK,
    /** A stream query counts work CUDA completed for the host at an earlier synchronous copy as done. */
    STREAM_QUERIES_SEE_HOST_COMPLETION,
    /** An event query counts a record CUDA completed for the host at an earlier synchronous copy as done. */
    EVENT_QUERIES_SEE_HOST_COMPLETION,
    /** A held window replays a graph only where the kernels, memory and scalar arguments all match. */
    REPLAY_MATCHES_SCALAR_ARGUMENTS,
    /** The PTX analysis follows a pointer through the difference of two pointers. */
    POINTER_DIFFERENCES_KEEP_PROVENANCE,
    /** A kernel that prints is a barrier, so that its output keeps its place among every launch's. */
    PRINTING_KERNELS_ARE_BARRIERS,
    /** A stream callback moved to an agent stream is told the application's stream. */
    CALLBACKS_SEE_APPLICATION_STREAM,
    /** Launches merged into one never write bytes another of them writes or reads. */
    MERGED_INSTANCES_NEVER_OVERLAP,
    /** A merged launch's table gives each instance its own grid. */
    MERGED_TABLE_KEEPS_EACH_GRID,
    /**
     * At the hand-back, each stream waits for what a synchronize of it would (a per-thread default
     * stream on its own thread), not only the legacy and non-blocking streams for everything.
     */
    HAND_BACK_JOINS_EACH_STREAM
  }

  /**
   * Every rule and the canonical call table: what the agent keeps. Made at the agent's start, it
   * leaves the table unparsed until the first call reads it.
   */
  public static final OrderingRules CUDA = new OrderingRules(EnumSet.allOf(Rule.class), null);

  private final Set<Rule> kept;
  /** A table broken on purpose, or null for the canonical one. */
  private final CudaCallTable table;

  private OrderingRules(Set<Rule> kept, CudaCallTable table) {
    this.kept = kept;
    this.table = table;
  }

  /** Whether {@code rule} is kept: always, but in the fuzz's broken schedulers. */
  public boolean keeps(Rule rule) {
    return kept.contains(rule);
  }

  /** The rows calls are placed by. */
  public CudaCallTable table() {
    return table != null ? table : CudaCallTable.canonical();
  }

  /** These rules but {@code rule}: a scheduler deliberately broken there. */
  public OrderingRules without(Rule rule) {
    EnumSet<Rule> fewer = EnumSet.copyOf(kept);
    fewer.remove(rule);
    return new OrderingRules(fewer, table);
  }

  /** These rules, placing calls by {@code table} (a table with a row deliberately broken). */
  public OrderingRules withTable(CudaCallTable table) {
    return new OrderingRules(kept, Objects.requireNonNull(table, "table"));
  }

  /** Whether these are CUDA's rules and table, as on every real run. */
  public boolean isCuda() {
    return kept.size() == Rule.values().length && table == null;
  }

  @Override
  public String toString() {
    EnumSet<Rule> dropped = EnumSet.complementOf(EnumSet.copyOf(kept));
    return isCuda() ? "CUDA's rules" : "CUDA's rules without " + dropped
        + (table == null ? "" : ", a row of the call table broken");
  }
}
