package dev.kernelweave.interceptor.cublas;

import static dev.kernelweave.text.ConstantNames.constantNamed;

import dev.kernelweave.call.AccessMode;

/**
 * What a {@code JCublas2} routine does with one of its parameters.
 *
 * <p>Roles describe the memory a parameter's value points at, never the Java object: a
 * {@code cublasHandle}, an {@code int} leading dimension or a {@code cudaStream_t} is {@link #NONE}.
 * Where cuBLAS lets a routine skip an operand (geam's B when beta is zero, getrfBatched's pivot
 * array), the application may pass a null pointer; the role then names no memory.
 *
 * <p>Outputs that the routine may also read are {@link #READ_WRITE} (gemm's C, which is read unless
 * beta is zero; axpy's y; trsm's B). Pure outputs are {@link #WRITE}. Aliasing between operands
 * (trmm with C == B, geam with C == A) is not a role: the agent finds it by address.
 */
public enum BlasOperandRole {
  /** Not memory: the handle, sizes, increments, leading dimensions, strides, enums, streams. */
  NONE(""),
  /** Device memory the routine reads. */
  READ("R"),
  /** Device memory the routine writes and never reads. */
  WRITE("W"),
  /** Device memory the routine may read and writes. */
  READ_WRITE("RW"),
  /**
   * A scalar input (alpha, beta, rot's c and s, rotm's param). In host pointer mode it is host
   * memory, read before the call returns; in device pointer mode it is device memory the routine
   * reads on its stream.
   */
  SCALAR_IN("SI"),
  /**
   * A scalar result (dot, nrm2, asum, amax and amin results; rotg's c and s; rotmg's param). In host
   * pointer mode it is host memory and the call returns only once the result is there, so the call
   * is synchronous: it waits for the routine and everything the routine depends on. In device
   * pointer mode it is device memory the routine writes on its stream. A Java array parameter (the
   * {@code long[] result} of the 64-bit amax and amin) is always host memory.
   */
  SCALAR_OUT("SO"),
  /** A scalar read and overwritten (rotg's a and b; rotmg's d1, d2 and x1); host or device as {@link #SCALAR_IN}. */
  SCALAR_IN_OUT("SIO"),
  /**
   * A device array of device pointers (Aarray, Barray, xarray) whose matrices the routine reads.
   * The routine reads the array itself; the agent cannot see the pointers in it without reading
   * device memory, so it treats such calls as barriers.
   */
  POINTER_ARRAY_READ("PR"),
  /** A device array of device pointers whose matrices the routine writes and never reads (getriBatched's C, matinvBatched's Ainv). */
  POINTER_ARRAY_WRITE("PW"),
  /** A device array of device pointers whose matrices the routine may read and writes (gemmBatched's Carray, trsmBatched's B). */
  POINTER_ARRAY_READ_WRITE("PRW"),
  /** A device status or pivot array the routine writes (getrfBatched's P and info, matinvBatched's info): write semantics. */
  INFO_OUT("INFO"),
  /** Host memory the call reads before it returns (SetVector's source), or, for the Async copies, on the stream. */
  HOST_READ("HR"),
  /**
   * Host memory the call writes: GetVector's destination (before it returns; on the stream for the
   * Async copies), the host {@code info} of getrsBatched, geqrfBatched and gelsBatched (parameter
   * validation, written before the call returns), and the Java arrays of the Get... settings.
   */
  HOST_WRITE("HW");

  private static final BlasOperandRole[] BY_ORDINAL = values();

  private final String code;

  BlasOperandRole(String code) {
    this.code = code;
  }

  /** The short code of the generated table: empty for {@link #NONE}, else R, W, RW, SI, SO, SIO, PR, PW, PRW, INFO, HR or HW. */
  public String code() {
    return code;
  }

  /** The role with the given {@link #code()}. */
  public static BlasOperandRole ofCode(String code) {
    BlasOperandRole role = constantNamed(BY_ORDINAL, BlasOperandRole::code, code);
    if (role == null) {
      throw new IllegalArgumentException("no operand role with code '" + code + "'");
    }
    return role;
  }

  /**
   * Whether the parameter always points at device memory: {@link #READ}, {@link #WRITE},
   * {@link #READ_WRITE}, {@link #INFO_OUT} and the pointer arrays. Scalars are device memory only in
   * device pointer mode: see {@link #followsPointerMode()}.
   */
  public boolean isDeviceMemory() {
    return switch (this) {
      case READ, WRITE, READ_WRITE, INFO_OUT,
          POINTER_ARRAY_READ, POINTER_ARRAY_WRITE, POINTER_ARRAY_READ_WRITE -> true;
      default -> false;
    };
  }

  /** Whether the parameter is a scalar whose memory, host or device, follows the handle's pointer mode. */
  public boolean followsPointerMode() {
    return this == SCALAR_IN || this == SCALAR_OUT || this == SCALAR_IN_OUT;
  }

  /** Whether the parameter is a device array of device pointers. */
  public boolean isPointerArray() {
    return this == POINTER_ARRAY_READ || this == POINTER_ARRAY_WRITE || this == POINTER_ARRAY_READ_WRITE;
  }

  /** Whether the parameter is always host memory. */
  public boolean isHostMemory() {
    return this == HOST_READ || this == HOST_WRITE;
  }

  /**
   * What the routine does to the memory the parameter's value points at, wherever that memory
   * lives; {@code null} for {@link #NONE}. A pointer array is only read: what happens to the
   * matrices it points to is {@link #pointeeAccess()}. {@link #INFO_OUT} is a write.
   */
  public AccessMode access() {
    return switch (this) {
      case NONE -> null;
      case READ, SCALAR_IN, HOST_READ,
          POINTER_ARRAY_READ, POINTER_ARRAY_WRITE, POINTER_ARRAY_READ_WRITE -> AccessMode.READ;
      case WRITE, SCALAR_OUT, INFO_OUT, HOST_WRITE -> AccessMode.WRITE;
      case READ_WRITE, SCALAR_IN_OUT -> AccessMode.READ_WRITE;
    };
  }

  /** For a pointer array, what the routine does to the matrices it points to; {@code null} for every other role. */
  public AccessMode pointeeAccess() {
    return switch (this) {
      case POINTER_ARRAY_READ -> AccessMode.READ;
      case POINTER_ARRAY_WRITE -> AccessMode.WRITE;
      case POINTER_ARRAY_READ_WRITE -> AccessMode.READ_WRITE;
      default -> null;
    };
  }

  public static BlasOperandRole ofOrdinal(int ordinal) {
    return BY_ORDINAL[ordinal];
  }
}
