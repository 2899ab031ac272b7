package dev.kernelweave.interceptor;

import java.util.Map;

/** Kernels' read/write sets from a module's PTX text. */
final class PtxKernels {

  private PtxKernels() {}

  /** Whether a module image is PTX text rather than a cubin or fatbin. */
  static boolean isPtx(byte[] image) {
    int n = Math.min(image.length, 4096);
    String head = new String(image, 0, n, java.nio.charset.StandardCharsets.ISO_8859_1);
    return head.contains(".version") && head.contains(".target");
  }

  /** Each entry's parameter uses, by kernel name. */
  static Map<String, KernelInfo> analyze(byte[] ptx) {
    return Map.of();
  }
}
