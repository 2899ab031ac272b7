package dev.kernelweave.it.agent;

import static jcuda.driver.JCudaDriver.cuLaunchKernel;
import static jcuda.driver.JCudaDriver.cuMemAlloc;
import static jcuda.driver.JCudaDriver.cuMemcpyDtoH;
import static jcuda.driver.JCudaDriver.cuMemcpyHtoD;
import static jcuda.driver.JCudaDriver.cuModuleGetFunction;
import static jcuda.driver.JCudaDriver.cuModuleLoadData;
import static jcuda.driver.JCudaDriver.cuStreamCreate;
import static jcuda.driver.JCudaDriver.cuStreamSynchronize;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import jcuda.CudaException;
import jcuda.Pointer;
import jcuda.Sizeof;
import jcuda.driver.CUdeviceptr;
import jcuda.driver.CUfunction;
import jcuda.driver.CUmodule;
import jcuda.driver.CUstream;
import jcuda.driver.CUstream_flags;

/**
 * Device printf (own-kernels/printf_kernels.cu): two launches of {@code print_values} on one
 * non-blocking stream, each printing ints, floats, strings and 64-bit integers from one thread;
 * then, after {@code cuStreamSynchronize}, {@code host synchronized} and what each printf returned
 * ({@code returns launch T: ...}). With {@code other-external}, it loads PTX that calls
 * {@code malloc}, which the stand-in's interpreter does not provide, and prints the error.
 */
public final class DevicePrintfProgram {

  static final int LINES = 2;

  private DevicePrintfProgram() {}

  public static void main(String[] args) throws Exception {
    SmokePrograms.contextOrExit();
    if (args.length > 0 && args[0].equals("other-external")) {
      otherExternal();
      return;
    }
    CUmodule module = new CUmodule();
    cuModuleLoadData(module, ptx());
    CUfunction printValues = new CUfunction();
    cuModuleGetFunction(printValues, module, "print_values");
    CUstream stream = new CUstream();
    cuStreamCreate(stream, CUstream_flags.CU_STREAM_NON_BLOCKING);
    byte[] name = "weave\0".getBytes(StandardCharsets.US_ASCII);
    CUdeviceptr deviceName = new CUdeviceptr();
    cuMemAlloc(deviceName, name.length);
    cuMemcpyHtoD(deviceName, Pointer.to(name), name.length);
    CUdeviceptr[] returns = new CUdeviceptr[2];
    for (int tag = 1; tag <= 2; tag++) {
      returns[tag - 1] = new CUdeviceptr();
      cuMemAlloc(returns[tag - 1], 3L * LINES * Sizeof.INT);
      cuLaunchKernel(printValues, 1, 1, 1, 32, 1, 1, 0, stream,
          Pointer.to(Pointer.to(new int[] {tag}), Pointer.to(new int[] {LINES}), Pointer.to(new float[] {1.25f * tag}),
              Pointer.to(deviceName), Pointer.to(returns[tag - 1])), null);
    }
    cuStreamSynchronize(stream);
    System.out.println("host synchronized");
    for (int tag = 1; tag <= 2; tag++) {
      int[] values = new int[3 * LINES];
      cuMemcpyDtoH(Pointer.to(values), returns[tag - 1], (long) values.length * Sizeof.INT);
      System.out.println("returns launch " + tag + ": " + Arrays.toString(values));
    }
  }

  static byte[] ptx() throws IOException {
    try (InputStream in = DevicePrintfProgram.class.getResourceAsStream("/own-kernels/printf_kernels.ptx")) {
      byte[] text = in.readAllBytes();
      return Arrays.copyOf(text, text.length + 1);  // NUL-terminated
    }
  }

  static void otherExternal() {
    String ptx = String.join("\n", ".version 7.0", ".target sm_75", ".address_size 64",
        ".extern .func (.param .b64 func_retval0) malloc", "(", "  .param .b64 malloc_param_0", ")", ";",
        ".visible .entry allocate(.param .u64 out)", "{", "  .reg .b64 %rd<4>;", "  ld.param.u64 %rd1, [out];",
        "  { .param .b64 param0;", "  st.param.b64 [param0+0], 64;", "  .param .b64 retval0;",
        "  call.uni (retval0), malloc, (param0);", "  ld.param.b64 %rd2, [retval0+0];", "  }",
        "  st.global.u64 [%rd1], %rd2;", "  ret;", "}", "");
    byte[] text = Arrays.copyOf(ptx.getBytes(StandardCharsets.US_ASCII), ptx.length() + 1);
    try {
      cuModuleLoadData(new CUmodule(), text);
      System.out.println("result other-external WRONG: loaded");
    } catch (CudaException e) {
      System.out.println("load failed: " + e.getMessage());
    }
  }
}
