package dev.kernelweave.interceptor;

import dev.kernelweave.interceptor.jcuda.JCudaPointers;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import jcuda.NativePointerObject;
import jcuda.Pointer;

/**
 * Modules and the kernels in them: which name a function handle has, and, for modules loaded from
 * PTX, how each kernel uses its parameters. Thread-safe.
 */
public final class Modules {

  private static final LongMap<Map<String, KernelInfo>> BY_MODULE = new LongMap<>();

  private Modules() {}

  /** After a module loaded from a file: analyzes it when it is PTX text. */
  public static void loadedFile(NativePointerObject module, String fileName) {
    if (fileName == null || !Interception.active()) {
      return;
    }
    try {
      Path path = Path.of(fileName);
      if (Files.size(path) < (64 << 20)) {
        loaded(module, Files.readAllBytes(path));
      }
    } catch (Throwable e) {
      AgentLog.debug("could not read module " + fileName + ": " + e);
    }
  }

  /** After a module loaded from memory: analyzes it when it is PTX text. */
  public static void loadedImage(NativePointerObject module, Object image) {
    if (!Interception.active()) {
      return;
    }
    try {
      byte[] bytes = null;
      if (image instanceof byte[] b) {
        bytes = b;
      } else if (image instanceof String s) {
        bytes = s.getBytes(StandardCharsets.ISO_8859_1);
      } else if (image instanceof Pointer p && JCudaPointers.buffer(p) instanceof ByteBuffer bb) {
        bytes = new byte[bb.remaining()];
        bb.duplicate().get(bytes);
      }
      if (bytes != null) {
        loaded(module, bytes);
      }
    } catch (Throwable e) {
      AgentLog.debug("could not analyze a module: " + e);
    }
  }

  private static void loaded(NativePointerObject module, byte[] image) {
    InterceptorSettings s = Interception.settings();
    if (s == null || !s.ptx()) {
      return;
    }
    Map<String, KernelInfo> kernels = PtxKernels.analyze(image);
    if (!kernels.isEmpty()) {
      BY_MODULE.put(JCudaPointers.nativePointer(module), kernels);
    }
  }

  /** After {@code cuModuleGetFunction}: remembers the function's name and read/write set. */
  public static void functionFound(NativePointerObject function, NativePointerObject module, String name) {
    if (function == null || name == null) {
      return;
    }
    Map<String, KernelInfo> kernels = BY_MODULE.get(JCudaPointers.nativePointer(module));
    KernelInfo info = kernels == null ? null : kernels.get(name);
    Interception.KERNELS.put(JCudaPointers.nativePointer(function), info != null ? info : KernelInfo.unknown(name));
  }

  /** The kernel behind a function handle; unknown (every pointer read-write) when never seen. */
  public static KernelInfo kernel(NativePointerObject function) {
    KernelInfo info = Interception.KERNELS.get(JCudaPointers.nativePointer(function));
    return info != null ? info : UNKNOWN;
  }

  private static final KernelInfo UNKNOWN = KernelInfo.unknown("");
}
