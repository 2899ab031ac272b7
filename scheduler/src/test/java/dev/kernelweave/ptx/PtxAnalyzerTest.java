package dev.kernelweave.ptx;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The analyzer on hand-written PTX: forms nvcc rarely emits, and text it must survive. */
class PtxAnalyzerTest {

  private static final String HEADER = ".version 8.5\n.target sm_90\n.address_size 64\n\n";

  /** The line of the only kernel {@code k(params) { body }}. */
  static String kernel(String params, String body) {
    return only(HEADER + ".visible .entry k(" + params + ")\n{\n" + body + "\n}\n");
  }

  static String only(String ptx) {
    List<KernelAccessSummary> all = PtxAnalyzer.analyze(ptx);
    assertEquals(1, all.size(), () -> "kernels in\n" + ptx);
    return KernelSummaryFormat.line(all.get(0));
  }

  private static final String TWO_POINTERS = ".param .u64 k_p0, .param .u64 k_p1";

  @Test
  void loadAndStoreThroughParametersAreReadAndWrite() {
    assertEquals("k\tR[16,20) W[-4,0)", kernel(TWO_POINTERS, """
        .reg .b64 %rd<4>; .reg .f32 %f1;
        ld.param.u64 %rd1, [k_p0];
        ld.param.u64 %rd2, [k_p1];
        ld.global.f32 %f1, [%rd1+16];
        st.global.f32 [%rd2+-4], %f1;
        ret;"""));
  }

  @Test
  void valueUsedOnlyBeforeItIsDefinedInTheTextIsFollowedAroundTheLoop() {
    // %rd3 is stored through at the top and derived from the parameter at the bottom.
    assertEquals("k\tV W", kernel(TWO_POINTERS, """
        .reg .b64 %rd<5>; .reg .pred %p1;
        ld.param.u64 %rd1, [k_p1];
        mov.u64 %rd4, 0;
        LOOP:
        @%p1 st.global.u8 [%rd3], 0;
        add.s64 %rd3, %rd2, %rd4;
        mov.u64 %rd2, %rd1;
        add.s64 %rd4, %rd4, 1;
        setp.lt.u64 %p1, %rd4, 10;
        @%p1 bra LOOP;
        ret;"""));
  }

  @Test
  void selpOfTwoParametersCarriesBoth() {
    assertEquals("k\tW W V", kernel(TWO_POINTERS + ", .param .u32 k_p2", """
        .reg .b64 %rd<4>; .reg .b32 %r1; .reg .pred %p1;
        ld.param.u64 %rd1, [k_p0];
        ld.param.u64 %rd2, [k_p1];
        ld.param.u32 %r1, [k_p2];
        setp.eq.s32 %p1, %r1, 0;
        selp.b64 %rd3, %rd1, %rd2, %p1;
        st.u32 [%rd3], %r1;
        ret;"""));
  }

  @Test
  void atomicsAndReductionsAreReadWrite() {
    assertEquals("k\tRW[0,4) RW[0,4)", kernel(TWO_POINTERS, """
        .reg .b64 %rd<3>; .reg .b32 %r<3>;
        ld.param.u64 %rd1, [k_p0];
        ld.param.u64 %rd2, [k_p1];
        atom.global.cas.b32 %r1, [%rd1], 0, 1;
        red.relaxed.gpu.global.add.u32 [%rd2], %r1;
        ret;"""));
  }

  @Test
  void prefetchIsNoAccessAndDiscardIsAWrite() {
    assertEquals("k\tV W", kernel(TWO_POINTERS, """
        .reg .b64 %rd<3>;
        ld.param.u64 %rd1, [k_p0];
        ld.param.u64 %rd2, [k_p1];
        prefetch.global.L2 [%rd1];
        prefetchu.L1 [%rd1];
        discard.global.L2 [%rd2], 128;
        ret;"""));
  }

  @Test
  void sharedAndLocalSpacesAreNotGlobalMemoryAndAConstantAtAnUnnamedAddressIsAnyVariable() {
    assertEquals("k\tR[0,4) V *:R", kernel(TWO_POINTERS, """
        .reg .b64 %rd<4>; .reg .b32 %r<4>;
        .shared .align 4 .b8 tile[64];
        .local .align 4 .b8 depot[16];
        ld.param.u64 %rd1, [k_p0];
        ld.param.u64 %rd2, [k_p1];
        ld.global.u32 %r1, [%rd1];
        mov.u32 %r2, tile;
        st.shared.u32 [%r2+4], %r1;
        atom.shared.add.u32 %r3, [%r2], 1;
        st.local.u32 [depot+8], %r3;
        ld.const.u32 %r3, [%rd2];
        ret;"""));
  }

  @Test
  void genericAccessToAStackSlotIsNotGlobalMemory() {
    assertEquals("k\tW", kernel(".param .u64 k_p0", """
        .local .align 8 .b8 __local_depot0[16];
        .reg .b64 %SP; .reg .b64 %SPL; .reg .b64 %rd<4>;
        mov.u64 %SPL, __local_depot0;
        cvta.local.u64 %SP, %SPL;
        ld.param.u64 %rd1, [k_p0];
        st.u64 [%SP+8], %rd1;
        ld.u64 %rd2, [%SP+8];
        st.u32 [%rd2], 7;
        ret;"""));
  }

  @Test
  void pointerLoadedFromGlobalMemoryAndDereferencedIsOtherMemory() {
    assertEquals("k\tR[0,8) V OTHER", kernel(TWO_POINTERS, """
        .reg .b64 %rd<4>;
        ld.param.u64 %rd1, [k_p0];
        ld.global.u64 %rd2, [%rd1];
        st.global.u32 [%rd2], 1;
        ret;"""));
  }

  @Test
  void pointerRebuiltFromTwoHalvesLoadedFromMemoryIsOtherMemory() {
    assertEquals("k\tR[0,8) OTHER", kernel(".param .u64 k_p0", """
        .reg .b64 %rd<4>; .reg .b32 %r<3>;
        ld.param.u64 %rd1, [k_p0];
        ld.global.v2.u32 {%r1, %r2}, [%rd1];
        mov.b64 %rd2, {%r1, %r2};
        st.global.u32 [%rd2], 1;
        ret;"""));
  }

