package dev.kernelweave.it.semantics;

import static jcuda.driver.JCudaDriver.cuCtxSetCurrent;
import static jcuda.driver.JCudaDriver.cuDeviceGet;
import static jcuda.driver.JCudaDriver.cuDeviceGetCount;
import static jcuda.driver.JCudaDriver.cuDevicePrimaryCtxRetain;
import static jcuda.driver.JCudaDriver.cuInit;
import static jcuda.driver.JCudaDriver.cuLaunchKernel;
import static jcuda.driver.JCudaDriver.cuMemcpyDtoH;
import static jcuda.driver.JCudaDriver.cuMemcpyHtoD;
import static jcuda.driver.JCudaDriver.cuModuleGetFunction;
import static jcuda.driver.JCudaDriver.cuModuleLoadData;

import dev.kernelweave.it.agent.SmokePrograms;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;
import jcuda.Pointer;
import jcuda.driver.CUcontext;
import jcuda.driver.CUdevice;
import jcuda.driver.CUdeviceptr;
import jcuda.driver.CUfunction;
import jcuda.driver.CUmodule;
import jcuda.driver.CUresult;
import jcuda.driver.CUstream;

/**
 * What the semantics programs share: their options, the primary context, the semantics module,
 * launches, and the lines they print. Every program prints only what it observed (values read back,
 * return codes, and timing as booleans); a value that is not what CUDA's documented semantics give
 * adds a {@code WRONG} line and ends the repetitions.
 *
 * <p>Options: {@code --reps N} repetitions of the sequence in one process (each a different order of
 * the stand-in driver's ready work), {@code --cycles C} GPU clock cycles each kernel spins first (a
 * GPU needs them so a missing wait shows; the stand-in ignores them), {@code --timeout-ms T} the
 * longest a host function or a thread waits for the host, {@code --variant V}, and
 * {@code --calls-never-block true} where the driver never makes one thread's asynchronous call wait
 * for another thread's blocking one (the stand-in; a real driver may, and CUDA does not say). Not thread-safe
 * except {@link #check}, which is synchronized.
 */
final class Sequence {

  /** Floats per buffer: four blocks of 256 threads. */
  static final int N = 1024;
  static final long BYTES = 4L * N;
  static final int THREADS = 256;
  static final int BLOCKS = N / THREADS;
  /** Exit code of a program whose cubin or fatbin (sm_90) the GPU cannot run. */
  static final int NO_BINARY_FOR_GPU = 4;

  final int reps;
  final long cycles;
  final long timeoutMs;
  final String variant;
  final boolean callsNeverBlock;
  final CUdevice device = new CUdevice();
  private boolean wrong;

  private Sequence(int reps, long cycles, long timeoutMs, String variant, boolean callsNeverBlock) {
    this.reps = reps;
    this.cycles = cycles;
    this.timeoutMs = timeoutMs;
    this.variant = variant;
    this.callsNeverBlock = callsNeverBlock;
  }

  /** Parses the options, makes the primary context current, or exits with {@link SmokePrograms#NO_GPU}. */
  static Sequence start(String[] args, String defaultVariant) {
    int reps = 1;
    long cycles = 20_000_000L;  // about 10 ms on an H100
    long timeoutMs = 10_000;
    String variant = defaultVariant;
    boolean callsNeverBlock = false;
    for (int i = 0; i + 1 < args.length; i += 2) {
      switch (args[i]) {
        case "--reps" -> reps = Integer.parseInt(args[i + 1]);
        case "--cycles" -> cycles = Long.parseLong(args[i + 1]);
        case "--timeout-ms" -> timeoutMs = Long.parseLong(args[i + 1]);
        case "--variant" -> variant = args[i + 1];
        case "--calls-never-block" -> callsNeverBlock = Boolean.parseBoolean(args[i + 1]);
        default -> throw new IllegalArgumentException("unknown option " + args[i]);
      }
    }
    Sequence s = new Sequence(reps, cycles, timeoutMs, variant, callsNeverBlock);
    try {
      cuInit(0);
      int[] count = {0};
      if (cuDeviceGetCount(count) != 0 || count[0] == 0) {
        throw new IllegalStateException("no CUDA device");
      }
    } catch (Throwable t) {
      System.out.println("no GPU: " + t);
      System.exit(SmokePrograms.NO_GPU);
    }
    cuDeviceGet(s.device, 0);
    s.retainPrimary();
    System.out.println("result variant " + variant);
    return s;
  }

  /** Retains the primary context and makes it current on the calling thread. */
  CUcontext retainPrimary() {
    CUcontext context = new CUcontext();
    rc("cuDevicePrimaryCtxRetain", cuDevicePrimaryCtxRetain(context, device));
    cuCtxSetCurrent(context);
    return context;
  }

  /** One repetition of a sequence. */
  interface Body {
    void run(int rep) throws Exception;
  }

