package dev.kernelweave.ptx;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The merged variant generator's verdicts and rewrite. That a merged variant computes what the
 * separate launches compute is shown by running both (MergedKernelsOnCpuDeviceTest in it-tests);
 * here: which kernels are refused and why, and what the rewrite leaves of the original.
 */
class KernelMergingTest {

  /** A module with one kernel whose body is {@code body} and parameters {@code params}. */
  private static String module(String params, String body) {
    return ".version 8.0\n.target sm_90\n.address_size 64\n\n.visible .entry k(" + params + ")\n{\n"
        + "\t.reg .b32 %r<8>;\n\t.reg .b64 %rd<8>;\n\t.reg .pred %p<4>;\n" + body + "\n\tret;\n}\n";
  }

  private static String refusal(String module) {
    MergedKernel m = KernelMerging.merge(module, "k");
    assertFalse(m.mergeable(), () -> "merged:\n" + m.entryText());
    assertThrows(IllegalStateException.class, m::entryText);
    return m.refusal().orElseThrow();
  }

  @Test
  void aKernelReadingClock64IsRefused() {
    MergedKernel timed = KernelMerging.merge(PtxCorpus.ptx("merge-refusals"), "timed_copy");
    assertEquals("not mergeable: reads %clock64", timed.verdict());
  }

  @ParameterizedTest
  @CsvSource(delimiter = '|', textBlock = """
      timed_copy     | reads %clock64
      sm_tagged      | reads %smid
      global_timer   | reads %globaltimer
      grid_synced    | cooperative launch (reads %envreg2)
      launches_child | dynamic parallelism (calls __cudaCDP2GetParameterBufferV2)
      clustered      | cluster launch (.explicitcluster)
      """)
  void compiledKernelsThatCannotMergeSayWhy(String kernel, String reason) {
    assertEquals(reason, KernelMerging.merge(PtxCorpus.ptx("merge-refusals"), kernel).refusal().orElseThrow());
  }

  @Test
  void theChildOfADeviceLaunchIsAnOrdinaryKernel() {
    assertTrue(KernelMerging.merge(PtxCorpus.ptx("merge-refusals"), "_Z5childPf").mergeable());
  }

  @Test
  void theCorpusRefusesExactlyWhatItCannotKeep() {
    Map<String, String> refused = new LinkedHashMap<>();
    for (MergedKernel m : KernelMerging.mergeAll(PtxCorpus.ptx("corpus-sm90"))) {
      if (!m.mergeable()) refused.put(m.kernel(), m.refusal().orElseThrow());
    }
    assertEquals(Map.of(
        "call_through_pointer", "indirect call",
        "heap_scratch", "device heap (calls malloc)",
        "count_positive", "writes module variable g_counter",
        "publish_flag", "writes module variable g_flag",
        "print_value", "prints (device printf or assert)",
        "texture_fetch", "texture or surface access"), refused);
  }

  @Test
  void aGridConstantParameterWhoseAddressIsTakenIsRefused() {
    // At -G, nvcc passes the parameter's address (cvta.param) to the function that reads it.
    assertEquals("parameter 0 used other than by ld.param (address taken)",
        KernelMerging.merge(PtxCorpus.ptx("corpus-sm90-debug"), "grid_constant_span").refusal().orElseThrow());
  }

  @Test
  void aGridStrideLoopReadsTheInstancesGridNotTheMergedOne() {
    MergedKernel m = KernelMerging.merge(PtxCorpus.ptx("merge-kernels"), "grid_stride_scale");
    assertTrue(m.mergeable(), m.verdict());
    String entry = m.entryText();
    assertFalse(entry.contains("%nctaid"), entry);
    // Only the prologue reads the merged launch's block; the body reads the instance's.
    assertEquals(1, count(entry, "%ctaid.x"), entry);
    assertTrue(entry.contains(", %__kw_nctaid_x;"), entry);
    assertFalse(entry.contains("ld.param.u64 \t%rd"), entry);
  }

