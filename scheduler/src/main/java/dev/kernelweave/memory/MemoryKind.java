package dev.kernelweave.memory;

/** Where an allocation lives, which decides who can observe it and when. */
public enum MemoryKind {
  /** {@code cuMemAlloc}, {@code cudaMalloc}: seen by the host only through copies. */
  DEVICE,
  /** {@code cuMemAllocHost}, {@code cuMemHostAlloc}, {@code cudaMallocHost}: the host reads it directly. */
  PINNED_HOST,
  /** {@code cuMemAllocManaged}: migrates on demand; the agent treats calls touching it as barriers. */
  MANAGED,
  /** A module's {@code __device__} variable, from {@code cuModuleGetGlobal}. */
  MODULE_GLOBAL;

  private static final MemoryKind[] BY_ORDINAL = values();

  public static MemoryKind ofOrdinal(int ordinal) {
    return BY_ORDINAL[ordinal];
  }
}
