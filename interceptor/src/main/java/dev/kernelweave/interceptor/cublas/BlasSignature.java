package dev.kernelweave.interceptor.cublas;

/**
 * The kind of one {@code JCublas2} method and the {@link BlasOperandRole} of each of its
 * parameters, from {@link BlasOperandRoles#lookup}.
 *
 * <p>Invariants: {@link #role(int)} is defined for every index in {@code [0, parameterCount())};
 * every parameter that is not memory has role {@link BlasOperandRole#NONE}; {@link #handleIndex()}
 * is 0 when the method takes a {@code cublasHandle} (always as its first parameter, and always for
 * a {@link BlasRoutineKind#DEVICE_ROUTINE}) and -1 otherwise; the operand indices list, in order,
 * exactly the parameters whose role is not {@code NONE}. An {@link BlasRoutineKind#UNKNOWN}
 * signature has no name, no descriptor and only {@code NONE} roles.
 *
 * <p>Instances are immutable and shared; every method is safe from any thread, and every method
 * but {@link #toString()} allocates nothing.
 */
public final class BlasSignature {

  private static final BlasOperandRole[] NO_ROLES = new BlasOperandRole[0];
  private static final String[] NO_NAMES = new String[0];
  private static final int[] NO_INDICES = new int[0];

  private final String name;
  private final String descriptor;
  private final BlasRoutineKind kind;
  private final String delegatesTo;
  private final int parameterCount;
  private final String[] parameterNames;
  private final BlasOperandRole[] roles;
  private final int[] operandIndices;
  private final int handleIndex;
  private final int streamIndex;
  private final boolean pointerArrays;
  private final boolean scalarOutputs;
  /** Where the routine's dimensions are among its parameters; null for a routine without extents. */
  private final BlasOperandExtents.Routine extents;

  BlasSignature(
      String name,
      String descriptor,
      BlasRoutineKind kind,
      String delegatesTo,
      String[] parameterNames,
      BlasOperandRole[] roles,
      int handleIndex,
      int streamIndex) {
    if (parameterNames.length != roles.length) {
      throw new IllegalArgumentException(name + ": " + parameterNames.length + " names, " + roles.length + " roles");
    }
    this.name = name;
    this.descriptor = descriptor;
    this.kind = kind;
    this.delegatesTo = delegatesTo;
    this.parameterCount = roles.length;
    this.parameterNames = parameterNames.clone();
    this.roles = roles.clone();
    this.handleIndex = handleIndex;
    this.streamIndex = streamIndex;
    int operands = 0;
    boolean arrays = false;
    boolean outputs = false;
    for (BlasOperandRole role : roles) {
      if (role != BlasOperandRole.NONE) {
        operands++;
      }
      arrays |= role.isPointerArray();
      outputs |= role == BlasOperandRole.SCALAR_OUT || role == BlasOperandRole.SCALAR_IN_OUT;
    }
    this.operandIndices = new int[operands];
    for (int i = 0, k = 0; i < roles.length; i++) {
      if (roles[i] != BlasOperandRole.NONE) {
        operandIndices[k++] = i;
      }
    }
    this.pointerArrays = arrays;
    this.scalarOutputs = outputs;
    this.extents = BlasOperandExtents.routine(name, this.parameterNames);
  }

  /** An {@link BlasRoutineKind#UNKNOWN} signature of the given arity. */
  private BlasSignature(int parameterCount) {
    this.name = "";
    this.descriptor = "";
    this.kind = BlasRoutineKind.UNKNOWN;
    this.delegatesTo = null;
    this.parameterCount = parameterCount;
    this.parameterNames = NO_NAMES;
    this.roles = NO_ROLES;
    this.operandIndices = NO_INDICES;
    this.handleIndex = -1;
    this.streamIndex = -1;
    this.pointerArrays = false;
    this.scalarOutputs = false;
    this.extents = null;
  }

  static BlasSignature unknown(int parameterCount) {
    return new BlasSignature(parameterCount);
  }

  /** The {@code JCublas2} method name; empty for an {@link BlasRoutineKind#UNKNOWN} signature from a failed lookup. */
  public String name() {
    return name;
  }

