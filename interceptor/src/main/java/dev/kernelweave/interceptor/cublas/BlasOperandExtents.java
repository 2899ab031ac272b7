package dev.kernelweave.interceptor.cublas;

import dev.kernelweave.memory.AllocationTable;

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
 * <p>Each {@link BlasSignature} with extents holds its {@link Routine}, made once with the signature.
 * Immutable; safe from any thread; {@link #bytes} and {@link #multiplyAdds} allocate nothing.
 */
public final class BlasOperandExtents {

  private enum Family { GEMM, GEMM_STRIDED_BATCHED, GEMV, LEVEL1 }

  /** The integer parameters the extents come from, by their names in the JCublas sources. */
  private enum Dim {
    M("m"), N("n"), K("k"), TRANS("trans"), TRANSA("transa"), TRANSB("transb"), LDA("lda"), LDB("ldb"), LDC("ldc"),
    INCX("incx"), INCY("incy"), STRIDE_A("strideA"), STRIDE_B("strideB"), STRIDE_C("strideC"),
    BATCH_COUNT("batchCount");

    final String parameter;

    Dim(String parameter) {
      this.parameter = parameter;
    }
  }

  /** The operands with extents, by their names in the JCublas sources. */
  private enum Operand {
    A("A"), B("B"), C("C"), X("x"), Y("y");

    final String parameter;

    Operand(String parameter) {
      this.parameter = parameter;
    }
  }

  private static final Dim[] DIMS = Dim.values();
  private static final Operand[] OPERANDS = Operand.values();

  /**
   * A routine with extents: its family, the size of its vector and matrix elements, and where its
   * numbers and operands are among its parameters, found by name once so that a call only indexes
   * its arguments.
   */
  static final class Routine {
    private final Family family;
    private final int elementSize;
    /** The most elements whose bytes fit a long: divided once here, not at each call. */
    private final long maxElements;
    /** The parameter index of each {@link Dim}, by ordinal; -1 where the routine has none. */
    private final int[] dims;
    /** The {@link Operand} of each parameter, null for the others. */
    private final Operand[] operands;

    private Routine(Family family, int elementSize, String[] parameterNames) {
      this.family = family;
      this.elementSize = elementSize;
      this.maxElements = Long.MAX_VALUE / elementSize;
      this.dims = new int[DIMS.length];
      for (Dim d : DIMS) {
        dims[d.ordinal()] = indexOf(parameterNames, d.parameter);
      }
      this.operands = new Operand[parameterNames.length];
      for (int i = 0; i < parameterNames.length; i++) {
        for (Operand o : OPERANDS) {
          if (o.parameter.equals(parameterNames[i])) {
            operands[i] = o;
          }
        }
      }
    }

    /** The first parameter named {@code name}, as a scan of the names finds it; -1 when there is none. */
    private static int indexOf(String[] names, String name) {
      for (int i = 0; i < names.length; i++) {
        if (names[i].equals(name)) {
          return i;
        }
      }
      return -1;
    }

    /** The integer argument for {@code d}, or -1 when the routine has no such parameter or it is not a number. */
    long number(Object[] args, Dim d) {
      int i = dims[d.ordinal()];
      return i >= 0 && args[i] instanceof Number v ? v.longValue() : -1;
    }
  }

  private BlasOperandExtents() {}

  /**
   * The bytes from operand {@code parameterIndex}'s pointer that the routine may touch, or
   * {@link AllocationTable#WHOLE_ALLOCATION} when they are not known.
   *
   * @throws IndexOutOfBoundsException for a routine with extents, unless {@code 0 <= parameterIndex < parameterCount()}
   */
  public static long bytes(BlasSignature signature, Object[] args, int parameterIndex) {
    Routine r = signature.extents();
    if (r == null) {
      return AllocationTable.WHOLE_ALLOCATION;
    }
    long elements = elements(r, args, r.operands[parameterIndex]);
    return elements > 0 && elements <= r.maxElements ? elements * r.elementSize : AllocationTable.WHOLE_ALLOCATION;
  }

  /**
   * The multiply-adds the routine does, from the same dimensions: m·n·k for a gemm (times the batch
   * count), m·n for a gemv, n for a level 1 routine; -1 when not known. Allocates nothing.
   */
  public static long multiplyAdds(BlasSignature signature, Object[] args) {
    Routine r = signature.extents();
    if (r == null) {
      return -1;
    }
    long n = r.number(args, Dim.N);
    return switch (r.family) {
      case GEMM -> product(r.number(args, Dim.M), n, r.number(args, Dim.K), 1);
      case GEMM_STRIDED_BATCHED -> product(r.number(args, Dim.M), n, r.number(args, Dim.K),
          r.number(args, Dim.BATCH_COUNT));
      case GEMV -> product(r.number(args, Dim.M), n, 1, 1);
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

  private static long elements(Routine r, Object[] args, Operand operand) {
    if (operand == null) {
      return -1;
    }
    return switch (r.family) {
      case GEMM -> gemmOperand(r, args, operand);
      case GEMM_STRIDED_BATCHED -> {
        long matrix = gemmOperand(r, args, operand);
        Dim stride = switch (operand) {
          case A -> Dim.STRIDE_A;
          case B -> Dim.STRIDE_B;
          case C -> Dim.STRIDE_C;
          default -> null;
        };
        yield matrix > 0 && stride != null ? batch(matrix, r.number(args, stride), r.number(args, Dim.BATCH_COUNT)) : -1;
      }
      case GEMV -> {
        long trans = r.number(args, Dim.TRANS);
        long m = r.number(args, Dim.M);
        long n = r.number(args, Dim.N);
        yield switch (operand) {
          case A -> matrix(m, n, r.number(args, Dim.LDA));
          case X -> unknownTranspose(trans) ? -1 : vector(transposed(trans) ? m : n, r.number(args, Dim.INCX));
          case Y -> unknownTranspose(trans) ? -1 : vector(transposed(trans) ? n : m, r.number(args, Dim.INCY));
          default -> -1;
        };
      }
      case LEVEL1 -> switch (operand) {
        case X -> vector(r.number(args, Dim.N), r.number(args, Dim.INCX));
        case Y -> vector(r.number(args, Dim.N), r.number(args, Dim.INCY));
        default -> -1;
      };
    };
  }

  /** A, B or C of a gemm: {@code op(A)} is m x k, {@code op(B)} k x n, C m x n. */
  private static long gemmOperand(Routine r, Object[] args, Operand operand) {
    long m = r.number(args, Dim.M);
    long n = r.number(args, Dim.N);
    long k = r.number(args, Dim.K);
    if (m <= 0 || n <= 0 || k <= 0) {
      return -1;
    }
    return switch (operand) {
      case A -> {
        long op = r.number(args, Dim.TRANSA);
        yield unknownTranspose(op) ? -1 : transposed(op)
            ? matrix(k, m, r.number(args, Dim.LDA)) : matrix(m, k, r.number(args, Dim.LDA));
      }
      case B -> {
        long op = r.number(args, Dim.TRANSB);
        yield unknownTranspose(op) ? -1 : transposed(op)
            ? matrix(n, k, r.number(args, Dim.LDB)) : matrix(k, n, r.number(args, Dim.LDB));
      }
      case C -> matrix(m, n, r.number(args, Dim.LDC));
      default -> -1;
    };
  }

  /** {@code CUBLAS_OP_T} (1) and {@code CUBLAS_OP_C} (2) transpose; {@code CUBLAS_OP_N} (0) does not. */
  private static boolean transposed(long op) {
    return op == 1 || op == 2;
  }

  private static boolean unknownTranspose(long op) {
    return op < 0 || op > 2;
  }

  /** Elements of a column-major {@code rows x cols} matrix with leading dimension {@code ld}; -1 when not positive. */
  static long matrix(long rows, long cols, long ld) {
    if (rows <= 0 || cols <= 0 || ld <= 0) {
      return -1;
    }
    // Below 2^31 each, the span is below 2^62 + 2^31: no overflow check, no division, on the usual path.
    if ((rows | cols | ld) > Integer.MAX_VALUE && cols - 1 > (Long.MAX_VALUE - rows) / ld) {
      return -1;
    }
    return (cols - 1) * ld + rows;
  }

  /** Elements of a vector of {@code n} with increment {@code inc}, either sign; -1 when not positive. */
  static long vector(long n, long inc) {
    long step = Math.abs(inc);
    if (n <= 0 || inc == Long.MIN_VALUE) {
      return -1;
    }
    if ((n | step) > Integer.MAX_VALUE && step > 0 && n - 1 > (Long.MAX_VALUE - 1) / step) {
      return -1;
    }
    return 1 + (n - 1) * step;
  }

  /** Elements of {@code count} matrices of {@code matrix} elements, {@code stride} apart; -1 when not positive. */
  static long batch(long matrix, long stride, long count) {
    if (count <= 0 || stride < 0) {
      return -1;
    }
    if ((matrix | stride | count) > Integer.MAX_VALUE && stride > 0 && count - 1 > (Long.MAX_VALUE - matrix) / stride) {
      return -1;
    }
    return (count - 1) * stride + matrix;
  }

  /**
   * The extents of the {@code JCublas2} method with these parameter names, or null for a routine
   * without extents here. Made once, by {@link BlasSignature}'s constructor.
   */
  static Routine routine(String method, String[] names) {
    if (!method.startsWith("cublas")) {
      return null;
    }
    String base = method.substring("cublas".length()).replaceFirst("(_v2)?_64$", "");
    if (base.matches("[SDCZ]gemm|[CZ]gemm3m")) {
      return new Routine(Family.GEMM, elementSize(base.charAt(0)), names);
    }
    if (base.matches("[SDCZ]gemmStridedBatched|Cgemm3mStridedBatched")) {
      return new Routine(Family.GEMM_STRIDED_BATCHED, elementSize(base.charAt(0)), names);
    }
    if (base.matches("[SDCZ]gemv")) {
      return new Routine(Family.GEMV, elementSize(base.charAt(0)), names);
    }
    if (base.matches("[SDCZ](axpy|copy|swap)|[SD]dot|[CZ]dot[uc]|([SDCZ]|Cs|Zd)scal|[SD](nrm2|asum)")
        || base.matches("I[sdcz]am(ax|in)")) {
      char type = base.charAt(0) == 'I' ? Character.toUpperCase(base.charAt(1)) : base.charAt(0);
      return new Routine(Family.LEVEL1, elementSize(type), names);
    }
    if (base.matches("(Sc|Dz)(nrm2|asum)")) {
      return new Routine(Family.LEVEL1, elementSize(Character.toUpperCase(base.charAt(1))), names); // x is complex
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
