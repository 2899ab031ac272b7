package dev.kernelweave.it.semantics;

import static jcuda.driver.JCudaDriver.cuCtxSetCurrent;
import static jcuda.driver.JCudaDriver.cuDeviceGet;
import static jcuda.driver.JCudaDriver.cuDeviceGetCount;
import static jcuda.driver.JCudaDriver.cuDevicePrimaryCtxRetain;
import static jcuda.driver.JCudaDriver.cuEventCreate;
import static jcuda.driver.JCudaDriver.cuEventDestroy;
import static jcuda.driver.JCudaDriver.cuInit;
import static jcuda.driver.JCudaDriver.cuLaunchKernel;
import static jcuda.driver.JCudaDriver.cuMemAlloc;
import static jcuda.driver.JCudaDriver.cuMemAllocHost;
import static jcuda.driver.JCudaDriver.cuMemFree;
import static jcuda.driver.JCudaDriver.cuMemFreeHost;
import static jcuda.driver.JCudaDriver.cuMemHostAlloc;
import static jcuda.driver.JCudaDriver.cuMemHostGetDevicePointer;
import static jcuda.driver.JCudaDriver.cuMemcpyDtoH;
import static jcuda.driver.JCudaDriver.cuMemcpyDtoHAsync;
import static jcuda.driver.JCudaDriver.cuMemcpyHtoD;
import static jcuda.driver.JCudaDriver.cuModuleGetFunction;
import static jcuda.driver.JCudaDriver.cuModuleLoadData;
import static jcuda.driver.JCudaDriver.cuStreamCreate;
import static jcuda.driver.JCudaDriver.cuStreamDestroy;
import static jcuda.driver.JCudaDriver.cuStreamSynchronize;

