package dev.kernelweave.interceptor.selftest;

import dev.kernelweave.call.PriorityClass;
import static jcuda.driver.JCudaDriver.cuLaunchKernel;
import static jcuda.driver.JCudaDriver.cuMemAlloc;
import static jcuda.driver.JCudaDriver.cuMemAllocHost;
import static jcuda.driver.JCudaDriver.cuMemFree;
import static jcuda.driver.JCudaDriver.cuMemFreeHost;
import static jcuda.driver.JCudaDriver.cuMemcpyDtoDAsync;
import static jcuda.driver.JCudaDriver.cuMemcpyDtoH;
import static jcuda.driver.JCudaDriver.cuMemcpyDtoHAsync;
import static jcuda.driver.JCudaDriver.cuMemcpyHtoD;
import static jcuda.driver.JCudaDriver.cuMemsetD8;
import static jcuda.driver.JCudaDriver.cuMemsetD8Async;
import static jcuda.driver.JCudaDriver.cuStreamSynchronize;

import dev.kernelweave.call.CallRecord;
import dev.kernelweave.interceptor.jcuda.JCudaGraphDevice;
import dev.kernelweave.interceptor.jcuda.JCudaNatives;
import dev.kernelweave.interceptor.jcuda.JCudaPointers;
import dev.kernelweave.interceptor.jcuda.JCudaStreamDevice;
import dev.kernelweave.scheduler.GraphDevice;
import dev.kernelweave.selftest.Kernel;
import dev.kernelweave.selftest.ProgramTarget;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import jcuda.Pointer;
import jcuda.driver.CUdeviceptr;
import jcuda.driver.CUevent;
import jcuda.driver.CUfunction;
import jcuda.driver.CUhostFn;
import jcuda.driver.CUstream;
import jcuda.driver.CUstream_flags;
import jcuda.driver.JCudaDriver;

/**
 * The self-test's programs on a real GPU through JCuda: the scheduler's lanes are real streams and
 * events ({@link JCudaStreamDevice}), kernels are the {@code selftest.ptx} ones, application streams
 * are created with the program's flags, {@code 0x2} is {@code CU_STREAM_PER_THREAD}, host functions
 * are {@code cuLaunchHostFunc} callbacks that wait for their gate on a latch, held launches and
 * their graphs go through the agent's own {@link JCudaGraphDevice}. One target per program
 * run; it frees everything it made on close. Not thread-safe.
 *
 * <p>The program's application threads are calls made one after another from the one thread that
 * runs the target, so every {@code 0x2} names that thread's per-thread stream: more ordering than
 * the program's threads would have, never less.
 */
final class JCudaProgramTarget implements ProgramTarget {

  private static final int BLOCK = Kernel.BLOCK;
  /** The host page size registrations are rounded to. */
  private static final int PAGE = 4096;

  private final GpuSession session;
  private final int streams;
  private final JCudaStreamDevice lanes;
  private final List<Long> deviceAllocations = new ArrayList<>();
  /** JCuda's own pointer objects for page-locked memory: only they carry the buffer Java reads through. */
  private final TreeMap<Long, Pointer> hostAllocations = new TreeMap<>();
  /** Java's view of each host allocation, page-locked or registered, by address. */
  private final TreeMap<Long, ByteBuffer> hostBuffers = new TreeMap<>();
  private final List<Pointer> registered = new ArrayList<>();
  private final Map<Integer, CountDownLatch> gates = new HashMap<>();
  private final Map<Integer, CUevent> appEvents = new HashMap<>();
  private final List<CUevent> createdEvents = new ArrayList<>();
  private final JCudaGraphDevice graphDevice;
  /** The graphs captured and not yet destroyed, destroyed on close. */
  private final java.util.Set<Long> liveGraphs = new java.util.HashSet<>();
  private final GraphDevice graphs;