  @Test
  void pointerRebuiltFromHalvesIsOtherMemoryEvenWhereAParameterMayBeChosenInstead() {
    assertEquals("k\tRW OTHER", kernel(".param .u64 k_p0", """
        .reg .b64 %rd<4>; .reg .b32 %r<3>; .reg .pred %p1;
        ld.param.u64 %rd1, [k_p0];
        ld.global.v2.u32 {%r1, %r2}, [%rd1];
        mov.b64 %rd2, {%r1, %r2};
        setp.eq.s32 %p1, %r1, 0;
        selp.b64 %rd3, %rd1, %rd2, %p1;
        st.global.u32 [%rd3], 1;
        ret;"""));
  }

  @Test
  void pointerRebuiltFromTwoNarrowParametersIsOtherMemory() {
    assertEquals("k\tV V W OTHER", kernel(".param .u32 k_lo, .param .u32 k_hi, .param .u64 k_p", """
        .reg .b64 %rd<7>; .reg .b32 %r<3>; .reg .pred %p1;
        ld.param.u32 %r1, [k_lo];
        ld.param.u32 %r2, [k_hi];
        ld.param.u64 %rd5, [k_p];
        cvt.u64.u32 %rd1, %r1;
        cvt.u64.u32 %rd2, %r2;
        shl.b64 %rd3, %rd2, 32;
        or.b64 %rd4, %rd3, %rd1;
        setp.eq.s32 %p1, %r1, 0;
        selp.b64 %rd6, %rd4, %rd5, %p1;
        st.global.u32 [%rd6], 1;
        ret;"""));
  }

  @Test
  void indexLoadedFromMemoryIsNotAPointer() {
    assertEquals("k\tR R[0,16)", kernel(TWO_POINTERS, """
        .reg .b64 %rd<8>; .reg .b32 %r<3>;
        ld.param.u64 %rd1, [k_p0];
        ld.param.u64 %rd2, [k_p1];
        ld.global.u32 %r1, [%rd2];
        mul.wide.s32 %rd3, %r1, 4;
        add.s64 %rd4, %rd1, %rd3;
        ld.global.u32 %r2, [%rd4];
        ld.global.u64 %rd5, [%rd2+8];
        shl.b64 %rd6, %rd5, 2;
        add.s64 %rd7, %rd6, %rd1;
        ld.global.u32 %r2, [%rd7];
        ret;"""));
  }

  @Test
  void scaledPointerThatIsScaledBackIsStillAPointer() {
    // 4p - 3p and (p << 2) >> 2 are p again.
    assertEquals("k\tW W", kernel(TWO_POINTERS, """
        .reg .b64 %rd<9>;
        ld.param.u64 %rd1, [k_p0];
        ld.param.u64 %rd2, [k_p1];
        shl.b64 %rd3, %rd1, 2;
        mul.lo.s64 %rd4, %rd1, 3;
        sub.s64 %rd5, %rd3, %rd4;
        st.global.u32 [%rd5], 1;
        shl.b64 %rd6, %rd2, 2;
        shr.u64 %rd7, %rd6, 2;
        st.global.u32 [%rd7], 1;
        ret;"""));
  }

  @Test
  void pointerTimesAnOddConstantAndItsInverseIsStillAPointer() {
    // 3 * 0xAAAAAAAAAAAAAAAB is 1 modulo 2^64: p again. An even factor has no inverse.
    assertEquals("k\tW V", kernel(TWO_POINTERS, """
        .reg .b64 %rd<9>;
        ld.param.u64 %rd1, [k_p0];
        ld.param.u64 %rd2, [k_p1];
        mul.lo.s64 %rd3, %rd1, 3;
        mul.lo.s64 %rd4, %rd3, -6148914691236517205;
        st.global.u32 [%rd4], 1;
        ret;"""));
  }

  @Test
  void addressFromConstantsOnlyIsOtherMemory() {
    assertEquals("k\tV OTHER", kernel(".param .u64 k_p0", """
        .reg .b64 %rd1;
        mov.u64 %rd1, 4096;
        st.global.u32 [%rd1], 1;
        ret;"""));
  }

  @Test
  void moduleVariablesAreNamedWithWhatEachKernelDoesWithThem() {
    String ptx = HEADER + """
        .global .align 4 .u32 counter;
        .const .align 4 .b8 table[64];
        .visible .global .align 8 .b8 slots[64];
        .visible .entry reads_const(.param .u64 reads_const_p0)
        {
        .reg .b64 %rd<3>; .reg .b32 %r1;
        ld.param.u64 %rd1, [reads_const_p0];
        ld.const.u32 %r1, [table+4];
        st.global.u32 [%rd1], %r1;
        ret;
        }
        .visible .entry bumps_global()
        {
        .reg .b32 %r1;
        atom.global.add.u32 %r1, [counter], 1;
        ret;
        }
        .visible .entry through_registers(.param .u32 through_registers_i)
        {
        .reg .b64 %rd<6>; .reg .b32 %r<3>;
        ld.param.u32 %r1, [through_registers_i];
        mul.wide.u32 %rd1, %r1, 8;
        mov.u64 %rd2, slots;
        add.s64 %rd3, %rd2, %rd1;
        st.global.u64 [%rd3], 0;
        mov.u64 %rd4, table;
        cvta.const.u64 %rd5, %rd4;
        ld.u32 %r2, [%rd5+8];
        st.global.u32 [counter], %r2;
        ret;
        }
        """;
    ModuleAccessSummary module = PtxAnalyzer.analyzeModule(ptx);
    assertEquals(List.of(new ModuleVariable("counter", false), new ModuleVariable("table", true),
        new ModuleVariable("slots", false)), module.variables());
    List<KernelAccessSummary> all = module.kernels();
    assertEquals("reads_const\tW[0,4) table:R", KernelSummaryFormat.line(all.get(0)));
    assertEquals("bumps_global\tcounter:RW", KernelSummaryFormat.line(all.get(1)));
    assertEquals("through_registers\tV counter:W table:R slots:W", KernelSummaryFormat.line(all.get(2)));
    assertEquals(Map.of("counter", ParameterUse.W, "table", ParameterUse.R, "slots", ParameterUse.W),
        all.get(2).moduleVariables());
    assertEquals(ParameterUse.V, all.get(2).anyModuleVariable());
  }

