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
  OPAQUE;

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
