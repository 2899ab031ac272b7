package dev.kernelweave.it.agent;

import static jcuda.driver.JCudaDriver.cuMemAlloc;
import static jcuda.driver.JCudaDriver.cuMemFree;
import static jcuda.driver.JCudaDriver.cuMemGetAddressRange;

import jcuda.driver.CUdeviceptr;

/**
 * Where consecutive {@code cuMemAlloc}s of one size land: for each size, eight allocations, then
 * one line {@code layout SIZE adjacent K strides S...}: how many of the seven neighbouring pairs have
 * the next buffer start exactly at the previous one's end, and the distances between their bases.
 * The addresses themselves vary; the program prints nothing else a run could compare.
 */
public final class AllocationLayoutProgram {

  public static void main(String[] args) {
    SmokePrograms.contextOrExit();
    if (args.length > 0) {
      gaps(args);
      return;
    }
    for (long size : new long[] {256, 512, 4096, 65536, 512L << 10, (1L << 20) - 512, 1L << 20, 2L << 20}) {
      CUdeviceptr[] buffers = new CUdeviceptr[8];
      long[] bases = new long[buffers.length];
      for (int i = 0; i < buffers.length; i++) {
        buffers[i] = new CUdeviceptr();
        check(cuMemAlloc(buffers[i], size));
        CUdeviceptr base = new CUdeviceptr();
        long[] rangeSize = {0};
        check(cuMemGetAddressRange(base, rangeSize, buffers[i]));
        bases[i] = Long.parseLong(base.toString().replaceAll(".*0x([0-9a-fA-F]+).*", "$1"), 16);
      }
      int adjacent = 0;
      StringBuilder strides = new StringBuilder();
      for (int i = 1; i < bases.length; i++) {
        adjacent += bases[i] == bases[i - 1] + size ? 1 : 0;
        strides.append(' ').append(bases[i] - bases[i - 1]);
      }
      System.out.println("layout " + size + " adjacent " + adjacent + " strides" + strides);
      for (CUdeviceptr b : buffers) {
        check(cuMemFree(b));
      }
    }
  }

  /**
   * Each argument a list of sizes, {@code 4194304,1048576}: allocated in that order, then the gap
   * between each allocation's end and the next one's base is printed (0: adjacent).
   */
  private static void gaps(String[] sequences) {
    for (String sequence : sequences) {
      String[] sizes = sequence.split(",");
      CUdeviceptr[] buffers = new CUdeviceptr[sizes.length];
      StringBuilder gaps = new StringBuilder();
      long previousEnd = 0;
      for (int i = 0; i < sizes.length; i++) {
        long size = Long.parseLong(sizes[i]);
        buffers[i] = new CUdeviceptr();
        check(cuMemAlloc(buffers[i], size));
        long base = Long.parseLong(buffers[i].toString().replaceAll(".*0x([0-9a-fA-F]+).*", "$1"), 16);
        if (i > 0) {
          gaps.append(' ').append(base - previousEnd);
        }
        previousEnd = base + size;
      }
      System.out.println("gaps " + sequence + ":" + gaps);
      for (CUdeviceptr b : buffers) {
        check(cuMemFree(b));
      }
    }
  }

  private static void check(int result) {
    if (result != 0) {
      throw new IllegalStateException("CUDA error " + result);
    }
  }
}
