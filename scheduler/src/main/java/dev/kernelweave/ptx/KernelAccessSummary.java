package dev.kernelweave.ptx;

import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * How one {@code .entry} of a PTX module uses the memory its parameters point to, and the
 * module's own variables. Immutable and thread-safe.
 *
 * <p>Invariants: {@link #use(int)}, {@link #moduleVariables()} and {@link #anyModuleVariable()}
 * are never optimistic (see {@link ParameterUse}). The memory a kernel may touch is the union of
 * what its parameters point to, the module variables named in {@link #moduleVariables()}, every
 * variable of its module when {@link #anyModuleVariable()} is not {@link ParameterUse#V}, and, when
 * {@link #touchesOtherMemory()} is true, global memory that none of these names (pointers loaded
 * from memory, unknown calls): a caller must then order the launch against all other work.
 *
 * <p>Parameters narrower than a pointer are never pointers: they are V. An 8-byte scalar scaled by
 * a constant (an element index) is an index and stays V; one added to a pointer unscaled or
 * multiplied by a run-time value (a pitch) cannot be told from a pointer in PTX and gets the use
 * of the address it helps form. A value computed from two addresses ({@code b - a}) may be the
 * distance from one allocation to another: scaled or not, every parameter it derives from gets the
 * use of the address it helps form. A caller that matches parameter values against its allocations
 * is not misled by that.
 *
 * <p>{@link #prints()}: the kernel may print (device {@code printf}, a failed {@code assert}), output
 * the host sees in launch order; a caller must keep such a launch in order with every other one.
 *
 * <p>{@link #extent(int)} narrows where in its allocation a parameter's memory is touched; it is
 * bounded only for a parameter that is not {@link ParameterUse#V}, and never optimistic (see
 * {@link ParameterExtent}).
 */
public final class KernelAccessSummary {
  private final String name;
  private final ParameterUse[] uses;
  private final int[] sizes;
  private final boolean otherMemory;
  private final Map<String, ParameterUse> variables;
  private final ParameterUse anyVariable;
  private final ParameterExtent[] extents;
  private final boolean prints;
  private final long[] forward;

  /** A kernel that uses no module variable. */
  public KernelAccessSummary(String name, List<ParameterUse> uses, int[] sizes, boolean otherMemory) {
    this(name, uses, sizes, otherMemory, Map.of(), ParameterUse.V);
  }

  /** A kernel whose every parameter's extent is unbounded. */
  public KernelAccessSummary(String name, List<ParameterUse> uses, int[] sizes, boolean otherMemory,
      Map<String, ParameterUse> variables, ParameterUse anyVariable) {
    this(name, uses, sizes, otherMemory, variables, anyVariable,
        Collections.nCopies(uses.size(), ParameterExtent.UNBOUNDED));
  }

  /**
   * @param uses one per parameter, in declaration order
   * @param sizes bytes of each parameter as declared; 0 where the type was not understood
   * @param variables the module variables the kernel reads or writes, by name, in the order of the
   *     module's text; a {@link ParameterUse#V} entry is dropped
   * @param anyVariable what the kernel may do with any variable of its module, through an address
   *     the analysis cannot tie to one (a constant-space load at a computed address, say)
   * @param extents one per parameter: where, from the pointer's value, the kernel may touch memory
   *     through it; bounded only where the use is not {@link ParameterUse#V}
   */
  public KernelAccessSummary(String name, List<ParameterUse> uses, int[] sizes, boolean otherMemory,
      Map<String, ParameterUse> variables, ParameterUse anyVariable, List<ParameterExtent> extents) {
    this(name, uses, sizes, otherMemory, variables, anyVariable, extents, false);
  }

  /**
   * The full form.
   *
   * @param prints whether the kernel may print: see {@link #prints()}
   */
  public KernelAccessSummary(String name, List<ParameterUse> uses, int[] sizes, boolean otherMemory,
      Map<String, ParameterUse> variables, ParameterUse anyVariable, List<ParameterExtent> extents, boolean prints) {
    this(name, uses, sizes, otherMemory, variables, anyVariable, extents, prints, null);
  }

  /**
   * The full form, with each parameter's forward-only proof.
   *
   * @param forward one per parameter, see {@link #forwardLimit(int)}; null: none proven
   */
  public KernelAccessSummary(String name, List<ParameterUse> uses, int[] sizes, boolean otherMemory,
      Map<String, ParameterUse> variables, ParameterUse anyVariable, List<ParameterExtent> extents, boolean prints,
      long[] forward) {
    this.prints = prints;
    this.forward = forward == null ? new long[uses.size()] : forward.clone();
    if (this.forward.length != uses.size()) {
      throw new IllegalArgumentException(this.forward.length + " forward limits for " + uses.size() + " parameters");
    }
    this.name = Objects.requireNonNull(name, "name");
    this.uses = uses.toArray(new ParameterUse[0]);
    for (ParameterUse u : this.uses) Objects.requireNonNull(u, "use");
    if (sizes.length != this.uses.length) {
      throw new IllegalArgumentException(sizes.length + " sizes for " + this.uses.length + " parameters");
    }
    this.sizes = sizes.clone();
    this.otherMemory = otherMemory;
    Map<String, ParameterUse> copy = new LinkedHashMap<>();
    variables.forEach((variable, use) -> {
      if (Objects.requireNonNull(use, "use") != ParameterUse.V) copy.put(Objects.requireNonNull(variable), use);
    });
    this.variables = Collections.unmodifiableMap(copy);
    this.anyVariable = Objects.requireNonNull(anyVariable, "anyVariable");
    this.extents = extents.toArray(new ParameterExtent[0]);
    if (this.extents.length != this.uses.length) {
      throw new IllegalArgumentException(this.extents.length + " extents for " + this.uses.length + " parameters");
    }
    for (int i = 0; i < this.extents.length; i++) {
      if (Objects.requireNonNull(this.extents[i], "extent").isBounded() && this.uses[i] == ParameterUse.V) {
        throw new IllegalArgumentException("parameter " + i + " is V but has the extent " + this.extents[i]);
      }
    }
  }

  /**
   * The summary to assume when nothing is known: every parameter and module variable RW, other
   * memory, and output.
   */
  public static KernelAccessSummary unknown(String name, int[] sizes) {
    return new KernelAccessSummary(name, Collections.nCopies(sizes.length, ParameterUse.RW), sizes, true,
        Map.of(), ParameterUse.RW, Collections.nCopies(sizes.length, ParameterExtent.UNBOUNDED), true);
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

  /**
   * Where, relative to parameter {@code i}'s value, the kernel may touch global memory through it;
   * {@link ParameterExtent#UNBOUNDED} when that is not known, and for a {@link ParameterUse#V} one.
   *
   * @throws IndexOutOfBoundsException unless {@code 0 <= i < parameterCount()}
   */
  public ParameterExtent extent(int i) {
    return extents[i];
  }

  /**
   * Whether, and for which launches, the kernel touches memory through parameter {@code i} only at
   * or above the pointer's value, never below it ({@link ForwardIndexing}): {@link
   * ForwardIndexing#NOT_PROVEN} (0) when not proven, {@link ForwardIndexing#ALWAYS}, or {@code L}: for a
   * launch whose {@code gridDim.x * blockDim.x <= L}. A caller may then take a pointer one past the end
   * of one allocation that is the base of the next to name only the next. Never optimistic.
   *
   * @throws IndexOutOfBoundsException unless {@code 0 <= i < parameterCount()}
   */
  public long forwardLimit(int i) {
    return forward[i];
  }

  /** This summary with {@link #forwardLimit(int)} replaced: one per parameter. */
  public KernelAccessSummary withForwardLimits(long[] limits) {
    return new KernelAccessSummary(name, List.of(uses), sizes, otherMemory, variables, anyVariable, List.of(extents),
        prints, limits);
  }

  /** Bytes of parameter {@code i} as declared ({@code .u32}: 4, {@code .b8 p[16]}: 16); 0 if unknown. */
  public int parameterSize(int i) {
    Objects.checkIndex(i, sizes.length);
    return sizes[i];
  }

  /** Whether the kernel may touch global memory that neither a parameter nor a module variable names. */
  public boolean touchesOtherMemory() {
    return otherMemory;
  }

  /**
   * Whether the kernel may print: it calls {@code vprintf} or {@code __assertfail}. Device output
   * reaches the host in the order the launches ran, at the host's next synchronization, so two
   * printing launches of one stream must not run out of order, nor a synchronization pass one.
   */
  public boolean prints() {
    return prints;
  }

  /**
   * The variables of the kernel's module ({@link ModuleAccessSummary#variables()}) it reads or
   * writes, by name, in the order of the module's text; never a {@link ParameterUse#V}. Unmodifiable.
   */
  public Map<String, ParameterUse> moduleVariables() {
    return variables;
  }

  /**
   * What the kernel may do with every variable of its module besides those of
   * {@link #moduleVariables()}: {@link ParameterUse#V} when its every access to one is tied to a name.
   */
  public ParameterUse anyModuleVariable() {
    return anyVariable;
  }

  @Override
  public boolean equals(Object o) {
    if (!(o instanceof KernelAccessSummary)) return false;
    KernelAccessSummary s = (KernelAccessSummary) o;
    return name.equals(s.name) && Arrays.equals(uses, s.uses) && Arrays.equals(sizes, s.sizes)
        && otherMemory == s.otherMemory && variables.equals(s.variables) && anyVariable == s.anyVariable
        && Arrays.equals(extents, s.extents) && prints == s.prints && Arrays.equals(forward, s.forward);
  }

  @Override
  public int hashCode() {
    return Objects.hash(name, Arrays.hashCode(uses), Arrays.hashCode(sizes), otherMemory, variables, anyVariable,
        Arrays.hashCode(extents), prints, Arrays.hashCode(forward));
  }

  /** The command line's form: see {@link KernelSummaryFormat#line(KernelAccessSummary)}. */
  @Override
  public String toString() {
    return KernelSummaryFormat.line(this);
  }
}