  @Test
  void parameterLoadsReadTheInstancesRowAtTheSameOffsets() {
    MergedKernel m = KernelMerging.merge(PtxCorpus.ptx("merge-kernels"), "struct_affine");
    assertTrue(m.mergeable(), m.verdict());
    MergedLaunchTable t = m.table();
    // Affine (12 bytes, align 4), a pointer, float4 (align 16), double, char, a pointer.
    assertEquals(6, t.parameterCount());
    assertEquals(java.util.List.of(0, 16, 32, 48, 56, 64), java.util.stream.IntStream.range(0, 6)
        .map(t::parameterOffset).boxed().toList());
    assertEquals(72, t.parameterBytes());
    assertEquals(16, t.parametersOffset());
    String entry = m.entryText();
    assertTrue(entry.contains("ld.global.f32 \t%f16, [%__kw_row+" + (16 + 32 + 12) + "]"), entry);
    assertTrue(entry.contains("ld.global.s8 \t%rs1, [%__kw_row+" + (16 + 56) + "]"), entry);
    assertFalse(entry.contains("struct_affine_param_"), entry);
  }

  @Test
  void parameterOffsetsAreReadAsPtxIntegers() {
    // 010 is octal: byte 8 of the structure, where its pointer is.
    String body = "\tld.param.u64 %rd1, [k_p0+010];\n\tld.param.u32 %r1, [k_p0+0x4];\n"
        + "\tcvta.to.global.u64 %rd2, %rd1;\n\tst.global.u32 [%rd2], %r1;";
    MergedKernel m = KernelMerging.merge(module(".param .align 8 .b8 k_p0[16]", body), "k");
    assertTrue(m.mergeable(), m.verdict());
    int row = m.table().parametersOffset() + m.table().parameterOffset(0);
    String entry = m.entryText();
    assertTrue(entry.contains("ld.global.u64 %rd1, [%__kw_row+" + (row + 8) + "]"), entry);
    assertTrue(entry.contains("ld.global.u32 %r1, [%__kw_row+" + (row + 4) + "]"), entry);
  }

  @Test
  void theMergedEntryFollowsTheOriginalInTheModule() {
    String text = PtxCorpus.ptx("merge-kernels");
    MergedKernel m = KernelMerging.merge(text, "rows_2d");
    String module = m.moduleText();
    assertEquals(text, module.replace("\n\n" + m.entryText(), ""));
    int original = module.indexOf(".entry rows_2d(");
    int merged = module.indexOf(".entry rows_2d__kw_merged(");
    assertTrue(original >= 0 && merged > original, module);
    assertEquals("rows_2d__kw_merged", m.mergedName());
  }

  @Test
  void labelsOfTheCopyAreRenamed() {
    MergedKernel m = KernelMerging.merge(PtxCorpus.ptx("corpus-sm90-debug"), "copy_f32");
    assertTrue(m.mergeable(), m.verdict());
    Matcher labels = Pattern.compile("(?m)^(\\$[\\w$]+):").matcher(m.entryText());
    int n = 0;
    while (labels.find()) {
      n++;
      assertTrue(labels.group(1).endsWith("__kw_") || labels.group(1).startsWith("$__kw_"), labels.group(1));
    }
    assertTrue(n > 3, m.entryText());
  }

