package dev.kernelweave.interceptor.jcuda;

import dev.kernelweave.call.CallRecord;
import dev.kernelweave.ptx.MergedKernel;
import dev.kernelweave.scheduler.GraphDevice;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;
import jcuda.driver.CUfunction;
import jcuda.driver.CUmodule;

/**
 * One context's modules of merged kernels ({@code ptx/KernelMerging}): for each PTX module the
 * program loaded, one module of the agent's own, loaded at the first merge of one of its kernels,
 * holding the program's text with every mergeable kernel's merged entry appended. A module of
 * its own, not the program's: its variables are copies, so the caller merges no kernel that uses
 * one ({@code LaunchMerging}).
 *
 * <p>Not thread-safe: used under the context's scheduling lock, with the context current.
 */
final class MergedModules {

  /** A loaded module of merged entries (null when it failed to load), and its functions by kernel name. */
  private record Loaded(CUmodule module, Map<String, MergedKernel> variants,
      Map<String, GraphDevice.MergedFunction> functions) {}

  private final JCudaGraphDevice.MergeSource source;
  /** By the program's module text: the same text loaded twice shares one module of merged entries. */
  private final Map<String, Loaded> loaded = new HashMap<>();

  MergedModules(JCudaGraphDevice.MergeSource source) {
    this.source = source;
  }

  /** The merged variant of the kernel {@code launch} launches; null where there is none or it cannot load. */
  GraphDevice.MergedFunction function(CallRecord launch) {
    String ptx = source.ptx(launch.function);
    if (ptx == null) {
      return null;
    }
    Loaded m = loaded.computeIfAbsent(ptx, this::load);
    MergedKernel variant = m.variants().get(launch.kernel);
    if (m.module() == null || variant == null || !variant.mergeable()) {
      return null;
    }
    GraphDevice.MergedFunction f = m.functions().get(launch.kernel);
    if (f == null) {
      CUfunction handle = new CUfunction();
      if (JCudaNatives.moduleFunction(handle, m.module(), variant.mergedName()) != 0) {
        return null;
      }
      f = new GraphDevice.MergedFunction(JCudaPointers.nativePointer(handle), variant.table());
      m.functions().put(launch.kernel, f);
    }
    return f;
  }

  private Loaded load(String ptx) {
    Map<String, MergedKernel> variants = source.variants(ptx);
    StringBuilder text = new StringBuilder(ptx.length() + 4096).append(ptx);
    boolean any = false;
    for (MergedKernel k : variants.values()) {
      if (k.mergeable()) {
        text.append("\n\n").append(k.entryText());
        any = true;
      }
    }
    CUmodule module = null;
    if (any) {
      byte[] image = (text.append('\0')).toString().getBytes(StandardCharsets.ISO_8859_1);
      CUmodule m = new CUmodule();
      if (JCudaNatives.loadModule(m, image) == 0) {
        module = m;
      }
    }
    return new Loaded(module, variants, new HashMap<>());
  }

  /** Unloads the modules; for an owner done with the context's graphs. */
  void close() {
    for (Loaded m : loaded.values()) {
      if (m.module() != null) {
        JCudaNatives.unloadModule(m.module());
      }
    }
    loaded.clear();
  }
}
