package dev.kernelweave.interceptor.selftest;

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

import dev.kernelweave.interceptor.jcuda.JCudaNatives;
import dev.kernelweave.interceptor.jcuda.JCudaPointers;
import dev.kernelweave.interceptor.jcuda.JCudaStreamDevice;
import dev.kernelweave.selftest.Kernel;
import dev.kernelweave.selftest.ProgramTarget;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import jcuda.Pointer;
import jcuda.driver.CUdeviceptr;
import jcuda.driver.CUevent;
import jcuda.driver.CUfunction;
import jcuda.driver.CUstream;
import jcuda.driver.JCudaDriver;

/**
 * The self-test's programs on a real GPU through JCuda: the scheduler's lanes are real streams and
 * events ({@link JCudaStreamDevice}), kernels are the {@code selftest.ptx} ones. One target per
 * program run; it frees everything it made on close. Not thread-safe.
 */
final class JCudaProgramTarget implements ProgramTarget {

  private static final int BLOCK = 128;

  private final GpuSession session;
  private final int streams;
  private final JCudaStreamDevice lanes;
  private final List<Long> deviceAllocations = new ArrayList<>();
  /** JCuda's own pointer objects for page-locked memory: only they carry the buffer Java reads through. */
  private final TreeMap<Long, Pointer> hostAllocations = new TreeMap<>();
  private final Map<Integer, CUevent> appEvents = new HashMap<>();
  private final List<CUevent> createdEvents = new ArrayList<>();

  JCudaProgramTarget(GpuSession session, int streams) {
    this.session = session;
    this.streams = streams;
    this.lanes = new JCudaStreamDevice(streams);
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
  private final java.util.Map<Long, Integer> appLanes = new java.util.HashMap<>();

  @Override
  public int appStreamLane(long handle) {
    if (handle == 0 || handle == 1) {
      return streams;
    }
    return appLanes.computeIfAbsent(handle, h -> {
      CUstream s = new CUstream();
      JCudaDriver.cuStreamCreate(s, 0);
      appStreams.add(s);
      return streams + appStreams.size();
    });
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
    return address;
  }

  @Override
  public byte[] readHost(long address, int bytes) {
    byte[] copy = new byte[bytes];
    Map.Entry<Long, Pointer> allocation = hostAllocations.floorEntry(address);
    allocation.getValue().getByteBuffer(address - allocation.getKey(), bytes).get(copy);
    return copy;
  }

  @Override
  public void launch(int lane, Kernel kernel, long out, long in1, long in2, int n, int k) {
    CUfunction f = session.function(kernel);
    Pointer params = Pointer.to(Pointer.to(new long[] {out}), Pointer.to(new long[] {in1}),
        Pointer.to(new long[] {in2}), Pointer.to(new int[] {n}), Pointer.to(new int[] {k}));
    int blocks = Math.max(1, (n + BLOCK - 1) / BLOCK);
    cuLaunchKernel(f, blocks, 1, 1, BLOCK, 1, 1, 0, stream(lane), params, null);
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
    for (long a : deviceAllocations) {
      cuMemFree(device(a));
    }
    for (Pointer p : hostAllocations.values()) {
      cuMemFreeHost(p);
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