  @ParameterizedTest
  @CsvSource(delimiter = '|', textBlock = """
      .param .u32 k_p0 | ld.param.u64 %rd1, [k_p0];                  | parameter 0 loaded outside its bytes
      .param .u64 k_p0 | ld.param.u32 %r1, [k_p0+8];                 | parameter 0 loaded outside its bytes
      .param .u64 k_p0 | mov.u64 %rd1, k_p0; ld.param.u64 %rd2, [%rd1]; | parameter 0 used other than by ld.param (address taken)
      .param .u64 k_p0 | barrier.cluster.arrive;                     | cluster barrier
      .param .u64 k_p0 | mov.u32 %r1, %gridid;                        | reads %gridid
      .param .u64 k_p0 | mov.u32 %r1, %nsmid;                         | reads %nsmid
      .param .u64 k_p0 | mov.u32 %r1, %cluster_ctarank;               | reads %cluster_ctarank
      .param .u64 k_p0 | mov.u32 %r1, %clock;                         | reads %clock
      .param .u64 k_p0 | .reg .b32 %smid<2>; mov.u32 %smid1, %smid;  | reads %smid
      .param .u64 k_p0 | griddepcontrol.wait;                         | programmatic dependent launch
      .param .u64 k_p0 | ld.shared::cluster.u32 %r1, [%rd1];           | cluster shared memory
      .param .u64 k_p0 | call.uni cudaLaunchDeviceV2, (k_p0);          | dynamic parallelism (calls cudaLaunchDeviceV2)
      .param .u64 k_p0 | call.uni cudaCGSynchronizeGrid, (k_p0);       | grid-wide synchronization (calls cudaCGSynchronizeGrid)
      .param .texref k_p0 | mov.u32 %r1, 0;                           | texture or surface reference parameter
      .param .u64 k_p0 | .reg .b32 %__kw_i; mov.u32 %__kw_i, 0;      | register names of the merged variant in use
      """)
  void handWrittenKernelsThatCannotMergeSayWhy(String params, String body, String reason) {
    assertEquals(reason, refusal(module(params, "\t" + body.replace("; ", ";\n\t"))));
  }

  @Test
  void anIndirectCallIsRefused() {
    String body = "\tld.param.u64 %rd1, [k_p0];\n\t{\n\t.param .b32 a;\n\tst.param.b32 [a], 1;\n"
        + "\tcall %rd1, (a), proto;\n\t}";
    assertEquals("indirect call", refusal(module(".param .u64 k_p0", body)));
  }

  @Test
  void aCalledFunctionReadingTheBlockIndexIsRefused() {
    String text = ".version 8.0\n.target sm_90\n.address_size 64\n\n"
        + ".func (.param .b32 r) block_of()\n{\n\t.reg .b32 %r<2>;\n\tmov.u32 %r1, %ctaid.x;\n"
        + "\tst.param.b32 [r], %r1;\n\tret;\n}\n\n.visible .entry k()\n{\n\t.reg .b32 %r<2>;\n"
        + "\t{\n\t.param .b32 r0;\n\tcall.uni (r0), block_of, ();\n\tld.param.b32 %r1, [r0];\n\t}\n\tret;\n}\n";
    assertEquals("calls a function that reads %ctaid", refusal(text));
  }

  @Test
  void aModuleThatAlreadyHasTheMergedNameIsRefused() {
    String text = module(".param .u64 k_p0", "\tld.param.u64 %rd1, [k_p0];")
        + "\n.visible .entry k__kw_merged()\n{\n\tret;\n}\n";
    assertEquals("the module already has k__kw_merged", refusal(text));
  }

  @Test
  void aKernelTheModuleDoesNotDefineIsRefused() {
    assertEquals("no such kernel defined in the module",
        KernelMerging.merge(module("", ""), "j").refusal().orElseThrow());
  }

  @Test
  void blockShapeDirectivesAreKept() {
    String text = ".version 8.0\n.target sm_90\n.address_size 64\n\n.visible .entry k(.param .u32 k_p0)\n"
        + ".maxntid 128, 1, 1\n.minnctapersm 2\n{\n\t.reg .b32 %r<2>;\n\tld.param.u32 %r1, [k_p0];\n\tret;\n}\n";
    MergedKernel m = KernelMerging.merge(text, "k");
    assertTrue(m.mergeable(), m.verdict());
    assertTrue(m.entryText().contains(".maxntid 128, 1, 1\n.minnctapersm 2\n{"), m.entryText());
  }

  private static int count(String text, String what) {
    int n = 0;
    for (int i = text.indexOf(what); i >= 0; i = text.indexOf(what, i + 1)) n++;
    return n;
  }
}
