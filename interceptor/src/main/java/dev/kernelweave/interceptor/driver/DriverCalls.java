package dev.kernelweave.interceptor.driver;

import dev.kernelweave.call.CallKind;
import dev.kernelweave.call.CallRecord;
import dev.kernelweave.interceptor.Calls;
import dev.kernelweave.interceptor.Interception;
import dev.kernelweave.interceptor.jcuda.JCudaPointers;
import dev.kernelweave.interceptor.jcuda.JCudaNatives;
import jcuda.driver.CUcontext;
import jcuda.driver.CUdevice;

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

  /**
   * Starts a call that may end a context from any thread, one with another context current or none
   * (a shutdown hook): what every context holds is issued and done first.
   */
  public static CallRecord beginContextEnd(String name) {
    CallRecord r = Calls.begin(CallKind.CONTEXT, name, 0L);
    Calls.issueHeldEverywhere(r);
    return r;
  }

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
