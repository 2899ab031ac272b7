package dev.kernelweave.it.agent;

import static jcuda.driver.JCudaDriver.cuCtxSynchronize;
import static jcuda.driver.JCudaDriver.cuLaunchKernel;
import static jcuda.driver.JCudaDriver.cuMemAlloc;
import static jcuda.driver.JCudaDriver.cuMemFree;
import static jcuda.driver.JCudaDriver.cuMemcpyDtoD;
import static jcuda.driver.JCudaDriver.cuMemcpyDtoH;
import static jcuda.driver.JCudaDriver.cuMemcpyHtoD;
import static jcuda.driver.JCudaDriver.cuMemsetD32;

import jcuda.Pointer;
import jcuda.Sizeof;
import jcuda.driver.CUdeviceptr;
import jcuda.driver.CUfunction;
import jcuda.driver.CUmodule;

/**
 * A plain JCuda program, written as users write them (default stream, synchronous copies): K
 * independent chains of small kernels over private buffers, all reading one shared input, joined
 * at the end; with a memset, a device-to-device copy, a free and a new allocation in the middle.
 *
 * <p>Usage: {@code ChainsProgram [chains] [kernelsPerChain] [n] [spinIterations] [repetitions]}.
 * Prints one {@code result} line per chain, a {@code checksum} line and a {@code time-ms} line.
 */
public final class ChainsProgram {

  public static void main(String[] args) throws Exception {
    int chains = args.length > 0 ? Integer.parseInt(args[0]) : 8;
    int kernels = args.length > 1 ? Integer.parseInt(args[1]) : 16;
    int n = args.length > 2 ? Integer.parseInt(args[2]) : 4096;
    int spin = args.length > 3 ? Integer.parseInt(args[3]) : 200;
    int repetitions = args.length > 4 ? Integer.parseInt(args[4]) : 1;
    SmokePrograms.contextOrExit();
    CUmodule module = SmokePrograms.loadSmokeModule();
    CUfunction axpb = SmokePrograms.function(module, "axpb");
    CUfunction spinScale = SmokePrograms.function(module, "spin_scale");
    CUfunction sumInto = SmokePrograms.function(module, "sum_into");
    long bytes = (long) n * Sizeof.FLOAT;
    int blocks = (n + 255) / 256;

    float[] input = new float[n];
    for (int i = 0; i < n; i++) {
      input[i] = (i % 97) * 0.01f;
    }
    CUdeviceptr shared = new CUdeviceptr();
    cuMemAlloc(shared, bytes);
    cuMemcpyHtoD(shared, Pointer.to(input), bytes);
    CUdeviceptr[] buffers = new CUdeviceptr[chains];
    for (int c = 0; c < chains; c++) {
      buffers[c] = new CUdeviceptr();
      cuMemAlloc(buffers[c], bytes);
    }
    CUdeviceptr joined = new CUdeviceptr();
    cuMemAlloc(joined, bytes);
    float[][] results = new float[chains][n];
    float[] total = new float[n];
    long best = Long.MAX_VALUE;
    for (int rep = 0; rep < repetitions; rep++) {
      long start = System.nanoTime();
      for (int c = 0; c < chains; c++) {
        cuMemsetD32(buffers[c], Float.floatToIntBits(c * 0.25f), n);
      }
      for (int k = 0; k < kernels; k++) {
        for (int c = 0; c < chains; c++) {
          Pointer params = Pointer.to(Pointer.to(buffers[c]), Pointer.to(shared),
              Pointer.to(new float[] {1.0f + 0.01f * c}), Pointer.to(new float[] {0.001f * k}), Pointer.to(new int[] {n}));
          cuLaunchKernel(axpb, blocks, 1, 1, 256, 1, 1, 0, null, params, null);
          if (spin > 0) {
            cuLaunchKernel(spinScale, blocks, 1, 1, 256, 1, 1, 0, null,
                Pointer.to(Pointer.to(buffers[c]), Pointer.to(new int[] {n}), Pointer.to(new int[] {spin})), null);
          }
        }
      }
      // Join: joined = b0 + b1, then joined += each further chain, through a scratch copy.
      cuMemcpyDtoD(joined, buffers[0], bytes);
      CUdeviceptr scratch = new CUdeviceptr();
      cuMemAlloc(scratch, bytes);
      for (int c = 1; c < chains; c++) {
        cuMemcpyDtoD(scratch, joined, bytes);
        cuLaunchKernel(sumInto, blocks, 1, 1, 256, 1, 1, 0, null,
            Pointer.to(Pointer.to(joined), Pointer.to(scratch), Pointer.to(buffers[c]), Pointer.to(new int[] {n})), null);
      }
      cuMemFree(scratch);
      for (int c = 0; c < chains; c++) {
        cuMemcpyDtoH(Pointer.to(results[c]), buffers[c], bytes);
      }
      cuMemcpyDtoH(Pointer.to(total), joined, bytes);
      best = Math.min(best, System.nanoTime() - start);
    }
    cuCtxSynchronize();
    for (int c = 0; c < chains; c++) {
      System.out.println("result " + c + " " + results[c][0] + " " + results[c][n / 2] + " " + results[c][n - 1]);
    }
    System.out.println("checksum " + SmokePrograms.checksum(total) + " " + SmokePrograms.checksum(results));
    System.out.println("time-ms " + best / 1e6);
  }
}
