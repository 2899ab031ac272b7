package dev.kernelweave.ptx;

import static org.junit.jupiter.api.Assertions.assertAll;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kernelweave.ptx.PtxCorpus.Expectation;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.BiFunction;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** The analyzer on what nvcc makes of {@code ptx-corpus.cu}, for sm_75 and sm_90, optimized and -G. */
class PtxCorpusTest {

  static List<String> optimized() {
    return PtxCorpus.OPTIMIZED;
  }

  static List<String> variants() {
    return PtxCorpus.allVariants();
  }

  @Test
  void corpusCoversTheCasesTheAnalysisMustGetRight() {
    Map<String, Expectation> e = PtxCorpus.expectations();
    assertTrue(e.size() >= 60, "kernels with expectations: " + e.size());
    long others = e.values().stream().filter(x -> x.other).count();
    long written = e.values().stream().filter(x -> x.uses.stream().anyMatch(ParameterUse::writes)).count();
    long unused = e.values().stream().filter(x -> x.uses.contains(ParameterUse.V)).count();
    long variables = e.values().stream().filter(x -> !x.variables.isEmpty()).count();
    assertTrue(others >= 8 && written >= 40 && unused >= 30 && variables >= 8,
        others + " " + written + " " + unused + " " + variables);
  }

  @ParameterizedTest
  @MethodSource("variants")
  void everyKernelOfTheSourceIsFoundAndNothingElse(String variant) {
    assertEquals(List.copyOf(PtxCorpus.expectations().keySet()), List.copyOf(PtxCorpus.analyzed(variant).keySet()));
  }

  @ParameterizedTest
  @MethodSource("optimized")
  void everyParameterOfEveryKernelGetsItsExpectedToken(String variant) {
    Map<String, KernelAccessSummary> actual = PtxCorpus.analyzed(variant);
    List<Executable> checks = new ArrayList<>();
    for (Expectation e : PtxCorpus.expectations().values()) {
      checks.add(() -> {
        KernelAccessSummary s = actual.get(e.kernel);
        // The corpus states uses and extents; forward-only marks (+) are ForwardIndexingTest's.
        assertEquals(e.line(), s == null ? "(missing)" : KernelSummaryFormat.line(s).replaceAll("\\+((\\d*x\\+)?p\\d+u?<=\\d+|x<=\\d+)?", ""),
            variant);
      });
    }
    assertAll(checks);
  }

  @ParameterizedTest
  @MethodSource("variants")
  void writtenParameterIsNeverReportedReadOnlyOrUnused(String variant) {
    Map<String, KernelAccessSummary> actual = PtxCorpus.analyzed(variant);
    List<Executable> checks = new ArrayList<>();
    for (Expectation e : PtxCorpus.expectations().values()) {
      KernelAccessSummary s = actual.get(e.kernel);
      for (int i = 0; i < e.uses.size(); i++) {
        int p = i;
        checks.add(() -> {
          if (e.uses.get(p).writes()) {
            assertTrue(s.use(p).writes(), variant + " " + e.kernel + " parameter " + p + ": " + s.use(p));
          }
          if (e.uses.get(p).reads()) {
            assertTrue(s.use(p).reads(), variant + " " + e.kernel + " parameter " + p + ": " + s.use(p));
          }
        });
      }
      checks.add(() -> assertTrue(!e.other || s.touchesOtherMemory(), variant + " " + e.kernel + ": OTHER missing"));
      checks.add(() -> assertTrue(!e.prints || s.prints(), variant + " " + e.kernel + ": PRINTF missing"));
      e.variables.forEach((variable, use) -> checks.add(() -> {
        // Debug builds may reach a variable through an address the analysis cannot name: any variable.
        ParameterUse named = s.moduleVariables().getOrDefault(variable, ParameterUse.V);
        ParameterUse any = s.anyModuleVariable();
        String what = variant + " " + e.kernel + " variable " + variable + ": " + s;
        if (use.reads()) assertTrue(named.reads() || any.reads() || s.touchesOtherMemory(), what);
        if (use.writes()) assertTrue(named.writes() || any.writes() || s.touchesOtherMemory(), what);
      }));
    }
    assertAll(checks);
  }

  @ParameterizedTest
  @MethodSource("variants")
  void noExtentIsNarrowerThanTheSourceProves(String variant) {
    Map<String, KernelAccessSummary> actual = PtxCorpus.analyzed(variant);
    List<Executable> checks = new ArrayList<>();
    for (Expectation e : PtxCorpus.expectations().values()) {
      KernelAccessSummary s = actual.get(e.kernel);
      for (int i = 0; i < e.uses.size(); i++) {
        int p = i;
        checks.add(() -> assertCovers(e.extents.get(p), s.extent(p), variant + " " + e.kernel + " parameter " + p));
      }
    }
    assertAll(checks);
  }

