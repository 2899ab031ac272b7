package dev.kernelweave.interceptor.selftest;

import static jcuda.driver.JCudaDriver.cuCtxCreate;
import static jcuda.driver.JCudaDriver.cuDeviceGet;
import static jcuda.driver.JCudaDriver.cuInit;
import static jcuda.driver.JCudaDriver.cuModuleGetFunction;
import static jcuda.driver.JCudaDriver.cuModuleLoadData;

import dev.kernelweave.selftest.Kernel;
import java.io.IOException;
import java.io.InputStream;
import java.util.EnumMap;
import jcuda.driver.CUcontext;
import jcuda.driver.CUdevice;
import jcuda.driver.CUdeviceptr;
import jcuda.driver.CUfunction;
import jcuda.driver.CUmodule;
import jcuda.driver.JCudaDriver;

/** One context and the self-test module, shared by every program run of a GPU self-test. */
final class GpuSession {

  private final EnumMap<Kernel, CUfunction> functions = new EnumMap<>(Kernel.class);
  private final CUfunction readsConstant = new CUfunction();
  private final CUfunction withoutPtx = new CUfunction();
  private final CUdeviceptr constant = new CUdeviceptr();

  GpuSession() throws IOException {
    JCudaDriver.setExceptionsEnabled(true);
    cuInit(0);
    CUdevice device = new CUdevice();
    cuDeviceGet(device, 0);
    cuCtxCreate(new CUcontext(), 0, device);
    byte[] ptx;
    try (InputStream in = GpuSession.class.getResourceAsStream("selftest.ptx")) {
      if (in == null) {
        throw new IOException("selftest.ptx is missing from the build");
      }
      byte[] text = in.readAllBytes();
      ptx = new byte[text.length + 1];
      System.arraycopy(text, 0, ptx, 0, text.length);
    }
    CUmodule module = new CUmodule();
    cuModuleLoadData(module, ptx);
    for (Kernel k : Kernel.values()) {
      CUfunction f = new CUfunction();
      cuModuleGetFunction(f, module, "kw_" + k.name().toLowerCase(java.util.Locale.ROOT));
      functions.put(k, f);
    }
    cuModuleGetFunction(readsConstant, module, "kw_fill_constant");
    cuModuleGetFunction(withoutPtx, module, "kw_fill_indirect");
    JCudaDriver.cuModuleGetGlobal(constant, new long[1], module, "kw_constant");
  }

  /** {@code kw_fill_constant}, which reads the module's constant. */
  CUfunction readsConstant() {
    return readsConstant;
  }

  /** {@code kw_fill_indirect}, which writes through a pointer stored in device memory. */
  CUfunction withoutPtx() {
    return withoutPtx;
  }

  /** The address of the module's {@code kw_constant}. */
  CUdeviceptr constant() {
    return constant;
  }

  CUfunction function(Kernel kernel) {
    return functions.get(kernel);
  }
}
