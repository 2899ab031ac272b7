package dev.kernelweave.interceptor;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kernelweave.call.AccessMode;
import dev.kernelweave.call.CallKind;
import dev.kernelweave.call.CallRecord;
import dev.kernelweave.interceptor.jcuda.JCudaPointers;
import dev.kernelweave.journal.LaunchJournal;
import dev.kernelweave.memory.MemoryKind;
import dev.kernelweave.ptx.KernelAccessSummary;
import dev.kernelweave.ptx.ModuleAccessSummary;
import dev.kernelweave.ptx.ParameterExtent;
import dev.kernelweave.ptx.ParameterUse;
import dev.kernelweave.ptx.PtxAnalyzer;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import jcuda.Pointer;
import jcuda.driver.CUdeviceptr;
import jcuda.driver.CUfunction;
import jcuda.driver.CUmodule;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** How a module's kernels and variables become what a launch touches, with no GPU. */
class ModulesTest {

  private static final long VARIABLES = 0x7d00_0000_0000L;
  private static final long OUT = 0x7d00_1000_0000L;
  private static final byte R = (byte) AccessMode.READ.ordinal();
  private static final byte W = (byte) AccessMode.WRITE.ordinal();
  private static final byte RW = (byte) AccessMode.READ_WRITE.ordinal();

  /** A module as nvcc writes one: a __constant__ read by one kernel, a __device__ flag between two. */
  private static final String PTX = """
      .version 8.5
      .target sm_75
      .address_size 64
      .global .align 4 .u32 flag;
      .const .align 4 .b8 coeffs[64];
      .global .align 4 .u32 scratch;
      .visible .entry scale(.param .u64 scale_out)
      {
      .reg .b64 %rd<2>; .reg .f32 %f1;
      ld.param.u64 %rd1, [scale_out];
      ld.const.f32 %f1, [coeffs+4];
      st.global.f32 [%rd1], %f1;
      ret;
      }
      .visible .entry publish(.param .u32 publish_v)
      {
      .reg .b32 %r1;
      ld.param.u32 %r1, [publish_v];
      st.global.u32 [flag], %r1;
      ret;
      }
      .visible .entry consume(.param .u64 consume_out)
      {
      .reg .b32 %r1; .reg .b64 %rd1;
      ld.param.u64 %rd1, [consume_out];
      ld.global.u32 %r1, [flag];
      st.global.u32 [%rd1], %r1;
      ret;
      }
      .visible .entry bump_scratch()
      {
      .reg .b32 %r1;
      atom.global.add.u32 %r1, [scratch], 1;
      ret;
      }
      .visible .entry any_constant(.param .u64 any_constant_i)
      {
      .reg .b64 %rd1; .reg .b32 %r1;
      ld.param.u64 %rd1, [any_constant_i];
      ld.const.u32 %r1, [%rd1];
      ret;
      }
      """;

  private static final ModuleAccessSummary MODULE = PtxAnalyzer.analyzeModule(PTX);

  private AgentState state;

  /** A fresh state per test: no allocation, module or kernel of another test is seen. */
  @BeforeEach
  void activate() {
    state = AgentState.replaceForTesting();
    Interception.activate(new InterceptorSettings(Mode.PASSTHROUGH, 4, true, true, () -> LaunchJournal.OFF));
    state.allocations.add(OUT, 4096, MemoryKind.DEVICE);
  }

  /** Finds the variables named in {@code table}: flag at VARIABLES, coeffs 256 bytes on, and so on. */
  private static PtxKernels.VariableFinder finder(String... names) {
    Map<String, Long> table = new HashMap<>();
    for (int i = 0; i < names.length; i++) table.put(names[i], VARIABLES + 256L * i);
    return (name, into) -> {
      Long at = table.get(name);
      if (at == null) return false;
      into[0] = at;
      into[1] = name.equals("coeffs") ? 64 : 4;
      return true;
    };
  }

  private static CUdeviceptr device(long address) {
    CUdeviceptr p = new CUdeviceptr();
    JCudaPointers.setNativePointer(p, address);
    return p;
  }

  private static CallRecord launch(KernelInfo kernel, Pointer params) {
    CallRecord r = Calls.begin("cuLaunchKernel", 0L);
    CallAccesses.launch(r, kernel, params, null);
    Calls.end(r, 0, null);
    return r;
  }

