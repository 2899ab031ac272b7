package dev.kernelweave.interceptor;

import dev.kernelweave.ptx.ForwardIndexing;

import dev.kernelweave.call.AccessMode;

/**
 * What the agent knows of a kernel: its name and, when its PTX was analyzed, how it uses each
 * parameter and the variables of its module. Immutable; the arrays are never changed after
 * construction.
 *
 * @param name the kernel's name as passed to {@code cuModuleGetFunction}
 * @param parameterUses per parameter, an {@link AccessMode} ordinal or {@link #VALUE}; null when
 *     unknown, in which case every pointer is read-write
 * @param touchesOtherMemory the kernel may touch device memory that neither a parameter nor one of
 *     {@code variableAddresses} names: its launch is a barrier. Always true for a kernel whose code
 *     the agent could not read ({@link #unknown}): it may write through pointers stored in memory
 * @param variableAddresses the addresses of the module variables the kernel uses (tracked
 *     allocations of kind {@code MODULE_GLOBAL}), each once
 * @param variableModes for each of {@code variableAddresses}, the {@link AccessMode} ordinal of the
 *     kernel's use
 * @param parameterExtents for parameter {@code i}, elements {@code 2i} and {@code 2i + 1}: the bytes
 *     {@code [start, end)} from the pointer's value that its PTX proves the kernel touches through it,
 *     or {@code 0, 0} when that is not known; null when no parameter's is. See {@link #isBounded}
 * @param forwardLimits for parameter {@code i}: its PTX's proof that the kernel touches memory
 *     through it only at or above the pointer's value ({@code KernelAccessSummary.forwardLimit}): 0
 *     when not proven, {@code Long.MAX_VALUE} for every launch, else for a launch whose {@code
 *     gridDim.x * blockDim.x} is at most the value; null when none is proven. See {@link #isForward}
 */
public record KernelInfo(String name, byte[] parameterUses, boolean touchesOtherMemory,
    long[] variableAddresses, byte[] variableModes, long[] parameterExtents, long[] forwardLimits) {

  /** A parameter that is never used as a global memory address. */
  public static final byte VALUE = 3;

  private static final long[] NO_ADDRESSES = new long[0];
  private static final byte[] NO_MODES = new byte[0];

  public KernelInfo {
    if (variableAddresses.length != variableModes.length) {
      throw new IllegalArgumentException(variableAddresses.length + " addresses, " + variableModes.length + " modes");
    }
    if (parameterExtents != null && parameterExtents.length % 2 != 0) {
      throw new IllegalArgumentException(parameterExtents.length + " extent bounds: not start, end pairs");
    }
  }

  /** A kernel with no parameter proven forward-only. */
  public KernelInfo(String name, byte[] parameterUses, boolean touchesOtherMemory,
      long[] variableAddresses, byte[] variableModes, long[] parameterExtents) {
    this(name, parameterUses, touchesOtherMemory, variableAddresses, variableModes, parameterExtents, null);
  }

  /** A kernel whose every parameter may touch the whole allocation it points into. */
  public KernelInfo(String name, byte[] parameterUses, boolean touchesOtherMemory,
      long[] variableAddresses, byte[] variableModes) {
    this(name, parameterUses, touchesOtherMemory, variableAddresses, variableModes, null);
  }

  /** A kernel that uses no module variable. */
  public KernelInfo(String name, byte[] parameterUses, boolean touchesOtherMemory) {
    this(name, parameterUses, touchesOtherMemory, NO_ADDRESSES, NO_MODES);
  }

  /**
   * A kernel whose code the agent cannot read (a cubin, a fatbin, a library kernel, {@code ptx=off},
   * a handle never seen through {@code cuModuleGetFunction}): every pointer read-write, and a barrier.
   */
  public static KernelInfo unknown(String name) {
    return new KernelInfo(name, null, true);
  }

  /** How the kernel uses parameter {@code i}: an AccessMode ordinal, {@link #VALUE}, or read-write when unknown. */
  public int use(int i) {
    if (parameterUses == null || i >= parameterUses.length) {
      return AccessMode.READ_WRITE.ordinal();
    }
    return parameterUses[i];
  }

  /**
   * Whether the kernel touches memory through parameter {@code i} only in {@code [value +
   * extentStart(i), value + extentEnd(i))}; when false, anywhere in the allocation the value falls in.
   */
  public boolean isBounded(int i) {
    return parameterExtents != null && 2 * i + 1 < parameterExtents.length
        && parameterExtents[2 * i] < parameterExtents[2 * i + 1];
  }

  /** The first byte of parameter {@code i}'s extent from its value; meaningful only when {@link #isBounded}. */
  public long extentStart(int i) {
    return parameterExtents[2 * i];
  }

  /** One past the last byte of parameter {@code i}'s extent from its value; meaningful only when {@link #isBounded}. */
  public long extentEnd(int i) {
    return parameterExtents[2 * i + 1];
  }

  /**
   * Whether, for a launch of {@code gridX} blocks of {@code blockX} threads in x (unsigned, as the
   * driver takes them), the kernel touches memory through parameter {@code i} only at or above the
   * pointer's value: a pointer one past the end of one allocation then names only the allocation it
   * falls in. Allocation-free.
   */
  public boolean isForward(int i, int gridX, int blockX) {
    if (forwardLimits == null || i >= forwardLimits.length) {
      return false;
    }
    long limit = forwardLimits[i];
    if (limit == Long.MAX_VALUE) {
      return true; // whatever the launch
    }
    long threads = Integer.toUnsignedLong(gridX) * Integer.toUnsignedLong(blockX); // < 2^64: unsigned
    return limit > 0 && threads != 0 && Long.compareUnsigned(threads, limit) <= 0; // 0: dimensions not known
  }

  /**
   * The parameter whose value decides whether parameter {@code i} is forward-only ({@code
   * ForwardIndexing.isConditional}), or -1 when its proof reads no parameter.
   */
  public int forwardConditionParameter(int i) {
    return forwardLimits != null && i < forwardLimits.length && ForwardIndexing.isConditional(forwardLimits[i])
        ? ForwardIndexing.conditionParameter(forwardLimits[i]) : -1;
  }

  /**
   * {@link #isForward(int, int, int)} for a parameter whose proof reads parameter {@link
   * #forwardConditionParameter}, which holds the 32 bits {@code conditionValue} in this launch.
   */
  public boolean isForward(int i, int gridX, int blockX, int conditionValue) {
    if (forwardConditionParameter(i) < 0) {
      return isForward(i, gridX, blockX);
    }
    long threads = Integer.toUnsignedLong(gridX) * Integer.toUnsignedLong(blockX);
    return ForwardIndexing.holds(forwardLimits[i], threads, conditionValue);
  }
}
