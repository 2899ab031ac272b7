package dev.kernelweave.interceptor.cublas;

import dev.kernelweave.memory.AllocationTable;
import java.util.IdentityHashMap;
import java.util.Map;

/**
 * The bytes a cuBLAS routine may touch from an operand's pointer, from its dimensions, leading
 * dimensions, increments, strides and batch count, for the routines whose operands cuBLAS documents
 * that way: gemm (S, D, C, Z, and C/Z gemm3m), gemmStridedBatched, gemv, and the level 1 routines
 * axpy, copy, swap, dot, scal, nrm2, asum, amax and amin, in their 32- and 64-bit forms.
 *
 * <p>A matrix of {@code rows x cols} with leading dimension {@code ld} spans {@code (cols - 1) * ld
 * + rows} elements from its pointer; a batch of them {@code (batchCount - 1) * stride} more. A
 * vector of {@code n} elements with increment {@code inc} spans {@code 1 + (n - 1) * |inc|}
 * elements from its pointer, a negative increment included (BLAS then walks the same elements
 * backwards). Every other operand, every other routine, and any dimension that is not positive,
 * any negative stride, any transpose other than N, T or C, or a size that overflows, gets
 * {@link AllocationTable#WHOLE_ALLOCATION}: when unsure, the whole allocation.
 *
 * <p>Immutable after class initialization; safe from any thread; {@link #bytes} allocates nothing.
 */
public final class BlasOperandExtents {

  private enum Family { GEMM, GEMM_STRIDED_BATCHED, GEMV, LEVEL1 }

  /** A routine with extents: its family and the size of its vector and matrix elements. */
  private record Routine(Family family, int elementSize) {}

  private static final Map<BlasSignature, Routine> ROUTINES = new IdentityHashMap<>();

  static {
    for (BlasSignature s : BlasOperandRoles.signatures()) {
      Routine r = routineOf(s.name());
      if (r != null) {
        ROUTINES.put(s, r);
      }
    }
  }

  private BlasOperandExtents() {}

  /**
   * The bytes from operand {@code parameterIndex}'s pointer that the routine may touch, or
   * {@link AllocationTable#WHOLE_ALLOCATION} when they are not known.
   */
  public static long bytes(BlasSignature signature, Object[] args, int parameterIndex) {
    Routine r = ROUTINES.get(signature);
    if (r == null) {
      return AllocationTable.WHOLE_ALLOCATION;
    }
    long elements = elements(r.family(), signature, args, signature.parameterName(parameterIndex));
    return elements > 0 && elements <= Long.MAX_VALUE / r.elementSize()
        ? elements * r.elementSize() : AllocationTable.WHOLE_ALLOCATION;
  }

  /**
   * The multiply-adds the routine does, from the same dimensions: m·n·k for a gemm (times the batch
   * count), m·n for a gemv, n for a level 1 routine; -1 when not known. Allocates nothing.
   */
  public static long multiplyAdds(BlasSignature signature, Object[] args) {
    Routine r = ROUTINES.get(signature);
    if (r == null) {
      return -1;
    }
    long n = number(signature, args, "n");
    return switch (r.family()) {
      case GEMM -> product(number(signature, args, "m"), n, number(signature, args, "k"), 1);
      case GEMM_STRIDED_BATCHED -> product(number(signature, args, "m"), n, number(signature, args, "k"),
          number(signature, args, "batchCount"));
      case GEMV -> product(number(signature, args, "m"), n, 1, 1);
      case LEVEL1 -> n > 0 ? n : -1;
    };
  }

  /** {@code a·b·c·d} for positive factors whose product fits; -1 otherwise. */
  private static long product(long a, long b, long c, long d) {
    if (a <= 0 || b <= 0 || c <= 0 || d <= 0) {
      return -1;
    }
    try {
      return Math.multiplyExact(Math.multiplyExact(a, b), Math.multiplyExact(c, d));
    } catch (ArithmeticException e) {
      return -1;
    }
  }

  private static long elements(Family family, BlasSignature s, Object[] args, String operand) {
    return switch (family) {
      case GEMM -> gemmOperand(s, args, operand);
      case GEMM_STRIDED_BATCHED -> {
        long matrix = gemmOperand(s, args, operand);
        yield matrix > 0 ? batch(matrix, number(s, args, "stride" + operand), number(s, args, "batchCount")) : -1;
      }
      case GEMV -> {
        boolean transposed = transposed(number(s, args, "trans"));
        long m = number(s, args, "m");
        long n = number(s, args, "n");
        yield switch (operand) {
          case "A" -> matrix(m, n, number(s, args, "lda"));
          case "x" -> unknownTranspose(s, args, "trans") ? -1 : vector(transposed ? m : n, number(s, args, "incx"));
          case "y" -> unknownTranspose(s, args, "trans") ? -1 : vector(transposed ? n : m, number(s, args, "incy"));
          default -> -1;
        };
      }
      case LEVEL1 -> switch (operand) {
        case "x" -> vector(number(s, args, "n"), number(s, args, "incx"));
        case "y" -> vector(number(s, args, "n"), number(s, args, "incy"));
        default -> -1;
      };
    };
  }