  /** Registers the module's variables as the module load does, and returns its kernels. */
  private static Map<String, KernelInfo> load(PtxKernels.VariableFinder finder) {
    PtxKernels.Loaded loaded = PtxKernels.resolve(MODULE, finder);
    CallRecord r = Calls.begin("cuModuleLoadData", 0L);
    for (PtxKernels.Variable v : loaded.variables()) {
      CallAccesses.allocated(r, v.address(), v.size(), MemoryKind.MODULE_GLOBAL);
    }
    Calls.end(r, 0, null);
    assertEquals(loaded.variables().size(), r.accessCount);
    return loaded.kernels();
  }

  @Test
  void everyKernelGetsTheAddressesAndUsesOfItsVariables() {
    Map<String, KernelInfo> k = PtxKernels.resolve(MODULE, finder("flag", "coeffs", "scratch")).kernels();
    assertArrayEquals(new long[] {VARIABLES + 256}, k.get("scale").variableAddresses());
    assertArrayEquals(new byte[] {R}, k.get("scale").variableModes());
    assertArrayEquals(new long[] {VARIABLES}, k.get("publish").variableAddresses());
    assertArrayEquals(new byte[] {W}, k.get("publish").variableModes());
    assertArrayEquals(new byte[] {R}, k.get("consume").variableModes());
    assertArrayEquals(new byte[] {RW}, k.get("bump_scratch").variableModes());
    // A constant load at an address from a parameter may read any variable of the module.
    assertArrayEquals(new long[] {VARIABLES, VARIABLES + 256, VARIABLES + 512}, k.get("any_constant").variableAddresses());
    assertArrayEquals(new byte[] {R, R, R}, k.get("any_constant").variableModes());
    for (KernelInfo info : k.values()) assertFalse(info.touchesOtherMemory(), info.name());
  }

  /** Issue 23, hole 5: device printf output keeps the order of the launches, as without the agent. */
  @Test
  void aKernelThatPrintsIsABarrier() {
    ModuleAccessSummary printing = new ModuleAccessSummary(List.of(
        new KernelAccessSummary("say", List.of(ParameterUse.R), new int[] {8}, false, Map.of(), ParameterUse.V,
            List.of(ParameterExtent.UNBOUNDED), true),
        new KernelAccessSummary("quiet", List.of(ParameterUse.R), new int[] {8}, false)));
    Map<String, KernelInfo> k = PtxKernels.resolve(printing, finder()).kernels();
    assertTrue(k.get("say").touchesOtherMemory());
    assertFalse(k.get("quiet").touchesOtherMemory());
  }

  @Test
  void aVariableThatCannotBeFoundIsLeftOutWhenNoKernelWritesItAndABarrierWhenOneDoes() {
    Map<String, KernelInfo> k = PtxKernels.resolve(MODULE, finder("flag", "scratch")).kernels();
    assertFalse(k.get("scale").touchesOtherMemory(), "coeffs is written by no kernel: nothing to order");
    assertEquals(0, k.get("scale").variableAddresses().length);
    assertTrue(k.get("any_constant").touchesOtherMemory(), "it may read a variable the agent cannot track");

    Map<String, KernelInfo> noFlag = PtxKernels.resolve(MODULE, finder("coeffs", "scratch")).kernels();
    assertTrue(noFlag.get("publish").touchesOtherMemory());
    assertTrue(noFlag.get("consume").touchesOtherMemory());
    assertFalse(noFlag.get("scale").touchesOtherMemory());
  }

  @Test
  void twoKernelsTalkingThroughAVariableTheHostNeverAskedForShareItsAllocation() {
    Map<String, KernelInfo> k = load(finder("flag", "coeffs", "scratch"));
    CallRecord publish = launch(k.get("publish"), Pointer.to(Pointer.to(new int[] {7})));
    int flag = publish.accessId[0]; // the thread's record is reused: read each call's answer at once
    assertEquals(AccessMode.WRITE, publish.accessMode(0));
    CallRecord consume = launch(k.get("consume"), Pointer.to(Pointer.to(device(OUT))));
    assertEquals(2, consume.accessCount);
    assertEquals(flag, consume.accessId[0]);
    assertEquals(AccessMode.READ, consume.accessMode(0));
    assertFalse(consume.touchesUnknownMemory);
  }

