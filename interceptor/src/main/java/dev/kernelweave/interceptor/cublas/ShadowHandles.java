package dev.kernelweave.interceptor.cublas;

import dev.kernelweave.interceptor.AgentLog;
import dev.kernelweave.interceptor.jcuda.JCudaPointers;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import jcuda.driver.CUdeviceptr;
import jcuda.jcublas.cublasHandle;
import jcuda.runtime.cudaStream_t;

/**
 * What the agent knows of each application cuBLAS handle (its stream, its settings, its workspace)
 * and the handle's shadows: one cuBLAS handle of the agent's per (application handle, agent
 * stream), created on first use, bound to that stream for its whole life and configured like the
 * application's handle. A routine the agent places on one of its streams runs on that stream's
 * shadow; a routine that stays on the application's stream runs on the application's handle. The
 * agent never modifies an application handle: it only reads its settings, once, for a handle it
 * did not see created.
 *
 * <p><b>Settings.</b> A shadow is created with the pointer mode, math mode, atomics mode and SM count
 * target ({@link BlasSetting}) and the workspace the application last gave its handle; a setting the
 * application changes later is applied to every shadow of the handle at once.
 *
 * <p><b>Workspaces.</b> Two shadows of one handle may run at once, so they never share scratch
 * memory. When the application set a workspace of N bytes ({@code cublasSetWorkspace}), each shadow
 * gets a buffer of its own of N bytes, allocated by the agent, so that cuBLAS chooses the same
 * algorithms as on the application's handle (N = 0: no workspace, no buffer). When the application
 * set none, or {@code cublasSetStream} put its handle back on the default workspace, each shadow is
 * on cuBLAS's default workspace, which belongs to that shadow alone. A shadow keeps its buffer while
 * the size stays the same; a buffer replaced by one of another size is freed once the shadow's
 * stream has finished the work queued on it; the last one is freed with the shadow.
 *
 * <p><b>Ordered stand-ins.</b> When a shadow cannot be created or configured (the device is out of
 * memory, say), or after {@link #retireAll}, the routine runs on the application's handle and
 * stream instead, ordered on the device after the work queued on the agent's stream and before the
 * work queued there later ({@link Shadow#isOrdered}): slower, never wrong.
 *
 * <p><b>Thread safety.</b> {@link #lookup} and {@link #forCall} on an existing shadow are lock-free
 * and allocate nothing. Changes take the application handle's monitor; the host never waits on the
 * device while holding it (buffers are freed and shadows destroyed after it is released).
 * Invariant: a shadow is destroyed only when no call is using it: retiring one (its application
 * handle destroyed, a setting it could not take, the agent's fallback) removes it from its handle
 * and marks it, and whichever of the retirement and its last user comes last destroys it.
 */
public final class ShadowHandles {

  /** {@link Handle}'s and {@link Shadow}'s workspace when it is cuBLAS's default one. */
  static final long DEFAULT_WORKSPACE = -1;

  private static final int POINTER_MODE_DEVICE = 1;
  private static final Shadow[] NO_SHADOWS = new Shadow[0];
  private static final BlasSetting[] SETTINGS = BlasSetting.values();

  /**
   * The handle a routine runs on in place of the application's, for one agent stream. Never handed
   * to the application.
   */
  public static final class Shadow extends cublasHandle {
    final Handle owner;
    final cudaStream_t lane;
    final long laneAddress;
    private final boolean ordered;
    private final AtomicInteger users = new AtomicInteger();
    private final AtomicBoolean destroyed = new AtomicBoolean();
    private volatile boolean retired;
    /** The agent's workspace buffer, or null. Guarded by {@link #owner}. */
    private CUdeviceptr buffer;
    private long bufferBytes;
    /** The workspace cuBLAS uses for this shadow: {@link #DEFAULT_WORKSPACE} or a byte count. Guarded by {@link #owner}. */
    private long workspaceBytes = DEFAULT_WORKSPACE;

    private Shadow(Handle owner, cudaStream_t lane, long laneAddress, boolean ordered) {
      this.owner = owner;
      this.lane = lane;
      this.laneAddress = laneAddress;
      this.ordered = ordered;
      if (ordered) {
        // The same native handle as the application's: the routine runs there, ordered by events.
        JCudaPointers.setNativePointer(this, owner.address);
      }
    }

    /** Whether this is an ordered stand-in: the application's own native handle, not a cuBLAS handle of the agent's. */
    public boolean isOrdered() {
      return ordered;
    }