  @Test
  void twoKernelsTalkingThroughAVariableTheHostNeverNamesAreOrderedByIt() {
    String ptx = HEADER + """
        .global .align 4 .u32 flag;
        .visible .entry publish(.param .u32 publish_v)
        {
        .reg .b32 %r1; .reg .b64 %rd<3>;
        ld.param.u32 %r1, [publish_v];
        mov.u64 %rd1, flag;
        cvta.global.u64 %rd2, %rd1;
        st.u32 [%rd2], %r1;
        ret;
        }
        .visible .entry consume(.param .u64 consume_out)
        {
        .reg .b32 %r1; .reg .b64 %rd<2>;
        ld.param.u64 %rd1, [consume_out];
        ld.volatile.global.u32 %r1, [flag];
        st.global.u32 [%rd1], %r1;
        ret;
        }
        """;
    List<KernelAccessSummary> all = PtxAnalyzer.analyze(ptx);
    assertEquals("publish\tV flag:W", KernelSummaryFormat.line(all.get(0)));
    assertEquals("consume\tW[0,4) flag:R", KernelSummaryFormat.line(all.get(1)));
  }

  @Test
  void aVariableDeclaredAgainKeepsItsNameAndOneInAFunctionIsAnyVariable() {
    String ptx = HEADER + """
        .extern .global .align 4 .u32 shared_count;
        .global .align 4 .u32 shared_count;
        .visible .entry k()
        {
        .global .align 4 .u32 hidden;
        .reg .b32 %r1;
        ld.global.u32 %r1, [shared_count];
        st.global.u32 [hidden], %r1;
        ret;
        }
        """;
    ModuleAccessSummary module = PtxAnalyzer.analyzeModule(ptx);
    assertEquals(List.of(new ModuleVariable("shared_count", false)), module.variables());
    assertEquals("k\tshared_count:R *:W", KernelSummaryFormat.line(module.kernels().get(0)));
  }

  @Test
  void aConstantLoadAtAnAddressFromMemoryOrAParameterMayBeAnyVariable() {
    String ptx = HEADER + """
        .const .align 4 .b8 table[64];
        .visible .entry k(.param .u64 k_off, .param .u64 k_out)
        {
        .reg .b64 %rd<6>; .reg .b32 %r1;
        ld.param.u64 %rd1, [k_off];
        ld.param.u64 %rd2, [k_out];
        mov.u64 %rd3, table;
        ld.const.u64 %rd4, [%rd3];
        ld.const.u32 %r1, [%rd4];
        st.global.u32 [%rd2], %r1;
        ret;
        }
        """;
    assertEquals("k\tV W[0,4) table:R *:R", only(ptx));
  }

  @Test
  void aScaledVariableAddressThatIsUnscaledAgainMayBeAnyVariable() {
    String ptx = HEADER + """
        .global .align 4 .b8 buf[64];
        .visible .entry k()
        {
        .reg .b64 %rd<4>;
        mov.u64 %rd1, buf;
        shl.b64 %rd2, %rd1, 2;
        shr.u64 %rd3, %rd2, 2;
        st.global.u32 [%rd3], 1;
        ret;
        }
        """;
    assertEquals("k\t*:W", only(ptx));
  }

  @Test
  void aVariableHoldingAPointerIsReadAndWhatItPointsToIsOtherMemory() {
    String ptx = HEADER + """
        .global .align 8 .u64 target;
        .visible .entry k()
        {
        .reg .b64 %rd1;
        ld.global.u64 %rd1, [target];
        st.global.u32 [%rd1], 1;
        ret;
        }
        """;
    assertEquals("k\ttarget:R OTHER", only(ptx));
  }

  // ---- a parameter's address: from there every parameter is reachable ---------------------------

  @Test
  void parameterAddressTakenWithMovReachesTheNextParameter() {
    // The issue's case: p1 is read through p0's address and stored through; it is no V.
    assertEquals("k\tW W", kernel(TWO_POINTERS, """
        .reg .b64 %rd<4>;
        mov.u64 %rd1, k_p0;
        ld.param.u64 %rd2, [%rd1+8];
        st.global.u32 [%rd2], 1;
        ret;"""));
  }

  @Test
  void parameterAddressTakenWithCvtaParamReachesTheNextParameter() {
    assertEquals("k\tW W", kernel(TWO_POINTERS, """
        .reg .b64 %rd<4>;
        mov.u64 %rd1, k_p0;
        cvta.param.u64 %rd2, %rd1;
        ld.u64 %rd3, [%rd2+8];
        st.global.u32 [%rd3], 1;
        ret;"""));
  }

  @Test
  void parameterAddressKeptOnTheStackStillReachesEveryParameter() {
    assertEquals("k\tR R V", kernel(TWO_POINTERS + ", .param .u32 k_n", """
        .local .align 8 .b8 depot[8];
        .reg .b64 %rd<6>; .reg .b32 %r1;
        mov.u64 %rd1, k_p0;
        cvta.param.u64 %rd2, %rd1;
        st.local.u64 [depot], %rd2;
        ld.local.u64 %rd3, [depot];
        add.s64 %rd4, %rd3, 8;
        ld.u64 %rd5, [%rd4];
        ld.global.u32 %r1, [%rd5];
        ret;"""));
  }

  @Test
  void parameterReadAtAComputedOffsetMayBeAnyParameter() {
    assertEquals("k\tW W", kernel(TWO_POINTERS, """
        .reg .b64 %rd<4>;
        mov.u64 %rd1, 8;
        ld.param.u64 %rd2, [k_p0+%rd1];
        st.global.u32 [%rd2], 1;
        ret;"""));
  }

  @Test
  void parameterAddressHandedToAnUnknownFunctionMakesEveryParameterReadWriteAndOther() {
    assertEquals("k\tRW RW OTHER", kernel(TWO_POINTERS, """
        .reg .b64 %rd<3>;
        mov.u64 %rd1, k_p0;
        cvta.param.u64 %rd2, %rd1;
        { .param .b64 param0; st.param.b64 [param0], %rd2; call.uni external_sink, (param0); }
        ret;"""));
  }

