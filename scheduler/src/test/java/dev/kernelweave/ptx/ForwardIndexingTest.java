package dev.kernelweave.ptx;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * {@link ForwardIndexing} on nvcc's own PTX ({@code forward-indexing.ptx}: {@code nvcc -ptx
 * -arch=compute_75 -fmad=false}, the CUDA source in its head comment).
 */
class ForwardIndexingTest {

  private static final long NO = ForwardIndexing.NOT_PROVEN;
  private static final long ALWAYS = ForwardIndexing.ALWAYS;
  /** {@code blockIdx.x * blockDim.x + threadIdx.x <= G - 1} stays below 2^31 while {@code G <= 2^31}. */
  private static final long SIGNED_INDEX = 1L << 31;

  private static String ptx;
  private static Map<String, long[]> limits;

  @BeforeAll
  static void read() throws IOException {
    try (InputStream in = ForwardIndexingTest.class.getResourceAsStream("/ptx/forward-indexing.ptx")) {
      ptx = new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
    limits = ForwardIndexing.analyze(ptx);
  }

  private static long[] of(String kernel) {
    long[] l = limits.get(kernel);
    assertNotNull(l, kernel);
    return l;
  }

  @Test
  void canonicalSignedIndexIsForwardOnlyBelowTwoToThe31Threads() {
    // Scalars, never an address, are vacuously forward-only here; the summary keeps only pointers'.
    assertArrayEquals(new long[] {SIGNED_INDEX, SIGNED_INDEX}, pointers(of("axpb"), 2)); // y[i] = a * x[i] + b
    assertArrayEquals(new long[] {SIGNED_INDEX, SIGNED_INDEX}, pointers(of("plus1"), 2)); // x[i + 1]: [%rd+4]
    assertArrayEquals(new long[] {SIGNED_INDEX, SIGNED_INDEX}, pointers(of("offset4"), 2)); // x[i + 2]
    assertArrayEquals(new long[] {NO, SIGNED_INDEX}, pointers(of("mixed"), 2)); // q[i] + p[-1]
    assertEquals(SIGNED_INDEX, of("loaded")[1]); // idx[i] is read forward; p[idx[i]] is not
  }

  @Test
  void gridStrideLoopIsForwardOnlyUnderItsLaunchCondition() {
    long stride = of("stride")[0]; // for (i = ...; i < n; i += blockDim.x * gridDim.x) p[i]
    assertEquals(true, ForwardIndexing.isConditional(stride));
    assertEquals("2x+p1<=2147483647", ForwardIndexing.describe(stride));
  }

  @Test
  void unsignedIndexIsForwardOnlyForEveryLaunch() {
    assertEquals(ALWAYS, of("uns")[0]); // mul.wide.u32: zero-extended
  }

  @Test
  void constantNonNegativeOffsetsAreForwardOnly() {
    assertArrayEquals(new long[] {ALWAYS, ALWAYS}, of("consts"));
  }

  @Test
  void backwardsOrUnprovenIndexingIsNot() {
    assertEquals(NO, of("back")[0]); // p[-1 - i]
    assertEquals(NO, of("backn")[0]); // p[n - 1 - i]
    assertEquals(NO, of("minus1")[0]); // p[i - 1]
    assertEquals(NO, of("loaded")[0]); // p[idx[i]]
    assertArrayEquals(new long[] {NO, NO}, pointers(of("diff"), 2)); // q[(p - q) + i]
    assertEquals(NO, of("negc")[0]); // p[-2]
    assertEquals(NO, of("idx64")[0]); // p[k], k a 64-bit parameter
    assertEquals(NO, of("sel")[0]); // p[i == 0 ? n - 1 : i - 1]: selp
    assertEquals(NO, of("esc")[1]); // stored to memory: read back, used anyhow
    assertEquals(NO, of("twod")[0]); // y * 64 + x may exceed 2^31 before it is sign-extended
  }

  private static long[] pointers(long[] all, int count) {
    return java.util.Arrays.copyOf(all, count);
  }

  private static String body(String insns) {
    return ".visible .entry k(\n .param .u64 k_param_0,\n .param .u64 k_param_1\n)\n{\n .reg .b32 %r<9>;\n"
        + " .reg .b64 %rd<9>;\n" + insns + "\n ret;\n}\n";
  }

  @Test
  void escapesAndUnknownInstructionsAreNotProven() {
    String load = " ld.param.u64 %rd1, [k_param_0];\n ld.param.u64 %rd2, [k_param_1];\n";
    // The parameter's address taken: its value may be read back untainted.
    assertArrayEquals(new long[] {NO, NO}, ForwardIndexing.analyze(body(load
        + " mov.u64 %rd3, k_param_0;\n ld.u64 %rd4, [%rd3];\n st.global.u32 [%rd4+-4], %r1;")).get("k"));
    // An unknown instruction on the pointer, a call with it, a negative immediate.
    assertEquals(NO, ForwardIndexing.analyze(body(load + " min.u64 %rd3, %rd1, %rd2;\n st.global.u32 [%rd3], %r1;"))
        .get("k")[0]);
    assertEquals(NO, ForwardIndexing.analyze(body(load + " add.s64 %rd3, %rd1, -4;\n st.global.u32 [%rd3], %r1;"))
        .get("k")[0]);
    assertEquals(NO, ForwardIndexing.analyze(body(load
        + " { .param .b64 param0;\n st.param.b64 [param0+0], %rd1;\n call.uni f, (param0);\n }")).get("k")[0]);
    // A register read that nothing defines may hold anything.
    assertEquals(NO, ForwardIndexing.analyze(body(load + " add.s64 %rd3, %rd1, %rd7;\n st.global.u32 [%rd3], %r1;"))
        .get("k")[0]);
    // A pointer-sized shift of the index can exceed 2^62: unknown.
    assertEquals(NO, ForwardIndexing.analyze(body(load + " mov.u32 %r1, %tid.x;\n cvt.u64.u32 %rd3, %r1;\n"
        + " shl.b64 %rd4, %rd3, 31;\n shl.b64 %rd5, %rd4, 31;\n add.s64 %rd6, %rd1, %rd5;\n st.global.u32 [%rd6], %r1;"))
        .get("k")[0]);
    // The same with .loc lines between instructions: still read, still proven where it is.
    assertArrayEquals(new long[] {ALWAYS, NO}, ForwardIndexing.analyze(body(load + " .loc 1 2 3\n mov.u32 %r1, %tid.x;\n"
        + " .loc 1 3 3\n mul.wide.u32 %rd3, %r1, 4;\n add.s64 %rd4, %rd1, %rd3;\n st.global.u32 [%rd4+8], %r1;\n"
        + " .loc 1 4 3\n st.global.u32 [%rd2+-8], %r1;")).get("k"));
  }

  @Test
  void theSummaryCarriesItAndTheCommandLineShowsIt() {
    List<KernelAccessSummary> all = PtxAnalyzer.analyze(ptx);
    KernelAccessSummary axpb = all.stream().filter(s -> s.name().equals("axpb")).findFirst().orElseThrow();
    assertEquals(SIGNED_INDEX, axpb.forwardLimit(0));
    assertEquals(NO, axpb.forwardLimit(2)); // a float: not a pointer
    assertEquals("axpb\tW+x<=2147483648 R+x<=2147483648 V V V", KernelSummaryFormat.line(axpb));
    KernelAccessSummary uns = all.stream().filter(s -> s.name().equals("uns")).findFirst().orElseThrow();
    assertEquals("uns\tW+ V", KernelSummaryFormat.line(uns));
    KernelAccessSummary consts = all.stream().filter(s -> s.name().equals("consts")).findFirst().orElseThrow();
    assertEquals(ALWAYS, consts.forwardLimit(0)); // bounded at [0,4): the extent says it
    assertEquals("consts\tW[0,4) R[0,16)", KernelSummaryFormat.line(consts));
    String json = KernelSummaryFormat.json(List.of(axpb, uns));
    assertEquals(true, json.contains("{\"use\":\"W\",\"bytes\":8,\"forward\":true,\"forwardThreadsX\":2147483648}"), json);
    assertEquals(true, json.contains("{\"use\":\"W\",\"bytes\":8,\"forward\":true}"), json);
  }

  /** Entry {@code k(.param .u64 k_p0, .param .u32 k_p1)} with {@code body}: its limits. */
  private static long[] inline(String body) {
    return ForwardIndexing.analyze(".version 7.0\n.target sm_75\n.address_size 64\n"
        + ".visible .entry k(\n\t.param .u64 k_p0,\n\t.param .u32 k_p1\n)\n{\n"
        + "\tld.param.u64 %rd1, [k_p0];\n\tld.param.u32 %r1, [k_p1];\n"
        + body + "\n\tret;\n}\n").get("k");
  }

  @Test
  void selpOfTwoNonNegativeValuesIsTheirJoin() {
    // p[c ? 0 : tid.x + 1]
    assertEquals(ALWAYS, inline("""
        mov.u32 %r2, %tid.x;
        add.s32 %r3, %r2, 1;
        setp.eq.s32 %p1, %r1, 0;
        selp.b32 %r4, 0, %r3, %p1;
        mul.wide.s32 %rd2, %r4, 4;
        add.s64 %rd3, %rd1, %rd2;
        st.global.u32 [%rd3], 0;""")[0]);
    // c ? p : p + 8, a pointer either way
    assertEquals(ALWAYS, inline("""
        add.s64 %rd2, %rd1, 8;
        setp.eq.s32 %p1, %r1, 0;
        selp.b64 %rd3, %rd1, %rd2, %p1;
        st.global.u32 [%rd3], 0;""")[0]);
  }

  @Test
  void selpWithAnInputThatMayBeNegativeOrAnotherPointerIsNot() {
    // p[c ? n - 1 : tid.x]: n - 1 (the parameter, -1) may be negative
    assertEquals(NO, inline("""
        mov.u32 %r2, %tid.x;
        add.s32 %r3, %r1, -1;
        setp.eq.s32 %p1, %r1, 0;
        selp.b32 %r4, %r3, %r2, %p1;
        mul.wide.s32 %rd2, %r4, 4;
        add.s64 %rd3, %rd1, %rd2;
        st.global.u32 [%rd3], 0;""")[0]);
    // p[c ? -4 : 0]
    assertEquals(NO, inline("""
        setp.eq.s32 %p1, %r1, 0;
        selp.b64 %rd2, -16, 0, %p1;
        add.s64 %rd3, %rd1, %rd2;
        st.global.u32 [%rd3], 0;""")[0]);
    // c ? p : n, an integer that may lie below p
    assertEquals(NO, inline("""
        cvt.u64.u32 %rd2, %r1;
        setp.eq.s32 %p1, %r1, 0;
        selp.b64 %rd3, %rd1, %rd2, %p1;
        st.global.u32 [%rd3], 0;""")[0]);
    // c ? p + 8 : p - 8 (sub: unknown)
    assertEquals(NO, inline("""
        add.s64 %rd2, %rd1, 8;
        sub.s64 %rd4, %rd1, 8;
        setp.eq.s32 %p1, %r1, 0;
        selp.b64 %rd3, %rd2, %rd4, %p1;
        st.global.u32 [%rd3], 0;""")[0]);
  }

  @Test
  void subtractionAndSignedRemainderStayUnproven() {
    // p[(tid.x + n) % n]: rem.s32 of a dividend that may be negative
    assertEquals(NO, inline("""
        mov.u32 %r2, %tid.x;
        add.s32 %r3, %r2, %r1;
        rem.s32 %r4, %r3, %r1;
        mul.wide.s32 %rd2, %r4, 4;
        add.s64 %rd3, %rd1, %rd2;
        st.global.u32 [%rd3], 0;""")[0]);
    // p[tid.x - 1]
    assertEquals(NO, inline("""
        mov.u32 %r2, %tid.x;
        sub.s32 %r3, %r2, 1;
        mul.wide.s32 %rd2, %r3, 4;
        add.s64 %rd3, %rd1, %rd2;
        st.global.u32 [%rd3], 0;""")[0]);
  }
}
