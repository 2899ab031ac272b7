package dev.kernelweave.call;

/**
 * The families of intercepted calls, by what they mean for ordering. The scheduler decides from the
 * kind and the accesses alone, never from the call's name.
 */
public enum CallKind {
  /** A kernel launch. */
  LAUNCH,
  /** A copy from host to device memory. */
  COPY_HOST_TO_DEVICE,
  /** A copy from device to host memory. */
  COPY_DEVICE_TO_HOST,
  /** A copy between two device allocations. */
  COPY_DEVICE_TO_DEVICE,
  /** A memset of device memory. */
  MEMSET,
  /** A cuBLAS routine. */
  BLAS,
  /** An allocation of device, pinned host or managed memory. */
  ALLOC,
  /** A free of memory the agent saw allocated. */
  FREE,
  /** A host wait: context, device, stream or event synchronization. */
  SYNC,
  /** Stream creation, destruction or query. */
  STREAM,
  /** Event creation, recording, waiting or query. */
  EVENT,
  /** Module loading and function or global lookup. */
  MODULE,
  /** Context and device management. */
  CONTEXT,
  /** Host-only calls that touch no device work: versions, attributes, handles, settings. */
  HOST,
  /** Anything the agent does not understand: a full barrier. */
  OPAQUE,
  /**
   * Not a call: the device time of one sampled execution of a window the agent issued, journaled
   * once the device passed it, numbered in the calls' sequence. {@code durationNanos} is the device's
   * time on the lane, {@code bytes} the host's time to issue the window, {@code graphWindow} the
   * window's number (a replay's) or 0, {@code stream} its lane, {@code appStream} its shape,
   * {@code name} the way it was issued ({@link #WINDOW_AS_GRAPH} or {@link #WINDOW_IN_ORDER}),
   * {@code kernel} the shape's verdict after this sample (one of those, or empty before both ways
   * have their samples), {@code startNanos} when the host began to issue it.
   */
  WINDOW_TIME;

  /** {@link #WINDOW_TIME}'s way: the window's graph was replayed. */
  public static final String WINDOW_AS_GRAPH = "graph";
  /** {@link #WINDOW_TIME}'s way: the window's launches were issued one after another on one lane. */
  public static final String WINDOW_IN_ORDER = "in order";

  private static final CallKind[] BY_ORDINAL = values();

  public static CallKind ofOrdinal(int ordinal) {
    return BY_ORDINAL[ordinal];
  }

  /** Whether calls of this kind put work on the device that other calls may depend on. */
  public boolean isDeviceWork() {
    return switch (this) {
      case LAUNCH, COPY_HOST_TO_DEVICE, COPY_DEVICE_TO_HOST, COPY_DEVICE_TO_DEVICE, MEMSET, BLAS -> true;
      default -> false;
    };
  }
}
