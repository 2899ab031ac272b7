package dev.kernelweave.interceptor.cublas;

import dev.kernelweave.interceptor.jcuda.JCudaPointers;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import jcuda.NativePointerObject;
import jcuda.driver.CUdeviceptr;
import jcuda.jcublas.cublasHandle;
import jcuda.runtime.cudaStream_t;

/**
 * Records the calls {@link ShadowHandles} makes as lines such as {@code "create s1"} or
 * {@code "workspace s1 b1 4096"}, naming handles, buffers and streams by the order they appeared.
 * Application handles are registered with {@link #application}: any call that would change one is
 * recorded in {@link #violations}. Thread-safe (synchronized).
 */
final class FakeShadowNatives implements ShadowNatives {

  final List<String> log = new ArrayList<>();
  final List<String> violations = new ArrayList<>();
  final Map<BlasSetting, Integer> applicationSettings = new HashMap<>();
  /** Status codes to return instead of success, by operation name (create, set, allocate...). */
  final Map<String, Integer> failing = new HashMap<>();
  private final Map<Long, String> names = new HashMap<>();
  private final Set<Long> applications = new HashSet<>();
  private final Set<Long> live = new HashSet<>();
  private int handles;
  private int buffers;
  private int streams;

  synchronized cublasHandle application(String name) {
    cublasHandle h = new cublasHandle();
    long address = 0x10_0000L + 0x100L * applications.size() + 0x100;
    JCudaPointers.setNativePointer(h, address);
    names.put(address, name);
    applications.add(address);
    return h;
  }

  synchronized cudaStream_t stream(String name) {
    cudaStream_t s = new cudaStream_t();
    long address = 0x20_0000L + 0x100L * ++streams;
    JCudaPointers.setNativePointer(s, address);
    names.put(address, name);
    return s;
  }

  synchronized boolean isLive(cublasHandle h) {
    return live.contains(JCudaPointers.nativePointer(h));
  }

  synchronized List<String> drain() {
    List<String> lines = new ArrayList<>(log);
    log.clear();
    return lines;
  }

  synchronized String name(NativePointerObject o) {
    return name(JCudaPointers.nativePointer(o));
  }

  private String name(long address) {
    return address == 0 ? "null" : names.getOrDefault(address, Long.toHexString(address));
  }

  private synchronized int record(String operation, NativePointerObject target, String line) {
    if (target != null && applications.contains(JCudaPointers.nativePointer(target))) {
      violations.add(line);
    }
    log.add(line);
    return failing.getOrDefault(operation, 0);
  }

  @Override
  public synchronized int create(cublasHandle handle) {
    int status = failing.getOrDefault("create", 0);
    if (status == 0) {
      long address = 0x30_0000L + 0x100L * ++handles;
      JCudaPointers.setNativePointer(handle, address);
      names.put(address, "s" + handles);
      live.add(address);
    }
    log.add("create " + (status == 0 ? name(handle) : "failed"));
    return status;
  }

  @Override
  public synchronized int destroy(cublasHandle handle) {
    if (!live.remove(JCudaPointers.nativePointer(handle))) {
      violations.add("destroy of " + name(handle) + ", not a live handle of the agent's");
    }
    return record("destroy", handle, "destroy " + name(handle));
  }

  @Override
  public synchronized int setStream(cublasHandle handle, cudaStream_t stream) {
    return record("setStream", handle, "setStream " + name(handle) + " " + name(stream));
  }

  @Override
  public synchronized int set(cublasHandle handle, BlasSetting setting, int value) {
    return record("set", handle, "set " + name(handle) + " " + setting + " " + value);
  }

  @Override
  public synchronized int get(cublasHandle handle, BlasSetting setting, int[] value) {
    value[0] = applicationSettings.getOrDefault(setting, BlasSetting.INITIAL);
    log.add("get " + name(handle) + " " + setting);
    return 0;
  }

  @Override
  public synchronized int setWorkspace(cublasHandle handle, CUdeviceptr workspace, long bytes) {
    return record("setWorkspace", handle, "workspace " + name(handle) + " " + name(workspace) + " " + bytes);
  }

  @Override
  public synchronized int allocate(CUdeviceptr pointer, long bytes) {
    int status = failing.getOrDefault("allocate", 0);
    if (status == 0) {
      long address = 0x40_0000L + 0x1000L * ++buffers;
      JCudaPointers.setNativePointer(pointer, address);
      names.put(address, "b" + buffers);
    }
    log.add("allocate " + (status == 0 ? name(pointer) : "failed") + " " + bytes);
    return status;
  }

  @Override
  public synchronized int free(CUdeviceptr pointer) {
    return record("free", null, "free " + name(pointer));
  }

  @Override
  public synchronized int synchronize(cudaStream_t stream) {
    return record("synchronize", null, "synchronize " + name(stream));
  }

  @Override
  public synchronized int order(long waiting, long on) {
    return record("order", null, "order " + name(waiting) + " after " + name(on));
  }
}