import dev.kernelweave.it.agent.SmokePrograms;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.ToIntFunction;
import jcuda.Pointer;
import jcuda.driver.CUcontext;
import jcuda.driver.CUdevice;
import jcuda.driver.CUdeviceptr;
import jcuda.driver.CUevent;
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
  /** {@code CU_STREAM_NON_BLOCKING}: a stream exempt from the legacy stream's implicit ordering. */
  static final int NON_BLOCKING = 1;
  /** {@code CU_MEMHOSTALLOC_DEVICEMAP}: page-locked memory the device reaches through a pointer of its own. */
  static final int DEVICE_MAP = 2;
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

  /** Launches {@code f} over {@link #N} threads; arguments: pointers the device reaches, Float, Integer, Long. */
  static int launch(CUfunction f, CUstream stream, Object... args) {
    Pointer[] params = new Pointer[args.length];
    for (int i = 0; i < args.length; i++) {
      Object a = args[i];
      if (a instanceof Pointer p) {  // device memory, or managed memory allocated through the runtime
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

  /**
   * 17 launches in a row on the legacy stream, nothing between them, then a read: results unobserved.
   * An agent with {@code engage=auto} engages at such a run and schedules what follows.
   */
  static void engagingRun(CUfunction slowFill) {
    CUdeviceptr scratch = alloc(BYTES);
    for (int i = 0; i < 17; i++) {
      launch(slowFill, null, scratch, (float) i, N, 0L);
    }
    read(scratch);
    cuMemFree(scratch);
  }

  /** A new stream, created with {@code flags} (0: blocking, {@link #NON_BLOCKING}). */
  static CUstream stream(int flags) {
    return made(new CUstream(), s -> cuStreamCreate(s, flags));
  }

  /** A new event, created with {@code flags}. */
  static CUevent event(int flags) {
    return made(new CUevent(), e -> cuEventCreate(e, flags));
  }

  /** {@code cuMemAlloc} of {@code bytes}. */
  static CUdeviceptr alloc(long bytes) {
    return made(new CUdeviceptr(), p -> cuMemAlloc(p, bytes));
  }

  /** {@code cuMemAllocHost} of {@code bytes}: page-locked host memory. */
  static Pointer allocHost(long bytes) {
    return made(new Pointer(), p -> cuMemAllocHost(p, bytes));
  }

  /** {@code handle} once {@code make} set it; the code {@code make} returns is not looked at. */
  private static <T> T made(T handle, ToIntFunction<T> make) {
    make.applyAsInt(handle);
    return handle;
  }

  /**
   * Page-locked host memory mapped into the device's address space ({@code cuMemHostAlloc} with
   * {@link #DEVICE_MAP}, its code printed), filled with -1.
   */
  Pointer mappedHost(int rep) {
    Pointer host = new Pointer();
    rc(rep, "cuMemHostAlloc", 0, cuMemHostAlloc(host, BYTES, DEVICE_MAP));
    fill(host, -1f);
    return host;
  }

  /** The device's pointer to mapped page-locked memory. */
  static CUdeviceptr devicePointer(Pointer host) {
    CUdeviceptr d = new CUdeviceptr();
    cuMemHostGetDevicePointer(d, host, 0);
    return d;
  }

  /** slow_fill and slow_axpb of the semantics module. */
  record Kernels(CUfunction slowFill, CUfunction slowAxpb) {
    /** Loads the semantics module into the current context. */
    static Kernels load() throws IOException {
      CUmodule module = loadSemantics();
      return new Kernels(function(module, "slow_fill"), function(module, "slow_axpb"));
    }
  }

  /** One repetition of a variant, with {@code v} a value of its own for the repetition. */
  interface Variant {
    void run(Sequence seq, Kernels k, int rep, float v) throws Exception;
  }

  /**
   * {@link #repeat}s the variant that {@code --variant} names among {@code variants}, with
   * {@code v = first + 10 * rep}.
   */
  void repeat(float first, Kernels k, Map<String, Variant> variants) throws Exception {
    repeat(rep -> {
      Variant chosen = variants.get(variant);
      if (chosen == null) {
        throw new IllegalArgumentException("unknown variant " + variant);
      }
      chosen.run(this, k, rep, first + 10 * rep);
    });
  }

  /**
   * {@link #start}, {@link Kernels#load}, the {@link #engagingRun}, then {@link #repeat(float, Kernels, Map)}:
   * a program whose variants all run once an agent with {@code engage=auto} engaged.
   */
  static void repeatEngaged(String[] args, String defaultVariant, float first, Map<String, Variant> variants)
      throws Exception {
    Sequence seq = start(args, defaultVariant);
    Kernels kernels = Kernels.load();
    engagingRun(kernels.slowFill());
    seq.repeat(first, kernels, variants);
  }

  /** What a thread of the program runs. */
  interface Task {
    void run() throws Exception;
  }

  /** A thread that makes {@code context} current, then runs a task; {@link #join} rethrows what it threw. */
  static final class Worker {
    private final Thread thread;
    private volatile Throwable failed;

    Worker(String name, CUcontext context, Task task) {
      thread = new Thread(() -> {
        try {
          cuCtxSetCurrent(context);
          task.run();
        } catch (Throwable t) {
          failed = t;
        }
      }, name);
      thread.start();
    }

    void join() throws InterruptedException {
      thread.join();
      if (failed != null) {
        throw new IllegalStateException("the " + thread.getName() + " failed", failed);
      }
    }
  }

  /**
   * Frees or destroys each of {@code handles} in the order given: device memory ({@link CUdeviceptr}),
   * page-locked host memory (any other {@link Pointer}), events and streams.
   */
  static void release(Object... handles) {
    for (Object h : handles) {
      if (h instanceof CUdeviceptr p) {
        cuMemFree(p);
      } else if (h instanceof Pointer p) {
        cuMemFreeHost(p);
      } else if (h instanceof CUevent e) {
        cuEventDestroy(e);
      } else if (h instanceof CUstream s) {
        cuStreamDestroy(s);
      } else {
        throw new IllegalArgumentException("not a handle: " + h);
      }
    }
  }

  /**
   * What a host function or another thread waits for: {@link #await} returns once the host
   * {@link #open}s the gate, or after {@code --timeout-ms}; {@link #released} says which.
   */
  final class Gate {
    private final CountDownLatch latch = new CountDownLatch(1);
    private volatile boolean released;

    void await() {
      try {
        released = latch.await(timeoutMs, TimeUnit.MILLISECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }

    void open() {
      latch.countDown();
    }

    boolean released() {
      return released;
    }
  }

  /**
   * 20 buffers, each allocated and filled with {@code ramp(v + k)} on {@code working}; then each
   * copied into {@code pinned} on {@code working}, the stream synchronized, and the values checked.
   * Returns the buffers, for the caller to free.
   */
  CUdeviceptr[] fillAndReadBackTwenty(int rep, CUfunction slowFill, CUstream working, Pointer pinned, float v) {
    return fillAndReadBackTwenty(rep, slowFill, working, pinned, v, () -> { });
  }

  /** {@link #fillAndReadBackTwenty}, with {@code betweenFillsAndReads} run after the fills. */
  CUdeviceptr[] fillAndReadBackTwenty(int rep, CUfunction slowFill, CUstream working, Pointer pinned, float v,
      Runnable betweenFillsAndReads) {
    CUdeviceptr[] buffers = new CUdeviceptr[20];
    for (int k = 0; k < buffers.length; k++) {
      buffers[k] = alloc(BYTES);
      rc(rep, "slow_fill " + k, 0, launch(slowFill, working, buffers[k], v + k, N, cycles / 20));
    }
    betweenFillsAndReads.run();
    for (int k = 0; k < buffers.length; k++) {
      cuMemcpyDtoHAsync(pinned, buffers[k], BYTES, working);
      rc(rep, "cuStreamSynchronize " + k, 0, cuStreamSynchronize(working));
      check(rep, "buffer " + k, describe(ramp(v + k)), describe(floats(pinned)));
    }
    return buffers;
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

  /** Writes {@code values} into page-locked host memory of {@link #BYTES}. */
  static void write(Pointer host, float[] values) {
    host.getByteBuffer(0, BYTES).order(ByteOrder.nativeOrder()).asFloatBuffer().put(values);
  }

  static void fill(Pointer host, float value) {
    ByteBuffer b = host.getByteBuffer(0, BYTES).order(ByteOrder.nativeOrder());
    for (int i = 0; i < N; i++) {
      b.putFloat(4 * i, value);
    }
  }

  /** {@code a * x + b} for each value of {@code x}, what slow_axpb writes, in a new array. */
  static float[] axpb(float[] x, float a, float b) {
    float[] y = new float[x.length];
    for (int i = 0; i < x.length; i++) {
      y[i] = a * x[i] + b;
    }
    return y;
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
