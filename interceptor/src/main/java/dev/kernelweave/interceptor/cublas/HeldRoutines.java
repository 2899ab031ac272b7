package dev.kernelweave.interceptor.cublas;

import dev.kernelweave.call.AccessMode;
import dev.kernelweave.call.CallRecord;
import dev.kernelweave.interceptor.jcuda.HeldCallIssuer;
import dev.kernelweave.interceptor.jcuda.JCudaPointers;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.Arrays;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicReferenceArray;
import jcuda.Pointer;
import jcuda.driver.CUstream;
import jcuda.jcublas.JCublas2;
import jcuda.jcublas.cublasHandle;
import jcuda.runtime.cudaStream_t;

/**
 * cuBLAS routines that the context's launch windows may hold and replay in a CUDA graph, as they
 * hold kernel launches: a routine is described by an id standing for everything but its pointers
 * (the routine, the application handle as configured now, every size, leading dimension and
 * enumeration), and by parameter bytes holding its pointers and, in host pointer mode, the values
 * of its scalars, copied at the call. The windows hold a routine only once the same id succeeded
 * when issued at once in the context, so that its synchronous errors (bad sizes, a bad handle)
 * are known not to occur; a graph is replayed only for equal ids and bytes.
 *
 * <p>Held routines run on the shadows of the application's handle ({@link ShadowHandles}): one per
 * agent stream when issued one by one, one per capture stream when captured. Only routines on a
 * handle with cuBLAS's default workspace are held: such a capture takes its scratch memory inside
 * the graph (stream-ordered), while a buffer the application set is shared by every graph captured
 * on a shadow and could be freed while a replay still runs.
 *
 * <p>Thread-safe: ids are handed out under a concurrent map; issuing runs under the context's
 * scheduling lock.
 */
final class HeldRoutines implements HeldCallIssuer {

  /** Ids carry this bit, so that no id equals a kernel's function handle. */
  static final long ID_TAG = 1L << 62;
  /** The most ids handed out; routines beyond that many configurations are never held. */
  static final int MAX_IDS = 4096;

  private static final Shape NOT_HELD = new Shape(null, new int[0], new int[0]);

  /** How a routine's arguments split into held pointers and id values, and its native method. */
  private record Shape(MethodHandle nativeCall, int[] pointers, int[] values) {}

  /**
   * One id's key: the routine, the handle at one generation, and the values of its other arguments.
   * A thread's probe is refilled for every lookup (allocation-free); a registered key is a copy and
   * never changes.
   */
  private static final class Entry {
    BlasSignature signature;
    Shape shape;
    ShadowHandles.Handle handle;
    int generation;
    long[] values = new long[8];
    int valueCount;
    int hash;
    /** Registered entries only: the arguments with the handle and pointers left out, and the id. */
    Object[] template;
    long id;

    void set(BlasSignature signature, Shape shape, ShadowHandles.Handle handle, Object[] args) {
      this.signature = signature;
      this.shape = shape;
      this.handle = handle;
      this.generation = handle.generation();
      int n = shape.values.length;
      if (values.length < n) {
        values = new long[n];
      }
      valueCount = n;
      int h = (System.identityHashCode(signature) * 31 + System.identityHashCode(handle)) * 31 + generation;
      for (int k = 0; k < n; k++) {
        Object v = args[shape.values[k]];
        long value = v instanceof Integer i ? i : (Long) v;
        values[k] = value;
        h = h * 31 + Long.hashCode(value);
      }
      hash = h;
    }

    Entry copy() {
      Entry e = new Entry();
      e.signature = signature;
      e.shape = shape;
      e.handle = handle;
      e.generation = generation;
      e.values = Arrays.copyOf(values, valueCount);
      e.valueCount = valueCount;
      e.hash = hash;
      return e;
    }

    @Override
    public boolean equals(Object o) {
      return o instanceof Entry e && e.signature == signature && e.handle == handle && e.generation == generation
          && Arrays.equals(e.values, 0, e.valueCount, values, 0, valueCount);
    }

