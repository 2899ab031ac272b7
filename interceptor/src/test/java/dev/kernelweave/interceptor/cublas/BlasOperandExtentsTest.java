package dev.kernelweave.interceptor.cublas;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.kernelweave.memory.AllocationTable;
import org.junit.jupiter.api.Test;

/** The bytes a cuBLAS operand spans from its pointer, from the routine's own arguments. */
class BlasOperandExtentsTest {

  private static final int N = 0;
  private static final int T = 1;
  private static final int C = 2;
  private static final long WHOLE = AllocationTable.WHOLE_ALLOCATION;

  private static BlasSignature routine(String name) {
    return BlasOperandRoles.signatures().stream().filter(s -> s.name().equals(name)).findFirst().orElseThrow();
  }

  private static int index(BlasSignature s, String parameter) {
    for (int i = 0; i < s.parameterCount(); i++) {
      if (s.parameterName(i).equals(parameter)) {
        return i;
      }
    }
    throw new AssertionError(parameter);
  }

  /** Arguments of an sgemm: handle transa transb m n k alpha A lda B ldb beta C ldc. */
  private static Object[] gemm(int transa, int transb, int m, int n, int k, int lda, int ldb, int ldc) {
    return new Object[] {null, transa, transb, m, n, k, null, null, lda, null, ldb, null, null, ldc};
  }

  private static long bytes(String routine, Object[] args, String operand) {
    BlasSignature s = routine(routine);
    return BlasOperandExtents.bytes(s, args, index(s, operand));
  }

  @Test
  void gemmOperandsSpanTheirColumnsAtTheirLeadingDimension() {
    // One 64x64 head of a 64-wide buffer of 16 heads: C spans exactly its slice.
    Object[] args = gemm(N, N, 64, 64, 64, 64, 64, 64);
    assertEquals(64L * 64 * 4, bytes("cublasSgemm", args, "C"));
    // op(A) = A is m x k = 10 x 3 with lda 16: 2 * 16 + 10 elements.
    args = gemm(N, N, 10, 5, 3, 16, 7, 12);
    assertEquals((2 * 16 + 10) * 4L, bytes("cublasSgemm", args, "A"));
    assertEquals((4 * 7 + 3) * 4L, bytes("cublasSgemm", args, "B"));
    assertEquals((4 * 12 + 10) * 4L, bytes("cublasSgemm", args, "C"));
  }

  @Test
  void multiplyAddsComeFromTheSameDimensionsAndMarkSmallRoutinesBrief() {
    assertEquals(64L * 64 * 64, BlasOperandExtents.multiplyAdds(routine("cublasSgemm"), gemm(N, N, 64, 64, 64, 64, 64, 64)));
    assertEquals(10L * 5 * 3, BlasOperandExtents.multiplyAdds(routine("cublasZgemm"), gemm(T, C, 10, 5, 3, 4, 8, 10)));
    assertEquals(-1, BlasOperandExtents.multiplyAdds(routine("cublasSgemm"), gemm(N, N, 0, 64, 64, 64, 64, 64)));
    assertEquals(-1, BlasOperandExtents.multiplyAdds(routine("cublasStrsm"), new Object[routine("cublasStrsm").parameterCount()]),
        "a routine without known dimensions");
    long atTheBound = BlasOperandExtents.multiplyAdds(routine("cublasSgemm"), gemm(N, N, 128, 128, 128, 128, 128, 128));
    long past = BlasOperandExtents.multiplyAdds(routine("cublasSgemm"), gemm(N, N, 256, 128, 128, 256, 128, 256));
    assertEquals(BlasCalls.BRIEF_MULTIPLY_ADDS, atTheBound);
    assertEquals(2 * BlasCalls.BRIEF_MULTIPLY_ADDS, past);
  }

  @Test
  void transposedOperandsAreStoredTheOtherWayRound() {
    // op(A) = A^T is 10 x 3, so A is 3 x 10 with lda 4; op(B) = B^H is 3 x 5, so B is 5 x 3.
    Object[] args = gemm(T, C, 10, 5, 3, 4, 8, 10);
    assertEquals((9 * 4 + 3) * 8L, bytes("cublasDgemm", args, "A"));
    assertEquals((2 * 8 + 5) * 8L, bytes("cublasDgemm", args, "B"));
    assertEquals((4 * 10 + 10) * 16L, bytes("cublasZgemm", args, "C"));
  }

  @Test
  void aNonPositiveDimensionOrAnUnknownTransposeIsTheWholeAllocation() {
    assertEquals(WHOLE, bytes("cublasSgemm", gemm(N, N, 0, 4, 4, 4, 4, 4), "C"));
    assertEquals(WHOLE, bytes("cublasSgemm", gemm(N, N, 4, 4, 0, 4, 4, 4), "C"));
    assertEquals(WHOLE, bytes("cublasSgemm", gemm(N, N, 4, 4, 4, -1, 4, 4), "A"));
    assertEquals(WHOLE, bytes("cublasSgemm", gemm(3, N, 4, 4, 4, 4, 4, 4), "A"));
    assertEquals(WHOLE, bytes("cublasSgemm", gemm(N, N, 4, 4, 4, 4, 4, 4), "alpha"));
  }

  @Test
  void stridedBatchesSpanEveryMatrix() {
    // handle transa transb m n k alpha A lda strideA B ldb strideB beta C ldc strideC batchCount
    Object[] args = {null, N, N, 8, 8, 8, null, null, 8, 64L, null, 8, 0L, null, null, 8, 100L, 3};
    assertEquals((2 * 64 + 64) * 4L, bytes("cublasSgemmStridedBatched", args, "A"));
    assertEquals(64 * 4L, bytes("cublasSgemmStridedBatched", args, "B"));
    assertEquals((2 * 100 + 64) * 4L, bytes("cublasSgemmStridedBatched", args, "C"));
  }

  @Test
  void vectorsSpanTheirIncrementEvenWhenItIsNegative() {
    // handle n alpha x incx y incy
    Object[] axpy = {null, 5, null, null, -3, null, 2};
    assertEquals((1 + 4 * 3) * 4L, bytes("cublasSaxpy", axpy, "x"));
    assertEquals((1 + 4 * 2) * 4L, bytes("cublasSaxpy", axpy, "y"));
    // handle trans m n alpha A lda x incx beta y incy: transposed, x has m elements and y n.
    Object[] gemv = {null, T, 6, 4, null, null, 6, null, 1, null, null, 2};
    assertEquals((3 * 6 + 6) * 8L, bytes("cublasDgemv", gemv, "A"));
    assertEquals(6 * 8L, bytes("cublasDgemv", gemv, "x"));
    assertEquals((1 + 3 * 2) * 8L, bytes("cublasDgemv", gemv, "y"));
    // Scnrm2 reads complex floats; its result is real.
    assertEquals(3 * 8L, bytes("cublasScnrm2", new Object[] {null, 3, null, 1, null}, "x"));
    assertEquals(3 * 16L, bytes("cublasIzamax", new Object[] {null, 3, null, 1, null}, "x"));
    assertEquals(2 * 16L, bytes("cublasSaxpy_v2_64".replace("Saxpy", "Zaxpy"), new Object[] {null, 2L, null, null, 1L, null, 1L}, "y"));
  }

  @Test
  void aRoutineWithoutExtentsGetsTheWholeAllocation() {
    // handle side uplo trans diag m n alpha A lda B ldb
    Object[] trsm = {null, 0, 0, 0, 0, 4, 4, null, null, 4, null, 4};
    assertEquals(WHOLE, bytes("cublasStrsm", trsm, "B"));
  }
}