  @Test
  void parameterReadDirectlyWithinItsBoundsStaysThatParameter() {
    assertEquals("k\tV W[0,4)", kernel(".param .align 8 .b8 k_s[16], .param .u64 k_p1", """
        .reg .b64 %rd<3>;
        ld.param.u64 %rd1, [k_s+8];
        ld.param.u64 %rd2, [k_p1];
        st.global.u32 [%rd2], 1;
        ret;"""));
  }

  @Test
  void structParameterThatHoldsAPointerIsThatParameter() {
    assertEquals("k\tW V", kernel(".param .align 8 .b8 k_s[16], .param .u32 k_n", """
        .reg .b64 %rd<3>; .reg .b32 %r1;
        ld.param.u64 %rd1, [k_s+8];
        ld.param.u32 %r1, [k_n];
        st.global.u32 [%rd1], %r1;
        ret;"""));
  }

  @Test
  void parameterReadThroughItsGenericAddressIsThatParameter() {
    assertEquals("k\tR", kernel(".param .align 8 .b8 k_s[16]", """
        .reg .b64 %rd<5>; .reg .b32 %r1;
        mov.b64 %rd1, k_s;
        cvta.param.u64 %rd2, %rd1;
        ld.u64 %rd3, [%rd2+8];
        ld.global.u32 %r1, [%rd3];
        ret;"""));
  }

  @Test
  void loadPastTheEndOfAParameterMayBeAnyParameter() {
    assertEquals("k\tW W", kernel(TWO_POINTERS, """
        .reg .b64 %rd1;
        ld.param.u64 %rd1, [k_p0+8];
        st.global.u32 [%rd1], 1;
        ret;"""));
  }

  @Test
  void vectorLoadOverTwoParametersMayBeEither() {
    assertEquals("k\tW W", kernel(TWO_POINTERS, """
        .reg .b64 %rd<3>;
        ld.param.v2.u64 {%rd1, %rd2}, [k_p0];
        st.global.u32 [%rd2], 1;
        ret;"""));
  }

  @Test
  void narrowScalarsAreNeverPointersButWideOnesMayBe() {
    assertEquals("k\tW V W", kernel(".param .u64 k_p0, .param .u32 k_off32, .param .u64 k_step", """
        .reg .b64 %rd<8>; .reg .b32 %r1;
        ld.param.u64 %rd1, [k_p0];
        ld.param.u32 %r1, [k_off32];
        ld.param.u64 %rd2, [k_step];
        cvt.u64.u32 %rd3, %r1;
        add.s64 %rd4, %rd1, %rd3;
        mul.lo.s64 %rd5, %rd2, %rd3;
        add.s64 %rd6, %rd4, %rd5;
        st.global.u8 [%rd6], 1;
        ret;"""));
  }

  @Test
  void pointersOnlyComparedAreUnused() {
    assertEquals("k\tV V", kernel(TWO_POINTERS, """
        .reg .b64 %rd<3>; .reg .pred %p1;
        ld.param.u64 %rd1, [k_p0];
        ld.param.u64 %rd2, [k_p1];
        setp.eq.s64 %p1, %rd1, %rd2;
        ret;"""));
  }

  @Test
  void thirtyTwoBitAddressesMakeThirtyTwoBitParametersPointers() {
    String ptx = ".version 8.5\n.target sm_90\n.address_size 32\n"
        + ".visible .entry k(.param .u32 k_p0, .param .u32 k_p1)\n{\n"
        + ".reg .b32 %r<4>;\nld.param.u32 %r1, [k_p0];\nld.param.u32 %r2, [k_p1];\n"
        + "ld.global.u32 %r3, [%r1];\nst.global.u32 [%r2], %r3;\nret;\n}\n";
    assertEquals("k\tR[0,4) W[0,4)", only(ptx));
  }

  @Test
  void moreThanSixtyFourParametersAreTrackedEachOnItsOwn() {
    StringBuilder params = new StringBuilder();
    for (int i = 0; i < 70; i++) params.append(i == 0 ? "" : ", ").append(".param .u64 k_p").append(i);
    String line = kernel(params.toString(), """
        .reg .b64 %rd<6>; .reg .b32 %r1;
        ld.param.u64 %rd1, [k_p3];
        ld.param.u64 %rd2, [k_p66];
        ld.param.u64 %rd3, [k_p69];
        ld.global.u32 %r1, [%rd1];
        st.global.u32 [%rd2], %r1;
        shl.b64 %rd4, %rd3, 3;
        add.s64 %rd5, %rd4, %rd2;
        atom.global.exch.b32 %r1, [%rd5], 0;
        ret;""");
    String[] tokens = line.substring(2).split(" ");
    assertEquals(70, tokens.length);
    for (int i = 0; i < 70; i++) {
      String expected = i == 3 ? "R[0,4)" : i == 66 ? "RW" : "V";
      assertEquals(expected, tokens[i], "parameter " + i);
    }
  }

  // ---- calls --------------------------------------------------------------------------------

  private static final String CALLEES = """
      .func (.param .b64 pick_ret) pick(.param .b64 pick_a, .param .b64 pick_b)
      {
      .reg .b64 %rd<3>;
      ld.param.u64 %rd1, [pick_a];
      ld.param.u64 %rd2, [pick_b];
      st.param.b64 [pick_ret+0], %rd2;
      ret;
      }
      .func store_one(.param .b64 store_one_p)
      {
      .reg .b64 %rd1;
      ld.param.u64 %rd1, [store_one_p];
      st.global.u32 [%rd1], 1;
      ret;
      }
      """;

  @Test
  void calleeIsFollowedThroughItsParametersAndReturnValue() {
    String ptx = HEADER + CALLEES + """
        .visible .entry k(.param .u64 k_p0, .param .u64 k_p1, .param .u64 k_p2)
        {
        .reg .b64 %rd<5>;
        ld.param.u64 %rd1, [k_p0];
        ld.param.u64 %rd2, [k_p1];
        ld.param.u64 %rd3, [k_p2];
        {
        .param .b64 param0;
        st.param.b64 [param0+0], %rd1;
        .param .b64 param1;
        st.param.b64 [param1+0], %rd2;
        .param .b64 retval0;
        call.uni (retval0), pick, (param0, param1);
        ld.param.b64 %rd4, [retval0+0];
        }
        ld.global.u32 %r1, [%rd4];
        {
        .param .b64 param0;
        st.param.b64 [param0+0], %rd3;
        call.uni store_one, (param0);
        }
        ret;
        }
        """;
    // pick returns its second argument; its first is not dereferenced.
    assertEquals("k\tV R W", only(ptx));
  }

