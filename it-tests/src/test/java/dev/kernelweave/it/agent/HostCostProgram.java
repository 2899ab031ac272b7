package dev.kernelweave.it.agent;

import static jcuda.driver.JCudaDriver.cuCtxSynchronize;
import static jcuda.driver.JCudaDriver.cuEventCreate;
import static jcuda.driver.JCudaDriver.cuEventRecord;
import static jcuda.driver.JCudaDriver.cuLaunchKernel;
import static jcuda.driver.JCudaDriver.cuMemAlloc;
import static jcuda.driver.JCudaDriver.cuStreamCreate;
import static jcuda.driver.JCudaDriver.cuStreamWaitEvent;

import java.util.Arrays;
import jcuda.Pointer;
import jcuda.driver.CUdeviceptr;
import jcuda.driver.CUevent;
import jcuda.driver.CUfunction;
import jcuda.driver.CUstream;

/**
 * Host time per launch as the driver charges it, without the agent: one stream against many, short
 * kernels against long ones, with and without a cross-stream wait per launch. Tells what the
 * agent's streams cost the host before the agent adds anything. Prints {@code cost NAME ns}.
 */
public final class HostCostProgram {

  public static void main(String[] args) throws Exception {
    int batch = args.length > 0 ? Integer.parseInt(args[0]) : 512;
    int longSpin = args.length > 1 ? Integer.parseInt(args[1]) : 20000;
    SmokePrograms.contextOrExit();
    CUfunction spin = SmokePrograms.function(SmokePrograms.loadSmokeModule(), "spin_scale");
    CUstream[] streams = new CUstream[16];
    CUevent[] events = new CUevent[16];
    CUdeviceptr[] buffers = new CUdeviceptr[16];
    for (int i = 0; i < 16; i++) {
      streams[i] = new CUstream();
      cuStreamCreate(streams[i], 1);
      events[i] = new CUevent();
      cuEventCreate(events[i], 2);
      buffers[i] = new CUdeviceptr();
      cuMemAlloc(buffers[i], 4 * 1024);
    }
    for (int spinIterations : new int[] {1, longSpin}) {
      for (int lanes : new int[] {1, 16}) {
        for (boolean wait : new boolean[] {false, true}) {
          if (lanes == 1 && wait) {
            continue;
          }
          long[] perLaunch = new long[9];
          for (int round = 0; round < perLaunch.length; round++) {
            cuCtxSynchronize();
            long start = System.nanoTime();
            for (int i = 0; i < batch; i++) {
              int s = i % lanes;
              if (wait) {
                int from = (s + 1) % lanes;
                cuEventRecord(events[from], streams[from]);
                cuStreamWaitEvent(streams[s], events[from], 0);
              }
              cuLaunchKernel(spin, 2, 1, 1, 256, 1, 1, 0, lanes == 1 ? null : streams[s],
                  Pointer.to(Pointer.to(buffers[s]), Pointer.to(new int[] {512}), Pointer.to(new int[] {spinIterations})), null);
            }
            perLaunch[round] = (System.nanoTime() - start) / batch;
          }
          cuCtxSynchronize();
          Arrays.sort(perLaunch);
          System.out.printf("cost spin=%d streams=%d waits=%s %d ns per launch (min %d)%n", spinIterations, lanes, wait,
              perLaunch[perLaunch.length / 2], perLaunch[0]);
        }
      }
    }
  }
}
