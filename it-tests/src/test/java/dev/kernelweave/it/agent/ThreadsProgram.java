package dev.kernelweave.it.agent;

import static jcuda.driver.JCudaDriver.cuCtxGetCurrent;
import static jcuda.driver.JCudaDriver.cuCtxSetCurrent;
import static jcuda.driver.JCudaDriver.cuLaunchKernel;
import static jcuda.driver.JCudaDriver.cuMemAlloc;
import static jcuda.driver.JCudaDriver.cuMemFree;
import static jcuda.driver.JCudaDriver.cuMemcpyDtoH;
import static jcuda.driver.JCudaDriver.cuMemcpyHtoD;

import java.util.ArrayList;
import java.util.List;
import jcuda.Pointer;
import jcuda.driver.CUcontext;
import jcuda.driver.CUdeviceptr;
import jcuda.driver.CUfunction;

/**
 * Several application threads launching at once in one context, each on its own buffers, with
 * reads, allocations and frees in the middle. Prints each thread's results in thread order.
 *
 * <p>Usage: {@code ThreadsProgram [threads] [kernels]}.
 */
public final class ThreadsProgram {

  public static void main(String[] args) throws Exception {
    int threads = args.length > 0 ? Integer.parseInt(args[0]) : 4;
    int kernels = args.length > 1 ? Integer.parseInt(args[1]) : 64;
    SmokePrograms.contextOrExit();
    CUcontext context = new CUcontext();
    cuCtxGetCurrent(context);
    CUfunction axpb = SmokePrograms.function(SmokePrograms.loadSmokeModule(), "axpb");
    int n = 2048;
    String[] results = new String[threads];
    List<Thread> workers = new ArrayList<>();
    for (int t = 0; t < threads; t++) {
      int id = t;
      Thread worker = new Thread(() -> {
        cuCtxSetCurrent(context);
        float[] x = new float[n];
        for (int i = 0; i < n; i++) {
          x[i] = (i % 13) * 0.5f + id;
        }
        CUdeviceptr in = new CUdeviceptr();
        CUdeviceptr out = new CUdeviceptr();
        cuMemAlloc(in, 4L * n);
        cuMemAlloc(out, 4L * n);
        cuMemcpyHtoD(in, Pointer.to(x), 4L * n);
        cuMemcpyHtoD(out, Pointer.to(new float[n]), 4L * n);
        float[] mid = new float[n];
        for (int k = 0; k < kernels; k++) {
          cuLaunchKernel(axpb, (n + 255) / 256, 1, 1, 256, 1, 1, 0, null, Pointer.to(Pointer.to(out), Pointer.to(in),
              Pointer.to(new float[] {1.0f + id}), Pointer.to(new float[] {0.01f * k}), Pointer.to(new int[] {n})), null);
          if (k == kernels / 2) {
            cuMemcpyDtoH(Pointer.to(mid), out, 4L * n);
            // A new allocation, used and freed while the other threads keep launching.
            CUdeviceptr scratch = new CUdeviceptr();
            cuMemAlloc(scratch, 4L * n);
            cuMemcpyHtoD(scratch, Pointer.to(mid), 4L * n);
            cuLaunchKernel(axpb, (n + 255) / 256, 1, 1, 256, 1, 1, 0, null, Pointer.to(Pointer.to(out),
                Pointer.to(scratch), Pointer.to(new float[] {0.5f}), Pointer.to(new float[] {0f}), Pointer.to(new int[] {n})), null);
            cuMemFree(scratch);
          }
        }
        float[] back = new float[n];
        cuMemcpyDtoH(Pointer.to(back), out, 4L * n);
        results[id] = mid[7] + " " + back[0] + " " + back[n - 1] + " " + SmokePrograms.checksum(back);
        cuMemFree(in);
        cuMemFree(out);
      }, "worker-" + t);
      workers.add(worker);
      worker.start();
    }
    for (Thread w : workers) {
      w.join();
    }
    for (int t = 0; t < threads; t++) {
      System.out.println("result thread " + t + " " + results[t]);
    }
  }
}
