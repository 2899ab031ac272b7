package dev.kernelweave.it.agent;

import static jcuda.driver.JCudaDriver.cuCtxSynchronize;
import static jcuda.driver.JCudaDriver.cuLaunchKernel;
import static jcuda.driver.JCudaDriver.cuMemAlloc;

import jcuda.Pointer;
import jcuda.driver.CUdeviceptr;
import jcuda.driver.CUfunction;

/**
 * Host time per {@code cuLaunchKernel} of a tiny kernel, measured on the calling thread: the
 * figure the agent's per-launch cost adds to. Prints {@code launch-ns <median of rounds>}.
 *
 * <p>Usage: {@code LaunchOverheadProgram [launchesPerRound] [rounds] [fresh]}; with {@code fresh},
 * the parameters are built anew for every launch, as most programs do.
 */
public final class LaunchOverheadProgram {

  public static void main(String[] args) throws Exception {
    int launches = args.length > 0 ? Integer.parseInt(args[0]) : 20000;
    int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 15;
    boolean fresh = args.length > 2 && args[2].equals("fresh");
    SmokePrograms.contextOrExit();
    CUfunction spin = SmokePrograms.function(SmokePrograms.loadSmokeModule(), "spin_scale");
    CUdeviceptr y = new CUdeviceptr();
    cuMemAlloc(y, 4 * 256);
    // The parameter objects are built once, as a careful program would, so that only the call is timed.
    Pointer params = Pointer.to(Pointer.to(y), Pointer.to(new int[] {256}), Pointer.to(new int[] {1}));
    long[] perLaunch = new long[rounds];
    for (int r = 0; r < rounds; r++) {
      cuCtxSynchronize();
      long start = System.nanoTime();
      for (int i = 0; i < launches; i++) {
        Pointer p = fresh
            ? Pointer.to(Pointer.to(y), Pointer.to(new int[] {256}), Pointer.to(new int[] {1}))
            : params;
        cuLaunchKernel(spin, 1, 1, 1, 256, 1, 1, 0, null, p, null);
      }
      perLaunch[r] = (System.nanoTime() - start) / launches;
      cuCtxSynchronize();
    }
    java.util.Arrays.sort(perLaunch);
    System.out.println("launch-ns " + perLaunch[rounds / 2] + " min " + perLaunch[0] + " max " + perLaunch[rounds - 1]);
  }
}
