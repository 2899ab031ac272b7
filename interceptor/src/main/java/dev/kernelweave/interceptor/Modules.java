package dev.kernelweave.interceptor;

import dev.kernelweave.call.AccessMode;
import dev.kernelweave.call.CallRecord;
import dev.kernelweave.memory.AllocationTable;
import dev.kernelweave.interceptor.jcuda.JCudaNatives;
import dev.kernelweave.interceptor.jcuda.JCudaPointers;
import dev.kernelweave.memory.MemoryKind;
import dev.kernelweave.ptx.PtxAnalyzer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import jcuda.NativePointerObject;
import jcuda.Pointer;
import jcuda.driver.CUdeviceptr;
import jcuda.driver.CUmodule;

/**
 * Modules and the kernels in them: which name a function handle has, and, for modules loaded from
 * PTX, how each kernel uses its parameters and its module's variables. Thread-safe.
 *
 * <p>The {@code .global} and {@code .const} variables of a module loaded from PTX become tracked
 * allocations ({@link MemoryKind#MODULE_GLOBAL}) as the module loads, found with the agent's own
 * {@code cuModuleGetGlobal}: two kernels that talk through a {@code __device__} variable are
 * ordered even when the application never asks for its address, and a host copy into a
 * {@code __constant__} waits for the kernels that read it.
 *
 * <p>The modules' and functions' kernels are the {@link AgentState}'s ({@link
 * AgentState#kernelsByModule}, {@link AgentState#kernels}).
 */
public final class Modules {

  private Modules() {}

  /** Ends a {@code cuModuleLoad}: analyzes the file where the load succeeded, then {@link Calls#end}. */
  public static void endLoadFile(CallRecord r, CUmodule module, String fileName, int result, Throwable thrown) {
    if (succeeded(result, thrown)) {
      forget(module);
      if (r != null) {
        loadedFile(r, module, fileName);
      }
    }
    Calls.end(r, result, thrown);
  }

  /** Ends a {@code cuModuleLoadData} and its kin: analyzes the image where the load succeeded, then {@link Calls#end}. */
  public static void endLoadImage(CallRecord r, CUmodule module, Object image, int result, Throwable thrown) {
    if (succeeded(result, thrown)) {
      forget(module);
      if (r != null) {
        loadedImage(r, module, image);
      }
    }
    Calls.end(r, result, thrown);
  }

  /** Ends a {@code cuModuleUnload}: forgets the module's kernels where it succeeded, then {@link Calls#end}. */
  public static void endUnload(CallRecord r, CUmodule module, int result, Throwable thrown) {
    if (succeeded(result, thrown)) {
      forget(module);
    }
    Calls.end(r, result, thrown);
  }

  private static boolean succeeded(int result, Throwable thrown) {
    return thrown == null && result == 0;
  }

  /**
   * Forgets what the agent read of a module's kernels. The driver may give an unloaded module's
   * handle, and its functions' handles, to a module loaded later, whose kernels of the same names
   * may read and write other memory; a function handle the agent has not seen found is a barrier.
   */
  static void forget(CUmodule module) {
    if (module == null) {
      return;
    }
    AgentState state = AgentState.current();
    long handle = JCudaPointers.nativePointer(module);
    Map<String, KernelInfo> kernels = state.kernelsByModule.get(handle);
    state.kernelsByModule.remove(handle);
    state.ptxByModule.remove(handle);
    if (kernels == null) {
      return;
    }
    List<Long> functions = new ArrayList<>();
    state.kernels.forEach((function, info) -> {
      for (KernelInfo k : kernels.values()) {
        if (k == info) {
          functions.add(function);
        }
      }
    });
    for (long function : functions) {
      state.kernels.remove(function);
      state.ptxByFunction.remove(function);
    }
  }

  /** After a module loaded from a file: analyzes it when it is PTX text. */
  public static void loadedFile(CallRecord r, CUmodule module, String fileName) {
    if (fileName == null || !AgentState.current().active()) {
      return;
    }
    try {
      Path path = Path.of(fileName);
      if (Files.size(path) < (64 << 20)) {
        loaded(r, module, Files.readAllBytes(path));
      }
    } catch (Throwable e) {
      AgentLog.debug("could not read module " + fileName + ": " + e);
    }
  }

