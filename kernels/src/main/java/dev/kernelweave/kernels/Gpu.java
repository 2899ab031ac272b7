package dev.kernelweave.kernels;

import jcuda.driver.JCudaDriver;

/**
 * Whether this machine can run the workloads: JCuda's natives load, the CUDA driver initialises and
 * reports at least one device. Asked once per process; the answer is kept.
 */
public final class Gpu {

  private static String problem;
  private static boolean probed;

  private Gpu() {}

  /** True when a CUDA device can be used. Never throws. */
  public static boolean available() {
    return problem() == null;
  }

  /** Why no CUDA device can be used, in one line, or null when one can. Never throws. */
  public static synchronized String problem() {
    if (!probed) {
      problem = probe();
      probed = true;
    }
    return problem;
  }

  private static String probe() {
    try {
      JCudaDriver.setExceptionsEnabled(true);
      JCudaDriver.cuInit(0);
      int[] count = {0};
      JCudaDriver.cuDeviceGetCount(count);
      return count[0] > 0 ? null : "the CUDA driver reports no device";
    } catch (Throwable t) {
      // UnsatisfiedLinkError without libcuda.so.1, CudaException without a device, and whatever
      // else a broken installation throws: all mean the same here.
      return "CUDA is not usable here (" + summary(t) + ")";
    }
  }

  /**
   * The first line of the message; when JCuda could not load its natives, also the line that says
   * why (typically that libcuda.so.1 is missing).
   */
  static String summary(Throwable t) {
    String message = t.getMessage();
    if (message == null || message.isBlank()) {
      return t.getClass().getName();
    }
    String[] lines = message.strip().split("\\R");
    String summary = lines[0].strip();
    for (String line : lines) {
      int at = line.indexOf("cannot open shared object file");
      if (at >= 0) {
        String marker = "UnsatisfiedLinkError: ";
        int start = line.indexOf(marker);
        return summary
            + ": "
            + (start < 0 ? line : line.substring(start + marker.length())).strip();
      }
    }
    return summary;
  }
}
