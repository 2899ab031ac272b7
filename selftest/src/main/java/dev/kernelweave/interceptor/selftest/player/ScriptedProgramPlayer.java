package dev.kernelweave.interceptor.selftest.player;

import static jcuda.driver.JCudaDriver.cuCtxCreate;
import static jcuda.driver.JCudaDriver.cuCtxDestroy;
import static jcuda.driver.JCudaDriver.cuCtxSetCurrent;
import static jcuda.driver.JCudaDriver.cuCtxSynchronize;
import static jcuda.driver.JCudaDriver.cuDeviceGet;
import static jcuda.driver.JCudaDriver.cuDevicePrimaryCtxRelease;
import static jcuda.driver.JCudaDriver.cuDevicePrimaryCtxRetain;
import static jcuda.driver.JCudaDriver.cuEventCreate;
import static jcuda.driver.JCudaDriver.cuEventDestroy;
import static jcuda.driver.JCudaDriver.cuEventQuery;
import static jcuda.driver.JCudaDriver.cuEventRecord;
import static jcuda.driver.JCudaDriver.cuEventSynchronize;
import static jcuda.driver.JCudaDriver.cuInit;
import static jcuda.driver.JCudaDriver.cuLaunchHostFunc;
import static jcuda.driver.JCudaDriver.cuLaunchKernel;
import static jcuda.driver.JCudaDriver.cuMemAlloc;
import static jcuda.driver.JCudaDriver.cuMemAllocHost;
import static jcuda.driver.JCudaDriver.cuMemFree;
import static jcuda.driver.JCudaDriver.cuMemFreeHost;
import static jcuda.driver.JCudaDriver.cuMemHostGetDevicePointer;
import static jcuda.driver.JCudaDriver.cuMemHostRegister;
import static jcuda.driver.JCudaDriver.cuMemHostUnregister;
import static jcuda.driver.JCudaDriver.cuMemcpyDtoDAsync;
import static jcuda.driver.JCudaDriver.cuMemcpyDtoH;
import static jcuda.driver.JCudaDriver.cuMemcpyDtoHAsync;
import static jcuda.driver.JCudaDriver.cuMemcpyHtoD;
import static jcuda.driver.JCudaDriver.cuMemcpyHtoDAsync;
import static jcuda.driver.JCudaDriver.cuMemcpyPeer;
import static jcuda.driver.JCudaDriver.cuMemcpyPeerAsync;
import static jcuda.driver.JCudaDriver.cuMemsetD8;
import static jcuda.driver.JCudaDriver.cuMemsetD8Async;
import static jcuda.driver.JCudaDriver.cuModuleGetFunction;
import static jcuda.driver.JCudaDriver.cuModuleGetGlobal;
import static jcuda.driver.JCudaDriver.cuModuleLoadData;
import static jcuda.driver.JCudaDriver.cuModuleUnload;
import static jcuda.driver.JCudaDriver.cuStreamCreate;
import static jcuda.driver.JCudaDriver.cuGraphDestroy;
import static jcuda.driver.JCudaDriver.cuGraphExecDestroy;
import static jcuda.driver.JCudaDriver.cuGraphInstantiate;
import static jcuda.driver.JCudaDriver.cuGraphLaunch;
import static jcuda.driver.JCudaDriver.cuStreamAddCallback;
import static jcuda.driver.JCudaDriver.cuStreamBeginCapture;
import static jcuda.driver.JCudaDriver.cuStreamEndCapture;
import static jcuda.driver.JCudaDriver.cuStreamDestroy;
import static jcuda.driver.JCudaDriver.cuStreamQuery;
import static jcuda.driver.JCudaDriver.cuStreamSynchronize;
import static jcuda.driver.JCudaDriver.cuStreamWaitEvent;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.zip.CRC32;
import jcuda.Pointer;
import jcuda.driver.CUcontext;
import jcuda.driver.CUdevice;
import jcuda.driver.CUdeviceptr;
import jcuda.driver.CUevent;
import jcuda.driver.CUfunction;
import jcuda.driver.CUgraph;
import jcuda.driver.CUgraphExec;
import jcuda.driver.CUhostFn;
import jcuda.driver.CUmodule;
import jcuda.driver.CUstream;
import jcuda.driver.CUstreamCallback;
import jcuda.driver.JCudaDriver;
import jcuda.jcublas.JCublas2;
import jcuda.jcublas.cublasHandle;
import jcuda.runtime.cudaStream_t;

