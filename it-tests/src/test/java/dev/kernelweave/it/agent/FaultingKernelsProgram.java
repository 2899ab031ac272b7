package dev.kernelweave.it.agent;

import static jcuda.driver.JCudaDriver.cuCtxSynchronize;
import static jcuda.driver.JCudaDriver.cuLaunchKernel;
import static jcuda.driver.JCudaDriver.cuMemAlloc;
import static jcuda.driver.JCudaDriver.cuMemFree;
import static jcuda.driver.JCudaDriver.cuMemcpyDtoH;
import static jcuda.driver.JCudaDriver.cuModuleGetFunction;
import static jcuda.driver.JCudaDriver.cuModuleLoadData;
import static jcuda.driver.JCudaDriver.cuStreamCreate;
import static jcuda.driver.JCudaDriver.cuStreamSynchronize;

import java.io.IOException;
import java.io.InputStream;
import java.util.Arrays;
import jcuda.CudaException;
import jcuda.Pointer;
import jcuda.Sizeof;
import jcuda.driver.CUdeviceptr;
import jcuda.driver.CUfunction;
import jcuda.driver.CUmodule;
import jcuda.driver.CUresult;
import jcuda.driver.CUstream;
import jcuda.driver.CUstream_flags;

/**
 * Kernels with bad addresses (own-kernels/fault_kernels.cu), as a program handles them on a GPU:
 * {@code past-end} stores far past its buffer's end, {@code freed} reads memory freed before it ran,
 * {@code legit} runs a kernel whose accesses are all fine (one-past-the-end pointers compared, a
 * module variable, shared memory). It prints what the synchronizing call and each later call
 * returned ({@code NAME: RESULT}), then {@code survived}.
 */
public final class FaultingKernelsProgram {

  static final int N = 256;

  private FaultingKernelsProgram() {}

  public static void main(String[] args) throws Exception {
    SmokePrograms.contextOrExit();
    CUmodule module = new CUmodule();
    cuModuleLoadData(module, ptx());
    switch (args[0]) {
      case "past-end" -> pastEnd(module);
      case "freed" -> freed(module);
      case "legit" -> legit(module);
      default -> throw new IllegalArgumentException(args[0]);
    }
    System.out.println("survived");
  }

  static void pastEnd(CUmodule module) {
    CUfunction kernel = function(module, "write_past_end");
    CUdeviceptr out = alloc(N);
    CUstream stream = new CUstream();
    cuStreamCreate(stream, CUstream_flags.CU_STREAM_NON_BLOCKING);
    // Launches are asynchronous: the fault shows at the synchronization.
    report("launch", () -> cuLaunchKernel(kernel, 1, 1, 1, N, 1, 1, 0, stream,
        Pointer.to(Pointer.to(out), Pointer.to(new int[] {N}), Pointer.to(new long[] {1L << 24})), null));
    report("stream synchronize", () -> cuStreamSynchronize(stream));
    afterwards(kernel, out);
  }

  static void freed(CUmodule module) {
    CUfunction kernel = function(module, "read_into");
    CUdeviceptr from = alloc(N);
    CUdeviceptr to = alloc(N);
    cuMemFree(from);
    report("launch", () -> cuLaunchKernel(kernel, 1, 1, 1, N, 1, 1, 0, null,
        Pointer.to(Pointer.to(from), Pointer.to(to), Pointer.to(new int[] {N})), null));
    report("context synchronize", () -> cuCtxSynchronize());
    afterwards(kernel, to);
  }

  // The error is sticky: every later call that reports errors returns it.
  static void afterwards(CUfunction kernel, CUdeviceptr buffer) {
    report("copy to host", () -> cuMemcpyDtoH(Pointer.to(new float[N]), buffer, (long) N * Sizeof.FLOAT));
    report("allocation", () -> cuMemAlloc(new CUdeviceptr(), 16));
    report("later launch", () -> cuLaunchKernel(kernel, 1, 1, 1, 1, 1, 1, 0, null,
        Pointer.to(Pointer.to(buffer), Pointer.to(buffer), Pointer.to(new int[] {0})), null));
    report("later synchronize", () -> cuCtxSynchronize());
  }

  static void legit(CUmodule module) {
    CUfunction kernel = function(module, "fill_to_end");
    int n = 100;
    CUdeviceptr out = alloc(n);
    report("launch", () -> cuLaunchKernel(kernel, 1, 1, 1, 64, 1, 1, 0, null,
        Pointer.to(Pointer.to(out), Pointer.to(new int[] {n})), null));
    report("context synchronize", () -> cuCtxSynchronize());
    float[] values = new float[n];
    cuMemcpyDtoH(Pointer.to(values), out, (long) n * Sizeof.FLOAT);
    float[] expected = new float[n];
    for (int i = 0; i < n; i++) expected[i] = 0.5f + (i % 64) % 4;
    System.out.println(Arrays.equals(values, expected) ? "result legit ok" : "result legit WRONG: " + Arrays.toString(values));
  }

  interface Call {
    int run();
  }

  // Prints `what: CUDA_SUCCESS` or the error's name, whether JCuda returned it or threw it.
  static void report(String what, Call call) {
    String result;
    try {
      result = CUresult.stringFor(call.run());
    } catch (CudaException e) {
      result = e.getMessage();
    }
    System.out.println(what + ": " + result);
  }

  static CUfunction function(CUmodule module, String name) {
    CUfunction f = new CUfunction();
    cuModuleGetFunction(f, module, name);
    return f;
  }

  static CUdeviceptr alloc(int floats) {
    CUdeviceptr p = new CUdeviceptr();
    cuMemAlloc(p, (long) floats * Sizeof.FLOAT);
    return p;
  }

  static byte[] ptx() throws IOException {
    try (InputStream in = FaultingKernelsProgram.class.getResourceAsStream("/own-kernels/fault_kernels.ptx")) {
      byte[] text = in.readAllBytes();
      return Arrays.copyOf(text, text.length + 1);  // NUL-terminated
    }
  }
}