    @Override
    public int hashCode() {
      return hash;
    }
  }


  /**
   * Each thread's key for looking an id up, refilled at every lookup so that describing a routine
   * allocates nothing; owned by this table, whose lookups alone use it.
   */
  private final ThreadLocal<Entry> probe = ThreadLocal.withInitial(Entry::new);
  private final ShadowHandles shadows;
  private final ConcurrentHashMap<BlasSignature, Shape> shapes = new ConcurrentHashMap<>();
  private final ConcurrentHashMap<Entry, Entry> ids = new ConcurrentHashMap<>();
  private final AtomicReferenceArray<Entry> byId = new AtomicReferenceArray<>(MAX_IDS);
  private int issuedIds;

  HeldRoutines(ShadowHandles shadows) {
    this.shadows = shadows;
  }

  /**
   * Gives a routine about to be placed its id ({@link CallRecord#function}) and parameter bytes when
   * it could be held; leaves {@code function} 0 otherwise (pointer arrays, host memory, scalars the
   * host may change, a workspace the application set).
   */
  void describe(CallRecord r, BlasSignature signature, ShadowHandles.Handle handle, Object[] args) {
    if (r.touchesUnknownMemory || r.touchesHostMemory || handle == null || !handle.onDefaultWorkspace()) {
      return;
    }
    Shape shape = shapes.get(signature);
    if (shape == null) {
      shape = shapes.computeIfAbsent(signature, HeldRoutines::shapeOf);
    }
    Entry e = null;
    if (shape != NOT_HELD && addPointers(r, signature, shape, handle.devicePointerMode(), args)) {
      Entry probe = this.probe.get();
      probe.set(signature, shape, handle, args);
      e = ids.get(probe);
      if (e == null) {
        e = register(probe, args);
      }
    }
    if (e == null) {
      r.paramCount = 0; // not held: no parameters half-written
      r.paramOffsets[0] = 0;
      return;
    }
    r.function = e.id;
  }

  private synchronized Entry register(Entry probe, Object[] args) {
    Entry known = ids.get(probe);
    if (known != null) {
      return known;
    }
    if (issuedIds == MAX_IDS) {
      return null;
    }
    Entry fresh = probe.copy();
    Object[] template = args.clone();
    template[fresh.signature.handleIndex()] = null;
    for (int i : fresh.shape.pointers) {
      template[i] = null;
    }
    fresh.template = template;
    fresh.id = ID_TAG | issuedIds;
    byId.set(issuedIds++, fresh);
    ids.put(fresh, fresh);
    return fresh;
  }

  /** Copies the pointers and host scalars into the record's parameters; false when one cannot be held. */
  private static boolean addPointers(CallRecord r, BlasSignature signature, Shape shape, boolean deviceScalars,
      Object[] args) {
    for (int i : shape.pointers) {
      if (!(args[i] instanceof Pointer p)) {
        return false;
      }
      BlasOperandRole role = signature.role(i);
      if (role.followsPointerMode() && !deviceScalars) {
        // The value, read now: the application may change its array once the call returned.
        int size = role.access() == AccessMode.READ && JCudaPointers.isJavaMemory(p)
            ? JCudaPointers.parameterSize(p) : -1;
        if (size <= 0 || JCudaPointers.copyParameter(p, r.paramBytes, r.addParam(size)) != size) {
          return false;
        }
      } else {
        long address = JCudaPointers.isJavaMemory(p) ? 0 : JCudaPointers.address(p);
        if (address == 0) {
          return false;
        }
        r.addParam(address, Long.BYTES);
      }
    }
    return true;
  }

  @Override
  public int prepare(CallRecord call, CUstream stream) {
    Entry e = entry(call);
    cublasHandle h = shadows.forCall(e.handle, new cudaStream_t(stream));
    if (h instanceof ShadowHandles.Shadow s) {
      shadows.callEnded(s);
      return s.isOrdered() ? CUBLAS_STATUS_NOT_SUPPORTED : 0;
    }
    return CUBLAS_STATUS_NOT_SUPPORTED; // the application's own handle cannot be captured on
  }

