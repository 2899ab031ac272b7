package dev.kernelweave.interceptor.cublas;

import static dev.kernelweave.interceptor.cublas.BlasOperandRole.HOST_READ;
import static dev.kernelweave.interceptor.cublas.BlasOperandRole.HOST_WRITE;
import static dev.kernelweave.interceptor.cublas.BlasOperandRole.INFO_OUT;
import static dev.kernelweave.interceptor.cublas.BlasOperandRole.NONE;
import static dev.kernelweave.interceptor.cublas.BlasOperandRole.POINTER_ARRAY_READ;
import static dev.kernelweave.interceptor.cublas.BlasOperandRole.POINTER_ARRAY_READ_WRITE;
import static dev.kernelweave.interceptor.cublas.BlasOperandRole.POINTER_ARRAY_WRITE;
import static dev.kernelweave.interceptor.cublas.BlasOperandRole.READ;
import static dev.kernelweave.interceptor.cublas.BlasOperandRole.READ_WRITE;
import static dev.kernelweave.interceptor.cublas.BlasOperandRole.SCALAR_IN;
import static dev.kernelweave.interceptor.cublas.BlasOperandRole.SCALAR_IN_OUT;
import static dev.kernelweave.interceptor.cublas.BlasOperandRole.SCALAR_OUT;
import static dev.kernelweave.interceptor.cublas.BlasOperandRole.WRITE;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.kernelweave.call.CallKind;
import java.lang.management.ManagementFactory;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class BlasOperandRolesTest {

  /** The signature of a JCublas2 method by name alone (the table has no overloads). */
  private static BlasSignature signature(String name) {
    for (BlasSignature s : BlasOperandRoles.signatures()) {
      if (s.name().equals(name)) {
        return s;
      }
    }
    throw new AssertionError("no entry for " + name);
  }

  /** The roles of a method by parameter name, in parameter order. */
  private static Map<String, BlasOperandRole> roles(String name) {
    BlasSignature s = signature(name);
    Map<String, BlasOperandRole> roles = new LinkedHashMap<>();
    for (int i = 0; i < s.parameterCount(); i++) {
      roles.put(s.parameterName(i), s.role(i));
    }
    return roles;
  }

  private static void assertRoutine(String name, Map<String, BlasOperandRole> operands) {
    BlasSignature s = signature(name);
    assertEquals(BlasRoutineKind.DEVICE_ROUTINE, s.kind(), name);
    assertEquals(0, s.handleIndex(), name);
    Map<String, BlasOperandRole> roles = roles(name);
    for (Map.Entry<String, BlasOperandRole> e : roles.entrySet()) {
      assertEquals(operands.getOrDefault(e.getKey(), NONE), e.getValue(), name + " " + e.getKey());
    }
    assertTrue(roles.keySet().containsAll(operands.keySet()), name + " has " + roles.keySet());
  }

  @Test
  void sgemmReadsAAndBTakesScalarAlphaAndBetaAndMayReadC() {
    for (String name : List.of("cublasSgemm", "cublasSgemm_v2_64", "cublasDgemm", "cublasZgemm_v2_64")) {
      assertRoutine(name, Map.of("alpha", SCALAR_IN, "A", READ, "B", READ, "beta", SCALAR_IN, "C", READ_WRITE));
    }
    BlasSignature s = signature("cublasSgemm");
    assertEquals(14, s.parameterCount());
    assertEquals(SCALAR_IN, s.role(6));
    assertEquals(READ, s.role(7));
    assertEquals(NONE, s.role(8));
    assertEquals(READ_WRITE, s.role(12));
    assertFalse(s.hasPointerArrays());
    assertFalse(s.hasScalarOutputs());
  }

  @Test
  void saxpyReadsXAndUpdatesY() {
    assertRoutine("cublasSaxpy", Map.of("alpha", SCALAR_IN, "x", READ, "y", READ_WRITE));
    assertRoutine("cublasAxpyEx", Map.of("alpha", SCALAR_IN, "x", READ, "y", READ_WRITE));
  }

  @Test
  void sdotWritesAScalarResult() {
    assertRoutine("cublasSdot", Map.of("x", READ, "y", READ, "result", SCALAR_OUT));
    assertTrue(signature("cublasSdot").hasScalarOutputs());
    assertRoutine("cublasSnrm2", Map.of("x", READ, "result", SCALAR_OUT));
    assertRoutine("cublasSasum_v2_64", Map.of("x", READ, "result", SCALAR_OUT));
    // The 64-bit amax returns its index into a Java long[]: host memory, still a scalar result.
    assertRoutine("cublasIsamax_v2_64", Map.of("x", READ, "result", SCALAR_OUT));
    assertRoutine("cublasIdamin", Map.of("x", READ, "result", SCALAR_OUT));
  }

  @Test
  void scopyOnlyWritesY() {
    assertRoutine("cublasScopy", Map.of("x", READ, "y", WRITE));
    assertRoutine("cublasCopyEx_64", Map.of("x", READ, "y", WRITE));
  }

  @Test
  void inPlaceLevelOneRoutinesUpdateTheirVectors() {
    assertRoutine("cublasSscal", Map.of("alpha", SCALAR_IN, "x", READ_WRITE));
    assertRoutine("cublasZdscal", Map.of("alpha", SCALAR_IN, "x", READ_WRITE));
    assertRoutine("cublasSswap", Map.of("x", READ_WRITE, "y", READ_WRITE));
    assertRoutine("cublasSrot", Map.of("x", READ_WRITE, "y", READ_WRITE, "c", SCALAR_IN, "s", SCALAR_IN));
    assertRoutine("cublasDrotm", Map.of("x", READ_WRITE, "y", READ_WRITE, "param", SCALAR_IN));
  }

  @Test
  void rotgAndRotmgReadAndOverwriteTheirScalars() {
    assertRoutine("cublasSrotg", Map.of("a", SCALAR_IN_OUT, "b", SCALAR_IN_OUT, "c", SCALAR_OUT, "s", SCALAR_OUT));
    assertRoutine("cublasSrotmg",
        Map.of("d1", SCALAR_IN_OUT, "d2", SCALAR_IN_OUT, "x1", SCALAR_IN_OUT, "y1", SCALAR_IN, "param", SCALAR_OUT));
    assertTrue(signature("cublasSrotg").hasScalarOutputs());
  }

  @Test
  void levelTwoRoutinesUpdateTheirOutput() {
    assertRoutine("cublasSgemv", Map.of("alpha", SCALAR_IN, "A", READ, "x", READ, "beta", SCALAR_IN, "y", READ_WRITE));
    assertRoutine("cublasSspmv", Map.of("alpha", SCALAR_IN, "AP", READ, "x", READ, "beta", SCALAR_IN, "y", READ_WRITE));
    assertRoutine("cublasStrmv", Map.of("A", READ, "x", READ_WRITE));
    assertRoutine("cublasStpsv", Map.of("AP", READ, "x", READ_WRITE));
    assertRoutine("cublasSger", Map.of("alpha", SCALAR_IN, "x", READ, "y", READ, "A", READ_WRITE));
    assertRoutine("cublasCher", Map.of("alpha", SCALAR_IN, "x", READ, "A", READ_WRITE));
    assertRoutine("cublasDspr2", Map.of("alpha", SCALAR_IN, "x", READ, "y", READ, "AP", READ_WRITE));
  }

  @Test
  void sgemmBatchedTakesDeviceArraysOfPointers() {
    BlasSignature s = signature("cublasSgemmBatched");
    assertRoutine("cublasSgemmBatched", Map.of("alpha", SCALAR_IN, "Aarray", POINTER_ARRAY_READ, "Barray", POINTER_ARRAY_READ,
        "beta", SCALAR_IN, "Carray", POINTER_ARRAY_READ_WRITE));
    assertTrue(s.hasPointerArrays());
    assertRoutine("cublasGemmBatchedEx_64_new", Map.of("alpha", SCALAR_IN, "Aarray", POINTER_ARRAY_READ,
        "Barray", POINTER_ARRAY_READ, "beta", SCALAR_IN, "Carray", POINTER_ARRAY_READ_WRITE));
    assertRoutine("cublasSgemvBatched", Map.of("alpha", SCALAR_IN, "Aarray", POINTER_ARRAY_READ, "xarray", POINTER_ARRAY_READ,
        "beta", SCALAR_IN, "yarray", POINTER_ARRAY_READ_WRITE));
  }

  @Test
  void sgemmStridedBatchedReadsAAndBAndMayReadC() {
    assertRoutine("cublasSgemmStridedBatched", Map.of("alpha", SCALAR_IN, "A", READ, "B", READ, "beta", SCALAR_IN, "C", READ_WRITE));
    assertFalse(signature("cublasSgemmStridedBatched").hasPointerArrays());
    assertRoutine("cublasGemmStridedBatchedEx", Map.of("alpha", SCALAR_IN, "A", READ, "B", READ, "beta", SCALAR_IN, "C", READ_WRITE));
  }

  @Test
  void strsmSolvesInPlaceAndStrmmWritesC() {
    assertRoutine("cublasStrsm", Map.of("alpha", SCALAR_IN, "A", READ, "B", READ_WRITE));
    assertRoutine("cublasStrsmBatched", Map.of("alpha", SCALAR_IN, "A", POINTER_ARRAY_READ, "B", POINTER_ARRAY_READ_WRITE));
    assertRoutine("cublasStrmm", Map.of("alpha", SCALAR_IN, "A", READ, "B", READ, "C", WRITE));
  }

  @Test
  void sgeamAndSdgmmWriteCWithoutReadingIt() {
    assertRoutine("cublasSgeam", Map.of("alpha", SCALAR_IN, "A", READ, "beta", SCALAR_IN, "B", READ, "C", WRITE));
    assertRoutine("cublasSdgmm", Map.of("A", READ, "x", READ, "C", WRITE));
  }

  @Test
  void rankKUpdatesMayReadC() {
    assertRoutine("cublasSsyrk", Map.of("alpha", SCALAR_IN, "A", READ, "beta", SCALAR_IN, "C", READ_WRITE));
    assertRoutine("cublasCherkEx", Map.of("alpha", SCALAR_IN, "A", READ, "beta", SCALAR_IN, "C", READ_WRITE));
    assertRoutine("cublasZher2k", Map.of("alpha", SCALAR_IN, "A", READ, "B", READ, "beta", SCALAR_IN, "C", READ_WRITE));
    assertRoutine("cublasDsymm", Map.of("alpha", SCALAR_IN, "A", READ, "B", READ, "beta", SCALAR_IN, "C", READ_WRITE));
  }

  @Test
  void packingRoutinesReadOneLayoutAndWriteTheOther() {
    assertRoutine("cublasStpttr", Map.of("AP", READ, "A", WRITE));
    assertRoutine("cublasStrttp", Map.of("A", READ, "AP", WRITE));
  }

  @Test
  void batchedFactorizationsWriteDeviceInfoAndPivotArrays() {
    assertRoutine("cublasSgetrfBatched", Map.of("A", POINTER_ARRAY_READ_WRITE, "P", INFO_OUT, "info", INFO_OUT));
    assertRoutine("cublasSgetriBatched", Map.of("A", POINTER_ARRAY_READ, "P", READ, "C", POINTER_ARRAY_WRITE, "info", INFO_OUT));
    assertRoutine("cublasSmatinvBatched", Map.of("A", POINTER_ARRAY_READ, "Ainv", POINTER_ARRAY_WRITE, "info", INFO_OUT));
    // getrs, geqrf and gels report parameter errors in a host int.
    assertRoutine("cublasSgetrsBatched",
        Map.of("Aarray", POINTER_ARRAY_READ, "devIpiv", READ, "Barray", POINTER_ARRAY_READ_WRITE, "info", HOST_WRITE));
    assertRoutine("cublasSgeqrfBatched", Map.of("Aarray", POINTER_ARRAY_READ_WRITE, "TauArray", POINTER_ARRAY_WRITE, "info", HOST_WRITE));
    assertRoutine("cublasSgelsBatched",
        Map.of("Aarray", POINTER_ARRAY_READ_WRITE, "Carray", POINTER_ARRAY_READ_WRITE, "info", HOST_WRITE, "devInfoArray", INFO_OUT));
  }

  @Test
  void setVectorWritesTheDeviceSideAndGetVectorReadsIt() {
    BlasSignature set = signature("cublasSetVector");
    assertEquals(BlasRoutineKind.COPY_TO_DEVICE, set.kind());
    assertEquals(Map.of("n", NONE, "elemSize", NONE, "x", HOST_READ, "incx", NONE, "devicePtr", WRITE, "incy", NONE),
        roles("cublasSetVector"));
    assertEquals(-1, set.handleIndex());
    assertEquals(-1, set.streamIndex());

    BlasSignature get = signature("cublasGetVector");
    assertEquals(BlasRoutineKind.COPY_TO_HOST, get.kind());
    assertEquals(Map.of("n", NONE, "elemSize", NONE, "x", READ, "incx", NONE, "y", HOST_WRITE, "incy", NONE),
        roles("cublasGetVector"));

    assertEquals(Map.of("rows", NONE, "cols", NONE, "elemSize", NONE, "A", HOST_READ, "lda", NONE, "B", WRITE, "ldb", NONE,
        "stream", NONE), roles("cublasSetMatrixAsync"));
    assertEquals(7, signature("cublasSetMatrixAsync").streamIndex());
    assertEquals(READ, roles("cublasGetVectorAsync_64").get("devicePtr"));
    assertEquals(HOST_WRITE, roles("cublasGetVectorAsync_64").get("hostPtr"));
    assertEquals(6, signature("cublasGetVectorAsync_64").streamIndex());
    assertEquals(READ, roles("cublasGetMatrix_64").get("A"));
    assertEquals(WRITE, roles("cublasSetVector_64").get("devicePtr"));
  }

  @Test
  void handleStreamAndPointerModeCallsAreNotDeviceRoutines() {
    assertEquals(BlasRoutineKind.HANDLE_CREATE, signature("cublasCreate").kind());
    assertEquals(BlasRoutineKind.HANDLE_DESTROY, signature("cublasDestroy").kind());
    assertEquals(BlasRoutineKind.STREAM_SET, signature("cublasSetStream").kind());
    assertEquals(1, signature("cublasSetStream").streamIndex());
    assertEquals(BlasRoutineKind.STREAM_GET, signature("cublasGetStream").kind());
    assertEquals(BlasRoutineKind.POINTER_MODE_SET, signature("cublasSetPointerMode").kind());
    assertEquals(BlasRoutineKind.POINTER_MODE_GET, signature("cublasGetPointerMode").kind());
    assertEquals(HOST_WRITE, roles("cublasGetPointerMode").get("mode"));
    for (String name : List.of("cublasSetMathMode", "cublasGetMathMode", "cublasSetAtomicsMode", "cublasGetVersion",
        "cublasGetProperty", "cublasGetCudartVersion", "cublasLoggerConfigure", "cublasSetLoggerCallback",
        "cublasGetStatusString", "cublasSetSmCountTarget", "cublasMigrateComputeType_new", "initialize",
        "setExceptionsEnabled", "setLogLevel")) {
      BlasSignature s = signature(name);
      assertEquals(BlasRoutineKind.HOST_SETTING, s.kind(), name);
      for (int i = 0; i < s.parameterCount(); i++) {
        assertFalse(s.role(i).isDeviceMemory() || s.role(i).followsPointerMode(), name);
      }
    }
  }

  @Test
  void setWorkspaceHandsOverADeviceBuffer() {
    BlasSignature s = signature("cublasSetWorkspace");
    assertEquals(BlasRoutineKind.WORKSPACE_SET, s.kind());
    assertEquals(Map.of("handle", NONE, "workspace", READ_WRITE, "workspaceSizeInBytes", NONE), roles("cublasSetWorkspace"));
    assertFalse(s.kind().isDeviceWork());
  }

  @Test
  void gemmExWrappersNameTheMethodThatDoesTheWork() {
    assertEquals("cublasGemmEx_new", signature("cublasGemmEx").delegatesTo());
    assertEquals("cublasGemmBatchedEx_new", signature("cublasGemmBatchedEx").delegatesTo());
    assertEquals("cublasGemmStridedBatchedEx_new", signature("cublasGemmStridedBatchedEx").delegatesTo());
    assertNull(signature("cublasGemmEx_new").delegatesTo());
    assertNull(signature("cublasSgemm").delegatesTo());
  }

  @Test
  void operandIndicesListTheParametersWithARole() {
    for (BlasSignature s : BlasOperandRoles.signatures()) {
      int k = 0;
      for (int i = 0; i < s.parameterCount(); i++) {
        if (s.role(i) != NONE) {
          assertEquals(i, s.operandIndex(k++), s.name());
        }
      }
      assertEquals(k, s.operandCount(), s.name());
    }
    BlasSignature gemm = signature("cublasSgemm");
    assertEquals(5, gemm.operandCount());
    assertEquals(12, gemm.operandIndex(4));
  }

  @Test
  void anUnknownMethodGetsASharedUnknownSignatureOfItsArity() {
    BlasSignature s = BlasOperandRoles.lookup("cublasSgemmFuture", 3);
    assertEquals(BlasRoutineKind.UNKNOWN, s.kind());
    assertEquals(CallKind.OPAQUE, s.kind().callKind());
    assertEquals(3, s.parameterCount());
    assertEquals(NONE, s.role(2));
    assertEquals("", s.parameterName(2));
    assertEquals(-1, s.handleIndex());
    assertEquals(0, s.operandCount());
    assertSame(s, BlasOperandRoles.lookup("cublasOther", 3));
    assertSame(s, BlasOperandRoles.lookup("cublasOther", "(ILjcuda/Pointer;[J)I"));
    assertThrows(IndexOutOfBoundsException.class, () -> s.role(3));
  }

  @Test
  void aKnownNameWithAnotherArityOrDescriptorIsUnknown() {
    BlasSignature wrongArity = BlasOperandRoles.lookup("cublasSgemm", 13);
    assertEquals(BlasRoutineKind.UNKNOWN, wrongArity.kind());
    assertEquals(13, wrongArity.parameterCount());
    // cublasSgemm with the long sizes of cublasSgemm_v2_64.
    BlasSignature wrongDescriptor = BlasOperandRoles.lookup("cublasSgemm", signature("cublasSgemm_v2_64").descriptor());
    assertEquals(BlasRoutineKind.UNKNOWN, wrongDescriptor.kind());
    assertEquals(14, wrongDescriptor.parameterCount());
    assertSame(signature("cublasSgemm"), BlasOperandRoles.lookup("cublasSgemm", signature("cublasSgemm").descriptor()));
  }

  @Test
  void lookupsCompareNamesAndDescriptorsByValue() {
    String descriptor = signature("cublasSgemm").descriptor();
    // Copies, not the interned constants the advice passes: found all the same.
    BlasSignature copy = BlasOperandRoles.lookup(new String("cublasSgemm"), new String(descriptor));
    assertSame(signature("cublasSgemm"), copy);
    assertSame(signature("cublasSgemm"), BlasOperandRoles.lookup("cublasSgemm",
        "(Ljcuda/jcublas/cublasHandle;IIIIILjcuda/Pointer;Ljcuda/Pointer;ILjcuda/Pointer;ILjcuda/Pointer;Ljcuda/Pointer;I)I"));
    assertEquals(BlasRoutineKind.UNKNOWN,
        BlasOperandRoles.lookup(new String("cublasSgemm"), descriptor.replace(";I)I", ";J)I")).kind());
  }

  @Test
  void badArgumentsAreRejected() {
    assertThrows(IllegalArgumentException.class, () -> BlasOperandRoles.lookup("cublasSgemm", -1));
    assertThrows(IllegalArgumentException.class, () -> BlasOperandRoles.lookup("cublasSgemm", 256));
    assertThrows(IllegalArgumentException.class, () -> BlasOperandRoles.lookup("cublasX", "I)I"));
    assertThrows(IllegalArgumentException.class, () -> BlasOperandRoles.lookup("cublasX", "(Ljcuda/Pointer)I"));
    assertThrows(IllegalArgumentException.class, () -> BlasOperandRoles.lookup("cublasX", "(IQ)I"));
    assertThrows(IndexOutOfBoundsException.class, () -> signature("cublasSaxpy").role(-1));
    assertThrows(UnsupportedOperationException.class, () -> BlasOperandRoles.signatures().clear());
  }

  @Test
  void descriptorsAreCountedByParameter() {
    assertEquals(0, BlasOperandRoles.parameterCount("()V"));
    assertEquals(3, BlasOperandRoles.parameterCount("([[JLjava/lang/String;D)I"));
    assertEquals(1, BlasOperandRoles.parameterCount("([Ljcuda/jcublas/cublasLogCallback;)I"));
  }

  @Test
  void lookupsDoNotAllocate() {
    assumeTrue(ManagementFactory.getThreadMXBean() instanceof com.sun.management.ThreadMXBean);
    com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
    assumeTrue(threads.isThreadAllocatedMemorySupported() && threads.isThreadAllocatedMemoryEnabled());
    List<BlasSignature> all = BlasOperandRoles.signatures();
    String[] names = new String[all.size() + 1];
    String[] descriptors = new String[names.length];
    int[] counts = new int[names.length];
    for (int i = 0; i < all.size(); i++) {
      names[i] = all.get(i).name();
      descriptors[i] = all.get(i).descriptor();
      counts[i] = all.get(i).parameterCount();
    }
    names[all.size()] = "cublasNotThere";
    descriptors[all.size()] = "(Ljcuda/jcublas/cublasHandle;IJ[ILjcuda/Pointer;)I";
    counts[all.size()] = 5;
    int sink = 0;
    for (int round = 0; round < 2; round++) {
      long before = threads.getCurrentThreadAllocatedBytes();
      for (int rep = 0; rep < 200; rep++) {
        for (int i = 0; i < names.length; i++) {
          sink += BlasOperandRoles.lookup(names[i], counts[i]).kind().ordinal();
          BlasSignature s = BlasOperandRoles.lookup(names[i], descriptors[i]);
          sink += s.parameterCount() + (s.parameterCount() > 0 ? s.role(s.parameterCount() - 1).ordinal() : 0);
        }
      }
      long allocated = threads.getCurrentThreadAllocatedBytes() - before;
      if (round == 1) {
        // 200 * 505 * 2 lookups: one allocated object per lookup would be megabytes.
        assertTrue(allocated < 16 * 1024, "lookups allocated " + allocated + " bytes");
      }
    }
    assertTrue(sink > 0);
  }

  @Test
  void kindsMapToTheSchedulersCallKinds() {
    assertEquals(CallKind.BLAS, BlasRoutineKind.DEVICE_ROUTINE.callKind());
    assertEquals(CallKind.COPY_HOST_TO_DEVICE, BlasRoutineKind.COPY_TO_DEVICE.callKind());
    assertEquals(CallKind.COPY_DEVICE_TO_HOST, BlasRoutineKind.COPY_TO_HOST.callKind());
    assertEquals(CallKind.SYNC, BlasRoutineKind.HANDLE_DESTROY.callKind());
    assertEquals(CallKind.HOST, BlasRoutineKind.WORKSPACE_SET.callKind());
    assertEquals(CallKind.HOST, BlasRoutineKind.HOST_SETTING.callKind());
    for (BlasRoutineKind kind : BlasRoutineKind.values()) {
      assertEquals(kind.isDeviceWork(), kind.callKind().isDeviceWork(), kind.name());
    }
  }

  @Test
  void toStringShowsTheRoles() {
    assertEquals("cublasSaxpy DEVICE_ROUTINE handle n alpha:SI x:R incx y:RW incy", signature("cublasSaxpy").toString());
    assertEquals("? UNKNOWN (2 parameters)", BlasOperandRoles.lookup("nope", 2).toString());
  }
}