    /** The agent stream this shadow runs on. */
    public long laneAddress() {
      return laneAddress;
    }
  }

  /** One application handle as the agent knows it. Its mutable state is guarded by the object itself. */
  public static final class Handle {
    final cublasHandle application;
    final long address;
    private volatile long applicationStream;
    private final int[] settings = new int[SETTINGS.length];
    private volatile int pointerMode;
    private volatile long workspaceBytes = DEFAULT_WORKSPACE;
    /**
     * Counts the changes of the handle's stream, settings and workspace: a routine held for a graph
     * is known per generation ({@link HeldRoutines}), so that no graph captured under other settings
     * is replayed.
     */
    private volatile int generation;
    private volatile Shadow[] shadows = NO_SHADOWS;

    private Handle(cublasHandle application) {
      this.application = application;
      this.address = JCudaPointers.nativePointer(application);
      Arrays.fill(settings, BlasSetting.INITIAL);
    }

    /** The stream the application last set on the handle (0: the legacy default stream). */
    public long applicationStream() {
      return applicationStream;
    }

    /** Whether the handle reads its scalars from device memory. */
    public boolean devicePointerMode() {
      return pointerMode == POINTER_MODE_DEVICE;
    }

    /** Whether routines on the handle use cuBLAS's default workspace, not a buffer the application set. */
    public boolean onDefaultWorkspace() {
      return workspaceBytes == DEFAULT_WORKSPACE;
    }

    /** The count of changes to the handle's stream, settings and workspace so far. */
    public int generation() {
      return generation;
    }
  }

  /** A workspace buffer to free once its stream has finished with it. */
  private record StaleBuffer(cudaStream_t lane, CUdeviceptr buffer) {}

  private final ShadowNatives natives;
  private final ConcurrentHashMap<cublasHandle, Handle> handles = new ConcurrentHashMap<>();
  /** Set by {@link #retireAll}: no more shadows, only ordered stand-ins. */
  private volatile boolean closed;

  ShadowHandles(ShadowNatives natives) {
    this.natives = natives;
  }

  /** The handle as the agent knows it, or null when it has not seen it. Allocates nothing. */
  public Handle lookup(cublasHandle application) {
    return handles.get(application);
  }

  /**
   * The handle as the agent knows it; one the agent did not see created (the agent attached later)
   * is added with the settings read from it, and cuBLAS's default workspace (a workspace set before
   * cannot be read back).
   */
  public Handle of(cublasHandle application) {
    Handle h = handles.get(application);
    if (h != null) {
      return h;
    }
    Handle fresh = new Handle(application);
    if (fresh.address != 0) {
      int[] value = new int[1];
      for (BlasSetting s : SETTINGS) {
        if (natives.get(application, s, value) == 0) {
          fresh.settings[s.ordinal()] = value[0];
        }
      }
      fresh.pointerMode = fresh.settings[BlasSetting.POINTER_MODE.ordinal()];
    }
    h = handles.putIfAbsent(application, fresh);
    return h != null ? h : fresh;
  }

  /** After {@code cublasCreate} succeeded: a handle with cuBLAS's initial settings. */
  public void created(cublasHandle application) {
    Handle old = handles.put(application, new Handle(application));
    if (old != null) {
      retireShadows(old);
    }
  }

  /** After {@code cublasDestroy} succeeded: its shadows are destroyed (once no call uses them). */
  public void destroyed(cublasHandle application) {
    // Found by identity: the destroy may have cleared the object's native handle, which is its hash.
    for (Handle h : handles.values()) {
      if (h.application == application && handles.values().remove(h)) {
        retireShadows(h);
      }
    }
  }

  /**
   * After {@code cublasSetStream} succeeded: the handle's new stream, and cuBLAS's default
   * workspace again, for the application's handle and so for every shadow.
   */
  public void streamSet(cublasHandle application, cudaStream_t stream) {
    Handle h = of(application);
    long address = JCudaPointers.nativePointer(stream);
    if (h.applicationStream != address) {
      synchronized (h) {
        h.applicationStream = address;
        h.generation++;
      }
    }
    workspaceSet(h, DEFAULT_WORKSPACE);
  }

  /** After {@code cublasSetWorkspace} succeeded with {@code bytes} bytes: every shadow gets a buffer of its own of that size. */
  public void workspaceSet(cublasHandle application, long bytes) {
    workspaceSet(of(application), Math.max(0, bytes));
  }