/**
 * A JCuda application that plays scripted programs as written ({@link
 * dev.kernelweave.interceptor.selftest.ProgramScript} writes them):
 * each call on the stream the program names, from the application thread the program names (a
 * real thread each, taking turns in the program's order), with nothing of the agent on its class
 * path; a thread's {@code priority} line gives it the Java priority of its class, and the calls
 * between {@code captureBegin} and {@code captureEnd} are captured on their stream into a graph
 * that is then launched there (serially, made as they are). A program that ends with {@code exit}
 * instead of {@code end} is the last: the JVM exits after its calls, and its shutdown hook observes.
 * {@code concurrent K} before K programs plays them at the same time, each from its own threads.
 * A program's thread may create a second context ({@code contextCreate}), which stays current there,
 * make calls in it, copy between the two ({@code peer}, {@code peerAsync}) and destroy it. It prints what a program can observe, one line each: the bytes of every synchronous read,
 * host buffer observation and final buffer (as CRC-32), and every call that did not return
 * {@code CUDA_SUCCESS} with its code. Run without and with the agent, the lines must be the same.
 * A {@code print STREAM CHANNEL COUNT} line launches {@code kw_print}, whose device printf line
 * ({@code device-print CHANNEL COUNT}) the driver writes to the same stdout when the kernel runs.
 *
 * <p>{@code ScriptedProgramPlayer SCRIPT PTX serial|as-written FUZZ_PTX}: the kernels are the
 * self-test's, from {@code PTX}, and the fuzz's own ({@code fuzz_kernels.cu}), from {@code
 * FUZZ_PTX}; {@code serial} issues every call on the legacy default stream, in the program's
 * order: the reference, where each call sees all the calls before it done.
 */
public final class ScriptedProgramPlayer {

  /**
   * The longest a host function waits for its gate: a correct agent lets the host open it at once;
   * one that makes the host wait for the function instead is caught in seconds, not hung.
   */
  static final int GATE_SECONDS = 10;
  /** The exit code when a host function waited {@link #GATE_SECONDS} for its gate. */
  public static final int GATE_NEVER_OPENED = 4;
  /** The exit code when there is no CUDA driver or no device: the line before says why. */
  public static final int NO_GPU = 3;
  /** The host page size registrations are rounded to. */
  static final int PAGE = 4096;

  final CUdevice device = new CUdevice();
  /** The kernels of the fuzz's own module ({@code fuzz_kernels.cu}); the others are the self-test's. */
  private static final java.util.Set<String> FUZZ_KERNELS = java.util.Set.of("kw_fill_packed", "kw_fill_difference",
      "kw_print");

  final byte[] ptx;
  private final byte[] fuzzPtx;
  CUcontext context = new CUcontext();
  CUmodule module = new CUmodule();
  private CUmodule fuzzModule = new CUmodule();
  private final Map<String, CUfunction> functions = new java.util.concurrent.ConcurrentHashMap<>();
  final boolean serial;

  private ScriptedProgramPlayer(byte[] ptx, byte[] fuzzPtx, boolean serial) {
    this.serial = serial;
    this.ptx = ptx;
    this.fuzzPtx = fuzzPtx;
    exitWithoutGpu();
    JCudaDriver.setExceptionsEnabled(false); // the program reads return codes
    check(cuInit(0), "cuInit");
    check(cuDeviceGet(device, 0), "cuDeviceGet");
    retainContext();
  }

  /**
   * Initializes CUDA, or exits with {@link #NO_GPU} after printing {@code no GPU: } and the reason
   * in one line (the driver's nested load errors included), where there is no driver or no device.
   */
  private static void exitWithoutGpu() {
    try {
      JCudaDriver.setExceptionsEnabled(true);
      cuInit(0);
      int[] count = {0};
      JCudaDriver.cuDeviceGetCount(count);
      if (count[0] == 0) {
        throw new IllegalStateException("no CUDA device");
      }
    } catch (Throwable t) {
      System.out.println("no GPU: " + String.valueOf(t).replaceAll("\\s+", " "));
      System.exit(NO_GPU);
    }
  }

