package dev.kernelweave.kernels;

import static jcuda.driver.JCudaDriver.cuCtxGetStreamPriorityRange;
import static jcuda.driver.JCudaDriver.cuLaunchKernel;
import static jcuda.driver.JCudaDriver.cuMemAlloc;
import static jcuda.driver.JCudaDriver.cuMemAllocHost;
import static jcuda.driver.JCudaDriver.cuMemFree;
import static jcuda.driver.JCudaDriver.cuMemFreeHost;
import static jcuda.driver.JCudaDriver.cuMemcpyDtoHAsync;
import static jcuda.driver.JCudaDriver.cuModuleGetFunction;
import static jcuda.driver.JCudaDriver.cuModuleLoadData;
import static jcuda.driver.JCudaDriver.cuStreamCreate;
import static jcuda.driver.JCudaDriver.cuStreamCreateWithPriority;
import static jcuda.driver.JCudaDriver.cuStreamDestroy;
import static jcuda.driver.JCudaDriver.cuStreamSynchronize;

import java.util.Arrays;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.LockSupport;
import jcuda.Pointer;
import jcuda.driver.CUdeviceptr;
import jcuda.driver.CUfunction;
import jcuda.driver.CUmodule;
import jcuda.driver.CUstream;
import jcuda.driver.CUstream_flags;

/**
 * Two tenants of one GPU in one JVM: a request thread ({@code request-0}, {@link
 * Thread#MAX_PRIORITY}) serving requests that arrive at a fixed rate (three small {@code chain_step}
 * kernels, a {@code branch_step} over a larger buffer, a read-back each), and a background thread
 * ({@code trainer-0}, {@link Thread#MIN_PRIORITY}) launching long {@code chain_step} kernels back to
 * back. Each thread has a stream of its own, created with default priority: the same program runs
 * without and with the agent, which alone may give the request thread a high-priority stream.
 * {@code --by-hand} is the expert's twin: the request stream created with the device's greatest
 * priority, the background's with its least.
 *
 * <pre>
 * java -cp ... dev.kernelweave.kernels.TenantsPriorityMain [--mode shared|alone] [--by-hand]
 *     [--requests N] [--rate-hz R] [--background-rounds K] [--background-n N] [--latencies]
 * </pre>
 *
 * <p>Prints one line: the request latency p50, p99 and max in microseconds (from each request's
 * scheduled arrival to its read-back), and the background's kernels per second; with {@code
 * --latencies}, a line before it with every request's latency in arrival order, to see when the
 * slow ones came. Exit status: 0
 * done, 2 bad arguments, 3 no GPU or no CUDA driver.
 */
public final class TenantsPriorityMain {

  private static final int REQUEST_N = 1 << 14;
  private static final int WIDE_N = 1 << 18;

  record Options(String mode, boolean byHand, int requests, double rateHz, int backgroundRounds, int backgroundN,
      boolean latencies) {
    static Options parse(String... args) {
      String mode = "shared";
      boolean byHand = false;
      boolean latencies = false;
      int requests = 2000;
      double rate = 500;
      int rounds = 2000;
      int n = 1 << 20;
      CommandLine line = new CommandLine(args);
      while (line.hasNext()) {
        String a = line.next();
        if (a.equals("--by-hand")) {
          byHand = true;
          continue;
        }
        if (a.equals("--latencies")) {
          latencies = true;
          continue;
        }
        String v = line.valueOf(a);
        switch (a) {
          case "--mode" -> {
            if (!v.equals("shared") && !v.equals("alone")) {
              throw new IllegalArgumentException("--mode " + v + ": expected shared or alone");
            }
            mode = v;
          }
          case "--requests" -> requests = CommandLine.wholeNumber(a, v, 1);
          case "--rate-hz" -> rate = CommandLine.wholeNumber(a, v, 1);
          case "--background-rounds" -> rounds = CommandLine.wholeNumber(a, v, 1);
          case "--background-n" -> n = CommandLine.wholeNumber(a, v, 1);
          default -> throw new IllegalArgumentException("unknown option " + a);
        }
      }
      return new Options(mode, byHand, requests, rate, rounds, n, latencies);
    }
  }

  private TenantsPriorityMain() {}

  public static void main(String[] args) throws Exception {
    Options o = CommandLine.parseForGpu("tenants-priority", args, Options::parse);
    System.out.println(run(o));
  }