  /** After a setter of a {@link BlasSetting} succeeded: every shadow gets the same value. */
  public void settingSet(cublasHandle application, BlasSetting setting, int value) {
    Handle h = of(application);
    List<Shadow> failed = null;
    synchronized (h) {
      h.settings[setting.ordinal()] = value;
      h.generation++;
      if (setting == BlasSetting.POINTER_MODE) {
        h.pointerMode = value;
      }
      for (Shadow s : h.shadows) {
        if (!s.ordered && natives.set(s, setting, value) != 0) {
          failed = retire(h, s, failed);
        }
      }
    }
    finishRetiring(failed, "could not take a setting");
  }

  /**
   * The handle a routine placed on agent stream {@code lane} runs on: the application's own when the
   * lane is its stream, else the lane's shadow, created on first use. A shadow returned is in use
   * until {@link #callEnded}; an ordered stand-in must be ordered by the caller
   * ({@link #orderBefore}). Allocates nothing once the lane's shadow exists.
   */
  public cublasHandle forCall(Handle h, cudaStream_t lane) {
    long laneAddress = JCudaPointers.nativePointer(lane);
    if (laneAddress == h.applicationStream) {
      return h.application;
    }
    for (Shadow s : h.shadows) {
      if (s.laneAddress == laneAddress) {
        s.users.incrementAndGet();
        if (!s.retired) {
          return s;
        }
        release(s);
        break;
      }
    }
    return createFor(h, lane, laneAddress);
  }

  /** Before the real call on an ordered stand-in: the application's stream waits for the lane's work so far. */
  public void orderBefore(Shadow s) {
    checkOrdered(natives.order(s.owner.applicationStream, s.laneAddress));
  }

  /**
   * After the real call on a shadow returned by {@link #forCall}, before the call's placement is
   * committed: ends its use, and makes the lane wait for an ordered stand-in's routine.
   */
  public void callEnded(Shadow s) {
    try {
      if (s.ordered) {
        checkOrdered(natives.order(s.laneAddress, s.owner.applicationStream));
      }
    } finally {
      release(s);
    }
  }

  /**
   * Scheduling stopped: every shadow is retired (destroyed once no call uses it), and routines still
   * placed on an agent stream from now on run on ordered stand-ins.
   */
  public void retireAll() {
    closed = true;
    for (Handle h : handles.values()) {
      retireShadows(h);
    }
  }

  // ------------------------------------------------------------------ inside

  private cublasHandle createFor(Handle h, cudaStream_t lane, long laneAddress) {
    Shadow s = null;
    List<StaleBuffer> stale = new ArrayList<>(0);
    List<Shadow> failed = new ArrayList<>(0);
    synchronized (h) {
      for (Shadow existing : h.shadows) {
        if (existing.laneAddress == laneAddress) {
          s = existing;
        }
      }
      if (s == null) {
        s = closed ? new Shadow(h, lane, laneAddress, true) : configured(h, lane, laneAddress, stale, failed);
        Shadow[] grown = Arrays.copyOf(h.shadows, h.shadows.length + 1);
        grown[grown.length - 1] = s;
        h.shadows = grown;
      }
      // Retiring takes this monitor too, so the shadow cannot be retired between here and the return.
      s.users.incrementAndGet();
    }
    freeWhenDone(stale);
    failed.forEach(this::destroy);
    return s;
  }

  /**
   * A new shadow on the lane with the handle's settings and workspace, or an ordered stand-in when
   * one cannot be made (a shadow made but not configured goes to {@code failed}, to be destroyed
   * once the monitor is released). Holds the handle's monitor.
   */
  private Shadow configured(Handle h, cudaStream_t lane, long laneAddress, List<StaleBuffer> stale,
      List<Shadow> failed) {
    Shadow s = new Shadow(h, lane, laneAddress, false);
    int status = natives.create(s);
    if (status != 0) {
      AgentLog.warnOnce("cublas-shadow-create", "could not create a cuBLAS handle for an agent stream (cuBLAS status "
          + status + "); routines of that handle are ordered around it instead");
      return new Shadow(h, lane, laneAddress, true);
    }
    status = natives.setStream(s, lane);
    for (BlasSetting setting : SETTINGS) {
      int value = h.settings[setting.ordinal()];
      if (status == 0 && value != BlasSetting.INITIAL) {
        status = natives.set(s, setting, value);
      }
    }
    if (status == 0) {
      status = applyWorkspace(s, h.workspaceBytes, stale);
    }
    if (status != 0) {
      AgentLog.warnOnce("cublas-shadow-configure", "could not configure a cuBLAS handle for an agent stream (status "
          + status + "); routines of that handle are ordered around it instead");
      failed.add(s);
      return new Shadow(h, lane, laneAddress, true);
    }
    return s;
  }

