package dev.kernelweave.ptx;

import static org.junit.jupiter.api.Assertions.assertAll;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

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
    selEntry = entry("sel");
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
    assertEquals(SIGNED_INDEX, of("sel")[0]); // if (i < n) p[i == 0 ? n - 1 : i - 1]: a wrap-around index
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

  /** The entry {@code name} of {@code forward-indexing.ptx}, as a module of its own. */
  private static String entry(String name) {
    int from = ptx.indexOf(".visible .entry " + name + "(");
    int to = ptx.indexOf("\n}\n", from);
    return ".version 7.0\n.target sm_75\n.address_size 64\n" + ptx.substring(from, to + 3);
  }

  /** The limit of {@code sel}'s pointer in {@code module}. */
  private static long sel(String module) {
    long[] l = ForwardIndexing.analyze(module).get("sel");
    assertNotNull(l, module);
    return l[0];
  }

  /** {@code text} with {@code from} replaced, which it must contain. */
  private static String edit(String text, String from, String to) {
    assertTrue(text.contains(from), from);
    return text.replace(from, to);
  }

  /** Each {@code variant} of {@code sel} is not proven (all are checked, each failure reported). */
  private static void notProven(Map<String, String> variants) {
    assertAll(variants.entrySet().stream().map(e -> () -> assertEquals(NO, sel(e.getValue()), e.getKey())));
  }

  // nvcc's sel: if (i < n) p[i == 0 ? n - 1 : i - 1], i its thread's index (%r1), n the parameter (%r2).
  private static final String GUARD = "\tsetp.ge.s32 \t%p1, %r1, %r2;\n\t@%p1 bra \t$L__BB13_2;\n";
  private static final String INDEX = "\tsetp.eq.s32 \t%p2, %r1, 0;\n\tselp.b32 \t%r6, %r2, %r1, %p2;\n"
      + "\tadd.s32 \t%r7, %r6, -1;\n";
  private static String selEntry;

  @Test
  void theWrapAroundIndexOfARealStencilIsForwardOnly() throws IOException {
    String text;
    try (InputStream in = ForwardIndexingTest.class.getResourceAsStream("/ptx/wrap-index.ptx")) {
      text = new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
    long[] l = ForwardIndexing.analyze(text).get("branch_step");
    // in[i == 0 ? n - 1 : i - 1], in[i], in[i == n - 1 ? 0 : i + 1] in a grid-stride loop: under the loop's condition.
    assertEquals("2x+p3<=2147483647", ForwardIndexing.describe(l[0]));
    assertEquals(NO, l[1]); // weights[(i + step) % n]: step may be negative
    assertEquals("2x+p3<=2147483647", ForwardIndexing.describe(l[2]));
    // Both copies of the loop (rounds > 0 or not) read in[left]: either one not proven, in is not.
    String left1 = "add.s32 \t%r31, %r30, -1;";
    String left2 = "add.s32 \t%r25, %r24, -1;";
    // Without the loop's entry guard the first pass may run with n <= 0: the compares after each
    // step guard only the passes after it.
    String guard = "setp.ge.s32 \t%p1, %r35, %r16;\n\t@%p1 bra \t$L__BB0_11;";
    assertAll(
        () -> assertEquals(NO, ForwardIndexing.analyze(edit(text, left1, "add.s32 \t%r31, %r30, -2;")).get("branch_step")[0]),
        () -> assertEquals(NO, ForwardIndexing.analyze(edit(text, left2, "add.s32 \t%r25, %r24, -2;")).get("branch_step")[0]),
        () -> assertEquals(NO, ForwardIndexing.analyze(edit(text, guard, "")).get("branch_step")[0]));
  }

  @Test
  void theWrapAroundIndexIsForwardOnlyWhereItsGuardHolds() {
    assertEquals(SIGNED_INDEX, sel(selEntry));
    // setp.ne with the arms swapped: the same index.
    assertEquals(SIGNED_INDEX, sel(edit(selEntry, INDEX, INDEX.replace("setp.eq", "setp.ne").replace("%r2, %r1, %p2", "%r1, %r2, %p2"))));
    // The guard compares another non-negative value with n (tid.y < n): n >= 1 all the same.
    assertEquals(SIGNED_INDEX, sel(edit(selEntry, GUARD, "\tmov.u32 \t%r8, %tid.y;\n" + GUARD.replace("%p1, %r1, %r2", "%p1, %r8, %r2"))));
    // The zero arm an immediate of at least 1 needs no guard: p[tid.x == 0 ? 0 : tid.x - 1].
    assertEquals(ALWAYS, inline("""
        mov.u32 %r2, %tid.x;
        setp.eq.s32 %p1, %r2, 0;
        selp.b32 %r3, 1, %r2, %p1;
        add.s32 %r4, %r3, -1;
        mul.wide.s32 %rd2, %r4, 4;
        add.s64 %rd3, %rd1, %rd2;
        st.global.u32 [%rd3], 0;""")[0]);
  }

  @Test
  void theWrapAroundIndexNeedsThePredicateToTestTheIndexItChooses() {
    notProven(Map.of(
        // setp.ne with the arms as they were: i != 0 ? n : i, so p[-1] at i == 0.
        "ne, arms not swapped", edit(selEntry, INDEX, INDEX.replace("setp.eq", "setp.ne")),
        // The predicate tests another register (tid.y == 0): i == 0 may be chosen, p[-1].
        "another register", edit(selEntry, INDEX, "\tmov.u32 \t%r8, %tid.y;\n" + INDEX.replace("%p2, %r1, 0", "%p2, %r8, 0")),
        // The index redefined between the compare and the selp (tid.x, which may be 0 where i is not).
        "redefined between", edit(selEntry, "\tselp.b32", "\tmov.u32 \t%r1, %tid.x;\n\tselp.b32"),
        // A label at the selp: a branch reaches it with the predicate of another compare (tid.y == 0).
        "label at the selp", edit(selEntry, INDEX, "\tsetp.eq.s32 \t%p3, %r5, 0;\n\tmov.u32 \t%r8, %tid.y;\n"
            + "\tsetp.eq.s32 \t%p2, %r8, 0;\n\t@%p3 bra \t$L__BB13_9;\n\tsetp.eq.s32 \t%p2, %r1, 0;\n$L__BB13_9:\n"
            + "\tselp.b32 \t%r6, %r2, %r1, %p2;\n\tadd.s32 \t%r7, %r6, -1;\n"),
        // x - 2, not x - 1: p[-1] at i == 1.
        "minus 2", edit(selEntry, "%r6, -1;", "%r6, -2;")));
  }

  @Test
  void theWrapAroundIndexNeedsASignedGuardOfItsBoundWhereTheSelpRuns() {
    int from = selEntry.indexOf(GUARD) + GUARD.length();
    String use = selEntry.substring(from, selEntry.indexOf("$L__BB13_2:\n", from)); // the index and its store
    assertTrue(use.contains("st.global") && use.contains(INDEX), use);
    notProven(Map.of(
        "no guard", edit(selEntry, GUARD, ""), // n may be 0: p[-1]
        "i <= n", edit(selEntry, GUARD, GUARD.replace("setp.ge.s32", "setp.gt.s32")), // n may be 0
        // An unsigned i < n: n may be 2^32 - 1, whose n - 1 is negative as a signed index.
        "unsigned", edit(selEntry, GUARD, GUARD.replace("setp.ge.s32", "setp.ge.u32")),
        "branch reversed", edit(selEntry, "@%p1 bra", "@!%p1 bra"), // the index is read where i >= n
        // The guard compares with n a value that may be negative: n may be 0.
        "x may be negative", edit(selEntry, GUARD, "\tld.global.u32 \t%r8, [%rd1];\n" + GUARD.replace("%p1, %r1, %r2", "%p1, %r8, %r2")),
        "n redefined after the guard", edit(selEntry, GUARD, GUARD + "\tld.global.u32 \t%r2, [%rd1];\n"), // may be 0
        "the use before the guard", edit(selEntry, GUARD + use, use + GUARD), // run whatever n is
        // The selp before the guard, its use after: not proven (the guard must hold where the selp runs).
        "the selp before the guard", edit(edit(selEntry, INDEX, ""), GUARD, INDEX + GUARD)));
  }

  @Test
  void theWrapAroundIndexOfAnIndexThatMayBeNegativeIsNot() {
    String store = """
        add.s32 %r4, %r3, -1;
        mul.wide.s32 %rd2, %r4, 4;
        add.s64 %rd3, %rd1, %rd2;
        st.global.u32 [%rd3], 0;""";
    assertAll(
        // x a loaded value: x == 0 ? 1 : x, minus 1, where x may be -5.
        () -> assertEquals(NO, inline("""
            ld.global.u32 %r2, [%rd1];
            setp.eq.s32 %p1, %r2, 0;
            selp.b32 %r3, 1, %r2, %p1;
            """ + store)[0], "loaded"),
        // x the parameter n: n == 0 ? 1 : n, minus 1, where n may be negative.
        () -> assertEquals(NO, inline("""
            setp.eq.s32 %p1, %r1, 0;
            selp.b32 %r3, 1, %r1, %p1;
            """ + store)[0], "parameter"),
        // A zero arm of 0: tid.x == 0 ? 0 : tid.x, minus 1, is -1 at thread 0.
        () -> assertEquals(NO, inline("""
            mov.u32 %r2, %tid.x;
            setp.eq.s32 %p1, %r2, 0;
            selp.b32 %r3, 0, %r2, %p1;
            """ + store)[0], "zero arm 0"));
  }
}
