package dev.kernelweave.call;

import java.nio.ByteBuffer;
import java.util.Arrays;
import net.openhft.chronicle.bytes.BytesIn;
import net.openhft.chronicle.bytes.BytesOut;
import net.openhft.chronicle.core.io.IORuntimeException;

/**
 * One intercepted call: what the application asked for, the device memory it touches, what the
 * scheduler decided, and how it ended. The same type travels from the interceptor through the
 * scheduler into the journal, and is what the journal reads back.
 *
 * <p>Low garbage: each application thread owns one instance and {@link #reset}s it for every call;
 * arrays grow to the largest call seen and are then reused. Strings held here are constants
 * (call names, kernel names from the module table, cached thread names) and are never built per
 * call.
 *
 * <p>Not thread-safe: an instance belongs to one thread at a time; the journal copies it with
 * {@link #copyFrom} before handing it to its writer thread.
 *
 * <p>Journal format ({@link CallRecordCodec}): {@link #writeMarshallable} writes the fields one by
 * one, after a {@link #FORMAT_VERSION} byte, so that a reader can refuse a record it does not
 * understand instead of misreading it. Kinds and access modes are stored by ordinal: reordering {@link CallKind} or
 * {@link AccessMode}, like any change to the layout, needs a new version. {@code accessSlot} is not
 * journaled (a reader gets -1): slots are reused after a free and mean nothing outside the process.
 *
 * <p>Equality is identity: a record is a reused, mutable buffer, not a value.
 */
public class CallRecord {

  /** The layout {@link #writeMarshallable} writes, stored at the head of every record. */
  public static final int FORMAT_VERSION = 3;

  /** {@link #result} when the call threw instead of returning a code. */
  public static final int RESULT_THREW = Integer.MIN_VALUE;
  /** {@link #stream} when the agent did not place the call on a stream of its own. */
  public static final int NO_STREAM = -1;

  // --- identity
  /** Global sequence number, in call order across threads. */
  public long seq;
  /** Wall-clock start of the call, nanoseconds since the epoch. */
  public long startNanos;
  /** Host time the call took, nanoseconds. */
  public long durationNanos;
  public long threadId;
  public String threadName = "";
  /** The calling thread's class ({@link ThreadPriorities}): which lanes the call may go to. */
  public PriorityClass priority = PriorityClass.NORMAL;
  /** The CUDA context's handle, 0 when unknown. */
  public long context;
  public CallKind kind = CallKind.OPAQUE;
  /** The intercepted method's name, for example {@code cuLaunchKernel}. */
  public String name = "";
  /** The stream handle the application asked for: 0 for the default stream. */
  public long appStream;
  /** The call's return code, or {@link #RESULT_THREW}. */
  public int result;

  // --- launches
  /** The kernel's name from {@code cuModuleGetFunction}, empty when unknown. */
  public String kernel = "";
  public int gridX;
  public int gridY;
  public int gridZ;
  public int blockX;
  public int blockY;
  public int blockZ;
  public int sharedMemBytes;
  /** The number of kernel parameters; parameter i is {@code paramBytes[paramOffsets[i] .. paramOffsets[i+1])}. */
  public int paramCount;
  public int[] paramOffsets = new int[9];
  public byte[] paramBytes = new byte[64];

  // --- copies and memsets
  /** Bytes copied or set. */
  public long bytes;

