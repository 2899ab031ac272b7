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
  private static final int GATE_SECONDS = 10;
  /** The exit code when a host function waited {@link #GATE_SECONDS} for its gate. */
  public static final int GATE_NEVER_OPENED = 4;
  /** The exit code when there is no CUDA driver or no device: the line before says why. */
  public static final int NO_GPU = 3;
  /** The host page size registrations are rounded to. */
  private static final int PAGE = 4096;

  private final CUdevice device = new CUdevice();
  /** The kernels of the fuzz's own module ({@code fuzz_kernels.cu}); the others are the self-test's. */
  private static final java.util.Set<String> FUZZ_KERNELS = java.util.Set.of("kw_fill_packed", "kw_fill_difference",
      "kw_print");

  private final byte[] ptx;
  private final byte[] fuzzPtx;
  private CUcontext context = new CUcontext();
  private CUmodule module = new CUmodule();
  private CUmodule fuzzModule = new CUmodule();
  private final Map<String, CUfunction> functions = new java.util.concurrent.ConcurrentHashMap<>();
  private final boolean serial;

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
        observed.add(play(new Run(p.getKey(), false), p.getValue()));
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
        runs.add(pool.submit(() -> play(new Run(p.getKey(), false), p.getValue())));
      }
      for (Future<StringBuilder> run : runs) {
        observed.add(run.get(5, TimeUnit.MINUTES));
      }
      return observed;
    } finally {
      pool.shutdownNow();
    }
  }

  private CUfunction function(String name) {
    return functions.computeIfAbsent(name, n -> {
      CUfunction f = new CUfunction();
      check(cuModuleGetFunction(f, FUZZ_KERNELS.contains(n) ? fuzzModule : module, n), "cuModuleGetFunction " + n);
      return f;
    });
  }

  /** One program's run: its buffers, streams, events and threads, all released at its end. */
  /** One program's run, from the calling thread: what it observed. */
  private StringBuilder play(String name, List<String[]> calls) throws InterruptedException {
    return play(new Run(name, true), calls);
  }

  private StringBuilder play(Run run, List<String[]> calls) throws InterruptedException {
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
    Run run = new Run(name, true);
    makeCalls(run, calls);
    Runtime.getRuntime().addShutdownHook(new Thread(() -> {
      cuCtxSetCurrent(context);
      run.finish();
      printLines(run.out);
    }, "application-shutdown"));
  }

  private void makeCalls(Run run, List<String[]> calls) throws InterruptedException {
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

  private final class Run {
    final String name;
    /** What the program observed, a line each. */
    final StringBuilder out = new StringBuilder();
    final Map<Integer, ExecutorService> workers = new HashMap<>();
    final Map<Integer, CUdeviceptr> buffers = new TreeMap<>();
    final Map<Integer, Integer> bufferBytes = new HashMap<>();
    final Map<Integer, Pointer> hosts = new TreeMap<>();
    final Map<Integer, ByteBuffer> hostViews = new HashMap<>();
    final Map<Integer, CUdeviceptr> hostDevicePointers = new HashMap<>();
    final List<Pointer> registered = new ArrayList<>();
    final Map<Long, CUstream> streams = new HashMap<>();
    final Map<Long, Boolean> nonBlocking = new HashMap<>();
    /** The stream handle of each event's last record. */
    final Map<Integer, Long> recordedOn = new HashMap<>();
    /** The last call made, for the queries that follow it. */
    String[] last;
    final Map<Integer, CUevent> events = new HashMap<>();
    final Map<Integer, CountDownLatch> gates = new HashMap<>();
    CUdeviceptr constant;
    final List<CUgraph> graphs = new ArrayList<>();
    final List<CUgraphExec> graphExecs = new ArrayList<>();
    cublasHandle blas;
    /** Where a device address was stored ({buffer, byte}): addresses differ from run to run. */
    final List<int[]> addressSlots = new ArrayList<>();

    /** Whether it plays alone: beside others, the legacy stream they share may get their work. */
    final boolean alone;

    Run(String name, boolean alone) {
      this.name = name;
      this.alone = alone;
    }

    ExecutorService worker(int thread) {
      return workers.computeIfAbsent(thread, t -> Executors.newSingleThreadExecutor(r -> {
        Thread th = new Thread(() -> {
          cuCtxSetCurrent(context);
          r.run();
        }, "application-" + t);
        th.setDaemon(true);
        return th;
      }));
    }

    void execute(int i, String[] c) {
      call(i, c);
      if (isProgramCall(c[1])) {
        last = c;
      }
    }

    private void call(int i, String[] c) {
      switch (c[1]) {
        case "allocHost" -> allocHost(i, num(c[2]), num(c[3]), c[4].equals("1"));
        case "streamCreate" -> {
          CUstream s = new CUstream();
          rc(i, "cuStreamCreate", cuStreamCreate(s, c[3].equals("1") ? 1 : 0));
          streams.put(Long.parseLong(c[2]), s);
          nonBlocking.put(Long.parseLong(c[2]), c[3].equals("1"));
          if (inOtherContext()) {
            otherStreams.add(Long.parseLong(c[2]));
          }
        }
        case "alloc" -> {
          CUdeviceptr p = new CUdeviceptr();
          int bytes = num(c[3]) * 4;
          rc(i, "cuMemAlloc", cuMemAlloc(p, bytes));
          buffers.put(num(c[2]), p);
          bufferBytes.put(num(c[2]), bytes);
          if (inOtherContext()) {
            otherBuffers.add(num(c[2]));
          }
          byte[] data = hex(c[4]);
          rc(i, "cuMemcpyHtoD", cuMemcpyHtoD(p, Pointer.to(data), data.length));
        }
        case "free" -> {
          rc(i, "cuMemFree", cuMemFree(buffers.remove(num(c[2]))));
          bufferBytes.remove(num(c[2]));
          addressSlots.removeIf(slot -> slot[0] == num(c[2]));
        }
        case "launch" -> {
          // stream function grid shared out outByte in1 in1Byte in2 in2Byte n k
          Pointer params = Pointer.to(Pointer.to(device(c[6], c[7])), Pointer.to(device(c[8], c[9])),
              Pointer.to(device(c[10], c[11])), Pointer.to(new int[] {num(c[12])}), Pointer.to(new int[] {num(c[13])}));
          rc(i, "cuLaunchKernel", cuLaunchKernel(inOtherContext() ? otherFunction(c[3]) : function(c[3]), num(c[4]), 1, 1, 128, 1, 1, num(c[5]),
              stream(c[2]), params, null));
        }
        case "fillPacked" -> {
          // stream out outByte n k: kw_fill_packed({k, out, n}), the pointer at offset 4 of a packed structure
          int n = num(c[5]);
          ByteBuffer packed = ByteBuffer.allocate(16).order(ByteOrder.LITTLE_ENDIAN);
          packed.putInt(num(c[6])).putLong(address(device(c[3], c[4]))).putInt(n);
          rc(i, "cuLaunchKernel", cuLaunchKernel(function("kw_fill_packed"), blocks(n), 1, 1, 128, 1, 1, 0,
              stream(c[2]), Pointer.to(Pointer.to(packed.array())), null));
        }
        case "fillDifference" -> {
          // stream other otherByte out outByte n k: kw_fill_difference(other, out, n, k), which writes
          // out through other and the difference of the two pointers
          Pointer params = Pointer.to(Pointer.to(device(c[3], c[4])), Pointer.to(device(c[5], c[6])),
              Pointer.to(new int[] {num(c[7])}), Pointer.to(new int[] {num(c[8])}));
          rc(i, "cuLaunchKernel", cuLaunchKernel(function("kw_fill_difference"), blocks(num(c[7])), 1, 1, 128, 1, 1, 0,
              stream(c[2]), params, null));
        }
        case "sgemmUpdate" -> {
          // stream out outByte in inByte n alpha: out = alpha * in * in[0] + out, by cuBLAS on the stream
          int n = num(c[7]);
          CUdeviceptr in = device(c[5], c[6]);
          rc(i, "cublasSetStream", JCublas2.cublasSetStream(blas(), new cudaStream_t(stream(c[2]))));
          rc(i, "cublasSgemm", JCublas2.cublasSgemm(blas(), 0, 0, n, 1, 1,
              Pointer.to(new float[] {Float.parseFloat(c[8])}), in, n, in, 1, Pointer.to(new float[] {1f}),
              device(c[3], c[4]), n));
        }
        case "launchIntoHost" -> {
          // stream host hostByte in inByte n k: kw_scale writing host memory through its mapped address
          Pointer params = Pointer.to(Pointer.to(hostDevice(num(c[3]), num(c[4]))), Pointer.to(device(c[5], c[6])),
              Pointer.to(device("-1", "0")), Pointer.to(new int[] {num(c[7])}), Pointer.to(new int[] {num(c[8])}));
          rc(i, "cuLaunchKernel", cuLaunchKernel(function("kw_scale"), blocks(num(c[7])), 1, 1, 128, 1, 1, 0,
              stream(c[2]), params, null));
        }
        case "launchReadingConstant" -> {
          // stream out outByte n k
          Pointer params = Pointer.to(Pointer.to(device(c[3], c[4])), Pointer.to(new int[] {num(c[5])}),
              Pointer.to(new int[] {num(c[6])}));
          rc(i, "cuLaunchKernel", cuLaunchKernel(function("kw_fill_constant"), blocks(num(c[5])), 1, 1, 128, 1, 1, 0,
              stream(c[2]), params, null));
        }
        case "launchWithoutPtx" -> {
          // stream slot slotByte target targetByte n k: the target's address stored in the slot, then
          // a kernel that writes through it
          CUdeviceptr slot = device(c[3], c[4]);
          addressSlots.add(new int[] {num(c[3]), num(c[4])});
          rc(i, "cuMemcpyHtoD", cuMemcpyHtoD(slot, Pointer.to(device(c[5], c[6])), 8));
          Pointer params = Pointer.to(Pointer.to(slot), Pointer.to(new int[] {num(c[7])}),
              Pointer.to(new int[] {num(c[8])}));
          rc(i, "cuLaunchKernel", cuLaunchKernel(function("kw_fill_indirect"), blocks(num(c[7])), 1, 1, 128, 1, 1, 0,
              stream(c[2]), params, null));
        }
        case "memset" -> {
          // stream sync buf byte bytes value
          CUdeviceptr dst = device(c[4], c[5]);
          byte value = (byte) num(c[7]);
          if (c[3].equals("1")) {
            rc(i, "cuMemsetD8", cuMemsetD8(dst, value, num(c[6])));
          } else {
            rc(i, "cuMemsetD8Async", cuMemsetD8Async(dst, value, num(c[6]), stream(c[2])));
          }
        }
        case "write" -> {
          byte[] data = hex(c[4]);
          rc(i, "cuMemcpyHtoD", cuMemcpyHtoD(device(c[2], c[3]), Pointer.to(data), data.length));
        }
        case "read" -> {
          byte[] data = new byte[num(c[4])];
          rc(i, "cuMemcpyDtoH", cuMemcpyDtoH(Pointer.to(data), device(c[2], c[3]), data.length));
          observe(i, "read b" + c[2] + "+" + c[3], masked(num(c[2]), num(c[3]), data));
        }
        case "readAsync" -> rc(i, "cuMemcpyDtoHAsync",
            cuMemcpyDtoHAsync(host(num(c[3]), num(c[4])), device(c[5], c[6]), num(c[7]), stream(c[2])));
        case "writeAsync" -> rc(i, "cuMemcpyHtoDAsync",
            cuMemcpyHtoDAsync(device(c[3], c[4]), host(num(c[5]), num(c[6])), num(c[7]), stream(c[2])));
        case "copy" -> rc(i, "cuMemcpyDtoDAsync",
            cuMemcpyDtoDAsync(device(c[3], c[4]), device(c[5], c[6]), num(c[7]), stream(c[2])));
        case "ctxSync" -> rc(i, "cuCtxSynchronize", cuCtxSynchronize());
        case "streamSync" -> rc(i, "cuStreamSynchronize", cuStreamSynchronize(stream(c[2])));
        case "eventRecord" -> {
          rc(i, "cuEventRecord", cuEventRecord(event(num(c[2])), stream(c[3])));
          if (inOtherContext()) {
            otherEvents.add(num(c[2])); // queried nowhere: it goes with its context
          } else {
            recordedOn.put(num(c[2]), Long.parseLong(c[3]));
          }
        }
        case "queries" -> queries(i);
        case "eventSync" -> {
          CUevent e = events.get(num(c[2]));
          if (e != null) {
            rc(i, "cuEventSynchronize", cuEventSynchronize(e));
          }
        }
        case "streamWaitEvent" -> {
          CUevent e = events.get(num(c[3]));
          if (e != null) {
            rc(i, "cuStreamWaitEvent", cuStreamWaitEvent(stream(c[2]), e, 0));
          }
        }
        case "hostWrite" -> {
          byte[] data = hex(c[4]);
          view(num(c[2]), num(c[3])).put(data);
        }
        case "writeConstant" -> {
          byte[] data = hex(c[2]);
          rc(i, "cuMemcpyHtoD", cuMemcpyHtoD(constant(i), Pointer.to(data), data.length));
        }
        case "hostFunction", "streamCallback" -> hostFunction(i, c);
        case "openGate" -> gate(num(c[2])).countDown();
        case "observeHost" -> {
          ByteBuffer v = view(num(c[2]), 0);
          byte[] data = new byte[v.remaining()];
          v.get(data);
          observe(i, "host h" + c[2], data);
        }
        case "priority" -> Thread.currentThread().setPriority(num(c[2]));
        // A capture's calls stay as written, ordered as CUDA orders them and no further: the program
        // synchronizes around it, so that one racing there stays comparable with its serial run.
        case "captureSync" -> rc(i, "cuCtxSynchronize", cuCtxSynchronize());
        case "captureBegin" -> {
          if (!serial) { // serially, the calls run on the legacy stream, which cannot capture: as the graph would
            rc(i, "cuStreamBeginCapture", cuStreamBeginCapture(stream(c[2]), 0)); // global mode
          }
        }
        case "captureEnd" -> {
          if (!serial) {
            CUgraph graph = new CUgraph();
            CUgraphExec exec = new CUgraphExec();
            rc(i, "cuStreamEndCapture", cuStreamEndCapture(stream(c[2]), graph));
            rc(i, "cuGraphInstantiate", cuGraphInstantiate(exec, graph, 0));
            rc(i, "cuGraphLaunch", cuGraphLaunch(exec, stream(c[2])));
            graphs.add(graph);
            graphExecs.add(exec);
          }
          rc(i, "cuCtxSynchronize", cuCtxSynchronize()); // see captureSync
        }
        case "contextCreate" -> createOtherContext(i);
        case "contextDestroy" -> destroyOtherContext(i);
        // dst dstByte src srcByte bytes, each buffer in its own context
        case "peer" -> rc(i, "cuMemcpyPeer", cuMemcpyPeer(device(c[2], c[3]), contextOf(c[2]), device(c[4], c[5]),
            contextOf(c[4]), num(c[6])));
        case "peerAsync" -> rc(i, "cuMemcpyPeerAsync", cuMemcpyPeerAsync(device(c[3], c[4]), contextOf(c[3]),
            device(c[5], c[6]), contextOf(c[5]), num(c[7]), stream(c[2])));
        case "print" -> rc(i, "cuLaunchKernel kw_print", cuLaunchKernel(function("kw_print"), 1, 1, 1, 32, 1, 1, 0,
            stream(c[2]), Pointer.to(Pointer.to(new int[] {num(c[3])}), Pointer.to(new int[] {num(c[4])})), null));
        case "pause" -> LockSupport.parkNanos(TimeUnit.MICROSECONDS.toNanos(num(c[2])));
        default -> throw new IllegalArgumentException("unknown call: " + String.join(" ", c));
      }
    }

    /**
     * Asks about the streams and events whose work the last call made the host wait for, where CUDA
     * defines the answer as complete: after {@code cuCtxSynchronize} all; after a synchronous copy
     * to a Java array (which waits for the legacy stream, and so for every blocking stream) the
     * legacy, the blocking streams and their events; after one from a Java array to the device
     * (which may return before its own transfer) the events of those streams; after a stream's or
     * an event's synchronize, that one. Each answer that is not {@code CUDA_SUCCESS} is printed.
     */
    void queries(int i) {
      if (last == null) {
        return;
      }
      switch (last[1]) {
        case "ctxSync", "read" -> {
          boolean all = last[1].equals("ctxSync");
          // Streams first or events first, by the call's number: an answer to one may complete the other.
          if (i % 2 == 0) {
            queryStreams(i, all);
            queryEvents(i, all);
          } else {
            queryEvents(i, all);
            queryStreams(i, all);
          }
        }
        // A synchronous copy from a Java array returns once the legacy stream's earlier work (and so
        // the blocking streams') is done, its own transfer perhaps not: the events recorded before.
        case "write", "alloc" -> queryEvents(i, false);
        case "streamSync" -> {
          if (alone || Long.parseLong(last[2]) > 1) { // beside others, the legacy stream may have their work
            rc(i, "cuStreamQuery " + last[2], cuStreamQuery(stream(last[2])));
          }
        }
        case "eventSync" -> {
          CUevent e = events.get(num(last[2]));
          if (e != null) {
            rc(i, "cuEventQuery " + last[2], cuEventQuery(e));
          }
        }
        default -> {}
      }
    }

    void queryStreams(int i, boolean all) {
      if (alone) {
        rc(i, "cuStreamQuery 0", cuStreamQuery(stream("0")));
      }
      rc(i, "cuStreamQuery 2", cuStreamQuery(stream("2")));
      for (Map.Entry<Long, CUstream> s : new TreeMap<>(streams).entrySet()) {
        if (all || !nonBlocking.getOrDefault(s.getKey(), false)) {
          rc(i, "cuStreamQuery " + s.getKey(), cuStreamQuery(serial ? stream("0") : s.getValue()));
        }
      }
    }

    void queryEvents(int i, boolean all) {
      for (Map.Entry<Integer, Long> e : new TreeMap<>(recordedOn).entrySet()) {
        if (all || !nonBlocking.getOrDefault(e.getValue(), false)) {
          rc(i, "cuEventQuery " + e.getKey(), cuEventQuery(events.get(e.getKey())));
        }
      }
    }

    void allocHost(int i, int host, int elements, boolean register) {
      int bytes = Math.max(elements * 4, 4);
      if (register) {
        // Ordinary memory in whole pages of its own, registered portable and mapped.
        int pages = (bytes + PAGE - 1) / PAGE * PAGE;
        ByteBuffer buffer = ByteBuffer.allocateDirect(pages + PAGE).alignedSlice(PAGE);
        Pointer p = Pointer.to(buffer);
        rc(i, "cuMemHostRegister", cuMemHostRegister(p, buffer.capacity(), 0x01 | 0x02));
        registered.add(p);
        hosts.put(host, p);
        hostViews.put(host, buffer.duplicate().limit(bytes).slice().order(ByteOrder.LITTLE_ENDIAN));
      } else {
        Pointer p = new Pointer();
        rc(i, "cuMemAllocHost", cuMemAllocHost(p, bytes));
        ByteBuffer view = p.getByteBuffer(0, bytes).order(ByteOrder.LITTLE_ENDIAN);
        while (view.hasRemaining()) {
          view.put((byte) 0);
        }
        hosts.put(host, p);
        hostViews.put(host, p.getByteBuffer(0, bytes).order(ByteOrder.LITTLE_ENDIAN));
      }
      CUdeviceptr mapped = new CUdeviceptr();
      rc(i, "cuMemHostGetDevicePointer", cuMemHostGetDevicePointer(mapped, hosts.get(host), 0));
      hostDevicePointers.put(host, mapped);
    }

    void hostFunction(int i, String[] c) {
      // stream gate srcHost srcByte dstHost dstByte bytes: dst[j] = src[j] * 5 + 1, once the gate opens
      CountDownLatch open = num(c[3]) >= 0 ? gate(num(c[3])) : null;
      ByteBuffer from = view(num(c[4]), num(c[5]));
      ByteBuffer to = view(num(c[6]), num(c[7]));
      int words = num(c[8]) / 4;
      Runnable work = () -> {
        try {
          if (open != null && !open.await(GATE_SECONDS, TimeUnit.SECONDS)) {
            // The host never got to open it: it waits for this function, which CUDA never makes it do.
            System.err.println("call " + i + ": a host function waited " + GATE_SECONDS + " s for its gate");
            Runtime.getRuntime().halt(GATE_NEVER_OPENED);
          }
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          return;
        }
        for (int j = 0; j < words; j++) {
          to.putInt(4 * j, from.getInt(4 * j) * 5 + 1);
        }
      };
      CUstream stream = stream(c[2]);
      if (c[1].equals("hostFunction")) {
        CUhostFn function = userData -> work.run();
        rc(i, "cuLaunchHostFunc", cuLaunchHostFunc(stream, function, null));
        return;
      }
      // A stream callback is told its stream and the status of the work before it.
      CUstreamCallback callback = (given, status, userData) -> {
        if (!sameStream(stream, given) || status != 0) {
          synchronized (callbacksSaw) {
            callbacksSaw.add(i + " callback of stream " + c[2] + " got " + given + ", status " + status);
          }
        }
        work.run();
      };
      rc(i, "cuStreamAddCallback", cuStreamAddCallback(stream, callback, null, 0));
    }

    /** The second context, while it lives: created by one thread of the program's, current there. */
    CUcontext otherContext;
    Thread otherThread;
    CUmodule otherModule;
    final Map<String, CUfunction> otherFunctions = new HashMap<>();
    /** The buffers, streams and events of the second context, which go with it. */
    final java.util.Set<Integer> otherBuffers = new java.util.HashSet<>();
    final java.util.Set<Long> otherStreams = new java.util.HashSet<>();
    final java.util.Set<Integer> otherEvents = new java.util.HashSet<>();

    boolean inOtherContext() {
      return otherThread == Thread.currentThread();
    }

    /**
     * {@code cuCtxCreate} on the calling thread, which the new context stays current to (the
     * primary context beneath it on the thread's stack), with the modules loaded there: a context's
     * functions are its own.
     */
    void createOtherContext(int i) {
      otherContext = new CUcontext();
      check(cuCtxCreate(otherContext, 0, device), "cuCtxCreate");
      otherThread = Thread.currentThread();
      otherModule = new CUmodule();
      check(cuModuleLoadData(otherModule, ptx), "cuModuleLoadData");
      otherFunctions.clear();
    }

    /**
     * {@code cuCtxDestroy} of the second context from its thread, whatever work it still has: CUDA
     * completes that work first. Its buffers, streams, events and module go with it.
     */
    void destroyOtherContext(int i) {
      rc(i, "cuCtxDestroy", cuCtxDestroy(otherContext));
      otherContext = null;
      otherThread = null;
      for (int b : otherBuffers) {
        buffers.remove(b);
        bufferBytes.remove(b);
      }
      for (long s : otherStreams) {
        streams.remove(s);
        nonBlocking.remove(s);
      }
      for (int e : otherEvents) {
        events.remove(e);
      }
      otherBuffers.clear();
      otherStreams.clear();
      otherEvents.clear();
    }

    CUfunction otherFunction(String name) {
      return otherFunctions.computeIfAbsent(name, n -> {
        CUfunction f = new CUfunction();
        check(cuModuleGetFunction(f, otherModule, n), "cuModuleGetFunction " + n);
        return f;
      });
    }

    /** The context a buffer was allocated in. */
    CUcontext contextOf(String buf) {
      return otherBuffers.contains(num(buf)) ? otherContext : context;
    }

    /** What stream callbacks were told that they should not have been, for {@link #finish}. */
    final List<String> callbacksSaw = new ArrayList<>();

    CountDownLatch gate(int gate) {
      synchronized (gates) {
        return gates.computeIfAbsent(gate, g -> new CountDownLatch(1));
      }
    }

    /** Java's view of host buffer {@code host} from byte {@code at} on. */
    ByteBuffer view(int host, int at) {
      ByteBuffer v = hostViews.get(host);
      return v.duplicate().position(at).slice().order(ByteOrder.LITTLE_ENDIAN);
    }

    Pointer host(int host, int at) {
      return hosts.get(host).withByteOffset(at);
    }

    CUdeviceptr hostDevice(int host, int at) {
      return hostDevicePointers.get(host).withByteOffset(at);
    }

    /** Device buffer {@code buf} at byte {@code at}; buffer -1 is the null pointer. */
    CUdeviceptr device(String buf, String at) {
      int b = num(buf);
      return b < 0 ? new CUdeviceptr() : buffers.get(b).withByteOffset(num(at));
    }

    cublasHandle blas() {
      if (blas == null) {
        blas = new cublasHandle();
        check(JCublas2.cublasCreate(blas), "cublasCreate");
      }
      return blas;
    }

    CUdeviceptr constant(int i) {
      if (constant == null) {
        constant = new CUdeviceptr();
        rc(i, "cuModuleGetGlobal", cuModuleGetGlobal(constant, new long[1], module, "kw_constant"));
      }
      return constant;
    }

    CUstream stream(String handle) {
      long h = Long.parseLong(handle);
      if (h == 0 || serial) {
        return new CUstream(); // the null stream, as an object: JCuda refuses null for some calls
      } else if (h == 1) {
        return JCudaDriver.CU_STREAM_LEGACY;
      } else if (h == 2) {
        return JCudaDriver.CU_STREAM_PER_THREAD;
      }
      return streams.computeIfAbsent(h, x -> {
        CUstream s = new CUstream();
        check(cuStreamCreate(s, 0), "cuStreamCreate");
        return s;
      });
    }

    CUevent event(int id) {
      return events.computeIfAbsent(id, x -> {
        CUevent e = new CUevent();
        // Odd events without timing, as programs that only order or poll create them (flag 0x2).
        check(cuEventCreate(e, id % 2 == 1 ? 0x2 : 0), "cuEventCreate");
        return e;
      });
    }

    void finish() {
      rc(-1, "cuCtxSynchronize", cuCtxSynchronize());
      synchronized (callbacksSaw) {
        for (String saw : callbacksSaw) {
          out.append(name).append(' ').append(saw).append('\n');
        }
      }
      for (Map.Entry<Integer, CUdeviceptr> b : buffers.entrySet()) {
        byte[] data = new byte[bufferBytes.get(b.getKey())];
        rc(-1, "cuMemcpyDtoH", cuMemcpyDtoH(Pointer.to(data), b.getValue(), data.length));
        observe(-1, "final b" + b.getKey(), masked(b.getKey(), 0, data));
      }
      for (int h : hosts.keySet()) {
        ByteBuffer v = view(h, 0);
        byte[] data = new byte[v.remaining()];
        v.get(data);
        observe(-1, "final h" + h, data);
      }
    }

    void close() throws InterruptedException {
      for (CountDownLatch g : gates.values()) {
        g.countDown();
      }
      cuCtxSynchronize();
      for (ExecutorService w : workers.values()) {
        w.shutdown();
        w.awaitTermination(1, TimeUnit.MINUTES);
      }
      if (blas != null) {
        JCublas2.cublasDestroy(blas);
      }
      for (CUgraphExec e : graphExecs) {
        cuGraphExecDestroy(e);
      }
      for (CUgraph g : graphs) {
        cuGraphDestroy(g);
      }
      for (CUdeviceptr p : buffers.values()) {
        cuMemFree(p);
      }
      for (Pointer p : registered) {
        cuMemHostUnregister(p);
      }
      for (Pointer p : hosts.values()) {
        if (!registered.contains(p)) {
          cuMemFreeHost(p);
        }
      }
      for (CUstream s : streams.values()) {
        cuStreamDestroy(s);
      }
      for (CUevent e : events.values()) {
        cuEventDestroy(e);
      }
    }

    /** {@code data}, read from buffer {@code buf} at byte {@code at}, with stored addresses zeroed. */
    byte[] masked(int buf, int at, byte[] data) {
      for (int[] slot : addressSlots) {
        for (int b = 0; b < 8; b++) {
          int j = slot[1] + b - at;
          if (slot[0] == buf && j >= 0 && j < data.length) {
            data[j] = 0;
          }
        }
      }
      return data;
    }

    void observe(int index, String what, byte[] data) {
      CRC32 crc = new CRC32();
      crc.update(data);
      out.append(name).append(' ').append(index).append(' ').append(what).append(' ').append(data.length)
          .append(" bytes crc ").append(Long.toHexString(crc.getValue())).append('\n');
    }

    void rc(int index, String call, int code) {
      if (code != 0) {
        out.append(name).append(' ').append(index).append(' ').append(call).append(" returned ").append(code)
            .append('\n');
      }
    }
  }

  /**
   * The address a JCuda device pointer designates, as a program without the driver's help reads it:
   * from the pointer's description, {@code CUdeviceptr[nativePointer=0x...,byteOffset=...]}.
   */
  private static long address(CUdeviceptr pointer) {
    String s = pointer.toString();
    int base = s.indexOf("nativePointer=0x") + "nativePointer=0x".length();
    long address = Long.parseUnsignedLong(s.substring(base, s.indexOf(',', base)), 16);
    int offset = s.indexOf("byteOffset=") + "byteOffset=".length();
    return address + Long.parseLong(s.substring(offset, s.indexOf(']', offset)));
  }

  /** Whether a callback's stream is the one it was added to; the null stream has two spellings. */
  private static boolean sameStream(CUstream added, CUstream given) {
    boolean addedNull = added == null || added.equals(new CUstream());
    boolean givenNull = given == null || given.equals(new CUstream());
    return addedNull || givenNull ? addedNull && givenNull : added.equals(given);
  }

  private static int blocks(int n) {
    return Math.max(1, (n + 127) / 128);
  }

  private static int num(String s) {
    return Integer.parseInt(s);
  }

  /**
   * Whether a script line is one of the program's calls, not one the script adds around them (a
   * pause, a thread's priority, a capture's bounds, queries).
   */
  private static boolean isProgramCall(String name) {
    return !name.equals("pause") && !name.equals("print") && !name.equals("priority") && !name.startsWith("capture") && !name.equals("queries");
  }

  private static byte[] hex(String s) {
    return java.util.HexFormat.of().parseHex(s);
  }

  private static void check(int code, String call) {
    if (code != 0) {
      throw new IllegalStateException(call + " returned " + code);
    }
  }
}