  @Test
  void calleeDefinedAfterItsCallerAndRecursionAreFollowed() {
    String ptx = HEADER + """
        .visible .entry k(.param .u64 k_p0)
        {
        .reg .b64 %rd1;
        ld.param.u64 %rd1, [k_p0];
        { .param .b64 param0; st.param.b64 [param0], %rd1; call.uni ping, (param0); }
        ret;
        }
        .func ping(.param .b64 ping_p)
        {
        .reg .b64 %rd1;
        ld.param.u64 %rd1, [ping_p];
        { .param .b64 param0; st.param.b64 [param0], %rd1; call.uni pong, (param0); }
        ret;
        }
        .func pong(.param .b64 pong_p)
        {
        .reg .b64 %rd<2>;
        ld.param.u64 %rd1, [pong_p];
        add.s64 %rd2, %rd1, 4;
        st.global.u32 [%rd2], 0;
        { .param .b64 param0; st.param.b64 [param0], %rd2; call.uni ping, (param0); }
        ret;
        }
        """;
    assertEquals("k\tW", only(ptx));
  }

  @Test
  void registerParametersOfAFunctionAreFollowed() {
    String ptx = HEADER + """
        .func (.reg .b64 r) twice_addr(.reg .b64 a)
        {
        add.s64 r, a, 8;
        ret;
        }
        .visible .entry k(.param .u64 k_p0)
        {
        .reg .b64 %rd<3>;
        ld.param.u64 %rd1, [k_p0];
        call.uni (%rd2), twice_addr, (%rd1);
        ld.global.u32 %r1, [%rd2];
        ret;
        }
        """;
    assertEquals("k\tR", only(ptx));
  }

  @Test
  void unknownCalleeMakesArgumentsReadWriteAndOtherMemory() {
    String ptx = HEADER + """
        .extern .func library_call(.param .b64 library_call_p);
        .visible .entry k(.param .u64 k_p0, .param .u64 k_p1)
        {
        .reg .b64 %rd<3>;
        ld.param.u64 %rd1, [k_p0];
        ld.param.u64 %rd2, [k_p1];
        { .param .b64 param0; st.param.b64 [param0], %rd1; call.uni library_call, (param0); }
        ret;
        }
        """;
    assertEquals("k\tRW V OTHER", only(ptx));
  }

  @Test
  void pointerHandedToAnUnknownCalleeThroughTheStackIsReadWrite() {
    String ptx = HEADER + """
        .extern .func library_call(.param .b64 library_call_p);
        .visible .entry k(.param .u64 k_p0)
        {
        .local .align 8 .b8 depot[8];
        .reg .b64 %rd<3>;
        ld.param.u64 %rd1, [k_p0];
        mov.u64 %rd2, depot;
        st.local.u64 [%rd2], %rd1;
        { .param .b64 param0; st.param.b64 [param0], %rd2; call.uni library_call, (param0); }
        ret;
        }
        """;
    assertEquals("k\tRW OTHER", only(ptx));
  }

  @Test
  void stackSlotHandedToAnUnknownCalleeMayComeBackHoldingAnyPointer() {
    String ptx = HEADER + """
        .extern .func fill_slot(.param .b64 fill_slot_p);
        .visible .entry k(.param .u64 k_p0)
        {
        .local .align 8 .b8 depot[8];
        .reg .b64 %rd<4>;
        ld.param.u64 %rd1, [k_p0];
        mov.u64 %rd2, depot;
        st.local.u64 [%rd2], %rd1;
        { .param .b64 param0; st.param.b64 [param0], %rd2; call.uni fill_slot, (param0); }
        ld.local.u64 %rd3, [%rd2];
        st.global.u32 [%rd3], 1;
        ret;
        }
        """;
    assertEquals("k\tRW OTHER", only(ptx));
    // Without the call, the slot holds the parameter only.
    assertEquals("k\tW", only(ptx.replaceAll("\\{ \\.param.*\\}", "")));
  }

  @Test
  void indirectCallIsOtherMemory() {
    assertEquals("k\tRW OTHER", kernel(".param .u64 k_p0", """
        .reg .b64 %rd<3>;
        ld.param.u64 %rd1, [k_p0];
        ld.global.u64 %rd2, [%rd1];
        {
        .param .b64 param0;
        st.param.b64 [param0], %rd1;
        proto : .callprototype _ (.param .b64 _);
        call %rd2, (param0), proto;
        }
        ret;"""));
  }

  @Test
  void callWithTheWrongNumberOfArgumentsIsTreatedAsUnknown() {
    String ptx = HEADER + CALLEES + """
        .visible .entry k(.param .u64 k_p0)
        {
        .reg .b64 %rd1;
        ld.param.u64 %rd1, [k_p0];
        { .param .b64 param0; st.param.b64 [param0], %rd1; call.uni pick, (param0); }
        ret;
        }
        """;
    assertEquals("k\tRW OTHER", only(ptx));
  }

  @Test
  void printfReadsItsArgumentsAndItsFormatIsAModuleVariableAndPrints() {
    String ptx = HEADER + """
        .extern .func (.param .b32 func_retval0) vprintf(.param .b64 vprintf_param_0, .param .b64 vprintf_param_1);
        .global .align 1 .b8 $str[4] = {37, 115, 10, 0};
        .visible .entry k(.param .u64 k_p0)
        {
        .local .align 8 .b8 depot[8];
        .reg .b64 %rd<5>; .reg .b32 %r1;
        ld.param.u64 %rd1, [k_p0];
        mov.u64 %rd2, depot;
        st.local.u64 [%rd2], %rd1;
        mov.u64 %rd3, $str;
        cvta.global.u64 %rd4, %rd3;
        cvta.local.u64 %rd2, %rd2;
        {
        .param .b64 param0; st.param.b64 [param0], %rd4;
        .param .b64 param1; st.param.b64 [param1], %rd2;
        .param .b32 retval0;
        call.uni (retval0), vprintf, (param0, param1);
        ld.param.b32 %r1, [retval0];
        }
        ret;
        }
        """;
    assertEquals("k\tR $str:R PRINTF", only(ptx));
  }

