package dev.kernelweave.call;

import java.util.Arrays;

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
 */
public class CallRecord {

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

  /** Clears everything for a new call; keeps the arrays. */
  public void reset() {
    seq = 0;
    startNanos = 0;
    durationNanos = 0;
    threadId = 0;
    threadName = "";
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
    stream = NO_STREAM;
    predecessorCount = 0;
    eventRecorded = false;
    hostWaited = false;
    hostWaitNarrowed = false;
    barrier = false;
  }

  /** Appends a device memory access. */
  public void addAccess(int id, int slot, long base, long offset, long size, AccessMode mode) {
    int i = accessCount;
    if (i == accessId.length) {
      int n = i * 2;
      accessId = Arrays.copyOf(accessId, n);
      accessSlot = Arrays.copyOf(accessSlot, n);
      accessBase = Arrays.copyOf(accessBase, n);
      accessOffset = Arrays.copyOf(accessOffset, n);
      accessSize = Arrays.copyOf(accessSize, n);
      accessMode = Arrays.copyOf(accessMode, n);
    }
    accessId[i] = id;
    accessSlot[i] = slot;
    accessBase[i] = base;
    accessOffset[i] = offset;
    accessSize[i] = size;
    accessMode[i] = (byte) mode.ordinal();
    accessCount = i + 1;
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
    if (i + 2 > paramOffsets.length) {
      paramOffsets = Arrays.copyOf(paramOffsets, paramOffsets.length * 2);
    }
    int start = paramOffsets[i];
    int end = start + size;
    if (end > paramBytes.length) {
      paramBytes = Arrays.copyOf(paramBytes, Math.max(end, paramBytes.length * 2));
    }
    paramOffsets[i + 1] = end;
    paramCount = i + 1;
    return start;
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
    if (predecessorCount == predecessors.length) {
      predecessors = Arrays.copyOf(predecessors, predecessorCount * 2);
    }
    predecessors[predecessorCount++] = predecessorSeq;
  }

  /** Copies every field of {@code other} into this record, reusing this record's arrays. */
  public void copyFrom(CallRecord other) {
    seq = other.seq;
    startNanos = other.startNanos;
    durationNanos = other.durationNanos;
    threadId = other.threadId;
    threadName = other.threadName;
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
    paramCount = 0;
    paramOffsets[0] = 0;
    for (int i = 0; i < other.paramCount; i++) {
      int at = addParam(other.paramSize(i));
      System.arraycopy(other.paramBytes, other.paramOffsets[i], paramBytes, at, other.paramSize(i));
    }
    bytes = other.bytes;
    accessCount = 0;
    for (int i = 0; i < other.accessCount; i++) {
      addAccess(other.accessId[i], other.accessSlot[i], other.accessBase[i], other.accessOffset[i],
          other.accessSize[i], other.accessMode(i));
    }
    touchesUnknownMemory = other.touchesUnknownMemory;
    stream = other.stream;
    predecessorCount = 0;
    for (int i = 0; i < other.predecessorCount; i++) {
      addPredecessor(other.predecessors[i]);
    }
    eventRecorded = other.eventRecorded;
    hostWaited = other.hostWaited;
    hostWaitNarrowed = other.hostWaitNarrowed;
    barrier = other.barrier;
  }
}
