package dev.kernelweave.calltable;

import dev.kernelweave.call.CallKind;
import dev.kernelweave.scheduler.Placement;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Every intercepted CUDA function and what the agent decides from the function alone: its kind,
 * placement, effect on held windows, operands, stream, event and size arguments, and whether CUDA
 * blocks the host for it. Read by the interceptor's advice (which carries a row's id as a constant
 * woven in, so a call finds its row by index) and by the self-test's program runner, so that the
 * differential fuzz covers what the rows say.
 *
 * <p>One row per function with advice of its own; the functions the agent knows only by name share
 * the row of their family ({@code (host)}, {@code (opaque)}...), picked by {@link #familyOf}; the
 * cuBLAS routines share a row per {@code BlasRoutineKind}, their operands being in the
 * interceptor's {@code BlasOperandTable}. Row ids are the rows' order in {@link #ROWS}: woven
 * classes built ahead of time carry them, so rows are only ever added at the end.
 *
 * <p>Columns: name, {@link CallKind}, {@link Placement}, staged placement ({@code -}: never
 * staged), {@link WindowEffect}, {@link HostBlocking}, stream argument, event argument ({@code -}:
 * none), bytes ({@code 2}: argument 2; {@code 2x4}: argument 2 times 4 bytes; {@code 1*4}: argument
 * 1 times argument 4), then the operands in the order they are recorded ({@code 0:DW}: argument 0,
 * device memory, written; sides D, H, A (either), K (by the {@code cudaMemcpyKind} in argument
 * {@code kind=N}); {@code ?}: touches memory the agent cannot see, a barrier on its stream).
 *
 * <p>Immutable once built; safe to read from any thread.
 */
public final class CudaCallTable {

  static final String[] ROWS = {
    // name                       kind                  placement     staged       windows                host          stream event bytes operands
    // ---------------------------------------------------------------------------------------- the driver API
    "cuLaunchKernel               LAUNCH                ASYNC         -            MAY_BE_HELD            NO            8  -  -",
    "cuMemcpyHtoD                 COPY_HOST_TO_DEVICE   SYNC          STAGED       NEUTRAL                YES           -  -  2     0:DW 1:HR",
    "cuMemcpyDtoH                 COPY_DEVICE_TO_HOST   SYNC          STAGED_READ  NEUTRAL                YES           -  -  2     1:DR 0:HW",
    "cuMemcpyDtoD                 COPY_DEVICE_TO_DEVICE SYNC          -            NEUTRAL                YES           -  -  2     1:AR 0:AW",
    "cuMemcpy                     COPY_DEVICE_TO_DEVICE SYNC          -            NEUTRAL                YES           -  -  2     1:AR 0:AW",
    "cuMemcpyHtoDAsync            COPY_HOST_TO_DEVICE   ASYNC         -            NEUTRAL                NO            3  -  2     0:DW 1:HR",
    "cuMemcpyDtoHAsync            COPY_DEVICE_TO_HOST   ASYNC         -            NEUTRAL                WHEN_PAGEABLE 3  -  2     1:DR 0:HW",
    "cuMemcpyDtoDAsync            COPY_DEVICE_TO_DEVICE ASYNC         -            NEUTRAL                NO            3  -  2     1:AR 0:AW",
    "cuMemcpyAsync                COPY_DEVICE_TO_DEVICE ASYNC         -            NEUTRAL                NO            3  -  2     1:AR 0:AW",
    "cuMemsetD8                   MEMSET                SYNC          -            NEUTRAL                NO            -  -  2x1   0:DW",
    "cuMemsetD16                  MEMSET                SYNC          -            NEUTRAL                NO            -  -  2x2   0:DW",
    "cuMemsetD32                  MEMSET                SYNC          -            NEUTRAL                NO            -  -  2x4   0:DW",
    "cuMemsetD8Async              MEMSET                ASYNC         -            NEUTRAL                NO            3  -  2x1   0:DW",
    "cuMemsetD16Async             MEMSET                ASYNC         -            NEUTRAL                NO            3  -  2x2   0:DW",
    "cuMemsetD32Async             MEMSET                ASYNC         -            NEUTRAL                NO            3  -  2x4   0:DW",
    "cuMemsetD2D8                 MEMSET                SYNC          -            NEUTRAL                NO            -  -  1*4   0:DW",
    "cuMemsetD2D16                MEMSET                SYNC          -            NEUTRAL                NO            -  -  1*4   0:DW",
    "cuMemsetD2D32                MEMSET                SYNC          -            NEUTRAL                NO            -  -  1*4   0:DW",
    "cuMemsetD2D8Async            MEMSET                ASYNC         -            NEUTRAL                NO            5  -  1*4   0:DW",
    "cuMemsetD2D16Async           MEMSET                ASYNC         -            NEUTRAL                NO            5  -  1*4   0:DW",
    "cuMemsetD2D32Async           MEMSET                ASYNC         -            NEUTRAL                NO            5  -  1*4   0:DW",
    "cuMemAlloc                   ALLOC                 NONE          -            NEUTRAL                NO            -  -  1",
    "cuMemAllocManaged            ALLOC                 NONE          -            NEUTRAL                NO            -  -  1",
    "cuMemAllocPitch              ALLOC                 NONE          -            NEUTRAL                NO            -  -  -",
    "cuMemAllocHost               ALLOC                 NONE          -            NEUTRAL                NO            -  -  1",
    "cuMemHostAlloc               ALLOC                 NONE          -            NEUTRAL                NO            -  -  1",
    "cuMemHostRegister            ALLOC                 NONE          -            NEUTRAL                NO            -  -  1",
    "cuMemFree                    FREE                  FREE          -            NEUTRAL                YES           -  -  -",
    "cuMemFreeHost                FREE                  FREE          -            NEUTRAL                YES           -  -  -",
    "cuMemHostUnregister          FREE                  FREE          -            NEUTRAL                YES           -  -  -",
    "cuCtxSynchronize             SYNC                  DEVICE_SYNC   -            NEUTRAL                YES           -  -  -",
    "cuStreamSynchronize          SYNC                  STREAM_SYNC   -            NEUTRAL                YES           0  -  -",
    "cuEventRecord                EVENT                 EVENT_RECORD  -            NEUTRAL                NO            1  0  -",
    "cuEventRecordWithFlags       EVENT                 EVENT_RECORD  -            NEUTRAL                NO            1  0  -",
    "cuEventCreate                EVENT                 NONE          -            NEUTRAL                NO            -  -  -",
    "cuEventQuery                 EVENT                 NONE          -            NEUTRAL                NO            -  0  -",
    "cuEventElapsedTime           EVENT                 NONE          -            NEUTRAL                NO            -  -  -",
    "cuStreamQuery                STREAM                STREAM_QUERY  -            NEUTRAL                NO            0  -  -",
    "cuStreamWaitEvent            EVENT                 STREAM_WAIT_EVENT -        NEUTRAL                NO            0  1  -",
    "cuStreamBeginCapture         STREAM                CAPTURE_BEGIN -            NEUTRAL                NO            0  -  -",
    "cuStreamBeginCapture_v2      STREAM                CAPTURE_BEGIN -            NEUTRAL                NO            0  -  -",
    "cuStreamEndCapture           STREAM                CAPTURE_END   -            NEUTRAL                NO            0  -  -",
    "cuStreamCreate               STREAM                NONE          -            NEUTRAL                NO            -  -  -",
    "cuStreamCreateWithPriority   STREAM                NONE          -            NEUTRAL                NO            -  -  -",
    "cuCtxDestroy                 CONTEXT               BARRIER       -            ENDED_IN_EVERY_CONTEXT YES           -  -  -",
    "cuDevicePrimaryCtxReset      CONTEXT               BARRIER       -            ENDED_IN_EVERY_CONTEXT YES           -  -  -",
    "cuDevicePrimaryCtxRelease    CONTEXT               NONE          -            ENDED_IN_EVERY_CONTEXT YES           -  -  -",
    "cuDevicePrimaryCtxRetain     CONTEXT               NONE          -            NEUTRAL                NO            -  -  -",
    "cuModuleLoad                 MODULE                NONE          -            NEUTRAL                NO            -  -  -",
    "cuModuleLoadData             MODULE                NONE          -            NEUTRAL                NO            -  -  -",
    "cuModuleLoadDataEx           MODULE                NONE          -            NEUTRAL                NO            -  -  -",
    "cuModuleGetFunction          MODULE                NONE          -            NEUTRAL                NO            -  -  -",
    "cuModuleGetGlobal            MODULE                NONE          -            NEUTRAL                NO            -  -  -",
    "cuLaunchHostFunc             OPAQUE                ASYNC         -            NEUTRAL                NO            0  -  -     ?",
    "cuStreamAddCallback          OPAQUE                ASYNC         -            NEUTRAL                NO            0  -  -     ?",
    "cuStreamWaitValue32          OPAQUE                ASYNC         -            NEUTRAL                NO            0  -  -     ?",
    "cuStreamWaitValue64          OPAQUE                ASYNC         -            NEUTRAL                NO            0  -  -     ?",
    "cuStreamWriteValue32         OPAQUE                ASYNC         -            NEUTRAL                NO            0  -  -     ?",
    "cuStreamWriteValue64         OPAQUE                ASYNC         -            NEUTRAL                NO            0  -  -     ?",
    "cuStreamBatchMemOp           OPAQUE                ASYNC         -            NEUTRAL                NO            0  -  -     ?",
    "cuGraphLaunch                OPAQUE                ASYNC         -            NEUTRAL                NO            1  -  -     ?",
    "cuMemGetAddressRange         HOST                  NONE          -            NEUTRAL                NO            -  -  -",
    "cuPointerGetAttribute        HOST                  NONE          -            NEUTRAL                NO            -  -  -",
    // ---------------------------------------------------------------------------------------- the runtime API
    "cudaMalloc                   ALLOC                 NONE          -            NEUTRAL                NO            -  -  1",
    "cudaMallocManaged            ALLOC                 NONE          -            NEUTRAL                NO            -  -  1",
    "cudaMallocPitch              ALLOC                 NONE          -            NEUTRAL                NO            -  -  -",
    "cudaMallocHost               ALLOC                 NONE          -            NEUTRAL                NO            -  -  1",
    "cudaHostAlloc                ALLOC                 NONE          -            NEUTRAL                NO            -  -  1",
    "cudaHostRegister             ALLOC                 NONE          -            NEUTRAL                NO            -  -  1",
    "cudaFree                     FREE                  FREE          -            NEUTRAL                YES           -  -  -",
    "cudaFreeHost                 FREE                  FREE          -            NEUTRAL                YES           -  -  -",
    "cudaHostUnregister           FREE                  FREE          -            NEUTRAL                YES           -  -  -",
    "cudaMemcpy                   COPY_DEVICE_TO_DEVICE SYNC          -            NEUTRAL                YES           -  -  2     0:KW 1:KR kind=3",
    "cudaMemcpyAsync              COPY_DEVICE_TO_DEVICE ASYNC         -            NEUTRAL                WHEN_PAGEABLE 4  -  2     0:KW 1:KR kind=3",
    "cudaMemset                   MEMSET                SYNC          -            NEUTRAL                NO            -  -  2x1   0:DW",
    "cudaMemsetAsync              MEMSET                ASYNC         -            NEUTRAL                NO            3  -  2x1   0:DW",
    "cudaDeviceSynchronize        SYNC                  DEVICE_SYNC   -            NEUTRAL                YES           -  -  -",
    "cudaStreamSynchronize        SYNC                  STREAM_SYNC   -            NEUTRAL                YES           0  -  -",
    "cudaEventRecord              EVENT                 EVENT_RECORD  -            NEUTRAL                NO            1  0  -",
    "cudaEventCreate              EVENT                 NONE          -            NEUTRAL                NO            -  -  -",
    "cudaEventCreateWithFlags     EVENT                 NONE          -            NEUTRAL                NO            -  -  -",
    "cudaEventQuery               EVENT                 NONE          -            NEUTRAL                NO            -  0  -",
    "cudaEventElapsedTime         EVENT                 NONE          -            NEUTRAL                NO            -  -  -",
    "cudaStreamQuery              STREAM                STREAM_QUERY  -            NEUTRAL                NO            0  -  -",
    "cudaStreamWaitEvent          EVENT                 STREAM_WAIT_EVENT -        NEUTRAL                NO            0  1  -",
    "cudaStreamBeginCapture       STREAM                CAPTURE_BEGIN -            NEUTRAL                NO            0  -  -",
    "cudaStreamEndCapture         STREAM                CAPTURE_END   -            NEUTRAL                NO            0  -  -",
    "cudaStreamCreate             STREAM                NONE          -            NEUTRAL                NO            -  -  -",
    "cudaStreamCreateWithFlags    STREAM                NONE          -            NEUTRAL                NO            -  -  -",
    "cudaStreamCreateWithPriority STREAM                NONE          -            NEUTRAL                NO            -  -  -",
    "cudaDeviceReset              CONTEXT               BARRIER       -            ENDED_IN_EVERY_CONTEXT YES           -  -  -",
    "cudaLaunchHostFunc           OPAQUE                ASYNC         -            NEUTRAL                NO            0  -  -     ?",
    "cudaStreamAddCallback        OPAQUE                ASYNC         -            NEUTRAL                NO            0  -  -     ?",
    "cudaGraphLaunch              OPAQUE                ASYNC         -            NEUTRAL                NO            1  -  -     ?",
    // ------------------------------------------------ families of functions known by name only (familyOf)
    "(host)                       HOST                  NONE          -            NEUTRAL                NO            -  -  -",
    "(host-setting)               HOST                  NONE          -            ENDED                  NO            -  -  -",
    "(attribute-setting)          HOST                  NONE          -            FORGOTTEN              NO            -  -  -",
    "(context)                    CONTEXT               NONE          -            NEUTRAL                NO            -  -  -",
    "(stream)                     STREAM                NONE          -            NEUTRAL                NO            -  -  -",
    "(event)                      EVENT                 NONE          -            NEUTRAL                NO            -  -  -",
    "(sync)                       SYNC                  NONE          -            NEUTRAL                YES           -  -  -",
    "(module)                     MODULE                NONE          -            NEUTRAL                NO            -  -  -",
    "(opaque)                     OPAQUE                BARRIER       -            NEUTRAL                YES           -  -  -",
    "(peer-copy)                  OPAQUE                BARRIER       -            ENDED_IN_EVERY_CONTEXT YES           -  -  -",
    "(unload)                     OPAQUE                BARRIER       -            FORGOTTEN              YES           -  -  -",
    // ------------------------------------ cuBLAS, a row per BlasRoutineKind; operands in BlasOperandTable
    "cublas:DEVICE_ROUTINE        BLAS                  ASYNC         -            MAY_BE_HELD            NO            -  -  -",
    "cublas:COPY_TO_DEVICE        COPY_HOST_TO_DEVICE   SYNC          -            NEUTRAL                YES           -  -  -",
    "cublas:COPY_TO_HOST          COPY_DEVICE_TO_HOST   SYNC          -            NEUTRAL                YES           -  -  -",
    "cublas:COPY_TO_DEVICE_ON_STREAM COPY_HOST_TO_DEVICE BARRIER      -            NEUTRAL                YES           -  -  -",
    "cublas:COPY_TO_HOST_ON_STREAM COPY_DEVICE_TO_HOST  BARRIER       -            NEUTRAL                YES           -  -  -",
    "cublas:HANDLE_DESTROY        SYNC                  DEVICE_SYNC   -            NEUTRAL                YES           -  -  -",
    "cublas:UNKNOWN               OPAQUE                BARRIER       -            NEUTRAL                YES           -  -  -",
    "cublas:HANDLE_CREATE         HOST                  NONE          -            ENDED                  NO            -  -  -",
    "cublas:STREAM_SET            HOST                  NONE          -            ENDED                  NO            -  -  -",
    "cublas:WORKSPACE_SET         HOST                  NONE          -            ENDED                  NO            -  -  -",
    "cublas:POINTER_MODE_SET      HOST                  NONE          -            ENDED                  NO            -  -  -",
    "cublas:HOST_SETTING          HOST                  NONE          -            ENDED                  NO            -  -  -",
    "cublas:STREAM_GET            HOST                  NONE          -            NEUTRAL                NO            -  -  -",
    "cublas:POINTER_MODE_GET      HOST                  NONE          -            NEUTRAL                NO            -  -  -",
    // ------------------------------------------------ added later: rows are only ever appended
    "cuStreamDestroy              STREAM                NONE          -            NEUTRAL                NO            -  -  -",
    "cudaStreamDestroy            STREAM                NONE          -            NEUTRAL                NO            -  -  -",
    "cuModuleUnload               OPAQUE                BARRIER       -            FORGOTTEN              YES           -  -  -",
  };

  private static final CudaCallTable CANONICAL = new CudaCallTable(parse(ROWS));

  // The rows the self-test's programs use, by id.
  public static final int LAUNCH_KERNEL = CANONICAL.idOf("cuLaunchKernel");
  public static final int COPY_TO_DEVICE = CANONICAL.idOf("cuMemcpyHtoD");
  public static final int COPY_TO_HOST = CANONICAL.idOf("cuMemcpyDtoH");
  public static final int COPY_TO_DEVICE_ASYNC = CANONICAL.idOf("cuMemcpyHtoDAsync");
  public static final int COPY_TO_HOST_ASYNC = CANONICAL.idOf("cuMemcpyDtoHAsync");
  public static final int COPY_ON_DEVICE_ASYNC = CANONICAL.idOf("cuMemcpyDtoDAsync");
  public static final int MEMSET = CANONICAL.idOf("cuMemsetD8");
  public static final int MEMSET_ASYNC = CANONICAL.idOf("cuMemsetD8Async");
  public static final int FREE = CANONICAL.idOf("cuMemFree");
  public static final int ALLOC_HOST = CANONICAL.idOf("cuMemAllocHost");
  public static final int HOST_REGISTER = CANONICAL.idOf("cuMemHostRegister");
  public static final int STREAM_CREATE = CANONICAL.idOf("cuStreamCreate");
  public static final int MODULE_GET_GLOBAL = CANONICAL.idOf("cuModuleGetGlobal");
  public static final int CONTEXT_SYNCHRONIZE = CANONICAL.idOf("cuCtxSynchronize");
  public static final int STREAM_SYNCHRONIZE = CANONICAL.idOf("cuStreamSynchronize");
  public static final int EVENT_RECORD = CANONICAL.idOf("cuEventRecord");
  public static final int STREAM_WAIT_EVENT = CANONICAL.idOf("cuStreamWaitEvent");
  public static final int LAUNCH_HOST_FUNCTION = CANONICAL.idOf("cuLaunchHostFunc");
  /** A function of a library the agent knows only by name, cuFFT's. */
  public static final int OPAQUE_LIBRARY_CALL = CANONICAL.idOf("cufftExecC2C");

  private final CudaCall[] rows;
  private final Map<String, Integer> ids;

  private CudaCallTable(CudaCall[] rows) {
    this.rows = rows;
    Map<String, Integer> byName = new HashMap<>();
    for (CudaCall row : rows) {
      if (byName.put(row.name(), row.id()) != null) {
        throw new IllegalStateException("two rows for " + row.name());
      }
    }
    this.ids = byName;
  }

  /** The table as the agent reads it. */
  public static CudaCallTable canonical() {
    return CANONICAL;
  }

  /**
   * This table with {@code replacement} in place of the row of the same id: how the self-test
   * breaks a row on purpose ({@code OrderingRules#withTable}).
   */
  public CudaCallTable withRow(CudaCall replacement) {
    CudaCall[] copy = rows.clone();
    copy[replacement.id()] = replacement;
    return new CudaCallTable(copy);
  }

  /** Row {@code id}: an array read, for the path of every call. */
  public CudaCall row(int id) {
    return rows[id];
  }

  /** The number of rows. */
  public int size() {
    return rows.length;
  }

  /** Every row, in id order. */
  public List<CudaCall> rows() {
    return Collections.unmodifiableList(Arrays.asList(rows));
  }

  /** Whether the table has a row of this name (a function's, a family's, a cuBLAS kind's). */
  public boolean hasRow(String name) {
    return ids.containsKey(name);
  }

  /** Whether the function has a row of its own rather than its family's. */
  public boolean hasOwnRow(String function) {
    return ids.containsKey(function) && function.indexOf('(') < 0 && function.indexOf(':') < 0;
  }

  /**
   * The id of the function's row: its own, or its family's ({@link #familyOf}). A map lookup: for
   * weaving and cold paths, never for the path of every call.
   */
  public int idOf(String function) {
    Integer id = ids.get(function);
    if (id == null) {
      id = ids.get(familyOf(function));
    }
    return id;
  }

  /** The function's row ({@link #idOf}). */
  public CudaCall rowOf(String function) {
    return rows[idOf(function)];
  }

  /**
   * The family of a function the agent has no row of its own for, from its name: host-only calls
   * (queries, handles, settings) are journaled and pass; everything else is a barrier. When unsure,
   * a barrier: it costs time, never a result.
   */
  static String familyOf(String m) {
    if (m.startsWith("cuFuncSet") || m.startsWith("cudaFuncSet") || m.startsWith("cuKernelSet")
        || m.startsWith("cuCtxSet") && !m.equals("cuCtxSetCurrent") || m.startsWith("cudaDeviceSetCacheConfig")
        || m.startsWith("cudaDeviceSetSharedMemConfig") || m.startsWith("cudaDeviceSetLimit")) {
      return "(attribute-setting)";
    }
    if (m.startsWith("cuMemcpyPeer") || m.startsWith("cuMemcpy3DPeer") || m.startsWith("cudaMemcpyPeer")
        || m.startsWith("cudaMemcpy3DPeer")) {
      return "(peer-copy)";
    }
    if (m.startsWith("nvrtc") || m.startsWith("nvPTXCompiler")) {
      return m.contains("Set") ? "(host-setting)" : "(host)";
    }
    if (m.equals("cuInit") || m.startsWith("cuDriverGet") || m.startsWith("cuDeviceGet")
        || m.startsWith("cuDeviceTotalMem") || m.startsWith("cuDeviceComputeCapability")
        || m.startsWith("cuDeviceCanAccessPeer") || m.startsWith("cuFuncGet")
        || m.startsWith("cuKernelGet") || m.startsWith("cuMemGetInfo") || m.startsWith("cuPointerGetAttribute")
        || m.startsWith("cuMemGetAddressRange") || m.startsWith("cuOccupancy") || m.startsWith("cuGetError")
        || m.startsWith("cuGetExportTable") || m.startsWith("cuLink")
        || m.startsWith("cudaGet") || m.equals("cudaPeekAtLastError") || m.startsWith("cudaRuntimeGetVersion")
        || m.startsWith("cudaDriverGetVersion") || m.startsWith("cudaDeviceGet") || m.startsWith("cudaChooseDevice")
        || m.startsWith("cudaPointerGetAttributes") || m.startsWith("cudaMemGetInfo") || m.startsWith("cudaFuncGet")
        || m.startsWith("cudaOccupancy") || m.startsWith("cudaDeviceCanAccessPeer")) {
      return m.contains("Set") ? "(host-setting)" : "(host)";
    }
    if (m.startsWith("cuCtx") && !m.equals("cuCtxSynchronize") && !m.equals("cuCtxDestroy")
        || m.startsWith("cuDevicePrimaryCtx") || m.equals("cudaSetDevice") || m.equals("cudaSetDeviceFlags")
        || m.equals("cudaSetValidDevices") || m.equals("cudaFree0")) {
      return "(context)";
    }
    if (m.startsWith("cuStreamCreate") || m.equals("cuStreamDestroy") || m.startsWith("cuStreamGet")
        || m.startsWith("cudaStreamCreate") || m.equals("cudaStreamDestroy") || m.startsWith("cudaStreamGet")) {
      return "(stream)";
    }
    if (m.startsWith("cuEventCreate") || m.equals("cuEventDestroy") || m.equals("cuEventElapsedTime")
        || m.equals("cuEventQuery") || m.equals("cuStreamWaitEvent") || m.startsWith("cudaEventCreate")
        || m.equals("cudaEventDestroy") || m.equals("cudaEventElapsedTime") || m.equals("cudaEventQuery")
        || m.equals("cudaStreamWaitEvent")) {
      return "(event)";
    }
    if (m.equals("cuEventSynchronize") || m.equals("cudaEventSynchronize")) {
      return "(sync)";
    }
    if (m.startsWith("cuModuleGet") || m.startsWith("cuModuleLoad") || m.startsWith("cuLibraryGet")) {
      return "(module)";
    }
    return m.endsWith("Unload") ? "(unload)" : "(opaque)";
  }

  static CudaCall[] parse(String[] lines) {
    List<CudaCall> rows = new ArrayList<>();
    for (String line : lines) {
      rows.add(parseRow(rows.size(), line));
    }
    return rows.toArray(new CudaCall[0]);
  }

  private static CudaCall parseRow(int id, String line) {
    String[] t = tokens(line);
    if (t.length < 9) {
      throw new IllegalArgumentException("a row needs at least 9 columns: " + line);
    }
    int sizeFactor = CudaCall.NONE;
    int elementSize = 1;
    String bytes = t[8];
    if (bytes.contains("x")) {
      elementSize = Integer.parseInt(bytes.substring(bytes.indexOf('x') + 1));
    } else if (bytes.contains("*")) {
      sizeFactor = Integer.parseInt(bytes.substring(bytes.indexOf('*') + 1));
    }
    List<Operand> operands = new ArrayList<>();
    boolean unseen = false;
    for (int i = 9; i < t.length; i++) {
      if (t[i].equals("?")) {
        unseen = true;
      } else if (!t[i].startsWith("kind=")) {
        operands.add(Operand.parse(t[i]));
      }
    }
    return new CudaCall(id, t[0], CallKind.valueOf(t[1]), Placement.valueOf(t[2]),
        t[3].equals("-") ? Placement.NONE : Placement.valueOf(t[3]), WindowEffect.valueOf(t[4]),
        HostBlocking.valueOf(t[5]), argument(t[6]), sizeFactor, elementSize, unseen, operands.toArray(new Operand[0]));
  }

  /** The line's space-separated tokens; no regular expression, whose classes a program need not load. */
  private static String[] tokens(String line) {
    List<String> tokens = new ArrayList<>();
    int i = 0;
    while (i < line.length()) {
      while (i < line.length() && line.charAt(i) == ' ') {
        i++;
      }
      int start = i;
      while (i < line.length() && line.charAt(i) != ' ') {
        i++;
      }
      if (i > start) {
        tokens.add(line.substring(start, i));
      }
    }
    return tokens.toArray(new String[0]);
  }

  private static int argument(String token) {
    return token.equals("-") ? CudaCall.NONE : Integer.parseInt(token);
  }
}
