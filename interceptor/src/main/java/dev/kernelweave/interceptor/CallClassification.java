package dev.kernelweave.interceptor;

import dev.kernelweave.scheduler.Placement;
import dev.kernelweave.call.CallKind;
import java.util.concurrent.ConcurrentHashMap;

/**
 * What a call the agent has no dedicated advice for means, decided from its name once and cached:
 * host-only calls (queries, handles, settings) are journaled and pass; everything else is a
 * barrier. When unsure, a barrier: it costs time, never a result.
 *
 * @param kind how the journal files the call
 * @param placement {@link Placement#NONE} or {@link Placement#BARRIER}
 * @param launches what the call means for the launches a context holds ({@code LaunchWindows})
 */
public record CallClassification(CallKind kind, Placement placement, HeldLaunches launches) {

  /** What a call means for the launches a context holds for a graph. */
  public enum HeldLaunches {
    /** Nothing beyond what its placement does: a placed call issues them first anyway. */
    UNAFFECTED,
    /** Issued first: the call changes how later launches run (a function's or the context's settings). */
    ISSUED_FIRST,
    /**
     * Issued first, then every launch the context knows forgotten: a module unload, after which its
     * function handles may name other kernels; a change of a function's or the context's attributes,
     * after which a configuration that launched before may fail (a launch is held only once its
     * configuration succeeded, and graphs keep the attributes they were captured with).
     */
    FORGOTTEN,
    /** What every context holds is issued and completed first: a peer copy reaches into another context. */
    EVERY_CONTEXT
  }

  CallClassification(CallKind kind, Placement placement) {
    this(kind, placement, HeldLaunches.UNAFFECTED);
  }

  private static final ConcurrentHashMap<String, CallClassification> CACHE = new ConcurrentHashMap<>();

  private static final CallClassification HOST = new CallClassification(CallKind.HOST, Placement.NONE);
  private static final CallClassification CONTEXT = new CallClassification(CallKind.CONTEXT, Placement.NONE);
  private static final CallClassification STREAM = new CallClassification(CallKind.STREAM, Placement.NONE);
  private static final CallClassification EVENT = new CallClassification(CallKind.EVENT, Placement.NONE);
  private static final CallClassification SYNC = new CallClassification(CallKind.SYNC, Placement.NONE);
  private static final CallClassification MODULE = new CallClassification(CallKind.MODULE, Placement.NONE);
  private static final CallClassification OPAQUE = new CallClassification(CallKind.OPAQUE, Placement.BARRIER);
  private static final CallClassification HOST_SETTING =
      new CallClassification(CallKind.HOST, Placement.NONE, HeldLaunches.ISSUED_FIRST);
  private static final CallClassification ATTRIBUTE_SETTING =
      new CallClassification(CallKind.HOST, Placement.NONE, HeldLaunches.FORGOTTEN);
  private static final CallClassification PEER =
      new CallClassification(CallKind.OPAQUE, Placement.BARRIER, HeldLaunches.EVERY_CONTEXT);
  private static final CallClassification UNLOAD =
      new CallClassification(CallKind.OPAQUE, Placement.BARRIER, HeldLaunches.FORGOTTEN);

  /** The classification of a method of one of JCuda's library classes, by its name. */
  public static CallClassification of(String method) {
    CallClassification c = CACHE.get(method);
    if (c == null) {
      c = classify(method);
      CACHE.put(method, c);
    }
    return c;
  }

  static CallClassification classify(String m) {
    if (m.startsWith("cuFuncSet") || m.startsWith("cudaFuncSet") || m.startsWith("cuKernelSet")
        || m.startsWith("cuCtxSet") && !m.equals("cuCtxSetCurrent") || m.startsWith("cudaDeviceSetCacheConfig")
        || m.startsWith("cudaDeviceSetSharedMemConfig") || m.startsWith("cudaDeviceSetLimit")) {
      return ATTRIBUTE_SETTING;
    }
    if (m.startsWith("cuMemcpyPeer") || m.startsWith("cuMemcpy3DPeer") || m.startsWith("cudaMemcpyPeer")
        || m.startsWith("cudaMemcpy3DPeer")) {
      return PEER;
    }
    if (m.startsWith("nvrtc") || m.startsWith("nvPTXCompiler")) {
      return m.contains("Set") ? HOST_SETTING : HOST;
    }
    if (m.equals("cuInit") || m.startsWith("cuDriverGet") || m.startsWith("cuDeviceGet")
        || m.startsWith("cuDeviceTotalMem") || m.startsWith("cuDeviceComputeCapability")
        || m.startsWith("cuDeviceCanAccessPeer") || m.startsWith("cuFuncGet") || m.startsWith("cuFuncSet")
        || m.startsWith("cuKernelGet") || m.startsWith("cuMemGetInfo") || m.startsWith("cuPointerGetAttribute")
        || m.startsWith("cuMemGetAddressRange") || m.startsWith("cuOccupancy") || m.startsWith("cuGetError")
        || m.startsWith("cuGetExportTable") || m.startsWith("cuLink") || m.startsWith("cuFuncGetAttribute")
        || m.startsWith("cudaGet") || m.equals("cudaPeekAtLastError") || m.startsWith("cudaRuntimeGetVersion")
        || m.startsWith("cudaDriverGetVersion") || m.startsWith("cudaDeviceGet") || m.startsWith("cudaChooseDevice")
        || m.startsWith("cudaPointerGetAttributes") || m.startsWith("cudaMemGetInfo") || m.startsWith("cudaFuncGet")
        || m.startsWith("cudaFuncSet") || m.startsWith("cudaOccupancy") || m.startsWith("cudaDeviceCanAccessPeer")
        || m.startsWith("cudaDeviceSetCacheConfig") || m.startsWith("cudaDeviceSetSharedMemConfig")
        || m.startsWith("cudaDeviceSetLimit") || m.startsWith("cuCtxSetLimit") || m.startsWith("cuCtxSetCacheConfig")) {
      return m.contains("Set") ? HOST_SETTING : HOST;
    }
    if (m.startsWith("cuCtx") && !m.equals("cuCtxSynchronize") && !m.equals("cuCtxDestroy")
        || m.startsWith("cuDevicePrimaryCtx") || m.equals("cudaSetDevice") || m.equals("cudaSetDeviceFlags")
        || m.equals("cudaSetValidDevices") || m.equals("cudaFree0")) {
      return CONTEXT;
    }
    if (m.startsWith("cuStreamCreate") || m.equals("cuStreamDestroy") || m.startsWith("cuStreamGet")
        || m.startsWith("cudaStreamCreate") || m.equals("cudaStreamDestroy") || m.startsWith("cudaStreamGet")) {
      return STREAM;
    }
    if (m.startsWith("cuEventCreate") || m.equals("cuEventDestroy") || m.equals("cuEventElapsedTime")
        || m.equals("cuEventQuery") || m.equals("cuStreamWaitEvent") || m.startsWith("cudaEventCreate")
        || m.equals("cudaEventDestroy") || m.equals("cudaEventElapsedTime") || m.equals("cudaEventQuery")
        || m.equals("cudaStreamWaitEvent")) {
      return EVENT;
    }
    if (m.equals("cuEventSynchronize") || m.equals("cudaEventSynchronize")) {
      return SYNC;
    }
    if (m.startsWith("cuModuleGet") || m.startsWith("cuModuleLoad") || m.startsWith("cuLibraryGet")) {
      return MODULE;
    }
    return m.endsWith("Unload") ? UNLOAD : OPAQUE;
  }
}