  /** After a module loaded from memory: analyzes it when it is PTX text. */
  public static void loadedImage(CallRecord r, CUmodule module, Object image) {
    if (!AgentState.current().active()) {
      return;
    }
    try {
      byte[] bytes = null;
      if (image instanceof byte[] b) {
        bytes = b;
      } else if (image instanceof String s) {
        bytes = s.getBytes(StandardCharsets.ISO_8859_1);
      } else if (image instanceof Pointer p) {
        bytes = JCudaPointers.bytes(p);
      }
      if (bytes != null) {
        loaded(r, module, bytes);
      }
    } catch (Throwable e) {
      AgentLog.debug("could not analyze a module: " + e);
    }
  }

  private static void loaded(CallRecord r, CUmodule module, byte[] image) {
    AgentState state = AgentState.current();
    InterceptorSettings s = state.settings;
    if (s == null || !s.ptx()) {
      return; // its kernels stay unknown: barriers
    }
    CUdeviceptr scratch = new CUdeviceptr();
    PtxKernels.Loaded loaded = PtxKernels.analyze(image, (name, into) -> {
      long[] size = new long[1];
      if (JCudaNatives.moduleGlobal(scratch, size, module, name) != 0) {
        return false;
      }
      into[0] = JCudaPointers.address(scratch);
      into[1] = size[0];
      return true;
    });
    for (PtxKernels.Variable v : loaded.variables()) {
      CallAccesses.allocated(r, v.address(), v.size(), MemoryKind.MODULE_GLOBAL);
    }
    if (!loaded.kernels().isEmpty()) {
      state.kernelsByModule.put(JCudaPointers.nativePointer(module), loaded.kernels());
      if (s.merge()) {
        PtxAnalyzer.text(image).ifPresent(text -> state.ptxByModule.put(JCudaPointers.nativePointer(module), text));
      }
    }
  }

  /** After {@code cuModuleGetFunction}: remembers the function's name and read/write set. */
  public static void functionFound(NativePointerObject function, NativePointerObject module, String name) {
    if (function == null || name == null) {
      return;
    }
    AgentState state = AgentState.current();
    Map<String, KernelInfo> kernels = state.kernelsByModule.get(JCudaPointers.nativePointer(module));
    KernelInfo info = kernels == null ? null : kernels.get(name);
    state.kernels.put(JCudaPointers.nativePointer(function), info != null ? info : KernelInfo.unknown(name));
    String ptx = info != null ? state.ptxByModule.get(JCudaPointers.nativePointer(module)) : null;
    if (ptx != null) {
      state.ptxByFunction.put(JCudaPointers.nativePointer(function), ptx);
    } else {
      state.ptxByFunction.remove(JCudaPointers.nativePointer(function));
    }
  }

  /**
   * The PTX text of the module a function handle was found in, where launches are merged and the
   * module was PTX; null otherwise.
   */
  static String ptxOf(long function) {
    return AgentState.current().ptxByFunction.get(function);
  }

  /** The kernel behind a function handle; unknown (a barrier) when never seen through {@code cuModuleGetFunction}. */
  public static KernelInfo kernel(NativePointerObject function) {
    KernelInfo info = AgentState.current().kernels.get(JCudaPointers.nativePointer(function));
    return info != null ? info : UNKNOWN;
  }

  /**
   * Adds to a launch's record the module variables its kernel uses, with the kernel's access to
   * each. Allocates nothing.
   */
  public static void addModuleVariableAccesses(CallRecord r, KernelInfo kernel) {
    if (r == null) {
      return;
    }
    long[] addresses = kernel.variableAddresses();
    byte[] modes = kernel.variableModes();
    for (int i = 0; i < addresses.length; i++) {
      CallAccesses.device(r, addresses[i], AllocationTable.WHOLE_ALLOCATION, AccessMode.ofOrdinal(modes[i]));
    }
    r.moduleVariableCount = r.accessCount;
  }

  private static final KernelInfo UNKNOWN = KernelInfo.unknown("");
}
