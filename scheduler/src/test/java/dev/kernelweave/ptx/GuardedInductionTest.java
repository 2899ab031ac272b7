package dev.kernelweave.ptx;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/**
 * Grid-stride loops proven forward-only under a launch condition on {@code n}, and the shapes that
 * look like one but are not: each kernel is nvcc's {@code stride} loop ({@code for (int i = blockIdx.x
 * * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) p[i] = 1}) with one change.
 */
class GuardedInductionTest {

  /** nvcc's PTX of the loop; {@code BODY_END} marks where the variants change it. */
  private static String kernel(String name, String increment, String compare, String branch, String exit) {
    return ".version 7.0\n.target sm_75\n.address_size 64\n"
        + ".visible .entry " + name + "(\n\t.param .u64 " + name + "_param_0,\n\t.param .u32 " + name + "_param_1\n)\n{\n"
        + "\t.reg .pred %p<3>;\n\t.reg .b32 %r<12>;\n\t.reg .b64 %rd<5>;\n"
        + "\tld.param.u64 %rd2, [" + name + "_param_0];\n"
        + "\tld.param.u32 %r6, [" + name + "_param_1];\n"
        + "\tmov.u32 %r1, %ntid.x;\n\tmov.u32 %r7, %ctaid.x;\n\tmov.u32 %r8, %tid.x;\n"
        + "\tmad.lo.s32 %r11, %r7, %r1, %r8;\n"
        + "\tsetp.ge.s32 %p1, %r11, %r6;\n\t@%p1 bra $L__BB9_3;\n"
        + "\tmov.u32 %r9, %nctaid.x;\n\tmul.lo.s32 %r3, %r1, %r9;\n\tcvta.to.global.u64 %rd1, %rd2;\n"
        + "$L__BB9_2:\n\tmul.wide.s32 %rd3, %r11, 4;\n\tadd.s64 %rd4, %rd1, %rd3;\n"
        + "\tmov.u32 %r10, 1065353216;\n\tst.global.u32 [%rd4], %r10;\n"
        + "\t" + increment + ";\n\t" + compare + ";\n\t" + branch + ";\n"
        + "$L__BB9_3:\n" + exit + "\tret;\n}\n";
  }

  private static long limit(String ptx, String name) {
    return ForwardIndexing.analyze(ptx).get(name)[0];
  }

  private static final String INCREMENT = "add.s32 %r11, %r11, %r3";
  private static final String COMPARE = "setp.lt.s32 %p2, %r11, %r6";
  private static final String BRANCH = "@%p2 bra $L__BB9_2";

  @Test
  void aGridStrideLoopIsForwardOnlyWhileNPlusTwiceTheThreadsStaysBelowTwoToThe31() {
    long l = limit(kernel("k", INCREMENT, COMPARE, BRANCH, ""), "k");
    assertTrue(ForwardIndexing.isConditional(l), Long.toString(l));
    assertEquals(1, ForwardIndexing.conditionParameter(l));
    assertEquals("2x+p1<=2147483647", ForwardIndexing.describe(l));
    assertTrue(ForwardIndexing.holds(l, 1 << 20, 1 << 20));
    assertTrue(ForwardIndexing.holds(l, (1L << 30) - 1, 0));
    assertFalse(ForwardIndexing.holds(l, 1L << 30, 0), "i + G wraps past 2^31");
    assertFalse(ForwardIndexing.holds(l, 1 << 20, Integer.MAX_VALUE - (1 << 20)), "n close to 2^31");
    assertTrue(ForwardIndexing.holds(l, 1 << 20, -5), "a negative n runs no iteration");
    assertFalse(ForwardIndexing.holds(l, 0, 16), "launch dimensions not known");
  }

  @Test
  void anUnsignedCompareReadsNAsUnsigned() {
    long l = limit(kernel("k", INCREMENT, "setp.lt.u32 %p2, %r11, %r6", BRANCH, ""), "k");
    assertEquals("2x+p1u<=2147483647", ForwardIndexing.describe(l));
    assertFalse(ForwardIndexing.holds(l, 1 << 20, -5), "-5 is 2^32 - 5 unsigned");
  }

  @Test
  void theCompareTheOtherWayRoundIsTheSameLoop() {
    assertTrue(ForwardIndexing.isConditional(limit(kernel("k", INCREMENT, "setp.gt.s32 %p2, %r6, %r11", BRANCH, ""), "k")));
    // Branching out when i >= n, falling through into the loop again.
    String out = kernel("k", INCREMENT, "setp.ge.s32 %p2, %r11, %r6", "@%p2 bra $L__BB9_3;\n\tbra.uni $L__BB9_2", "");
    assertTrue(ForwardIndexing.isConditional(limit(out, "k")), out);
  }

  @Test
  void aCounterUsedAfterTheLoopIsNot() {
    // p[i] after the exit: the failing value, which may have wrapped, reaches an address.
    String after = "\tmul.wide.s32 %rd3, %r11, 4;\n\tadd.s64 %rd4, %rd1, %rd3;\n\tst.global.u32 [%rd4], %r10;\n";
    assertEquals(ForwardIndexing.NOT_PROVEN, limit(kernel("k", INCREMENT, COMPARE, BRANCH, after), "k"));
  }

  @Test
  void aLoopThatContinuesWhileTheCounterIsAboveNIsNot() {
    assertEquals(ForwardIndexing.NOT_PROVEN,
        limit(kernel("k", INCREMENT, "setp.ge.s32 %p2, %r11, %r6", BRANCH, ""), "k"));
    assertEquals(ForwardIndexing.NOT_PROVEN,
        limit(kernel("k", INCREMENT, COMPARE, "@!%p2 bra $L__BB9_2", ""), "k"));
  }

