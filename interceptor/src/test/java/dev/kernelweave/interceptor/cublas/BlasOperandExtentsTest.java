package dev.kernelweave.interceptor.cublas;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

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

  @Test
  void spansPastTwoToTheThirtyOneAreExactUntilTheyOverflow() {
    long big = Integer.MAX_VALUE;
    assertEquals(big * big, BlasOperandExtents.matrix(big, big, big));
    // (2^32 - 1) * 2^31 + rows: Long.MAX_VALUE for rows 2^31 - 1, one past it for 2^31.
    assertEquals(Long.MAX_VALUE, BlasOperandExtents.matrix((1L << 31) - 1, 1L << 32, 1L << 31));
    assertEquals(-1, BlasOperandExtents.matrix(1L << 31, 1L << 32, 1L << 31));
    assertEquals(Long.MAX_VALUE, BlasOperandExtents.vector(1L << 62, 2));
    assertEquals(-1, BlasOperandExtents.vector((1L << 62) + 1, 2));
    assertEquals(-1, BlasOperandExtents.vector((1L << 62) + 1, -2));
    assertEquals(1, BlasOperandExtents.vector(1, Long.MAX_VALUE));
    assertEquals(1, BlasOperandExtents.vector(1L << 40, 0));
    assertEquals(-1, BlasOperandExtents.vector(3, Long.MIN_VALUE));
    assertEquals(Long.MAX_VALUE, BlasOperandExtents.batch(1, Long.MAX_VALUE / 2, 3));
    assertEquals(-1, BlasOperandExtents.batch(2, Long.MAX_VALUE / 2, 3));
    assertEquals(1L << 40, BlasOperandExtents.batch(1L << 40, 0, Long.MAX_VALUE));
    assertEquals(-1, BlasOperandExtents.batch(4, -1, 2));
    assertEquals(-1, BlasOperandExtents.batch(4, 1, 0));
  }

  @Test
  void bytesThatDoNotFitALongAreTheWholeAllocation() {
    // handle n alpha x incx y incy, 64-bit: n elements of 4 and of 16 bytes.
    long n = Long.MAX_VALUE / 4;
    assertEquals(n * 4, bytes("cublasSaxpy_v2_64", new Object[] {null, n, null, null, 1L, null, 1L}, "y"));
    assertEquals(WHOLE, bytes("cublasSaxpy_v2_64", new Object[] {null, n + 1, null, null, 1L, null, 1L}, "y"));
    long z = Long.MAX_VALUE / 16;
    assertEquals(z * 16, bytes("cublasZaxpy_v2_64", new Object[] {null, z, null, null, 1L, null, 1L}, "x"));
    assertEquals(WHOLE, bytes("cublasZaxpy_v2_64", new Object[] {null, z + 1, null, null, 1L, null, 1L}, "x"));
  }

  @Test
  void theSixtyFourBitFormsReadTheirOwnParameters() {
    // handle transa transb m n k alpha A lda strideA B ldb strideB beta C ldc strideC batchCount, longs
    Object[] args = {null, T, N, 8L, 4L, 2L, null, null, 2L, 100L, null, 2L, 0L, null, null, 8L, 40L, 5L};
    // op(A) = A^T is 8 x 2, so A is 2 x 8 with lda 2: 16 elements, then 4 more strides of 100.
    assertEquals((4 * 100 + 16) * 4L, bytes("cublasSgemmStridedBatched_64", args, "A"));
    assertEquals((3 * 2 + 2) * 4L, bytes("cublasSgemmStridedBatched_64", args, "B"));
    assertEquals((4 * 40 + 3 * 8 + 8) * 4L, bytes("cublasSgemmStridedBatched_64", args, "C"));
    assertEquals(8L * 4 * 2 * 5, BlasOperandExtents.multiplyAdds(routine("cublasSgemmStridedBatched_64"), args));
  }

  @Test
  void parametersThatAreNotOperandsGetTheWholeAllocationAndOthersAreOutOfBounds() {
    BlasSignature sgemm = routine("cublasSgemm");
    Object[] args = gemm(N, N, 4, 4, 4, 4, 4, 4);
    for (String name : new String[] {"handle", "transa", "m", "lda", "alpha", "beta", "ldc"}) {
      assertEquals(WHOLE, BlasOperandExtents.bytes(sgemm, args, index(sgemm, name)), name);
    }
    assertThrows(IndexOutOfBoundsException.class, () -> BlasOperandExtents.bytes(sgemm, args, sgemm.parameterCount()));
    assertThrows(IndexOutOfBoundsException.class, () -> BlasOperandExtents.bytes(sgemm, args, -1));
    // A routine without extents answers for any index, as before.
    assertEquals(WHOLE, BlasOperandExtents.bytes(routine("cublasStrsm"), args, 99));
  }

  @Test
  void anArgumentThatIsNotANumberIsUnknown() {
    Object[] args = gemm(N, N, 4, 4, 4, 4, 4, 4);
    args[8] = "4"; // lda
    assertEquals(WHOLE, bytes("cublasSgemm", args, "A"));
    assertEquals((3 * 4 + 4) * 4L, bytes("cublasSgemm", args, "B"));
  }
}