  // ---- newer and opaque instructions ----------------------------------------------------------

  @Test
  void bulkCopiesReadTheirSourceAndWriteTheirDestination() {
    assertEquals("k\tR W RW", kernel(TWO_POINTERS + ", .param .u64 k_p2", """
        .reg .b64 %rd<4>; .reg .b32 %r<3>;
        .shared .align 16 .b8 smem[256];
        .shared .align 8 .b8 bar[8];
        ld.param.u64 %rd1, [k_p0];
        ld.param.u64 %rd2, [k_p1];
        ld.param.u64 %rd3, [k_p2];
        mov.u32 %r1, smem;
        mov.u32 %r2, bar;
        cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%r1], [%rd1], 256, [%r2];
        cp.async.cg.shared.global [%r1+16], [%rd1+16], 16;
        cp.async.commit_group;
        cp.async.wait_all;
        cp.async.bulk.global.shared::cta.bulk_group [%rd2], [%r1], 256;
        cp.reduce.async.bulk.global.shared::cta.bulk_group.add.f32 [%rd3], [%r1], 256;
        cp.async.bulk.prefetch.L2.global [%rd3], 256;
        ret;"""));
  }

  @Test
  void tensorCopiesTexturesAndSurfacesAreOtherMemory() {
    assertEquals("k\tV OTHER", kernel(".param .u64 k_tex", """
        .reg .b64 %rd1; .reg .f32 %f<5>; .reg .b32 %r1;
        ld.param.u64 %rd1, [k_tex];
        tex.1d.v4.f32.s32 {%f1, %f2, %f3, %f4}, [%rd1, {%r1}];
        ret;"""));
    assertEquals("k\tV OTHER", kernel(".param .align 64 .b8 k_map[128]", """
        .reg .b64 %rd1; .reg .b32 %r<3>;
        mov.b64 %rd1, k_map;
        cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%r1], [%rd1, {%r1, %r2}], [%r2];
        ret;"""));
  }

  @Test
  void memoryInstructionNotModelledIsReadWriteAndOtherMemory() {
    assertEquals("k\tRW V OTHER", kernel(TWO_POINTERS, """
        .reg .b64 %rd<3>; .reg .b32 %r1;
        ld.param.u64 %rd1, [k_p0];
        ld.param.u64 %rd2, [k_p1];
        multimem.ld_reduce.relaxed.sys.global.add.u32 %r1, [%rd1];
        ret;"""));
  }

  @Test
  void arithmeticNotModelledStillCarriesProvenance() {
    assertEquals("k\tW", kernel(".param .u64 k_p0", """
        .reg .b64 %rd<3>;
        ld.param.u64 %rd1, [k_p0];
        future.op.b64 %rd2, %rd1, 0;
        st.global.u32 [%rd2], 1;
        ret;"""));
  }

  @Test
  void vectorAndCacheHintedFormsAreAccesses() {
    assertEquals("k\tR[0,20) W[0,16)", kernel(TWO_POINTERS, """
        .reg .b64 %rd<4>; .reg .f32 %f<5>;
        ld.param.u64 %rd1, [k_p0];
        ld.param.u64 %rd2, [k_p1];
        createpolicy.fractional.L2::evict_last.b64 %rd3, 1.0;
        ld.global.nc.L1::no_allocate.L2::cache_hint.v4.f32 {%f1, %f2, %f3, %f4}, [%rd1], %rd3;
        ldu.global.f32 %f1, [%rd1+16];
        st.global.L1::no_allocate.v4.f32 [%rd2], {%f1, %f2, %f3, %f4};
        ret;"""));
  }

  // ---- extents: where, from a pointer's value, the kernel touches memory ------------------------

  @Test
  void storeAtAConstantOffsetIsBoundedToTheBytesItWrites() {
    assertEquals("k\tR[8,12) W[0,4)", kernel(TWO_POINTERS, """
        .reg .b64 %rd<5>; .reg .f32 %f1;
        ld.param.u64 %rd1, [k_p0];
        ld.param.u64 %rd2, [k_p1];
        cvta.to.global.u64 %rd3, %rd1;
        cvta.to.global.u64 %rd4, %rd2;
        ld.global.f32 %f1, [%rd3+8];
        st.global.f32 [%rd4], %f1;
        ret;"""));
  }

  @Test
  void constantsAddedSubtractedAndInAddressesAddUp() {
    assertEquals("k\tW[20,24) W[-12,-8)", kernel(TWO_POINTERS, """
        .reg .b64 %rd<7>;
        ld.param.u64 %rd1, [k_p0];
        ld.param.u64 %rd2, [k_p1];
        add.s64 %rd3, 8, %rd1;
        mov.b64 %rd4, %rd3;
        st.u32 [%rd4+12], 0;
        sub.s64 %rd5, %rd2, 16;
        cvta.global.u64 %rd6, %rd5;
        st.u32 [%rd6+4], 0;
        ret;"""));
  }

  @Test
  void offsetFromAThreadIndexIsUnbounded() {
    // Unbounded, but never below the pointer: the index is zero-extended (+).
    assertEquals("k\tW+", kernel(".param .u64 k_p0", """
        .reg .b64 %rd<5>; .reg .b32 %r1;
        ld.param.u64 %rd1, [k_p0];
        cvta.to.global.u64 %rd2, %rd1;
        mov.u32 %r1, %tid.x;
        mul.wide.u32 %rd3, %r1, 4;
        add.s64 %rd4, %rd2, %rd3;
        st.global.f32 [%rd4+4], 0f00000000;
        ret;"""));
  }

  @Test
  void vectorAccessCoversEveryLane() {
    assertEquals("k\tR[0,16) W[16,32)", kernel(TWO_POINTERS, """
        .reg .b64 %rd<5>; .reg .f64 %fd<3>; .reg .f32 %f<5>;
        ld.param.u64 %rd1, [k_p0];
        ld.param.u64 %rd2, [k_p1];
        ld.global.v2.f64 {%fd1, %fd2}, [%rd1];
        st.global.v4.f32 [%rd2+16], {%f1, %f2, %f3, %f4};
        ret;"""));
  }

