package dev.kernelweave.interceptor.selftest.player;

import static dev.kernelweave.interceptor.selftest.player.ScriptedProgramPlayer.GATE_NEVER_OPENED;
import static dev.kernelweave.interceptor.selftest.player.ScriptedProgramPlayer.GATE_SECONDS;
import static dev.kernelweave.interceptor.selftest.player.ScriptedProgramPlayer.PAGE;
import static dev.kernelweave.interceptor.selftest.player.ScriptedProgramPlayer.check;
import static dev.kernelweave.interceptor.selftest.player.ScriptedProgramPlayer.num;
import static dev.kernelweave.interceptor.selftest.player.ScriptedProgramPlayer.sameStream;
import static jcuda.driver.JCudaDriver.cuCtxCreate;
import static jcuda.driver.JCudaDriver.cuCtxDestroy;
import static jcuda.driver.JCudaDriver.cuCtxSetCurrent;
import static jcuda.driver.JCudaDriver.cuCtxSynchronize;
import static jcuda.driver.JCudaDriver.cuEventCreate;
import static jcuda.driver.JCudaDriver.cuEventDestroy;
import static jcuda.driver.JCudaDriver.cuEventQuery;
import static jcuda.driver.JCudaDriver.cuGraphDestroy;
import static jcuda.driver.JCudaDriver.cuGraphExecDestroy;
import static jcuda.driver.JCudaDriver.cuLaunchHostFunc;
import static jcuda.driver.JCudaDriver.cuMemAllocHost;
import static jcuda.driver.JCudaDriver.cuMemFree;
import static jcuda.driver.JCudaDriver.cuMemFreeHost;
import static jcuda.driver.JCudaDriver.cuMemHostGetDevicePointer;
import static jcuda.driver.JCudaDriver.cuMemHostRegister;
import static jcuda.driver.JCudaDriver.cuMemHostUnregister;
import static jcuda.driver.JCudaDriver.cuMemcpyDtoH;
import static jcuda.driver.JCudaDriver.cuModuleGetFunction;
import static jcuda.driver.JCudaDriver.cuModuleGetGlobal;
import static jcuda.driver.JCudaDriver.cuModuleLoadData;
import static jcuda.driver.JCudaDriver.cuStreamAddCallback;
import static jcuda.driver.JCudaDriver.cuStreamCreate;
import static jcuda.driver.JCudaDriver.cuStreamDestroy;
import static jcuda.driver.JCudaDriver.cuStreamQuery;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.zip.CRC32;
import jcuda.Pointer;
import jcuda.driver.CUcontext;
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

/**
 * One program's run on the {@link ScriptedProgramPlayer}: the buffers, streams, events, graphs,
 * application threads and second context it made, the queries after each call, and what it
 * observed; {@link ScriptedRun} makes its calls. Released at the run's end ({@link #close}).
 *
 * <p>Not thread-safe: the player makes its calls one at a time, each from the application thread it
 * names while the player waits for it.
 */
abstract class ScriptedRunResources {
  final ScriptedProgramPlayer player;
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

  ScriptedRunResources(ScriptedProgramPlayer player, String name, boolean alone) {
    this.player = player;
    this.name = name;
    this.alone = alone;
  }

  ExecutorService worker(int thread) {
    return workers.computeIfAbsent(thread, t -> Executors.newSingleThreadExecutor(r -> {
      Thread th = new Thread(() -> {
        cuCtxSetCurrent(player.context);
        r.run();
      }, "application-" + t);
      th.setDaemon(true);
      return th;
    }));
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
        rc(i, "cuStreamQuery " + s.getKey(), cuStreamQuery(player.serial ? stream("0") : s.getValue()));
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
    check(cuCtxCreate(otherContext, 0, player.device), "cuCtxCreate");
    otherThread = Thread.currentThread();
    otherModule = new CUmodule();
    check(cuModuleLoadData(otherModule, player.ptx), "cuModuleLoadData");
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
    return otherBuffers.contains(num(buf)) ? otherContext : player.context;
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
      rc(i, "cuModuleGetGlobal", cuModuleGetGlobal(constant, new long[1], player.module, "kw_constant"));
    }
    return constant;
  }

  CUstream stream(String handle) {
    long h = Long.parseLong(handle);
    if (h == 0 || player.serial) {
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