  private void retainContext() {
    context = new CUcontext();
    functions.clear();
    check(cuDevicePrimaryCtxRetain(context, device), "cuDevicePrimaryCtxRetain");
    check(cuCtxSetCurrent(context), "cuCtxSetCurrent");
    loadModules();
  }

  private void loadModules() {
    module = new CUmodule();
    check(cuModuleLoadData(module, ptx), "cuModuleLoadData");
    fuzzModule = new CUmodule();
    check(cuModuleLoadData(fuzzModule, fuzzPtx), "cuModuleLoadData");
  }

  /** Unloads the modules and loads them again: their functions are new, their old handles gone. */
  private void reloadModule() {
    check(cuModuleUnload(module), "cuModuleUnload");
    check(cuModuleUnload(fuzzModule), "cuModuleUnload");
    functions.clear();
    loadModules();
  }

  /**
   * Releases the primary context to nothing and retains a new one, as a program that ends its use
   * of the GPU and starts again does: nothing of the old context may reach the new one.
   */
  private void recreateContext() {
    check(cuDevicePrimaryCtxRelease(device), "cuDevicePrimaryCtxRelease");
    retainContext();
  }

  public static void main(String[] args) throws Exception {
    List<String> lines = Files.readAllLines(Path.of(args[0]), StandardCharsets.UTF_8);
    ScriptedProgramPlayer player = new ScriptedProgramPlayer(moduleImage(Path.of(args[1])),
        moduleImage(Path.of(args[3])), args[2].equals("serial"));
    List<String[]> program = new ArrayList<>();
    String name = null;
    int together = 0;
    List<Map.Entry<String, List<String[]>>> group = new ArrayList<>();
    for (String line : lines) {
      String[] t = line.trim().split(" +");
      if (t[0].startsWith("#")) {
        continue;
      } else if (t[0].equals("program")) {
        name = t[1];
        program = new ArrayList<>();
      } else if (t[0].equals("concurrent")) {
        together = Integer.parseInt(t[1]);
      } else if (t[0].equals("recreateContext")) {
        player.recreateContext();
      } else if (t[0].equals("reloadModule")) {
        player.reloadModule();
      } else if (t[0].equals("exit")) {
        player.playAndExit(name, program);
        return; // the program's shutdown hook prints the rest
      } else if (t[0].equals("end") && together > 0) {
        group.add(Map.entry(name, program));
        if (group.size() == together) {
          for (StringBuilder observed : player.playTogether(group)) {
            printLines(observed);
          }
          group.clear();
          together = 0;
        }
      } else if (t[0].equals("end")) {
        printLines(player.play(name, program));
      } else if (!t[0].isEmpty()) {
        program.add(t);
      }
    }
  }

  /**
   * A line per write: device printf writes its lines to the same stdout when kernels run, and a
   * short write is not split, so neither cuts into the other's lines.
   */
  private static void printLines(CharSequence observed) {
    observed.toString().lines().forEach(System.out::println);
    System.out.flush();
  }

  /** PTX text as {@code cuModuleLoadData} takes it: ending in a NUL. */
  private static byte[] moduleImage(Path ptx) throws java.io.IOException {
    byte[] text = Files.readAllBytes(ptx);
    return java.util.Arrays.copyOf(text, text.length + 1);
  }

  /**
   * Plays the programs at the same time, each from a thread of its own (serially, one after
   * another): what each observes, in their order. They share no buffer, stream or event.
   */
  private List<StringBuilder> playTogether(List<Map.Entry<String, List<String[]>>> programs) throws Exception {
    List<StringBuilder> observed = new ArrayList<>();
    if (serial) {
      for (Map.Entry<String, List<String[]>> p : programs) {
        observed.add(play(new ScriptedRun(this, p.getKey(), false), p.getValue()));
      }
      return observed;
    }
    ExecutorService pool = Executors.newFixedThreadPool(programs.size(), r -> {
      Thread th = new Thread(() -> {
        cuCtxSetCurrent(context);
        r.run();
      }, "program");
      th.setDaemon(true);
      return th;
    });
    try {
      List<Future<StringBuilder>> runs = new ArrayList<>();
      for (Map.Entry<String, List<String[]>> p : programs) {
        runs.add(pool.submit(() -> play(new ScriptedRun(this, p.getKey(), false), p.getValue())));
      }
      for (Future<StringBuilder> run : runs) {
        observed.add(run.get(5, TimeUnit.MINUTES));
      }
      return observed;
    } finally {
      pool.shutdownNow();
    }
  }

