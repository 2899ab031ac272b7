package dev.kernelweave.it.agent;

import static jcuda.driver.JCudaDriver.cuLaunchKernel;
import static jcuda.driver.JCudaDriver.cuMemAlloc;
import static jcuda.driver.JCudaDriver.cuMemcpyDtoH;
import static jcuda.driver.JCudaDriver.cuMemcpyHtoD;

import jcuda.CudaException;
import jcuda.Pointer;
import jcuda.driver.CUdeviceptr;
import jcuda.driver.CUfunction;
import jcuda.driver.JCudaDriver;

/**
 * CUDA errors as a program meets them, with exceptions off (return codes) and on (exceptions):
 * a launch with too many threads per block, an allocation far too large, a copy from a freed
 * address. Prints one line per call with what came back; the agent must not change any of them.
 */
public final class ErrorsProgram {

  public static void main(String[] args) throws Exception {
    SmokePrograms.contextOrExit();
    CUfunction spin = SmokePrograms.function(SmokePrograms.loadSmokeModule(), "spin_scale");
    CUdeviceptr y = new CUdeviceptr();
    cuMemAlloc(y, 4 * 256);
    cuMemcpyHtoD(y, Pointer.to(new float[256]), 4 * 256);
    for (boolean exceptions : new boolean[] {false, true}) {
      JCudaDriver.setExceptionsEnabled(exceptions);
      report("launch 4096 threads per block", exceptions, () -> cuLaunchKernel(spin, 1, 1, 1, 4096, 1, 1, 0, null,
          Pointer.to(Pointer.to(y), Pointer.to(new int[] {256}), Pointer.to(new int[] {1})), null));
      report("alloc 1 PiB", exceptions, () -> cuMemAlloc(new CUdeviceptr(), 1L << 50));
      report("launch ok", exceptions, () -> cuLaunchKernel(spin, 1, 1, 1, 256, 1, 1, 0, null,
          Pointer.to(Pointer.to(y), Pointer.to(new int[] {256}), Pointer.to(new int[] {3})), null));
      float[] back = new float[256];
      report("read back", exceptions, () -> cuMemcpyDtoH(Pointer.to(back), y, 4 * 256));
      System.out.println("result " + back[0] + " " + back[255]);
    }
  }

  private interface CudaCall {
    int call();
  }

  private static void report(String what, boolean exceptions, CudaCall call) {
    try {
      int result = call.call();
      System.out.println("result " + what + " exceptions=" + exceptions + " returned " + result);
    } catch (CudaException e) {
      System.out.println("result " + what + " exceptions=" + exceptions + " threw " + e.getMessage());
    }
  }
}