  @Override
  public int issue(CallRecord call, CUstream stream) {
    Entry e = entry(call);
    Object[] args = e.template.clone();
    int param = 0;
    boolean deviceScalars = e.handle.devicePointerMode();
    for (int i : e.shape.pointers) {
      if (e.signature.role(i).followsPointerMode() && !deviceScalars) {
        args[i] = Pointer.to(Arrays.copyOfRange(call.paramBytes, call.paramOffsets[param], call.paramOffsets[param + 1]));
      } else {
        Pointer p = new Pointer();
        JCudaPointers.setNativePointer(p, call.paramAsLong(param));
        args[i] = p;
      }
      param++;
    }
    cublasHandle h = shadows.forCall(e.handle, new cudaStream_t(stream));
    ShadowHandles.Shadow shadow = h instanceof ShadowHandles.Shadow s ? s : null;
    try {
      if (shadow != null && shadow.isOrdered()) {
        shadows.orderBefore(shadow);
      }
      args[e.signature.handleIndex()] = h;
      return (int) e.shape.nativeCall.invokeWithArguments(args);
    } catch (Throwable t) {
      throw new IllegalStateException("cuBLAS " + e.signature.name() + " could not be issued: " + t, t);
    } finally {
      if (shadow != null) {
        shadows.callEnded(shadow);
      }
    }
  }

  private Entry entry(CallRecord call) {
    Entry e = (call.function & ID_TAG) != 0 ? byId.get((int) (call.function & ~ID_TAG)) : null;
    if (e == null) {
      throw new IllegalArgumentException("not a held cuBLAS routine: " + call.name);
    }
    return e;
  }

  private static final int CUBLAS_STATUS_NOT_SUPPORTED = 15;

  /**
   * Which arguments of a routine are held pointers and which are id values, and the native method
   * JCublas2's wrapper calls; {@link #NOT_HELD} for a routine that is never held.
   */
  private static Shape shapeOf(BlasSignature signature) {
    if (signature.kind() != BlasRoutineKind.DEVICE_ROUTINE || signature.handleIndex() != 0
        || signature.delegatesTo() != null || signature.hasPointerArrays()) {
      return NOT_HELD;
    }
    try {
      MethodType type = MethodType.fromMethodDescriptorString(signature.descriptor(), JCublas2.class.getClassLoader());
      int[] pointers = new int[type.parameterCount()];
      int[] values = new int[type.parameterCount()];
      int p = 0;
      int v = 0;
      for (int i = 1; i < type.parameterCount(); i++) {
        Class<?> t = type.parameterType(i);
        BlasOperandRole role = signature.role(i);
        if ((t == int.class || t == long.class) && role == BlasOperandRole.NONE) {
          values[v++] = i;
        } else if (Pointer.class.isAssignableFrom(t) && role != BlasOperandRole.NONE && !role.isHostMemory()
            && !role.isPointerArray()) {
          pointers[p++] = i;
        } else {
          return NOT_HELD;
        }
      }
      if (!cublasHandle.class.equals(type.parameterType(0)) || type.returnType() != int.class) {
        return NOT_HELD;
      }
      Method m = JCublas2.class.getDeclaredMethod(signature.name() + "Native", type.parameterArray());
      if (!Modifier.isStatic(m.getModifiers()) || !Modifier.isNative(m.getModifiers()) || m.getReturnType() != int.class) {
        return NOT_HELD;
      }
      m.setAccessible(true);
      return new Shape(MethodHandles.lookup().unreflect(m), Arrays.copyOf(pointers, p), Arrays.copyOf(values, v));
    } catch (ReflectiveOperationException | RuntimeException | LinkageError e) {
      return NOT_HELD;
    }
  }
}