  CUfunction function(String name) {
    return functions.computeIfAbsent(name, n -> {
      CUfunction f = new CUfunction();
      check(cuModuleGetFunction(f, FUZZ_KERNELS.contains(n) ? fuzzModule : module, n), "cuModuleGetFunction " + n);
      return f;
    });
  }

  /** One program's run, from the calling thread: what it observed. */
  private StringBuilder play(String name, List<String[]> calls) throws InterruptedException {
    return play(new ScriptedRun(this, name, true), calls);
  }

  private StringBuilder play(ScriptedRun run, List<String[]> calls) throws InterruptedException {
    try {
      makeCalls(run, calls);
      run.finish();
      return run.out;
    } finally {
      run.close();
      Thread.currentThread().setPriority(Thread.NORM_PRIORITY);
    }
  }

  /**
   * Makes the program's calls and returns without waiting for the device: a shutdown hook of the
   * program's, as an application registers one, synchronizes and prints what it observes, while
   * the JVM exits with the work (and whatever the agent holds) still pending.
   */
  private void playAndExit(String name, List<String[]> calls) throws InterruptedException {
    ScriptedRun run = new ScriptedRun(this, name, true);
    makeCalls(run, calls);
    Runtime.getRuntime().addShutdownHook(new Thread(() -> {
      cuCtxSetCurrent(context);
      run.finish();
      printLines(run.out);
    }, "application-shutdown"));
  }

  private void makeCalls(ScriptedRun run, List<String[]> calls) throws InterruptedException {
    int made = 0;
    for (String[] call : calls) {
      int thread = Integer.parseInt(call[0]);
      // Calls are numbered as in the program; queries as the call they follow.
      int index = call[1].equals("queries") ? made - 1 : isProgramCall(call[1]) ? made++ : -1;
      if (thread == 0) {
        run.execute(index, call);
      } else {
        Future<?> done = run.worker(thread).submit(() -> {
          run.execute(index, call);
          return null;
        });
        try {
          done.get(2 * GATE_SECONDS, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
          throw new IllegalStateException("call " + index + " failed", e.getCause());
        } catch (java.util.concurrent.TimeoutException e) {
          throw new IllegalStateException("call " + index + " (" + String.join(" ", call) + ") did not return");
        }
      }
    }
  }

  /**
   * The address a JCuda device pointer designates, as a program without the driver's help reads it:
   * from the pointer's description, {@code CUdeviceptr[nativePointer=0x...,byteOffset=...]}.
   */
  static long address(CUdeviceptr pointer) {
    String s = pointer.toString();
    int base = s.indexOf("nativePointer=0x") + "nativePointer=0x".length();
    long address = Long.parseUnsignedLong(s.substring(base, s.indexOf(',', base)), 16);
    int offset = s.indexOf("byteOffset=") + "byteOffset=".length();
    return address + Long.parseLong(s.substring(offset, s.indexOf(']', offset)));
  }

  /** Whether a callback's stream is the one it was added to; the null stream has two spellings. */
  static boolean sameStream(CUstream added, CUstream given) {
    boolean addedNull = added == null || added.equals(new CUstream());
    boolean givenNull = given == null || given.equals(new CUstream());
    return addedNull || givenNull ? addedNull && givenNull : added.equals(given);
  }

  static int blocks(int n) {
    return Math.max(1, (n + 127) / 128);
  }

  static int num(String s) {
    return Integer.parseInt(s);
  }

  /**
   * Whether a script line is one of the program's calls, not one the script adds around them (a
   * pause, a thread's priority, a capture's bounds, queries).
   */
  static boolean isProgramCall(String name) {
    return !name.equals("pause") && !name.equals("print") && !name.equals("priority") && !name.startsWith("capture") && !name.equals("queries");
  }

  static byte[] hex(String s) {
    return java.util.HexFormat.of().parseHex(s);
  }

  static void check(int code, String call) {
    if (code != 0) {
      throw new IllegalStateException(call + " returned " + code);
    }
  }
}
