package dev.kernelweave.calltable;

import dev.kernelweave.call.CallKind;
import dev.kernelweave.call.CallRecord;
import dev.kernelweave.scheduler.Placement;

/**
 * One row of the {@link CudaCallTable}: everything the agent decides about an intercepted function
 * from the function alone. What depends on the call's arguments (which allocation a pointer falls
 * in, whether a copy can be staged) is decided by the pipeline that reads the row.
 *
 * <p>Immutable, and so safe to share between threads.
 */
public final class CudaCall {

  /** An argument index the function does not have. */
  public static final int NONE = -1;

  private final int id;
  private final String name;
  private final CallKind kind;
  private final Placement placement;
  private final Placement stagedPlacement;
  private final WindowEffect windows;
  private final HostBlocking blocksHost;
  private final int streamArgument;
  private final int sizeFactorArgument;
  private final int elementSize;
  private final boolean touchesUnseenMemory;
  private final Operand[] operands;
  private final boolean runsAsWrittenUntilEngaged;
  private final boolean disengagesTheAgent;

  CudaCall(int id, String name, CallKind kind, Placement placement, Placement stagedPlacement, WindowEffect windows,
      HostBlocking blocksHost, int streamArgument, int sizeFactorArgument, int elementSize,
      boolean touchesUnseenMemory, Operand[] operands) {
    this.id = id;
    this.name = name;
    this.kind = kind;
    this.placement = placement;
    this.stagedPlacement = stagedPlacement;
    this.windows = windows;
    this.blocksHost = blocksHost;
    this.streamArgument = streamArgument;
    this.sizeFactorArgument = sizeFactorArgument;
    this.elementSize = elementSize;
    this.touchesUnseenMemory = touchesUnseenMemory;
    this.operands = operands.clone();
    this.disengagesTheAgent = name.startsWith("cuStreamWaitValue") || name.equals("cuStreamBatchMemOp");
    this.runsAsWrittenUntilEngaged = switch (kind) {
      case LAUNCH, COPY_HOST_TO_DEVICE, COPY_DEVICE_TO_HOST, COPY_DEVICE_TO_DEVICE, MEMSET, BLAS, SYNC, OPAQUE -> true;
      case EVENT -> placement == Placement.EVENT_RECORD || placement == Placement.STREAM_WAIT_EVENT;
      case STREAM -> placement == Placement.STREAM_QUERY;
      default -> false;
    };
  }

  /**
   * Whether the call may run as written, untracked, before the agent engages ({@code
   * interceptor/Engagement}): device work and host waits, whose whole effect is on the device and on
   * what the host sees of it. What the agent must know later (allocations, modules, contexts,
   * streams, events and cuBLAS handles made or ended) is tracked from the first call.
   */
  public boolean runsAsWrittenUntilEngaged() {
    return runsAsWrittenUntilEngaged;
  }

  /** Whether the agent must engage before the call: a capture's begin or end, which the agent must see whole. */
  public boolean engagesTheAgent() {
    return placement == Placement.CAPTURE_BEGIN || placement == Placement.CAPTURE_END;
  }

  /**
   * Whether the agent stops scheduling at this call and hands every later call back to the program:
   * a stream's wait for a value in memory ({@code cuStreamWaitValue32/64}, and {@code
   * cuStreamBatchMemOp}, which may hold such waits). Such a wait may be for a write the program
   * enqueues later on another stream; whatever the agent orders after the wait, beyond the waiting
   * stream's own later work, could then wait for itself.
   */
  public boolean disengagesTheAgent() {
    return disengagesTheAgent;
  }

  /** The same row with another placement, staged placement and blocking: how the self-test breaks a row. */
  public CudaCall placedAs(Placement newPlacement, Placement newStaged, HostBlocking newBlocking) {
    return new CudaCall(id, name, kind, newPlacement, newStaged, windows, newBlocking, streamArgument,
        sizeFactorArgument, elementSize, touchesUnseenMemory, operands);
  }

  /** Whether the function is the runtime API's ({@code cuda*}), whose streams are {@code cudaStream_t}s. */
  public boolean ofTheRuntimeApi() {
    return name.startsWith("cuda");
  }

  /** The row's index in its table, which woven advice carries as a constant. */
  public int id() {
    return id;
  }

  /** The function's name; for a row shared by a family of functions, the family's, in parentheses. */
  public String name() {
    return name;
  }

  /** How the journal files the call. */
  public CallKind kind() {
    return kind;
  }

  /** How the call takes part in scheduling when nothing about its arguments changes that. */
  public Placement placement() {
    return placement;
  }

  /**
   * The placement of the call when the agent makes it through its own page-locked buffers
   * ({@link Placement#STAGED}, {@link Placement#STAGED_READ}); {@link Placement#NONE} when it never does.
   */
  public Placement stagedPlacement() {
    return stagedPlacement;
  }

  /** Whether the agent may make the call through its own page-locked buffers ({@link #stagedPlacement}). */
  public boolean canBeStaged() {
    return stagedPlacement != Placement.NONE;
  }

  /** What the call means for the launches its context holds. */
  public WindowEffect windows() {
    return windows;
  }

  /** Whether the call may itself be held for a graph. */
  public boolean mayBeHeld() {
    return windows == WindowEffect.MAY_BE_HELD;
  }

  /** Whether CUDA returns from the call only once its work is done. */
  public HostBlocking blocksHost() {
    return blocksHost;
  }

  /** The argument holding the stream, {@link #NONE} for a call on the legacy default stream or none. */
  public int streamArgument() {
    return streamArgument;
  }

  /** Bytes per element of the size argument. */
  public int elementSize() {
    return elementSize;
  }

  /**
   * The bytes the call touches, from the values of its size argument (in elements of {@link
   * #elementSize} bytes) and, where it has one, the argument the size is multiplied by (a 2D
   * memset's height; {@code factor} is ignored otherwise).
   */
  public long bytes(long size, long factor) {
    return sizeFactorArgument == NONE ? size * elementSize : size * factor;
  }

  /** Whether the call touches memory the agent cannot see (a host function, a stream memory operation): a barrier on its stream. */
  public boolean touchesUnseenMemory() {
    return touchesUnseenMemory;
  }

  /** The number of pointer operands. */
  public int operandCount() {
    return operands.length;
  }

  /** Operand {@code k}, in the order the call's accesses are recorded. */
  public Operand operand(int k) {
    return operands[k];
  }

  /** Fills what the row says of a call into its record: its kind, and a barrier where it touches unseen memory. */
  public void describe(CallRecord r) {
    r.kind = kind;
    if (touchesUnseenMemory) {
      r.barrier = true;
      r.touchesUnknownMemory = true;
    }
  }

  @Override
  public String toString() {
    return name + " (" + kind + ", " + placement + (stagedPlacement == Placement.NONE ? "" : " or " + stagedPlacement)
        + ", " + windows + ")";
  }
}
