package dev.kernelweave.interceptor.driver;

import dev.kernelweave.interceptor.Interception;
import dev.kernelweave.interceptor.jcuda.JCudaPointers;
import dev.kernelweave.interceptor.jcuda.JCudaNatives;
import jcuda.driver.CUcontext;
import jcuda.driver.CUdevice;

/** Small pieces of the driver advice that are easier to read, and test, as plain methods. */
public final class DriverCalls {

  private DriverCalls() {}

  public static void contextDestroyed(CUcontext context) {
    Interception.contextDestroyed(JCudaPointers.nativePointer(context));
  }

  public static void primaryRetained(CUdevice device, CUcontext context) {
    Interception.primaryRetained(JCudaPointers.nativePointer(device), JCudaPointers.nativePointer(context));
  }

  /** After a release of the device's primary context: its scheduler goes once the driver destroyed it. */
  public static void primaryReleased(CUdevice device) {
    if (!JCudaNatives.primaryContextActive(device)) {
      primaryEnded(device);
    }
  }

  public static void primaryEnded(CUdevice device) {
    Interception.primaryEnded(JCudaPointers.nativePointer(device));
  }
}
