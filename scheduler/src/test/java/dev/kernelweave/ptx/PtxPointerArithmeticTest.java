package dev.kernelweave.ptx;

import static dev.kernelweave.ptx.PtxAnalyzerTest.kernel;
import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

/**
 * Addresses a kernel computes from more than one pointer, and pointers passed inside structures:
 * every parameter whose memory such an address may reach gets the access (issue 23, holes 14 and
 * 16). The PTX is nvcc's (13.0, {@code -arch=compute_75 -O3}) where a C++ form exists, else
 * hand-written the way nvcc writes it.
 */
class PtxPointerArithmeticTest {

  private static final String TWO_POINTERS = ".param .u64 k_p0, .param .u64 k_p1";

  @Test
  void differenceOfTwoPointersScaledAndAddedBackReachesBoth() {
    // float *a, *b; long d = b - a; a[d + i] = 5: the element distance (b - a) / 4 times 4 is no index.
    assertEquals("k\tW W", kernel(TWO_POINTERS, """
        .reg .b32 %r<3>; .reg .b64 %rd<10>;
        ld.param.u64 %rd1, [k_p0];
        ld.param.u64 %rd2, [k_p1];
        cvta.to.global.u64 %rd3, %rd1;
        sub.s64 %rd4, %rd2, %rd1;
        shr.u64 %rd5, %rd4, 2;
        mov.u32 %r1, %tid.x;
        cvt.s64.s32 %rd6, %r1;
        add.s64 %rd7, %rd5, %rd6;
        shl.b64 %rd8, %rd7, 2;
        add.s64 %rd9, %rd3, %rd8;
        mov.u32 %r2, 1084227584;
        st.global.u32 [%rd9], %r2;
        ret;"""));
  }

  @Test
  void differenceMultipliedByAConstantIsStillADistance() {
    assertEquals("k\tR R", kernel(TWO_POINTERS, """
        .reg .b32 %r1; .reg .b64 %rd<7>;
        ld.param.u64 %rd1, [k_p0];
        ld.param.u64 %rd2, [k_p1];
        sub.s64 %rd3, %rd2, %rd1;
        div.s64 %rd4, %rd3, 8;
        mul.lo.s64 %rd5, %rd4, 8;
        add.s64 %rd6, %rd1, %rd5;
        ld.global.u32 %r1, [%rd6];
        ret;"""));
  }

  @Test
  void differenceKeptInLocalMemoryOrAsTwoHalvesIsStillADistance() {
    assertEquals("k\tW W", kernel(TWO_POINTERS, """
        .local .align 8 .b8 depot[8];
        .reg .b32 %r<3>; .reg .b64 %rd<12>;
        ld.param.u64 %rd1, [k_p0];
        ld.param.u64 %rd2, [k_p1];
        sub.s64 %rd3, %rd2, %rd1;
        mov.u64 %rd4, depot;
        st.local.u64 [%rd4], %rd3;
        ld.local.u64 %rd5, [%rd4];
        mov.b64 {%r1, %r2}, %rd5;
        mov.b64 %rd6, {%r1, %r2};
        shr.s64 %rd7, %rd6, 2;
        shl.b64 %rd8, %rd7, 2;
        add.s64 %rd9, %rd1, %rd8;
        st.global.u32 [%rd9], 0;
        ret;"""));
  }

  @Test
  void pointersMixedByXorThenScaledStillReachBoth() {
    // a ^ ((a ^ b) >> 2 << 2) is b where a and b agree in their low bits.
    assertEquals("k\tW W", kernel(TWO_POINTERS, """
        .reg .b64 %rd<8>;
        ld.param.u64 %rd1, [k_p0];
        ld.param.u64 %rd2, [k_p1];
        xor.b64 %rd3, %rd1, %rd2;
        shr.u64 %rd4, %rd3, 2;
        shl.b64 %rd5, %rd4, 2;
        xor.b64 %rd6, %rd1, %rd5;
        st.global.u32 [%rd6], 0;
        ret;"""));
  }