  /** A, B or C of a gemm: {@code op(A)} is m x k, {@code op(B)} k x n, C m x n. */
  private static long gemmOperand(BlasSignature s, Object[] args, String operand) {
    long m = number(s, args, "m");
    long n = number(s, args, "n");
    long k = number(s, args, "k");
    if (m <= 0 || n <= 0 || k <= 0) {
      return -1;
    }
    return switch (operand) {
      case "A" -> unknownTranspose(s, args, "transa") ? -1 : transposed(number(s, args, "transa"))
          ? matrix(k, m, number(s, args, "lda")) : matrix(m, k, number(s, args, "lda"));
      case "B" -> unknownTranspose(s, args, "transb") ? -1 : transposed(number(s, args, "transb"))
          ? matrix(n, k, number(s, args, "ldb")) : matrix(k, n, number(s, args, "ldb"));
      case "C" -> matrix(m, n, number(s, args, "ldc"));
      default -> -1;
    };
  }

  /** {@code CUBLAS_OP_T} (1) and {@code CUBLAS_OP_C} (2) transpose; {@code CUBLAS_OP_N} (0) does not. */
  private static boolean transposed(long op) {
    return op == 1 || op == 2;
  }

  private static boolean unknownTranspose(BlasSignature s, Object[] args, String name) {
    long op = number(s, args, name);
    return op < 0 || op > 2;
  }

  /** Elements of a column-major {@code rows x cols} matrix with leading dimension {@code ld}; -1 when not positive. */
  static long matrix(long rows, long cols, long ld) {
    if (rows <= 0 || cols <= 0 || ld <= 0 || cols - 1 > (Long.MAX_VALUE - rows) / ld) {
      return -1;
    }
    return (cols - 1) * ld + rows;
  }

  /** Elements of a vector of {@code n} with increment {@code inc}, either sign; -1 when not positive. */
  static long vector(long n, long inc) {
    long step = Math.abs(inc);
    if (n <= 0 || inc == Long.MIN_VALUE || step > 0 && n - 1 > (Long.MAX_VALUE - 1) / step) {
      return -1;
    }
    return 1 + (n - 1) * step;
  }

  private static long batch(long matrix, long stride, long count) {
    if (count <= 0 || stride < 0 || stride > 0 && count - 1 > (Long.MAX_VALUE - matrix) / stride) {
      return -1;
    }
    return (count - 1) * stride + matrix;
  }

  /** The integer parameter named {@code name}, or -1 when there is none. */
  private static long number(BlasSignature s, Object[] args, String name) {
    for (int i = 0, n = s.parameterCount(); i < n; i++) {
      if (s.parameterName(i).equals(name)) {
        return args[i] instanceof Number v ? v.longValue() : -1;
      }
    }
    return -1;
  }

  /** The family and element size of a {@code JCublas2} method, or null for a routine without extents here. */
  private static Routine routineOf(String method) {
    if (!method.startsWith("cublas")) {
      return null;
    }
    String base = method.substring("cublas".length()).replaceFirst("(_v2)?_64$", "");
    if (base.matches("[SDCZ]gemm|[CZ]gemm3m")) {
      return new Routine(Family.GEMM, elementSize(base.charAt(0)));
    }
    if (base.matches("[SDCZ]gemmStridedBatched|Cgemm3mStridedBatched")) {
      return new Routine(Family.GEMM_STRIDED_BATCHED, elementSize(base.charAt(0)));
    }
    if (base.matches("[SDCZ]gemv")) {
      return new Routine(Family.GEMV, elementSize(base.charAt(0)));
    }
    if (base.matches("[SDCZ](axpy|copy|swap)|[SD]dot|[CZ]dot[uc]|([SDCZ]|Cs|Zd)scal|[SD](nrm2|asum)")
        || base.matches("I[sdcz]am(ax|in)")) {
      char type = base.charAt(0) == 'I' ? Character.toUpperCase(base.charAt(1)) : base.charAt(0);
      return new Routine(Family.LEVEL1, elementSize(type));
    }
    if (base.matches("(Sc|Dz)(nrm2|asum)")) {
      return new Routine(Family.LEVEL1, elementSize(Character.toUpperCase(base.charAt(1)))); // x is complex
    }
    return null;
  }

  private static int elementSize(char type) {
    return switch (type) {
      case 'S' -> 4;
      case 'D', 'C' -> 8;
      case 'Z' -> 16;
      default -> throw new IllegalArgumentException("element type " + type);
    };
  }
}