  // --- device memory accesses
  public int accessCount;
  public int[] accessId = new int[4];
  /** The allocation's reusable slot (see {@code AllocationTable}); not journaled. */
  public int[] accessSlot = new int[4];
  public long[] accessBase = new long[4];
  public long[] accessOffset = new long[4];
  public long[] accessSize = new long[4];
  public byte[] accessMode = new byte[4];
  /**
   * The call may touch memory the agent does not track (a pointer into no known allocation,
   * managed memory): the scheduler treats it as a barrier.
   */
  public boolean touchesUnknownMemory;
  /**
   * The call reads or writes host memory the device accesses directly (pinned, registered, mapped,
   * managed): the host can see its effect, or reuse the memory once it completes. Not journaled.
   */
  public boolean touchesHostMemory;
  /**
   * An asynchronous copy into pageable host memory (a Java array): CUDA returns only once it is
   * done, in its stream's order, so everything earlier on that stream is done too. Not journaled.
   */
  public boolean returnsWhenDone;
  /**
   * For an event record: the event may be timed ({@code cuEventElapsedTime}), being created without
   * {@code CU_EVENT_DISABLE_TIMING} or not seen created. Not journaled.
   */
  public boolean timedEvent;
  /** The application's event handle of an event record or wait, 0 otherwise. Not journaled. */
  public long appEvent;
  /**
   * For a launch: its first {@code moduleVariableCount} accesses are the module variables
   * ({@code __constant__}, {@code __device__}) its code uses, not memory a parameter names. Not
   * journaled.
   */
  public int moduleVariableCount;
  /**
   * The call's device work is known to be shorter than what issuing it costs the host (a small
   * cuBLAS routine): another stream could not run it sooner, only add events, so it follows its
   * newest predecessor's stream. Not journaled.
   */
  public boolean brief;

  // --- the scheduler's decision
  /** The agent's stream (lane) the call ran on, or {@link #NO_STREAM}. */
  public int stream = NO_STREAM;
  public int predecessorCount;
  /** Sequence numbers of the calls this one was made to wait for across streams. */
  public long[] predecessors = new long[4];
  /** Whether an event was recorded so that this call could wait across streams. */
  public boolean eventRecorded;
  /** Whether the host waited (for writers, for a free, or for a barrier). */
  public boolean hostWaited;
  /** Whether the host wait covered fewer streams than the whole device. */
  public boolean hostWaitNarrowed;
  /** Whether the call was handled as a full barrier. */
  public boolean barrier;
  /**
   * For a launch the agent held and issued inside a replayed CUDA graph: the window's number, from 1
   * per context, shared by every call of one replay; 0 for a call issued on its own.
   */
  public long graphWindow;
  /** Whether that window's graph was captured at this replay (its first), rather than reused. */
  public boolean graphCaptured;
  /**
   * For a launch issued inside a replayed graph: it ran as an instance of a merged launch, one
   * launch of its kernel's merged variant standing for several of the window's launches
   * ({@code scheduler/LaunchMerging}); {@link #firstMerged} for the first of them, so that a reader
   * counts the merged launches. Journaled as flags of the same byte as {@link #graphCaptured}.
   */
  public boolean merged;
  public boolean firstMerged;
  /**
   * The launched function's handle ({@code CUfunction}), or the id the interceptor gave a cuBLAS
   * routine it may hold: for the agent to issue a held call itself. Not journaled.
   */
  public long function;

  /** Clears everything for a new call; keeps the arrays. */
  public void reset() {
    seq = 0;
    startNanos = 0;
    durationNanos = 0;
    threadId = 0;
    threadName = "";
    priority = PriorityClass.NORMAL;
    context = 0;
    kind = CallKind.OPAQUE;
    name = "";
    appStream = 0;
    result = 0;
    kernel = "";
    gridX = gridY = gridZ = blockX = blockY = blockZ = 0;
    sharedMemBytes = 0;
    paramCount = 0;
    paramOffsets[0] = 0;
    bytes = 0;
    accessCount = 0;
    touchesUnknownMemory = false;
    touchesHostMemory = false;
    returnsWhenDone = false;
    timedEvent = false;
    appEvent = 0;
    moduleVariableCount = 0;
    brief = false;
    stream = NO_STREAM;
    predecessorCount = 0;
    eventRecorded = false;
    hostWaited = false;
    hostWaitNarrowed = false;
    barrier = false;
    graphWindow = 0;
    graphCaptured = false;
    merged = false;
    firstMerged = false;
    function = 0;
  }