  @Test
  void corpusHasBoundedAndUnboundedExtents() {
    long bounded = PtxCorpus.expectations().values().stream()
        .filter(x -> x.extents.stream().anyMatch(ParameterExtent::isBounded)).count();
    assertTrue(bounded >= 10, "kernels with a bounded extent: " + bounded);
  }

  /** {@code actual} says the kernel may touch no less than {@code truth}. */
  private static void assertCovers(ParameterExtent truth, ParameterExtent actual, String what) {
    if (!actual.isBounded()) return;
    assertTrue(truth.isBounded() && actual.start() <= truth.start() && truth.end() <= actual.end(),
        what + ": " + actual + " narrower than " + truth);
  }

  @ParameterizedTest
  @MethodSource("variants")
  void parameterSizesComeFromTheDeclarations(String variant) {
    Map<String, KernelAccessSummary> a = PtxCorpus.analyzed(variant);
    assertEquals(List.of(8, 8, 4), sizes(a.get("copy_f32")));
    assertEquals(List.of(24), sizes(a.get("struct_copy")));
    assertEquals(List.of(16, 8, 4), sizes(a.get("struct_sum")));
    assertEquals(List.of(32, 4, 4), sizes(a.get("param_pointer_array")));
    assertEquals(List.of(8, 8, 8, 4, 8), sizes(a.get("wide_scalars")));
    assertEquals(List.of(8, 1, 2, 1), sizes(a.get("small_scalars")));
    assertEquals(List.of(), sizes(a.get("no_params")));
  }

  private static List<Integer> sizes(KernelAccessSummary s) {
    List<Integer> out = new ArrayList<>();
    for (int i = 0; i < s.parameterCount(); i++) out.add(s.parameterSize(i));
    return out;
  }

  // ---- properties: whatever the kernel, an access added to it is seen ---------------------------

  /** {@code .entry name(params)}: the parameters' names and whether each can hold a pointer. */
  private static final Pattern ENTRY = Pattern.compile("\\.entry\\s+([\\w$]+)\\s*\\(([^)]*)\\)");

  /**
   * Adds {@code snippet.apply(param name, parameter index)} at the top of every kernel's body, in a
   * block of its own, for every pointer-sized parameter {@code index} (the snippet may return null).
   */
  private static String inject(String ptx, int index, BiFunction<String, Integer, String> snippet) {
    StringBuilder out = new StringBuilder(ptx.length() + 4096);
    Matcher m = ENTRY.matcher(ptx);
    int at = 0;
    while (m.find()) {
      String[] params = m.group(2).trim().isEmpty() ? new String[0] : m.group(2).split(",");
      int open = ptx.indexOf('{', m.end());
      out.append(ptx, at, open + 1);
      at = open + 1;
      if (index < params.length) {
        String decl = params[index].trim();
        String name = decl.substring(decl.lastIndexOf(' ') + 1).replaceAll("\\[.*", "");
        boolean pointerSized = decl.matches(".*\\.[usbf]64 .*")
            || (decl.contains(".b8") && decl.matches(".*\\[(\\d\\d+|[89])\\]"));
        String code = pointerSized ? snippet.apply(name, index) : null;
        if (code != null) out.append("\n{\n.reg .b64 %kwx<4>;\n").append(code).append("\n}\n");
      }
    }
    out.append(ptx, at, ptx.length());
    return out.toString();
  }

  private static void assertNoLessThan(KernelAccessSummary before, KernelAccessSummary after, String what) {
    for (int i = 0; i < before.parameterCount(); i++) {
      if (before.use(i).reads()) assertTrue(after.use(i).reads(), what + " lost a read of " + i);
      if (before.use(i).writes()) assertTrue(after.use(i).writes(), what + " lost a write of " + i);
    }
    if (before.touchesOtherMemory()) assertTrue(after.touchesOtherMemory(), what + " lost OTHER");
  }

  /**
   * @param touched the bytes the snippet touches through the parameter, which its extent must then
   *     cover along with what it covered before; null: the snippet leaves the extent unbounded
   */
  private static void checkInjected(String variant, BiFunction<String, Integer, String> snippet,
      boolean expectRead, boolean expectWrite, boolean expectOther, ParameterExtent touched) {
    String ptx = PtxCorpus.ptx(variant);
    Map<String, KernelAccessSummary> before = PtxCorpus.analyzed(variant);
    List<Executable> checks = new ArrayList<>();
    for (int index = 0; index < 6; index++) {
      int k = index;
      String injected = inject(ptx, k, snippet);
      List<KernelAccessSummary> after = PtxAnalyzer.analyze(injected);
      assertEquals(before.size(), after.size());
      for (KernelAccessSummary s : after) {
        KernelAccessSummary old = before.get(s.name());
        if (k >= s.parameterCount() || s.parameterSize(k) < 8) continue;
        String what = variant + " " + s.name() + " with an access through parameter " + k;
        checks.add(() -> {
          if (expectWrite) assertTrue(s.use(k).writes(), what + ": " + s);
          if (expectRead) assertTrue(s.use(k).reads(), what + ": " + s);
          if (expectOther) assertTrue(s.touchesOtherMemory(), what + ": " + s);
          assertNoLessThan(old, s, what);
          if (touched == null) {
            assertFalse(s.extent(k).isBounded(), what + ": " + s);
          } else {
            assertCovers(touched, s.extent(k), what);
            if (old.extent(k).isBounded()) assertCovers(old.extent(k), s.extent(k), what);
            else if (old.use(k) != ParameterUse.V) assertFalse(s.extent(k).isBounded(), what + ": " + s);
          }
        });
      }
    }
    assertTrue(checks.size() > 40, "too few injections: " + checks.size());
    assertAll(checks);
  }