  /** The method's JVM descriptor, e.g. {@code (Ljcuda/jcublas/cublasHandle;IIIIILjcuda/Pointer;...)I}; empty for a failed lookup. */
  public String descriptor() {
    return descriptor;
  }

  public BlasRoutineKind kind() {
    return kind;
  }

  /**
   * The public {@code JCublas2} method this one is a Java wrapper of, or {@code null}. In JCublas
   * 12.6.0, {@code cublasGemmEx}, {@code cublasGemmBatchedEx} and {@code cublasGemmStridedBatchedEx}
   * call {@code cublasGetMathMode} and then their {@code _new} twin, which does the work: an agent
   * that intercepts both must not count the routine twice.
   */
  public String delegatesTo() {
    return delegatesTo;
  }

  public int parameterCount() {
    return parameterCount;
  }

  /**
   * The role of a parameter.
   *
   * @throws IndexOutOfBoundsException unless {@code 0 <= parameterIndex < parameterCount()}
   */
  public BlasOperandRole role(int parameterIndex) {
    checkParameter(parameterIndex);
    return roles == NO_ROLES ? BlasOperandRole.NONE : roles[parameterIndex];
  }

  /**
   * The parameter's name in the JCublas sources (A, lda, x, incx, alpha, Aarray, info...); empty for
   * an {@link BlasRoutineKind#UNKNOWN} signature.
   *
   * @throws IndexOutOfBoundsException unless {@code 0 <= parameterIndex < parameterCount()}
   */
  public String parameterName(int parameterIndex) {
    checkParameter(parameterIndex);
    return parameterNames == NO_NAMES ? "" : parameterNames[parameterIndex];
  }

  private void checkParameter(int parameterIndex) {
    if (parameterIndex < 0 || parameterIndex >= parameterCount) {
      throw new IndexOutOfBoundsException("parameter " + parameterIndex + " of " + parameterCount);
    }
  }

  /** How many parameters have a role other than {@link BlasOperandRole#NONE}. */
  public int operandCount() {
    return operandIndices.length;
  }

  /**
   * The parameter index of the {@code k}-th parameter whose role is not {@link BlasOperandRole#NONE},
   * in parameter order.
   *
   * @throws IndexOutOfBoundsException unless {@code 0 <= k < operandCount()}
   */
  public int operandIndex(int k) {
    return operandIndices[k];
  }

  /**
   * The index of the {@code cublasHandle} parameter, whose stream the routine runs on: 0 where the
   * method takes a handle, -1 otherwise (copies, library-wide settings).
   */
  public int handleIndex() {
    return handleIndex;
  }

  /**
   * The index of a {@code cudaStream_t} parameter, or -1: the stream of the {@code Async} copies, the
   * stream set or reported by {@code cublasSetStream} and {@code cublasGetStream}. Its role is
   * {@link BlasOperandRole#NONE}.
   */
  public int streamIndex() {
    return streamIndex;
  }

  /** Whether a parameter is a device array of device pointers: the agent cannot see what the call touches. */
  public boolean hasPointerArrays() {
    return pointerArrays;
  }

  /**
   * Whether the routine writes a scalar ({@link BlasOperandRole#SCALAR_OUT} or
   * {@link BlasOperandRole#SCALAR_IN_OUT}): in host pointer mode such a call does not return before
   * the routine has finished.
   */
  public boolean hasScalarOutputs() {
    return scalarOutputs;
  }

  /** The routine's extents ({@link BlasOperandExtents}), or null. */
  BlasOperandExtents.Routine extents() {
    return extents;
  }

  /** The name, kind and roles, e.g. {@code cublasSaxpy DEVICE_ROUTINE handle n alpha:SI x:R incx y:RW incy}. */
  @Override
  public String toString() {
    StringBuilder s = new StringBuilder(kind == BlasRoutineKind.UNKNOWN && name.isEmpty() ? "?" : name)
        .append(' ')
        .append(kind);
    if (parameterNames == NO_NAMES) {
      s.append(" (").append(parameterCount).append(" parameters)");
    }
    for (int i = 0; i < parameterNames.length; i++) {
      s.append(' ').append(parameterNames[i]);
      if (roles[i] != BlasOperandRole.NONE) {
        s.append(':').append(roles[i].code());
      }
    }
    return s.toString();
  }
}