  /** Appends a device memory access. */
  public void addAccess(int id, int slot, long base, long offset, long size, AccessMode mode) {
    int i = accessCount;
    reserveAccesses(i + 1);
    accessId[i] = id;
    accessSlot[i] = slot;
    accessBase[i] = base;
    accessOffset[i] = offset;
    accessSize[i] = size;
    accessMode[i] = (byte) mode.ordinal();
    accessCount = i + 1;
  }

  /** Room for {@code n} accesses, the arrays at least doubled when they grow. */
  private void reserveAccesses(int n) {
    if (accessId.length >= n) {
      return;
    }
    int grown = Math.max(n, accessId.length * 2);
    accessId = Arrays.copyOf(accessId, grown);
    accessSlot = Arrays.copyOf(accessSlot, grown);
    accessBase = Arrays.copyOf(accessBase, grown);
    accessOffset = Arrays.copyOf(accessOffset, grown);
    accessSize = Arrays.copyOf(accessSize, grown);
    accessMode = Arrays.copyOf(accessMode, grown);
  }

  public AccessMode accessMode(int i) {
    return AccessMode.ofOrdinal(accessMode[i]);
  }

  /**
   * Reserves {@code size} bytes for the next kernel parameter and returns the offset to write them
   * at in {@link #paramBytes}.
   */
  public int addParam(int size) {
    int i = paramCount;
    int start = paramOffsets[i];
    int end = start + size;
    reserveParams(i + 1, end);
    paramOffsets[i + 1] = end;
    paramCount = i + 1;
    return start;
  }

  /** Room for {@code count} parameters of {@code byteCount} bytes in all, the arrays at least doubled when they grow. */
  private void reserveParams(int count, int byteCount) {
    if (paramOffsets.length < count + 1) {
      paramOffsets = Arrays.copyOf(paramOffsets, Math.max(count + 1, paramOffsets.length * 2));
    }
    if (paramBytes.length < byteCount) {
      paramBytes = Arrays.copyOf(paramBytes, Math.max(byteCount, paramBytes.length * 2));
    }
  }

  /** Appends a parameter of {@code size} bytes (at most 8) holding {@code value}'s low bytes, little-endian: {@link #paramAsLong}'s counterpart. */
  public void addParam(long value, int size) {
    int at = addParam(size);
    for (int b = 0; b < size; b++) {
      paramBytes[at + b] = (byte) (value >>> (8 * b));
    }
  }

  public int paramSize(int i) {
    return paramOffsets[i + 1] - paramOffsets[i];
  }

  /** The parameter's bytes as a little-endian long (zero-extended when shorter than 8 bytes). */
  public long paramAsLong(int i) {
    int start = paramOffsets[i];
    int size = Math.min(8, paramSize(i));
    long v = 0;
    for (int b = size - 1; b >= 0; b--) {
      v = (v << 8) | (paramBytes[start + b] & 0xFFL);
    }
    return v;
  }

  /** Appends a predecessor's sequence number. */
  public void addPredecessor(long predecessorSeq) {
    reservePredecessors(predecessorCount + 1);
    predecessors[predecessorCount++] = predecessorSeq;
  }

  /** Room for {@code n} predecessors, the array at least doubled when it grows. */
  private void reservePredecessors(int n) {
    if (predecessors.length < n) {
      predecessors = Arrays.copyOf(predecessors, Math.max(n, predecessors.length * 2));
    }
  }