  @Test
  void aLoopWithoutItsCompareRightAfterTheIncrementIsNot() {
    assertEquals(ForwardIndexing.NOT_PROVEN, limit(kernel("k", INCREMENT, "setp.lt.s32 %p2, %r10, %r6", BRANCH, ""), "k"));
    assertEquals(ForwardIndexing.NOT_PROVEN, limit(kernel("k", INCREMENT, "mov.u32 %r10, 0", "bra.uni $L__BB9_2", ""), "k"));
  }

  @Test
  void aBoundThatIsNoParameterOrAStepThatIsNotNonNegativeIsNot() {
    String computedBound = kernel("k", INCREMENT, COMPARE, BRANCH, "").replace("ld.param.u32 %r6, [k_param_1];",
        "ld.param.u32 %r5, [k_param_1];\n\tadd.s32 %r6, %r5, 7;");
    assertEquals(ForwardIndexing.NOT_PROVEN, limit(computedBound, "k"));
    assertEquals(ForwardIndexing.NOT_PROVEN, limit(kernel("k", "add.s32 %r11, %r11, -1", COMPARE, BRANCH, ""), "k"));
    assertEquals(ForwardIndexing.NOT_PROVEN, limit(kernel("k", "add.s32 %r11, %r11, %r6", COMPARE, BRANCH, ""), "k"));
  }

  @Test
  void aCounterWithAnotherDefinitionOrAGuardedIncrementIsNot() {
    String redefined = kernel("k", INCREMENT, COMPARE, BRANCH, "").replace("\tmov.u32 %r10, 1065353216;",
        "\tmov.u32 %r10, 1065353216;\n\tmov.u32 %r11, %r8;");
    assertEquals(ForwardIndexing.NOT_PROVEN, limit(redefined, "k"));
    assertEquals(ForwardIndexing.NOT_PROVEN, limit(kernel("k", "@%p1 " + INCREMENT, COMPARE, BRANCH, ""), "k"));
  }

  /** The increment through nvcc's 64-bit round trip: {@code r' = (u32) (s64) r; r = r' + G}. */
  private static final String ROUND_TRIP =
      "cvt.s64.s32 %rd5, %r11;\n\tcvt.u32.u64 %r5, %rd5;\n\tadd.s32 %r11, %r5, %r3";

  @Test
  void anIncrementOfTheCounterNarrowedBackFromItsWideningIsTheSameLoop() {
    long l = limit(kernel("k", ROUND_TRIP, COMPARE, BRANCH, ""), "k");
    assertEquals("2x+p1<=2147483647", ForwardIndexing.describe(l));
  }

  @Test
  void anIncrementOfAnythingButAnExactCopyOfTheCounterIsNot() {
    // Widened from i + 1, not i.
    assertEquals(ForwardIndexing.NOT_PROVEN, limit(kernel("k",
        "add.s32 %r4, %r11, 1;\n\tcvt.s64.s32 %rd5, %r4;\n\tcvt.u32.u64 %r5, %rd5;\n\tadd.s32 %r11, %r5, %r3",
        COMPARE, BRANCH, ""), "k"));
    // The wide register has another definition.
    assertEquals(ForwardIndexing.NOT_PROVEN, limit(kernel("k", ROUND_TRIP, COMPARE, BRANCH, "")
        .replace("\tmov.u32 %r10, 1065353216;", "\tmov.u32 %r10, 1065353216;\n\tmov.u64 %rd5, 4294967295;"), "k"));
    // A guarded narrowing.
    assertEquals(ForwardIndexing.NOT_PROVEN, limit(kernel("k",
        "cvt.s64.s32 %rd5, %r11;\n\t@%p1 cvt.u32.u64 %r5, %rd5;\n\tadd.s32 %r11, %r5, %r3", COMPARE, BRANCH, ""), "k"));
    // A saturating narrowing is not a truncation: not recognised.
    assertEquals(ForwardIndexing.NOT_PROVEN, limit(kernel("k",
        "cvt.s64.s32 %rd5, %r11;\n\tcvt.sat.u32.u64 %r5, %rd5;\n\tadd.s32 %r11, %r5, %r3", COMPARE, BRANCH, ""), "k"));
  }

  @Test
  void theCounterPlusOneFitsWhileThePlusTwoIsNotProven() {
    // p[i + 1] as mul.wide.s32 of i + 1: the counter used is at most 2^31 - 2 (its step is G >= 1).
    String plus1 = kernel("k", INCREMENT, COMPARE, BRANCH, "")
        .replace("mul.wide.s32 %rd3, %r11, 4;", "add.s32 %r4, %r11, 1;\n\tmul.wide.s32 %rd3, %r4, 4;");
    assertEquals("2x+p1<=2147483647", ForwardIndexing.describe(limit(plus1, "k")));
    assertEquals(ForwardIndexing.NOT_PROVEN, limit(plus1.replace("add.s32 %r4, %r11, 1;", "add.s32 %r4, %r11, 2;"), "k"));
    // A step of at most G + 1: the counter used is at most 2^31 - 3, so i + 2 fits.
    String twoMore = kernel("k", "add.s32 %r12, %r3, 1;\n\tadd.s32 %r11, %r11, %r12", COMPARE, BRANCH, "")
        .replace("mul.wide.s32 %rd3, %r11, 4;", "add.s32 %r4, %r11, 2;\n\tmul.wide.s32 %rd3, %r4, 4;");
    assertEquals("2x+p1<=2147483646", ForwardIndexing.describe(limit(twoMore, "k")));
    assertEquals(ForwardIndexing.NOT_PROVEN, limit(twoMore.replace("add.s32 %r4, %r11, 2;", "add.s32 %r4, %r11, 3;"), "k"));
  }
}