  @Test
  void hostCopyIntoAConstantAndTheKernelReadingItTouchTheSameAllocation() {
    // HtoD 1 into the constant, a launch reading it, HtoD 2: the second copy must wait for the
    // launch (write after read), which the scheduler sees as the same allocation written after read.
    Map<String, KernelInfo> k = load(finder("flag", "coeffs", "scratch"));
    long coeffs = VARIABLES + 256;
    CallRecord r = Calls.begin("cuModuleGetGlobal", 0L);
    CallAccesses.allocated(r, coeffs, 64, MemoryKind.MODULE_GLOBAL);
    Calls.end(r, 0, null);
    int asked = r.accessId[0]; // the thread's record is reused: read each call's answer at once
    r = copyInto(coeffs);
    int first = r.accessId[0];
    r = launch(k.get("scale"), Pointer.to(Pointer.to(device(OUT))));
    int read = r.accessId[0];
    AccessMode readMode = r.accessMode(0);
    r = copyInto(coeffs);
    assertEquals(first, asked, "asked for again: the same allocation, its history kept");
    assertEquals(first, read);
    assertEquals(AccessMode.READ, readMode);
    assertEquals(first, r.accessId[0]);
    assertEquals(AccessMode.WRITE, r.accessMode(0));
  }

  private static CallRecord copyInto(long address) {
    CallRecord r = Calls.begin("cuMemcpyHtoD", 0L);
    CallAccesses.device(r, device(address), 64, AccessMode.WRITE);
    Calls.end(r, 0, null);
    assertEquals(1, r.accessCount);
    return r;
  }

  @Test
  void kernelWhoseCodeTheAgentCannotReadIsABarrier() {
    CallRecord r = launch(KernelInfo.unknown("from_a_cubin"), Pointer.to(Pointer.to(device(OUT))));
    assertTrue(r.touchesUnknownMemory);
    assertEquals(AccessMode.READ_WRITE, r.accessMode(0));
  }

  @Test
  void functionHandleNeverSeenOrFromAModuleWithoutPtxIsUnknown() {
    CUfunction never = new CUfunction();
    JCudaPointers.setNativePointer(never, 0x1234_5678L);
    assertTrue(Modules.kernel(never).touchesOtherMemory());
    CUmodule cubin = new CUmodule();
    JCudaPointers.setNativePointer(cubin, 0x2345_6789L);
    CUfunction f = new CUfunction();
    JCudaPointers.setNativePointer(f, 0x3456_789AL);
    Modules.functionFound(f, cubin, "k");
    assertEquals("k", Modules.kernel(f).name());
    assertTrue(Modules.kernel(f).touchesOtherMemory());
  }

  @Test
  void theFunctionsOfAnUnloadedModuleAreUnknownWhicheverModuleTheirHandlesGoToNext() {
    CUmodule module = new CUmodule();
    JCudaPointers.setNativePointer(module, 0x6789_ABCDL);
    state.kernelsByModule.put(0x6789_ABCDL, load(finder("flag", "coeffs", "scratch")));
    CUfunction scale = new CUfunction();
    JCudaPointers.setNativePointer(scale, 0x789A_BCDEL);
    Modules.functionFound(scale, module, "scale");
    assertFalse(Modules.kernel(scale).touchesOtherMemory());

    Modules.endUnload(null, module, 400, null); // CUDA_ERROR_INVALID_HANDLE: nothing was unloaded
    assertFalse(Modules.kernel(scale).touchesOtherMemory());
    Modules.endUnload(null, module, 0, null);
    assertTrue(Modules.kernel(scale).touchesOtherMemory(), "a handle found no longer is a barrier");
    // A cubin loaded at the same handle: what the PTX said of its "scale" is not its kernel's.
    Modules.endLoadImage(null, module, new byte[] {0x7f, 'E', 'L', 'F'}, 0, null);
    Modules.functionFound(scale, module, "scale");
    assertTrue(Modules.kernel(scale).touchesOtherMemory());
  }

  @Test
  void aModuleLoadedAtAHandleTheAgentDidNotSeeUnloadedForgetsTheOldModulesKernels() {
    CUmodule module = new CUmodule();
    JCudaPointers.setNativePointer(module, 0x6789_ABCDL);
    state.kernelsByModule.put(0x6789_ABCDL, load(finder("flag", "coeffs", "scratch")));
    Modules.endLoadFile(null, module, "/no/such/module.cubin", 0, null);
    CUfunction scale = new CUfunction();
    JCudaPointers.setNativePointer(scale, 0x789A_BCDEL);
    Modules.functionFound(scale, module, "scale");
    assertTrue(Modules.kernel(scale).touchesOtherMemory());
  }

