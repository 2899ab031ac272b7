package dev.kernelweave.ptx;

import java.util.Arrays;
import java.util.List;
import java.util.Objects;

/**
 * How one {@code .entry} of a PTX module uses the memory its parameters point to. Immutable and
 * thread-safe.
 *
 * <p>Invariants: {@link #use(int)} is never optimistic (see {@link ParameterUse}). When
 * {@link #touchesOtherMemory()} is true the kernel may also load or store global memory that no
 * parameter names (pointers loaded from memory, module variables, unknown calls): the parameter
 * uses are then not the whole story, and a caller must order the launch against all other work.
 *
 * <p>Parameters narrower than a pointer are never pointers: they are V. An 8-byte scalar scaled by
 * a constant (an element index) is an index and stays V; one added to a pointer unscaled or
 * multiplied by a run-time value (a pitch) cannot be told from a pointer in PTX and gets the use
 * of the address it helps form. A caller that matches parameter values against its allocations
 * is not misled by that.
 */
public final class KernelAccessSummary {
  private final String name;
  private final ParameterUse[] uses;
  private final int[] sizes;
  private final boolean otherMemory;

  /**
   * @param uses one per parameter, in declaration order
   * @param sizes bytes of each parameter as declared; 0 where the type was not understood
   */
  public KernelAccessSummary(String name, List<ParameterUse> uses, int[] sizes, boolean otherMemory) {
    this.name = Objects.requireNonNull(name, "name");
    this.uses = uses.toArray(new ParameterUse[0]);
    for (ParameterUse u : this.uses) Objects.requireNonNull(u, "use");
    if (sizes.length != this.uses.length) {
      throw new IllegalArgumentException(sizes.length + " sizes for " + this.uses.length + " parameters");
    }
    this.sizes = sizes.clone();
    this.otherMemory = otherMemory;
  }

  /** The summary to assume when nothing is known: every parameter RW, and other memory. */
  public static KernelAccessSummary unknown(String name, int[] sizes) {
    return new KernelAccessSummary(name, java.util.Collections.nCopies(sizes.length, ParameterUse.RW), sizes, true);
  }

  /** The entry's name as the module spells it (mangled for C++ kernels). */
  public String name() {
    return name;
  }

  public int parameterCount() {
    return uses.length;
  }

  /** @throws IndexOutOfBoundsException unless {@code 0 <= i < parameterCount()} */
  public ParameterUse use(int i) {
    return uses[i];
  }

  /** Every parameter's use, in order; unmodifiable. */
  public List<ParameterUse> uses() {
    return List.of(uses);
  }

  /** Bytes of parameter {@code i} as declared ({@code .u32}: 4, {@code .b8 p[16]}: 16); 0 if unknown. */
  public int parameterSize(int i) {
    Objects.checkIndex(i, sizes.length);
    return sizes[i];
  }

  /** Whether the kernel may touch global memory that no parameter names. */
  public boolean touchesOtherMemory() {
    return otherMemory;
  }

  @Override
  public boolean equals(Object o) {
    if (!(o instanceof KernelAccessSummary)) return false;
    KernelAccessSummary s = (KernelAccessSummary) o;
    return name.equals(s.name) && Arrays.equals(uses, s.uses) && Arrays.equals(sizes, s.sizes)
        && otherMemory == s.otherMemory;
  }

  @Override
  public int hashCode() {
    return Objects.hash(name, Arrays.hashCode(uses), Arrays.hashCode(sizes), otherMemory);
  }

  /** The command line's form: see {@link KernelSummaryFormat#line(KernelAccessSummary)}. */
  @Override
  public String toString() {
    return KernelSummaryFormat.line(this);
  }
}