  JCudaProgramTarget(GpuSession session, int streams) {
    this.session = session;
    this.streams = streams;
    this.lanes = new JCudaStreamDevice(streams);
    this.graphDevice = new JCudaGraphDevice(lanes);
    this.graphs = new GraphDevice() {
      @Override
      public int launch(CallRecord call, int lane) {
        return graphDevice.launch(call, lane);
      }

      @Override
      public long capture(CallRecord[] calls, int count, int[] predecessorStart, int[] predecessors) {
        long graph = graphDevice.capture(calls, count, predecessorStart, predecessors);
        liveGraphs.add(graph);
        return graph;
      }

      @Override
      public int launchGraph(long graph, int lane) {
        return graphDevice.launchGraph(graph, lane);
      }

      @Override
      public void destroyGraph(long graph) {
        liveGraphs.remove(graph);
        graphDevice.destroyGraph(graph);
      }
    };
  }

  @Override
  public GraphDevice graphs() {
    return graphs;
  }

  @Override
  public long function(Kernel kernel) {
    return JCudaPointers.nativePointer(session.function(kernel));
  }

  @Override
  public long readsConstantFunction() {
    return JCudaPointers.nativePointer(session.readsConstant());
  }

  @Override
  public long withoutPtxFunction() {
    return JCudaPointers.nativePointer(session.withoutPtx());
  }

  @Override
  public int streams() {
    return streams;
  }

  @Override
  public void createStream(int lane) {
    lanes.createStream(lane);
  }

  @Override
  public void createStream(int lane, PriorityClass priority) {
    lanes.createStream(lane, priority);
  }

  @Override
  public void createEvent(int event) {
    lanes.createEvent(event);
  }

  @Override
  public void recordEvent(int event, int lane) {
    lanes.recordEvent(event, lane);
  }

  @Override
  public void waitEvent(int lane, int event) {
    if (lane > streams) {
      JCudaDriver.cuStreamWaitEvent(stream(lane), lanes.event(event), 0);
    } else {
      lanes.waitEvent(lane, event);
    }
  }

  /** The self-test's application streams: real blocking streams, lanes after the legacy one. */
  private final java.util.List<CUstream> appStreams = new java.util.ArrayList<>();
  private final java.util.List<CUstream> createdStreams = new java.util.ArrayList<>();
  private final java.util.Map<Long, Integer> appLanes = new java.util.HashMap<>();

  @Override
  public int appStreamLane(long handle) {
    if (handle == 0 || handle == 1) {
      return streams;
    }
    return appLanes.computeIfAbsent(handle, h -> newAppStream(h, false));
  }

  @Override
  public void callingThread(int thread) {
    // One Java thread makes every call: 0x2 is its per-thread stream whichever thread the program names.
  }

  @Override
  public void createAppStream(long handle, boolean nonBlocking) {
    appLanes.put(handle, newAppStream(handle, nonBlocking));
  }

  private int newAppStream(long handle, boolean nonBlocking) {
    if (handle == 2) {
      appStreams.add(JCudaDriver.CU_STREAM_PER_THREAD);
    } else {
      CUstream s = new CUstream();
      JCudaDriver.cuStreamCreate(s, nonBlocking ? CUstream_flags.CU_STREAM_NON_BLOCKING : 0);
      appStreams.add(s);
      createdStreams.add(s);
    }
    return streams + appStreams.size();
  }

  @Override
  public void waitEventOnAppStream(long appStream, int event) {
    waitEvent(appStreamLane(appStream), event);
  }

  private CUstream stream(int lane) {
    return lane > streams ? appStreams.get(lane - streams - 1) : lanes.stream(lane);
  }

  @Override
  public void synchronizeEvent(int event) {
    lanes.synchronizeEvent(event);
  }

  @Override
  public void synchronizeDevice() {
    lanes.synchronizeDevice();
  }

  @Override
  public long allocDevice(int bytes) {
    CUdeviceptr p = new CUdeviceptr();
    cuMemAlloc(p, Math.max(bytes, 4));
    long address = JCudaPointers.address(p);
    deviceAllocations.add(address);
    return address;
  }

  @Override
  public void freeDevice(long address) {
    cuMemFree(device(address));
    deviceAllocations.remove(Long.valueOf(address));
  }