  /** Runs the sequence {@link #reps} times, stopping after the first that saw a wrong value; then exits. */
  void repeat(Body body) throws Exception {
    for (int rep = 0; rep < reps && !wrong(); rep++) {
      body.run(rep);
    }
    if (wrong()) {
      System.out.println("result stopped at the first wrong value");
    }
    System.out.flush();
    System.exit(0);  // host-function threads may still be attached to the JVM
  }

  private synchronized boolean wrong() {
    return wrong;
  }

  /** Prints an observation and, when it is not what CUDA gives, a WRONG line. */
  synchronized void check(int rep, String what, Object expected, Object actual) {
    System.out.println("result rep " + rep + " " + what + " " + actual);
    if (!expected.equals(actual)) {
      System.out.println("result rep " + rep + " " + what + " WRONG: CUDA gives " + expected);
      wrong = true;
    }
  }

  /** A return code the sequence expects to be 0, printed. */
  void rc(String call, int code) {
    System.out.println("result " + call + " returned " + code);
  }

  /** A return code checked against what CUDA returns. */
  void rc(int rep, String call, int expected, int code) {
    check(rep, call + " returned", expected, code);
  }

  static CUmodule load(String resource) throws IOException {
    try (InputStream in = Sequence.class.getResourceAsStream(resource)) {
      if (in == null) {
        throw new IllegalStateException("no resource " + resource);
      }
      byte[] image = in.readAllBytes();
      // PTX is text the driver reads up to a NUL; a cubin or fatbin carries its own size.
      byte[] data = resource.endsWith(".ptx") ? Arrays.copyOf(image, image.length + 1) : image;
      CUmodule module = new CUmodule();
      int code = cuModuleLoadData(module, data);
      if (code == CUresult.CUDA_ERROR_NO_BINARY_FOR_GPU) {
        System.out.println("no binary for this GPU in " + resource);
        System.exit(NO_BINARY_FOR_GPU);
      }
      if (code != 0) {
        throw new IllegalStateException("cuModuleLoadData(" + resource + ") returned " + code);
      }
      return module;
    }
  }

  static CUmodule loadSemantics() throws IOException {
    return load("/ptx/semantics.ptx");
  }

  static CUfunction function(CUmodule module, String name) {
    CUfunction f = new CUfunction();
    int code = cuModuleGetFunction(f, module, name);
    if (code != 0) {
      throw new IllegalStateException("cuModuleGetFunction(" + name + ") returned " + code);
    }
    return f;
  }

  /** Launches {@code f} over {@link #N} threads; arguments: device pointers, Float, Integer, Long. */
  static int launch(CUfunction f, CUstream stream, Object... args) {
    Pointer[] params = new Pointer[args.length];
    for (int i = 0; i < args.length; i++) {
      Object a = args[i];
      if (a instanceof CUdeviceptr p) {
        params[i] = Pointer.to(p);
      } else if (a instanceof Float v) {
        params[i] = Pointer.to(new float[] {v});
      } else if (a instanceof Integer v) {
        params[i] = Pointer.to(new int[] {v});
      } else if (a instanceof Long v) {
        params[i] = Pointer.to(new long[] {v});
      } else {
        throw new IllegalArgumentException("argument " + i + ": " + a);
      }
    }
    return cuLaunchKernel(f, BLOCKS, 1, 1, THREADS, 1, 1, 0, stream, Pointer.to(params), null);
  }

  /**
   * One round trip through {@code slow_axpb} on the legacy stream: {@code ramp(first)} copied into
   * {@code x}, {@code x = 2x + 1} after {@code cycles}, read back; whether every value came back so.
   */
  static boolean axpbRoundTrip(CUfunction axpb, CUdeviceptr x, float first, long cycles) {
    float[] in = ramp(first);
    cuMemcpyHtoD(x, Pointer.to(in), BYTES);
    launch(axpb, null, x, 2f, 1f, N, cycles);
    float[] out = read(x);
    for (int j = 0; j < N; j++) {
      if (out[j] != 2f * in[j] + 1f) {
        return false;
      }
    }
    return true;
  }

  /** A synchronous read of a device buffer of {@link #N} floats. */
  static float[] read(CUdeviceptr buffer) {
    float[] host = new float[N];
    cuMemcpyDtoH(Pointer.to(host), buffer, BYTES);
    return host;
  }

  /** The floats of page-locked host memory. */
  static float[] floats(Pointer host) {
    float[] values = new float[N];
    host.getByteBuffer(0, BYTES).order(ByteOrder.nativeOrder()).asFloatBuffer().get(values);
    return values;
  }

  static void fill(Pointer host, float value) {
    ByteBuffer b = host.getByteBuffer(0, BYTES).order(ByteOrder.nativeOrder());
    for (int i = 0; i < N; i++) {
      b.putFloat(4 * i, value);
    }
  }

  /** value + i, what slow_fill writes. */
  static float[] ramp(float value) {
    float[] values = new float[N];
    for (int i = 0; i < N; i++) {
      values[i] = value + i;
    }
    return values;
  }

  /** A short description of a buffer's contents for the output: first, last and a checksum. */
  static String describe(float[] values) {
    return values[0] + ".." + values[N - 1] + " " + SmokePrograms.checksum(values).substring(0, 16);
  }
}