  @Test
  void ptxOffLeavesEveryKernelOfAPtxModuleUnknown() {
    Interception.activate(new InterceptorSettings(Mode.PASSTHROUGH, 4, false, true, () -> LaunchJournal.OFF));
    CUmodule module = new CUmodule();
    JCudaPointers.setNativePointer(module, 0x4567_89ABL);
    CallRecord r = Calls.begin("cuModuleLoadData", 0L);
    Modules.loadedImage(r, module, PTX);
    Calls.end(r, 0, null);
    CUfunction f = new CUfunction();
    JCudaPointers.setNativePointer(f, 0x5678_9ABCL);
    Modules.functionFound(f, module, "scale");
    assertTrue(Modules.kernel(f).touchesOtherMemory());
  }

  @Test
  void parameterThePtxBoundsIsRecordedAsTheBytesTheKernelWrites() {
    KernelInfo scale = load(finder("flag", "coeffs", "scratch")).get("scale");
    assertTrue(scale.isBounded(0));
    CallRecord r = launch(scale, Pointer.to(Pointer.to(device(OUT + 100))));
    int out = r.accessCount - 1; // after the constant it reads
    assertEquals(OUT, r.accessBase[out]);
    assertEquals(100, r.accessOffset[out]);
    assertEquals(4, r.accessSize[out]);
    assertEquals(AccessMode.WRITE, r.accessMode(out));
  }

  /** nvcc's {@code y[i] = a * x[i] + b} with {@code i = blockIdx.x * blockDim.x + threadIdx.x}, signed. */
  private static final String AXPB = """
      .version 8.5
      .target sm_75
      .address_size 64
      .visible .entry axpb(.param .u64 axpb_y, .param .u64 axpb_x, .param .f32 axpb_a, .param .u32 axpb_n)
      {
      .reg .pred %p<2>; .reg .f32 %f<4>; .reg .b32 %r<6>; .reg .b64 %rd<8>;
      ld.param.u64 %rd1, [axpb_y];
      ld.param.u64 %rd2, [axpb_x];
      ld.param.f32 %f1, [axpb_a];
      ld.param.u32 %r2, [axpb_n];
      mov.u32 %r3, %ctaid.x;
      mov.u32 %r4, %ntid.x;
      mov.u32 %r5, %tid.x;
      mad.lo.s32 %r1, %r3, %r4, %r5;
      setp.ge.s32 %p1, %r1, %r2;
      @%p1 bra $L__BB0_2;
      cvta.to.global.u64 %rd3, %rd1;
      cvta.to.global.u64 %rd4, %rd2;
      mul.wide.s32 %rd5, %r1, 4;
      add.s64 %rd6, %rd4, %rd5;
      ld.global.f32 %f2, [%rd6];
      mul.rn.f32 %f3, %f2, %f1;
      add.s64 %rd7, %rd3, %rd5;
      st.global.f32 [%rd7], %f3;
      $L__BB0_2:
      ret;
      }
      """;

  /** The PTX's forward-only proof reaches the kernel's info, with the launch size it holds for. */
  @Test
  void forwardOnlyProofReachesTheKernelInfo() {
    KernelInfo axpb = PtxKernels.resolve(PtxAnalyzer.analyzeModule(AXPB), finder()).kernels().get("axpb");
    assertTrue(axpb.isForward(0, 4, 256));
    assertTrue(axpb.isForward(1, 1 << 21, 1024)); // 2^31 threads: the last index is 2^31 - 1
    assertFalse(axpb.isForward(1, (1 << 21) + 1, 1024));
    assertFalse(axpb.isForward(2, 4, 256)); // a float
    assertFalse(axpb.isForward(0, 0, 0)); // dimensions not known
    KernelInfo scale = load(finder("flag", "coeffs", "scratch")).get("scale");
    assertTrue(scale.isForward(0, -1, -1)); // [0,4): for every launch
  }

  @Test
  void recordWithoutVariablesAddsNothingAndAllocatesNothingPerLaunch() {
    KernelInfo plain = new KernelInfo("k", new byte[] {W}, false);
    CallRecord r = launch(plain, Pointer.to(Pointer.to(device(OUT))));
    assertEquals(1, r.accessCount);
    assertEquals(0, plain.variableAddresses().length);
  }
}