  @Override
  public long allocHost(int bytes) {
    Pointer p = new Pointer();
    cuMemAllocHost(p, Math.max(bytes, 4));
    ByteBuffer b = p.getByteBuffer(0, Math.max(bytes, 4));
    while (b.hasRemaining()) {
      b.put((byte) 0);
    }
    long address = JCudaPointers.address(p);
    hostAllocations.put(address, p);
    hostBuffers.put(address, p.getByteBuffer(0, Math.max(bytes, 4)));
    return address;
  }

  @Override
  public long registerHost(int bytes) {
    // Registered portable and mapped: a kernel may write it directly.
    ByteBuffer buffer = wholePages(bytes);
    Pointer p = Pointer.to(buffer);
    JCudaDriver.cuMemHostRegister(p, buffer.capacity(), 0x01 | 0x02);
    // The address kernels and copies use is the mapped one, asked of the driver: reading a direct
    // buffer's address needs java.nio opened, which the agent's premain does and this command not.
    CUdeviceptr mapped = new CUdeviceptr();
    JCudaDriver.cuMemHostGetDevicePointer(mapped, p, 0);
    long address = JCudaPointers.address(mapped);
    hostAllocations.put(address, p);
    hostBuffers.put(address, buffer);
    registered.add(p);
    return address;
  }

  /**
   * Ordinary memory of at least {@code bytes} (4 at least) in whole pages of its own, shared with
   * no other buffer. {@code alignedSlice} rounds both ends to the page, so one page more than the
   * whole pages needed leaves at least those.
   */
  static ByteBuffer wholePages(int bytes) {
    int pages = (Math.max(bytes, 4) + PAGE - 1) / PAGE * PAGE;
    return ByteBuffer.allocateDirect(pages + PAGE).alignedSlice(PAGE);
  }

  @Override
  public byte[] readHost(long address, int bytes) {
    byte[] copy = new byte[bytes];
    hostBuffer(address).get(copy);
    return copy;
  }

  @Override
  public void writeHost(long address, byte[] data) {
    hostBuffer(address).put(data);
  }

  /** Java's view of host memory from {@code address} to the end of its allocation. */
  private ByteBuffer hostBuffer(long address) {
    Map.Entry<Long, ByteBuffer> allocation = hostBuffers.floorEntry(address);
    return allocation.getValue().duplicate().position((int) (address - allocation.getKey())).slice()
        .order(java.nio.ByteOrder.LITTLE_ENDIAN);
  }

  @Override
  public long moduleConstant() {
    return JCudaPointers.address(session.constant());
  }

  @Override
  public void launchReadingConstant(int lane, long out, int n, int k) {
    Pointer params = Pointer.to(Pointer.to(new long[] {out}), Pointer.to(new int[] {n}), Pointer.to(new int[] {k}));
    cuLaunchKernel(session.readsConstant(), blocks(n), 1, 1, BLOCK, 1, 1, 0, stream(lane), params, null);
  }

  @Override
  public void launchWithoutPtx(int lane, long slot, int n, int k) {
    Pointer params = Pointer.to(Pointer.to(new long[] {slot}), Pointer.to(new int[] {n}), Pointer.to(new int[] {k}));
    cuLaunchKernel(session.withoutPtx(), blocks(n), 1, 1, BLOCK, 1, 1, 0, stream(lane), params, null);
  }