  @ParameterizedTest
  @MethodSource("variants")
  void storeAddedThroughAnyPointerParameterIsReportedAsAWrite(String variant) {
    checkInjected(variant, (name, k) -> "ld.param.u64 %kwx0, [" + name + "];\n"
        + "cvta.to.global.u64 %kwx1, %kwx0;\nst.global.u32 [%kwx1+4], 0;", false, true, false,
        ParameterExtent.of(4, 8));
  }

  @ParameterizedTest
  @MethodSource("variants")
  void predicatedGenericStoreInALoopIsReportedAsAWrite(String variant) {
    checkInjected(variant, (name, k) -> ".reg .pred %kwp;\nld.param.u64 %kwx0, [" + name + "];\n"
        + "mov.u64 %kwx2, 0;\nKW_LOOP_" + k + ":\nsetp.lt.u64 %kwp, %kwx2, 64;\n"
        + "@%kwp st.u8 [%kwx3], 1;\nadd.s64 %kwx3, %kwx0, %kwx2;\nadd.s64 %kwx2, %kwx2, 1;\n"
        + "@%kwp bra KW_LOOP_" + k + ";", false, true, false, null);
  }

  @ParameterizedTest
  @MethodSource("variants")
  void loadAddedThroughAnyPointerParameterIsReportedAsARead(String variant) {
    checkInjected(variant, (name, k) -> "ld.param.u64 %kwx0, [" + name + "];\n"
        + "ld.global.nc.v2.u32 {%kwx1, %kwx2}, [%kwx0];", true, false, false, ParameterExtent.of(0, 8));
  }

  @ParameterizedTest
  @MethodSource("variants")
  void storeAddedAtAConstantOffsetIsCoveredByTheExtent(String variant) {
    checkInjected(variant, (name, k) -> "ld.param.u64 %kwx0, [" + name + "];\n"
        + "cvta.to.global.u64 %kwx1, %kwx0;\nadd.s64 %kwx2, %kwx1, 4000;\nst.global.v2.u32 [%kwx2+96], {0, 0};",
        false, true, false, ParameterExtent.of(4096, 4104));
  }

  @ParameterizedTest
  @MethodSource("variants")
  void pointerAddedToItselfInALoopHasNoExtent(String variant) {
    checkInjected(variant, (name, k) -> ".reg .pred %kwp;\nld.param.u64 %kwx0, [" + name + "];\n"
        + "KW_STEP_" + k + ":\nst.global.u8 [%kwx0], 1;\nadd.s64 %kwx0, %kwx0, 1;\n"
        + "setp.lt.u64 %kwp, %kwx0, 64;\n@%kwp bra KW_STEP_" + k + ";", false, true, false, null);
  }

  @ParameterizedTest
  @MethodSource("variants")
  void pointerStoredToMemoryHasNoExtent(String variant) {
    checkInjected(variant, (name, k) -> "ld.param.u64 %kwx0, [" + name + "];\n"
        + "st.global.u32 [%kwx0], 0;\nst.global.u64 [%kwx0+8], %kwx0;", false, true, false, null);
  }

  @ParameterizedTest
  @MethodSource("variants")
  void storeThroughAPointerLoadedFromAParameterIsOtherMemory(String variant) {
    checkInjected(variant, (name, k) -> "ld.param.u64 %kwx0, [" + name + "];\n"
        + "ld.global.u64 %kwx1, [%kwx0+8];\nst.global.u32 [%kwx1], 0;", true, false, true,
        ParameterExtent.of(8, 16));
  }

  @Test
  void injectionReachesEveryKernel() {
    String ptx = PtxCorpus.ptx("corpus-sm90");
    String injected = inject(ptx, 0, (name, k) -> "// marker");
    int kernels = PtxCorpus.expectations().size();
    int withPointerFirst = (int) PtxAnalyzer.analyze(ptx).stream()
        .filter(s -> s.parameterCount() > 0 && s.parameterSize(0) >= 8).count();
    assertEquals(withPointerFirst, injected.split("// marker", -1).length - 1);
    assertFalse(withPointerFirst < kernels / 2);
  }
}