  @Test
  void differenceWithAPointerLoadedFromMemoryStillReachesTheParameter() {
    // x = *(long*)a may be a itself, stored there by the host: a + ((b - x) >> 2 << 2) may be b.
    assertEquals("k\tRW W", kernel(TWO_POINTERS, """
        .reg .b64 %rd<9>;
        ld.param.u64 %rd1, [k_p0];
        ld.param.u64 %rd2, [k_p1];
        ld.global.u64 %rd3, [%rd1];
        sub.s64 %rd4, %rd2, %rd3;
        shr.s64 %rd5, %rd4, 2;
        shl.b64 %rd6, %rd5, 2;
        add.s64 %rd7, %rd1, %rd6;
        st.global.u32 [%rd7], 0;
        ret;"""));
  }

  @Test
  void aDifferenceHasNoConstantExtent() {
    // p + (p - q) - (p - q) is p, but the analysis cannot know that the distances cancel.
    assertEquals("k\tW W", kernel(TWO_POINTERS, """
        .reg .b64 %rd<6>;
        ld.param.u64 %rd1, [k_p0];
        ld.param.u64 %rd2, [k_p1];
        sub.s64 %rd3, %rd1, %rd2;
        add.s64 %rd4, %rd1, %rd3;
        sub.s64 %rd5, %rd4, %rd3;
        st.global.u32 [%rd5], 0;
        ret;"""));
  }

  @Test
  void anIndexScaledFromAThreadIndexAndAWideScalarStaysAnIndex() {
    // Not a mix of two addresses: a[n * 4 + i], n an 8-byte scalar, keeps n a value.
    assertEquals("k\tW V", kernel(".param .u64 k_p0, .param .u64 k_n", """
        .reg .b32 %r1; .reg .b64 %rd<7>;
        ld.param.u64 %rd1, [k_p0];
        ld.param.u64 %rd2, [k_n];
        mov.u32 %r1, %tid.x;
        mul.wide.u32 %rd3, %r1, 4;
        shl.b64 %rd4, %rd2, 4;
        add.s64 %rd5, %rd1, %rd3;
        add.s64 %rd6, %rd5, %rd4;
        st.global.u32 [%rd6], 0;
        ret;"""));
  }

  @Test
  void pointerAtOffsetFourOfAPackedStructIsThatParameter() {
    // struct __attribute__((packed, aligned(4))) { int n; float* out; } by value: nvcc reads the
    // pointer byte by byte and puts it together with bfi.
    assertEquals("k\tW V", kernel(".param .align 4 .b8 k_p0[12], .param .f32 k_p1", """
        .reg .b32 %r<3>; .reg .b64 %rd<19>; .reg .f32 %f1;
        ld.param.f32 %f1, [k_p1];
        ld.param.u8 %rd2, [k_p0+4];
        ld.param.u8 %rd3, [k_p0+5];
        bfi.b64 %rd4, %rd3, %rd2, 8, 8;
        ld.param.u8 %rd5, [k_p0+6];
        ld.param.u8 %rd6, [k_p0+7];
        bfi.b64 %rd7, %rd6, %rd5, 8, 8;
        bfi.b64 %rd8, %rd7, %rd4, 16, 16;
        ld.param.u8 %rd9, [k_p0+8];
        ld.param.u8 %rd10, [k_p0+9];
        bfi.b64 %rd11, %rd10, %rd9, 8, 8;
        ld.param.u8 %rd12, [k_p0+10];
        ld.param.u8 %rd13, [k_p0+11];
        bfi.b64 %rd14, %rd13, %rd12, 8, 8;
        bfi.b64 %rd15, %rd14, %rd11, 16, 16;
        bfi.b64 %rd1, %rd15, %rd8, 32, 32;
        ld.param.u8 %r1, [k_p0];
        mov.u32 %r2, %tid.x;
        cvta.to.global.u64 %rd16, %rd1;
        mul.wide.s32 %rd17, %r2, 4;
        add.s64 %rd18, %rd16, %rd17;
        st.global.f32 [%rd18], %f1;
        ret;"""));
  }

  @Test
  void pointerAtOffsetFourReadAsTwoWordsIsThatParameter() {
    assertEquals("k\tW", kernel(".param .align 4 .b8 k_p0[12]", """
        .reg .b32 %r<3>; .reg .b64 %rd<3>;
        ld.param.u32 %r1, [k_p0+4];
        ld.param.u32 %r2, [k_p0+8];
        mov.b64 %rd1, {%r1, %r2};
        cvta.to.global.u64 %rd2, %rd1;
        st.global.u32 [%rd2], 0;
        ret;"""));
  }
}