  @Test
  void atomicsAndNonCoherentLoadsAtConstantOffsetsAreBounded() {
    assertEquals("k\tRW[8,24) R[-8,-4)", kernel(TWO_POINTERS, """
        .reg .b64 %rd<4>; .reg .b32 %r1; .reg .f32 %f1;
        ld.param.u64 %rd1, [k_p0];
        ld.param.u64 %rd2, [k_p1];
        ld.global.nc.f32 %f1, [%rd2+-8];
        atom.global.add.u32 %r1, [%rd1+12], 1;
        red.global.add.f32 [%rd1+8], %f1;
        atom.global.cas.b64 %rd3, [%rd1+16], 0, 1;
        ret;"""));
  }

  @Test
  void pointerSteppedInALoopIsUnbounded() {
    assertEquals("k\tW V", kernel(".param .u64 k_p0, .param .u32 k_p1", """
        .reg .b64 %rd<3>; .reg .b32 %r<3>; .reg .pred %p1;
        ld.param.u64 %rd1, [k_p0];
        ld.param.u32 %r1, [k_p1];
        mov.u32 %r2, 0;
        LOOP:
        st.global.u32 [%rd1], %r2;
        add.s64 %rd1, %rd1, 4;
        add.s32 %r2, %r2, 1;
        setp.lt.s32 %p1, %r2, %r1;
        @%p1 bra LOOP;
        ret;"""));
  }

  @Test
  void registerSetToEitherOfTwoOffsetsOnTwoPathsCoversBoth() {
    assertEquals("k\tW[4,68) V", kernel(".param .u64 k_p0, .param .u32 k_p1", """
        .reg .b64 %rd<5>; .reg .b32 %r1; .reg .pred %p1;
        ld.param.u64 %rd1, [k_p0];
        ld.param.u32 %r1, [k_p1];
        setp.eq.s32 %p1, %r1, 0;
        add.s64 %rd2, %rd1, 4;
        add.s64 %rd3, %rd1, 64;
        @%p1 mov.u64 %rd4, %rd2;
        @!%p1 mov.u64 %rd4, %rd3;
        st.global.u32 [%rd4], 0;
        ret;"""));
  }

  @Test
  void offsetChosenBySelpOrComputedAtRunTimeIsUnbounded() {
    // Unbounded extents; a selp of two non-negative offsets is still forward (+).
    assertEquals("k\tW+ W+ W V", kernel(".param .u64 k_p0, .param .u64 k_p1, .param .u64 k_p2, .param .u32 k_p3", """
        .reg .b64 %rd<12>; .reg .b32 %r1; .reg .pred %p1;
        ld.param.u64 %rd1, [k_p0];
        ld.param.u64 %rd2, [k_p1];
        ld.param.u64 %rd3, [k_p2];
        ld.param.u32 %r1, [k_p3];
        setp.eq.s32 %p1, %r1, 0;
        add.s64 %rd4, %rd1, 4;
        selp.b64 %rd5, %rd1, %rd4, %p1;
        st.global.u32 [%rd5], 0;
        selp.b64 %rd6, 12, 4, %p1;
        add.s64 %rd7, %rd2, %rd6;
        st.global.u32 [%rd7], 0;
        and.b64 %rd8, %rd3, -16;
        st.global.u32 [%rd8], 0;
        sub.s64 %rd9, 64, %rd3;
        st.global.u32 [%rd9], 0;
        ret;"""));
  }

  @Test
  void pointerStoredToMemoryOrPassedToACallIsUnbounded() {
    assertEquals("k\tW W[0,8) W", only(HEADER + CALLEES + """
        .visible .entry k(.param .u64 k_p0, .param .u64 k_p1, .param .u64 k_p2)
        {
        .reg .b64 %rd<4>;
        ld.param.u64 %rd1, [k_p0];
        ld.param.u64 %rd2, [k_p1];
        ld.param.u64 %rd3, [k_p2];
        st.global.u32 [%rd1], 0;
        st.global.u64 [%rd2], %rd1;
        {
        .param .b64 param0;
        st.param.b64 [param0+0], %rd3;
        call.uni store_one, (param0);
        }
        ret;
        }
        """));
  }

  @Test
  void parameterWhoseAddressIsTakenIsUnbounded() {
    // Through the parameter space, a store could change what ld.param then reads of any parameter.
    assertEquals("k\tW W", kernel(TWO_POINTERS, """
        .reg .b64 %rd<6>;
        mov.u64 %rd1, k_p0;
        cvta.param.u64 %rd2, %rd1;
        ld.u64 %rd3, [%rd2];
        st.global.u32 [%rd3], 0;
        ld.param.u64 %rd4, [k_p1];
        st.global.u32 [%rd4+4], 0;
        ret;"""));
  }

  @Test
  void parameterPassedToACallByItsNameLeavesEveryParameterUnbounded() {
    // The callee is given the parameter space itself; the store through what it finds there is OTHER.
    assertEquals("k\tW V OTHER", only(HEADER + CALLEES + """
        .visible .entry k(.param .u64 k_p0, .param .u64 k_p1)
        {
        .reg .b64 %rd<3>;
        ld.param.u64 %rd1, [k_p0];
        st.global.u32 [%rd1], 0;
        call.uni store_one, (k_p1);
        ret;
        }
        """));
  }

  @Test
  void parameterSpaceWrittenLeavesEveryParameterUnbounded() {
    // What ld.param reads is no longer what the launch passed; which slot was written is not tracked.
    assertEquals("k\tW R OTHER", kernel(TWO_POINTERS, """
        .reg .b64 %rd<4>;
        ld.param.u64 %rd1, [k_p1];
        ld.global.u64 %rd2, [%rd1];
        st.param.u64 [k_p0], %rd2;
        ld.param.u64 %rd3, [k_p0];
        st.global.u32 [%rd3], 0;
        ret;"""));
  }