  static String run(Options o) throws InterruptedException {
    Cuda.makeContextCurrent();
    CUmodule chain = new CUmodule();
    cuModuleLoadData(chain, Ptx.image(Ptx.text("chain")));
    CUmodule branches = new CUmodule();
    cuModuleLoadData(branches, Ptx.image(Ptx.text("branches")));
    CUfunction chainStep = function(chain, "chain_step");
    CUfunction branchStep = function(branches, "branch_step");
    int[] least = new int[1];
    int[] greatest = new int[1];
    cuCtxGetStreamPriorityRange(least, greatest);

    AtomicBoolean requestsDone = new AtomicBoolean();
    long[] backgroundKernels = new long[1];
    long[] backgroundNanos = new long[1];
    Thread background = new Thread(() -> {
      Cuda.makeContextCurrent();
      CUstream stream = stream(o.byHand(), least[0]);
      CUdeviceptr x = new CUdeviceptr();
      cuMemAlloc(x, 4L * o.backgroundN());
      Cuda.upload(x, new float[o.backgroundN()]);
      long start = System.nanoTime();
      long kernels = 0;
      while (!requestsDone.get()) {
        for (int k = 0; k < 8; k++, kernels++) {
          launch(chainStep, o.backgroundN(), stream, Pointer.to(x), Pointer.to(new int[] {o.backgroundN()}),
              Pointer.to(new int[] {(int) kernels}), Pointer.to(new int[] {o.backgroundRounds()}));
        }
        cuStreamSynchronize(stream); // a training step's end: bounded queue, like a real loop
      }
      backgroundNanos[0] = System.nanoTime() - start;
      backgroundKernels[0] = kernels;
      cuMemFree(x);
      cuStreamDestroy(stream);
    }, "trainer-0");
    background.setPriority(Thread.MIN_PRIORITY);

    long[] latencies = new long[o.requests()];
    Thread request = new Thread(() -> {
      Cuda.makeContextCurrent();
      CUstream stream = stream(o.byHand(), greatest[0]);
      CUdeviceptr small = new CUdeviceptr();
      CUdeviceptr wideIn = new CUdeviceptr();
      CUdeviceptr weights = new CUdeviceptr();
      CUdeviceptr wideOut = new CUdeviceptr();
      cuMemAlloc(small, 4L * REQUEST_N);
      cuMemAlloc(wideIn, 4L * WIDE_N);
      cuMemAlloc(weights, 4L * WIDE_N);
      cuMemAlloc(wideOut, 4L * WIDE_N);
      Cuda.upload(small, new float[REQUEST_N]);
      Cuda.upload(wideIn, new float[WIDE_N]);
      Cuda.upload(weights, new float[WIDE_N]);
      Pointer answer = new Pointer();
      cuMemAllocHost(answer, 4);
      long period = (long) (1e9 / o.rateHz());
      long first = System.nanoTime() + 50_000_000; // the background's first kernels are running by then
      for (int r = 0; r < o.requests(); r++) {
        long arrival = first + r * period;
        long wait;
        while ((wait = arrival - System.nanoTime()) > 0) {
          LockSupport.parkNanos(wait);
        }
        for (int k = 0; k < 3; k++) {
          launch(chainStep, REQUEST_N, stream, Pointer.to(small), Pointer.to(new int[] {REQUEST_N}),
              Pointer.to(new int[] {r + k}), Pointer.to(new int[] {4}));
        }
        launch(branchStep, WIDE_N, stream, Pointer.to(wideIn), Pointer.to(weights), Pointer.to(wideOut),
            Pointer.to(new int[] {WIDE_N}), Pointer.to(new int[] {r}), Pointer.to(new int[] {2}));
        cuMemcpyDtoHAsync(answer, wideOut.withByteOffset(4L * (r % WIDE_N)), 4, stream);
        cuStreamSynchronize(stream);
        latencies[r] = System.nanoTime() - arrival;
      }
      requestsDone.set(true);
      cuMemFreeHost(answer);
      for (CUdeviceptr d : new CUdeviceptr[] {small, wideIn, weights, wideOut}) {
        cuMemFree(d);
      }
      cuStreamDestroy(stream);
    }, "request-0");
    request.setPriority(Thread.MAX_PRIORITY);

    if (o.mode().equals("shared")) {
      background.start();
    }
    request.start();
    request.join();
    requestsDone.set(true);
    if (o.mode().equals("shared")) {
      background.join();
    }
    String inOrder = "";
    if (o.latencies()) {
      StringBuilder b = new StringBuilder("latencies_us:");
      for (long l : latencies) {
        b.append(' ').append(l / 1000);
      }
      inOrder = b.append('\n').toString();
    }
    Arrays.sort(latencies);
    double perSecond = backgroundNanos[0] == 0 ? 0 : backgroundKernels[0] * 1e9 / backgroundNanos[0];
    return inOrder + String.format(Locale.ROOT,
        "tenants-priority: mode=%s by-hand=%s requests=%d rate_hz=%.0f p50_us=%.1f p99_us=%.1f max_us=%.1f"
            + " background_kernels_per_s=%.1f",
        o.mode(), o.byHand(), o.requests(), o.rateHz(), percentile(latencies, 0.50) / 1e3,
        percentile(latencies, 0.99) / 1e3, latencies[latencies.length - 1] / 1e3, perSecond);
  }

  /** A stream of default priority, or, for the by-hand twin, of {@code priority}. */
  private static CUstream stream(boolean byHand, int priority) {
    CUstream s = new CUstream();
    if (byHand) {
      cuStreamCreateWithPriority(s, CUstream_flags.CU_STREAM_NON_BLOCKING, priority);
    } else {
      cuStreamCreate(s, CUstream_flags.CU_STREAM_NON_BLOCKING);
    }
    return s;
  }

  private static CUfunction function(CUmodule module, String name) {
    CUfunction f = new CUfunction();
    cuModuleGetFunction(f, module, name);
    return f;
  }

  private static void launch(CUfunction f, int n, CUstream stream, Pointer... params) {
    int blocks = Math.min((n + 255) / 256, 4096);
    cuLaunchKernel(f, blocks, 1, 1, 256, 1, 1, 0, stream, Pointer.to(params), null);
  }

  /** The value below which {@code fraction} of the sorted {@code values} lie (nearest rank). */
  static long percentile(long[] sorted, double fraction) {
    int rank = (int) Math.ceil(fraction * sorted.length) - 1;
    return sorted[Math.max(0, Math.min(sorted.length - 1, rank))];
  }
}
