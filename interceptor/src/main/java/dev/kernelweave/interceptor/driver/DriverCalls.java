package dev.kernelweave.interceptor.driver;

import dev.kernelweave.interceptor.Interception;
import dev.kernelweave.interceptor.jcuda.JCudaPointers;
import jcuda.driver.CUcontext;

/** Small pieces of the driver advice that are easier to read, and test, as plain methods. */
public final class DriverCalls {

  private DriverCalls() {}

  /** Bytes per element of a {@code cuMemsetD8/D16/D32[Async]} call, from its name. */
  public static int memsetElementSize(String name) {
    if (name.contains("D32")) {
      return 4;
    }
    if (name.contains("D16")) {
      return 2;
    }
    return 1;
  }

  public static void contextDestroyed(CUcontext context) {
    Interception.contextDestroyed(JCudaPointers.nativePointer(context));
  }
}