  @Override
  public void launchHostFunction(int lane, int gate, long src, long dst, int bytes) {
    CountDownLatch open = gate >= 0 ? gates.computeIfAbsent(gate, g -> new CountDownLatch(1)) : null;
    ByteBuffer from = hostBuffer(src);
    ByteBuffer to = hostBuffer(dst);
    CUhostFn function = userData -> {
      try {
        // Bounded, so that a scheduler that never lets the host open the gate fails instead of hanging.
        if (open != null && !open.await(60, TimeUnit.SECONDS)) {
          return;
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      }
      for (int i = 0; i < bytes / 4; i++) {
        to.putInt(4 * i, from.getInt(4 * i) * 5 + 1);
      }
    };
    JCudaDriver.cuLaunchHostFunc(stream(lane), function, null);
  }

  @Override
  public void openGate(int gate) {
    gates.computeIfAbsent(gate, g -> new CountDownLatch(1)).countDown();
  }

  @Override
  public void copyHostToDeviceAsync(int lane, long dst, long hostSrc, int bytes) {
    JCudaDriver.cuMemcpyHtoDAsync(device(dst), host(hostSrc), bytes, stream(lane));
  }

  @Override
  public void waitAppEvent(int lane, int appEvent) {
    CUevent e = appEvents.get(appEvent);
    if (e != null) {
      JCudaDriver.cuStreamWaitEvent(stream(lane), e, 0);
    }
  }

  @Override
  public void launch(int lane, Kernel kernel, long out, long in1, long in2, int n, int k) {
    CUfunction f = session.function(kernel);
    Pointer params = Pointer.to(Pointer.to(new long[] {out}), Pointer.to(new long[] {in1}),
        Pointer.to(new long[] {in2}), Pointer.to(new int[] {n}), Pointer.to(new int[] {k}));
    cuLaunchKernel(f, blocks(n), 1, 1, BLOCK, 1, 1, 0, stream(lane), params, null);
  }

  private static int blocks(int n) {
    return Kernel.blocks(n);
  }

  @Override
  public void copyHostToDevice(long dst, byte[] src) {
    cuMemcpyHtoD(device(dst), Pointer.to(src), src.length);
  }

  @Override
  public void copyDeviceToHost(byte[] dst, long src) {
    cuMemcpyDtoH(Pointer.to(dst), device(src), dst.length);
  }

  @Override
  public void copyDeviceToHostAsync(int lane, long hostDst, long src, int bytes) {
    cuMemcpyDtoHAsync(host(hostDst), device(src), bytes, stream(lane));
  }

  @Override
  public void copyDeviceToDevice(int lane, long dst, long src, int bytes) {
    cuMemcpyDtoDAsync(device(dst), device(src), bytes, stream(lane));
  }

  @Override
  public void memset(int lane, long dst, byte value, int bytes) {
    if (lane == streams) {
      cuMemsetD8(device(dst), value, bytes);
    } else {
      cuMemsetD8Async(device(dst), value, bytes, stream(lane));
    }
  }

  @Override
  public void synchronizeLane(int lane) {
    cuStreamSynchronize(stream(lane));
  }

  @Override
  public void recordAppEvent(int appEvent, int lane) {
    CUevent e = appEvents.computeIfAbsent(appEvent, id -> {
      CUevent created = new CUevent();
      JCudaNatives.createEvent(created);
      createdEvents.add(created);
      return created;
    });
    JCudaDriver.cuEventRecord(e, stream(lane));
  }

  @Override
  public void synchronizeAppEvent(int appEvent) {
    CUevent e = appEvents.get(appEvent);
    if (e != null) {
      JCudaDriver.cuEventSynchronize(e);
    }
  }

  @Override
  public void close() {
    JCudaNatives.synchronizeContext();
    for (long graph : List.copyOf(liveGraphs)) {
      graphs.destroyGraph(graph);
    }
    graphDevice.close();
    for (long a : deviceAllocations) {
      cuMemFree(device(a));
    }
    for (Pointer p : registered) {
      JCudaDriver.cuMemHostUnregister(p);
    }
    for (Pointer p : hostAllocations.values()) {
      if (!registered.contains(p)) {
        cuMemFreeHost(p);
      }
    }
    for (CUstream s : createdStreams) {
      JCudaDriver.cuStreamDestroy(s);
    }
    for (CUevent e : createdEvents) {
      JCudaDriver.cuEventDestroy(e);
    }
    lanes.close();
  }

  private static CUdeviceptr device(long address) {
    CUdeviceptr p = new CUdeviceptr();
    JCudaPointers.setNativePointer(p, address);
    return p;
  }

  private Pointer host(long address) {
    Map.Entry<Long, Pointer> allocation = hostAllocations.floorEntry(address);
    return allocation.getValue().withByteOffset(address - allocation.getKey());
  }
}
