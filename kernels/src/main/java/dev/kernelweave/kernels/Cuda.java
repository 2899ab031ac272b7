package dev.kernelweave.kernels;

import static jcuda.driver.JCudaDriver.cuCtxSetCurrent;
import static jcuda.driver.JCudaDriver.cuCtxSynchronize;
import static jcuda.driver.JCudaDriver.cuDeviceGet;
import static jcuda.driver.JCudaDriver.cuDevicePrimaryCtxRetain;
import static jcuda.driver.JCudaDriver.cuInit;
import static jcuda.driver.JCudaDriver.cuMemcpyDtoH;
import static jcuda.driver.JCudaDriver.cuMemcpyHtoD;

import jcuda.Pointer;
import jcuda.driver.CUcontext;
import jcuda.driver.CUdevice;
import jcuda.driver.CUdeviceptr;
import jcuda.driver.JCudaDriver;
import jcuda.jcublas.JCublas2;

/**
 * The few JCuda calls every workload makes the same way. Every JCuda call throws {@link
 * jcuda.CudaException} on an error result: exceptions are enabled before the first one.
 */
public final class Cuda {

  private static CUcontext context;

  private Cuda() {}

  /**
   * Makes device 0's primary context current on this thread, retaining it on first use. The primary
   * context is the one the CUDA runtime, and so cuBLAS, uses: driver-API allocations and cuBLAS
   * calls then share one context. It is retained for the life of the process.
   */
  public static synchronized void makeContextCurrent() {
    if (context == null) {
      JCudaDriver.setExceptionsEnabled(true);
      JCublas2.setExceptionsEnabled(true);
      cuInit(0);
      CUdevice device = new CUdevice();
      cuDeviceGet(device, 0);
      CUcontext primary = new CUcontext();
      cuDevicePrimaryCtxRetain(primary, device);
      context = primary;
    }
    cuCtxSetCurrent(context);
  }

  /** Waits for all work of the current context. */
  public static void synchronize() {
    cuCtxSynchronize();
  }

  /** Synchronous copy of all of {@code values} to {@code device}. */
  public static void upload(CUdeviceptr device, float[] values) {
    cuMemcpyHtoD(device, Pointer.to(values), (long) values.length * Float.BYTES);
  }

  /** Synchronous copy from {@code device} filling all of {@code values}. */
  public static void download(float[] values, CUdeviceptr device) {
    cuMemcpyDtoH(Pointer.to(values), device, (long) values.length * Float.BYTES);
  }

  /** Synchronous copy from {@code device} filling all of {@code values}. */
  public static void download(int[] values, CUdeviceptr device) {
    cuMemcpyDtoH(Pointer.to(values), device, (long) values.length * Integer.BYTES);
  }

  /** {@code base} advanced by {@code floats} floats. */
  public static CUdeviceptr offset(CUdeviceptr base, long floats) {
    return base.withByteOffset(floats * Float.BYTES);
  }
}