  /** Copies every field of {@code other} into this record, reusing this record's arrays. */
  public void copyFrom(CallRecord other) {
    seq = other.seq;
    startNanos = other.startNanos;
    durationNanos = other.durationNanos;
    threadId = other.threadId;
    threadName = other.threadName;
    priority = other.priority;
    context = other.context;
    kind = other.kind;
    name = other.name;
    appStream = other.appStream;
    result = other.result;
    kernel = other.kernel;
    gridX = other.gridX;
    gridY = other.gridY;
    gridZ = other.gridZ;
    blockX = other.blockX;
    blockY = other.blockY;
    blockZ = other.blockZ;
    sharedMemBytes = other.sharedMemBytes;
    // Whole arrays up to their counts: a held launch is copied twice (held, journaled), a routine's
    // record holds a dozen parameters, and one copy per array is what keeps that cheap.
    int params = other.paramCount;
    int used = other.paramOffsets[params];
    reserveParams(params, used);
    System.arraycopy(other.paramOffsets, 0, paramOffsets, 0, params + 1);
    System.arraycopy(other.paramBytes, 0, paramBytes, 0, used);
    paramCount = params;
    bytes = other.bytes;
    int accesses = other.accessCount;
    reserveAccesses(accesses);
    System.arraycopy(other.accessId, 0, accessId, 0, accesses);
    System.arraycopy(other.accessSlot, 0, accessSlot, 0, accesses);
    System.arraycopy(other.accessBase, 0, accessBase, 0, accesses);
    System.arraycopy(other.accessOffset, 0, accessOffset, 0, accesses);
    System.arraycopy(other.accessSize, 0, accessSize, 0, accesses);
    System.arraycopy(other.accessMode, 0, accessMode, 0, accesses);
    accessCount = accesses;
    touchesUnknownMemory = other.touchesUnknownMemory;
    touchesHostMemory = other.touchesHostMemory;
    returnsWhenDone = other.returnsWhenDone;
    timedEvent = other.timedEvent;
    appEvent = other.appEvent;
    moduleVariableCount = other.moduleVariableCount;
    brief = other.brief;
    stream = other.stream;
    int waits = other.predecessorCount;
    reservePredecessors(waits);
    System.arraycopy(other.predecessors, 0, predecessors, 0, waits);
    predecessorCount = waits;
    eventRecorded = other.eventRecorded;
    hostWaited = other.hostWaited;
    hostWaitNarrowed = other.hostWaitNarrowed;
    barrier = other.barrier;
    graphWindow = other.graphWindow;
    graphCaptured = other.graphCaptured;
    merged = other.merged;
    firstMerged = other.firstMerged;
    function = other.function;
  }

  /**
   * Writes every journaled field to {@code out}. Allocation-free once warm: a string is written as a
   * stop-bit length and its UTF-8 bytes, encoded once per distinct string instance and thread, and
   * arrays are written only up to their counts.
   */
  public void writeMarshallable(BytesOut<?> out) {
    CallRecordCodec.write(this, out);
  }

  /**
   * {@link #writeMarshallable} into a plain buffer, from its position, without Chronicle: what the
   * journal uses where Chronicle has not started (a short program's exit). Sets the buffer's order
   * to little endian, as Chronicle writes.
   *
   * @throws java.nio.BufferOverflowException when the record does not fit
   */
  public void writeTo(ByteBuffer out) {
    CallRecordCodec.write(this, out);
  }

  /**
   * Reads a record written by {@link #writeMarshallable} into this one, reusing its arrays (they
   * only grow). Strings come from a small per-thread cache, so that reading a journal does not
   * build a new string per field.
   *
   * @throws IORuntimeException when the record has another format version or is malformed
   */
  public void readMarshallable(BytesIn<?> in) {
    CallRecordCodec.read(this, in);
  }

  /**
   * {@link #readMarshallable} from a plain buffer holding the record's bytes (between its position
   * and limit), without Chronicle: what the journal reader uses, so that reading a journal touches
   * none of Chronicle's {@code sun.misc.Unsafe} memory access. Sets the buffer's order to little
   * endian, as the writer wrote it.
   *
   * @throws IORuntimeException when the record has another format version or is malformed
   * @throws java.nio.BufferUnderflowException when it ends early
   */
  public void readFrom(ByteBuffer in) {
    CallRecordCodec.read(this, in);
  }

  @Override
  public String toString() {
    return "CallRecord{seq=" + seq + ", " + name + (kernel.isEmpty() ? "" : " " + kernel)
        + ", " + kind + ", thread=" + threadName + ", priority=" + priority.label() + ", stream=" + stream
        + ", accesses=" + accessCount + ", result=" + result + "}";
  }
}