  private void workspaceSet(Handle h, long bytes) {
    List<Shadow> failed = null;
    List<StaleBuffer> stale = new ArrayList<>(0);
    synchronized (h) {
      if (h.workspaceBytes == bytes) {
        return;
      }
      h.workspaceBytes = bytes;
      h.generation++;
      for (Shadow s : h.shadows) {
        if (!s.ordered && applyWorkspace(s, bytes, stale) != 0) {
          failed = retire(h, s, failed);
        }
      }
    }
    freeWhenDone(stale);
    finishRetiring(failed, "could not take a workspace");
  }

  /**
   * Puts a shadow on the workspace its handle uses: the default one, none, or a buffer of its own of
   * that size (replacing a buffer of another size; the old one goes to {@code stale}). Holds the
   * handle's monitor.
   */
  private int applyWorkspace(Shadow s, long bytes, List<StaleBuffer> stale) {
    if (s.workspaceBytes == bytes) {
      return 0;
    }
    int status;
    if (bytes == DEFAULT_WORKSPACE) {
      // Setting the stream is cuBLAS's one way back to the default workspace; the buffer is kept for later.
      status = natives.setStream(s, s.lane);
    } else {
      if (bytes > 0 && s.bufferBytes != bytes) {
        CUdeviceptr fresh = new CUdeviceptr();
        status = natives.allocate(fresh, bytes);
        if (status != 0) {
          return status;
        }
        if (s.buffer != null) {
          stale.add(new StaleBuffer(s.lane, s.buffer));
        }
        s.buffer = fresh;
        s.bufferBytes = bytes;
      }
      status = natives.setWorkspace(s, bytes > 0 ? s.buffer : null, bytes);
    }
    if (status == 0) {
      s.workspaceBytes = bytes;
    }
    return status;
  }

  private void retireShadows(Handle h) {
    List<Shadow> retired = null;
    synchronized (h) {
      for (Shadow s : h.shadows) {
        retired = retire(h, s, retired);
      }
    }
    finishRetiring(retired, null);
  }

  /** Takes a shadow off its handle and marks it; holds the handle's monitor. */
  private static List<Shadow> retire(Handle h, Shadow s, List<Shadow> retired) {
    Shadow[] kept = new Shadow[h.shadows.length];
    int n = 0;
    for (Shadow other : h.shadows) {
      if (other != s) {
        kept[n++] = other;
      }
    }
    h.shadows = n == 0 ? NO_SHADOWS : Arrays.copyOf(kept, n);
    s.retired = true;
    List<Shadow> list = retired != null ? retired : new ArrayList<>();
    list.add(s);
    return list;
  }

  /** Destroys the retired shadows no call is using; the others go with their last user. */
  private void finishRetiring(List<Shadow> retired, String why) {
    if (retired == null) {
      return;
    }
    if (why != null) {
      AgentLog.warnOnce("cublas-shadow-" + why, "a cuBLAS handle of the agent " + why + "; it is replaced");
    }
    for (Shadow s : retired) {
      if (s.users.get() == 0) {
        destroy(s);
      }
    }
  }

  private void release(Shadow s) {
    if (s.users.decrementAndGet() == 0 && s.retired) {
      destroy(s);
    }
  }

  /** Destroys a shadow once, then frees its buffer (destroying a handle synchronizes the device). */
  private void destroy(Shadow s) {
    if (!s.destroyed.compareAndSet(false, true) || s.ordered) {
      return;
    }
    natives.destroy(s);
    CUdeviceptr buffer;
    synchronized (s.owner) {
      buffer = s.buffer;
      s.buffer = null;
      s.bufferBytes = 0;
    }
    if (buffer != null) {
      natives.free(buffer);
    }
  }

  private void freeWhenDone(List<StaleBuffer> stale) {
    for (StaleBuffer b : stale) {
      natives.synchronize(b.lane());
      natives.free(b.buffer());
    }
  }

  private static void checkOrdered(int status) {
    if (status != 0) {
      // A sticky error, most likely: the application's next call reports it.
      AgentLog.warnOnce("cublas-order", "could not order a cuBLAS routine with an event: CUDA error " + status);
    }
  }
}
