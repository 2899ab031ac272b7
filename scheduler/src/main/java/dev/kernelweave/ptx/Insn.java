package dev.kernelweave.ptx;

/**
 * One PTX instruction, reduced to what provenance analysis needs: which values flow where, and
 * which memory is touched through which address.
 *
 * <p>Operands are references: a value {@code >= 0} names a variable of the enclosing function
 * (a register, or a {@code .param} variable of a {@code .func}); a negative value is one of the
 * constants of {@link Ref}. Instances are built once by the parser and never changed afterwards.
 */
final class Insn {

  /** Dests receive the union of the sources. */
  static final byte MOVE = 0;
  /** Add, sub, mad, mul, shl: each source is a term, possibly scaled by a constant. */
  static final byte SUM = 1;
  static final byte LOAD = 2;
  static final byte STORE = 3;
  static final byte ATOMIC = 4;
  /** Asynchronous copy: {@link #addr} is the destination, {@link #addr2} the source. */
  static final byte COPY = 5;
  static final byte CALL = 6;
  /** Texture and surface access: memory no parameter names. */
  static final byte OPAQUE = 7;
  /** A memory instruction this analysis does not model: the worst is assumed. */
  static final byte FALLBACK = 8;

  // Flags of a MOVE's result or of one SUM term.
  /** Scaled by a constant of magnitude 2 or more: an index, not an address. */
  static final byte SCALED = 1;
  /** May rebuild a full-width value from narrow pieces (pack, wide shift): see {@link Ref#PART}. */
  static final byte PROMOTE = 2;
  /** May undo a scaling (shift right, divide, unknown operation). */
  static final byte RESTORE = 4;

  // State spaces.
  static final byte GENERIC = 0;
  static final byte GLOBAL = 1;
  static final byte SHARED = 2;
  static final byte LOCAL = 3;
  static final byte CONST = 4;
  static final byte PARAM = 5;

  // Call targets.
  static final byte CALL_DIRECT = 0;
  static final byte CALL_UNKNOWN = 1;
  static final byte CALL_PRINT = 2;
  static final byte CALL_ALLOC = 3;

  static final int[] NONE = new int[0];

  final byte kind;
  /** For MOVE: flags applied to the union. */
  byte flags;
  /** For SUM: flags of each source term, same length as {@link #srcs}. */
  byte[] termFlags;
  int[] dsts = NONE;
  int[] srcs = NONE;

  int[] addr = NONE;
  byte space;
  /** Bytes per element of a load or store; a narrower value cannot hold a whole pointer. */
  int width;
  /** For PARAM-space access through a {@code .param} variable of a function: that variable. */
  int paramVar = -1;
  int[] addr2 = NONE;
  byte space2;
  /** A COPY that reduces into its destination reads it too. */
  boolean reduce;

  /**
   * For a MOVE or SUM: the result is exactly {@code srcs[0] + displacement}, pointer-wide ({@code mov},
   * {@code cvta} to or from global, {@code add} or {@code sub} of an immediate). For a load, store or
   * atomic: its address is exactly {@code addr[0] + displacement}, one value plus a constant
   * ({@code [%rd1+8]}, {@code [k_param_0]}). False where anything else may enter the value.
   */
  boolean displaced;
  /** The constant of {@link #displaced}, in bytes; may be negative. */
  long displacement;
  /**
   * For a load, store or atomic: the bytes it touches at its address, every lane of a vector
   * ({@code ld.v4.f32}: 16); 0 where that is not known (matrix and bulk forms, an unknown type).
   */
  int bytes;

  String callee;
  byte callKind;
  int[] args = NONE;
  int[] rets = NONE;

  Insn(byte kind) {
    this.kind = kind;
  }
}