  @Test
  void pointerRebuiltFromItsHalvesOrReadFromAWiderParameterIsUnbounded() {
    assertEquals("k\tW W", kernel(".param .u64 k_p0, .param .align 8 .b8 k_p1[16]", """
        .reg .b64 %rd<3>; .reg .b32 %r<3>;
        ld.param.v2.u32 {%r1, %r2}, [k_p0];
        mov.b64 %rd1, {%r1, %r2};
        st.global.u32 [%rd1], 0;
        ld.param.u64 %rd2, [k_p1];
        st.global.u32 [%rd2], 0;
        ret;"""));
  }

  @Test
  void accessesOfUnknownSizeOrPlaceAreUnbounded() {
    // A bulk copy's size is an operand; a callee's pointer comes from its caller.
    assertEquals("k\tR W", only(HEADER + CALLEES + """
        .visible .entry k(.param .u64 k_p0, .param .u64 k_p1)
        {
        .reg .b64 %rd<3>;
        .shared .align 16 .b8 buf[64];
        ld.param.u64 %rd1, [k_p0];
        ld.param.u64 %rd2, [k_p1];
        cp.async.ca.shared.global [buf], [%rd1+16], 16;
        {
        .param .b64 param0;
        st.param.b64 [param0+0], %rd2;
        call.uni store_one, (param0);
        }
        ret;
        }
        """));
  }

  @Test
  void offsetsTooLargeToMatterAreUnbounded() {
    assertEquals("k\tW W", kernel(TWO_POINTERS, """
        .reg .b64 %rd<4>;
        ld.param.u64 %rd1, [k_p0];
        add.s64 %rd2, %rd1, 0x40000000000;
        st.global.u32 [%rd2], 0;
        ld.param.u64 %rd3, [k_p1];
        st.global.u32 [%rd3+0x8000000000000000], 0;
        ret;"""));
  }

  // ---- text it must survive -----------------------------------------------------------------

  @Test
  void commentsLabelsSectionsAndDebugDirectivesAreSkipped() {
    String ptx = """
        //
        // Written for this test
        //
        .version 8.5
        .target sm_90, debug
        .address_size 64
        .file 1 "a//b.cu"
        /* a block comment with ; and { braces } */
        .visible .entry k(
        \t.param .u64 .ptr .global .align 4 k_p0 // trailing comment; with a semicolon
        )
        .maxntid 128, 1, 1
        {
        .reg .b64 %rd<3>;
        .loc 1 10 3
        ld.param.u64 /* inline */ %rd1, [k_p0];
        $L__BB0_1: $L__BB0_2:
        .loc 1 11 3
        st.global.u32 [%rd1], 1;
        ret;
        }
        .section .debug_info
        {
        .b32 1234
        .b8 0, 1, 2
        $L__info: .b8 {1}
        }
        """;
    assertEquals("k\tW[0,4)", only(ptx));
  }

  @Test
  void unreadableTextNeverThrows() {
    assertEquals(List.of(), PtxAnalyzer.analyze(""));
    assertEquals(List.of(), PtxAnalyzer.analyze("not ptx at all { } ; [ ] ( ) :: \"unterminated"));
    assertEquals(List.of(), PtxAnalyzer.analyze("\u0000\u007fELF\u0002\u0001"));
    // A body that never closes is read as far as it goes.
    assertEquals("k\tW[0,4)", only(HEADER + ".visible .entry k(.param .u64 k_p0)\n{\n.reg .b64 %rd1;\n"
        + "ld.param.u64 %rd1, [k_p0];\nst.global.u32 [%rd1], 1;\n"));
  }

  @Test
  void damagedCorpusNeverThrowsAndNamesNoParameterItDoesNotHave() {
    String ptx = PtxCorpus.ptx("corpus-sm90");
    java.util.Random random = new java.util.Random(20240905L);
    for (int round = 0; round < 60; round++) {
      StringBuilder damaged = new StringBuilder(ptx);
      for (int cut = 0; cut < 1 + random.nextInt(20); cut++) {
        int at = random.nextInt(damaged.length());
        int len = Math.min(damaged.length() - at, random.nextInt(40));
        if (random.nextBoolean()) damaged.delete(at, at + len);
        else damaged.insert(at, "{[(;:%}])".charAt(random.nextInt(9)));
      }
      for (KernelAccessSummary s : PtxAnalyzer.analyze(damaged)) {
        assertTrue(s.parameterCount() < 200, s.name());
        assertEquals(s.parameterCount(), s.uses().size());
      }
    }
  }

  /**
   * Time in proportion to size: four times the text takes about four times as long, not sixteen
   * (a quadratic pass) or minutes (a regular expression that backtracks). Compared within one run,
   * best of three, so that a loaded machine slows both sides alike.
   */
  @Test
  void aFewHundredKilobytesTakeTimeInProportionToTheirSize() {
    String ptx = PtxCorpus.ptx("corpus-sm90-debug");
    String kernels = ptx.substring(ptx.indexOf("// .globl"));
    StringBuilder big = new StringBuilder(ptx);
    for (int copy = 1; big.length() < 400_000; copy++) {
      big.append(kernels.replaceAll("\\.entry (\\w+)\\(", ".entry $1_copy" + copy + "("));
    }
    String quarter = big.substring(0, big.indexOf("// .globl", big.length() / 4));
    PtxAnalyzer.analyze(big); // warm up
    long bigNanos = Long.MAX_VALUE;
    long quarterNanos = Long.MAX_VALUE;
    List<KernelAccessSummary> all = List.of();
    for (int run = 0; run < 3; run++) {
      long start = System.nanoTime();
      PtxAnalyzer.analyze(quarter);
      quarterNanos = Math.min(quarterNanos, System.nanoTime() - start);
      start = System.nanoTime();
      all = PtxAnalyzer.analyze(big);
      bigNanos = Math.min(bigNanos, System.nanoTime() - start);
    }
    assertTrue(all.size() > 150, "kernels: " + all.size());
    double ratio = (double) bigNanos / quarterNanos;
    assertTrue(ratio < 10, big.length() + " characters took " + bigNanos / 1_000_000 + " ms, "
        + quarter.length() + " took " + quarterNanos / 1_000_000 + " ms: " + ratio + " times as long");
    assertTrue(bigNanos < 20_000_000_000L, big.length() + " characters took " + bigNanos / 1_000_000 + " ms");
  }
}
