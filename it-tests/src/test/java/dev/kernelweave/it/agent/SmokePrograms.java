package dev.kernelweave.it.agent;

import static jcuda.driver.JCudaDriver.cuCtxCreate;
import static jcuda.driver.JCudaDriver.cuDeviceGet;
import static jcuda.driver.JCudaDriver.cuDeviceGetCount;
import static jcuda.driver.JCudaDriver.cuInit;
import static jcuda.driver.JCudaDriver.cuModuleGetFunction;
import static jcuda.driver.JCudaDriver.cuModuleLoadData;

import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import jcuda.driver.CUcontext;
import jcuda.driver.CUdevice;
import jcuda.driver.CUfunction;
import jcuda.driver.CUmodule;
import jcuda.driver.JCudaDriver;

/** What the smoke programs share: a context, the smoke module, and a checksum of what they read back. */
public final class SmokePrograms {

  /** Exit code of a program that found no GPU. */
  public static final int NO_GPU = 3;

  private SmokePrograms() {}

  /** Creates a context on device 0, or exits with {@link #NO_GPU}. */
  static CUcontext contextOrExit() {
    exitWithoutGpu();
    CUdevice device = new CUdevice();
    cuDeviceGet(device, 0);
    CUcontext context = new CUcontext();
    cuCtxCreate(context, 0, device);
    return context;
  }

  /** Initializes CUDA with the driver's exceptions on, or exits with {@link #NO_GPU} when there is no device. */
  public static void exitWithoutGpu() {
    try {
      JCudaDriver.setExceptionsEnabled(true);
      cuInit(0);
      int[] count = {0};
      cuDeviceGetCount(count);
      if (count[0] == 0) {
        throw new IllegalStateException("no CUDA device");
      }
    } catch (Throwable t) {
      System.out.println("no GPU: " + t);
      System.exit(NO_GPU);
    }
  }

  static CUmodule loadSmokeModule() throws IOException {
    try (InputStream in = SmokePrograms.class.getResourceAsStream("/ptx/smoke.ptx")) {
      byte[] ptx = in.readAllBytes();
      byte[] text = new byte[ptx.length + 1];
      System.arraycopy(ptx, 0, text, 0, ptx.length);
      CUmodule module = new CUmodule();
      cuModuleLoadData(module, text);
      return module;
    }
  }

  static CUfunction function(CUmodule module, String name) {
    CUfunction f = new CUfunction();
    cuModuleGetFunction(f, module, name);
    return f;
  }

  /** SHA-256 over the floats' bytes, in hex: equal outputs give equal checksums. */
  public static String checksum(float[]... arrays) {
    try {
      MessageDigest sha = MessageDigest.getInstance("SHA-256");
      for (float[] a : arrays) {
        ByteBuffer b = ByteBuffer.allocate(4 * a.length).order(ByteOrder.LITTLE_ENDIAN);
        b.asFloatBuffer().put(a);
        sha.update(b.array());
      }
      return HexFormat.of().formatHex(sha.digest());
    } catch (NoSuchAlgorithmException e) {
      throw new AssertionError(e);
    }
  }
}
