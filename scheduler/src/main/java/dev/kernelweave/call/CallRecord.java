package dev.kernelweave.call;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import net.openhft.chronicle.bytes.BytesIn;
import net.openhft.chronicle.bytes.BytesOut;
import net.openhft.chronicle.core.io.IORuntimeException;
import net.openhft.chronicle.wire.BytesInBinaryMarshallable;

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
 * <p>Journal format: {@link #writeMarshallable} writes the fields one by one, after a
 * {@link #FORMAT_VERSION} byte, so that a reader can refuse a record it does not understand instead
 * of misreading it. Kinds and access modes are stored by ordinal: reordering {@link CallKind} or
 * {@link AccessMode}, like any change to the layout, needs a new version. {@code accessSlot} is not
 * journaled (a reader gets -1): slots are reused after a free and mean nothing outside the process.
 *
 * <p>Equality is identity: a record is a reused, mutable buffer, not a value.
 */
public class CallRecord extends BytesInBinaryMarshallable {

  /** The layout {@link #writeMarshallable} writes, stored at the head of every record. */
  public static final int FORMAT_VERSION = 3;
  /** The first layout, without {@link #graphWindow} and {@link #priority}; still read. */
  private static final int FORMAT_VERSION_1 = 1;
  /** The layout without {@link #priority} (read as normal); still read. */
  private static final int FORMAT_VERSION_2 = 2;

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
    function = other.function;
  }

  /**
   * Writes every journaled field to {@code out}. Allocation-free once warm: a string is written as a
   * stop-bit length and its UTF-8 bytes, encoded once per distinct string instance and thread, and
   * arrays are written only up to their counts.
   */
  @Override
  public void writeMarshallable(BytesOut<?> out) {
    Strings strings = Strings.PER_THREAD.get();
    out.writeByte((byte) FORMAT_VERSION);
    out.writeLong(seq);
    out.writeLong(startNanos);
    out.writeLong(durationNanos);
    out.writeLong(threadId);
    strings.write(out, threadName);
    out.writeLong(context);
    out.writeByte((byte) (kind == null ? CallKind.OPAQUE : kind).ordinal());
    strings.write(out, name);
    out.writeLong(appStream);
    out.writeInt(result);
    strings.write(out, kernel);
    out.writeInt(gridX);
    out.writeInt(gridY);
    out.writeInt(gridZ);
    out.writeInt(blockX);
    out.writeInt(blockY);
    out.writeInt(blockZ);
    out.writeInt(sharedMemBytes);
    out.writeStopBit(paramCount);
    for (int i = 0; i < paramCount; i++) {
      out.writeStopBit(paramSize(i));
    }
    writeBytes(out, paramBytes, 0, paramCount == 0 ? 0 : paramOffsets[paramCount]);
    out.writeLong(bytes);
    out.writeStopBit(accessCount);
    for (int i = 0; i < accessCount; i++) {
      out.writeInt(accessId[i]);
      out.writeLong(accessBase[i]);
      out.writeLong(accessOffset[i]);
      out.writeLong(accessSize[i]);
      out.writeByte(accessMode[i]);
    }
    out.writeInt(stream);
    out.writeStopBit(predecessorCount);
    for (int i = 0; i < predecessorCount; i++) {
      out.writeLong(predecessors[i]);
    }
    out.writeByte((byte) flags());
    out.writeStopBit(graphWindow);
    out.writeByte((byte) priority.ordinal());
  }

  /**
   * Reads a record written by {@link #writeMarshallable} into this one, reusing its arrays (they
   * only grow). Strings come from a small per-thread cache, so that reading a journal does not
   * build a new string per field.
   *
   * @throws IORuntimeException when the record has another format version or is malformed
   */
  @Override
  public void readMarshallable(BytesIn<?> in) {
    read(new ChronicleSource(in));
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
    read(new BufferSource(in.order(ByteOrder.LITTLE_ENDIAN)));
  }

  private void read(Source in) {
    int version = in.readByte() & 0xFF;
    if (version != FORMAT_VERSION && version != FORMAT_VERSION_1 && version != FORMAT_VERSION_2) {
      throw new IORuntimeException(
          "journal record format " + version + ", this reader knows " + FORMAT_VERSION);
    }
    Strings strings = Strings.PER_THREAD.get();
    seq = in.readLong();
    startNanos = in.readLong();
    durationNanos = in.readLong();
    threadId = in.readLong();
    threadName = strings.read(in);
    context = in.readLong();
    kind = CallKind.ofOrdinal(checkedOrdinal(in.readByte(), KIND_COUNT, "call kind"));
    name = strings.read(in);
    appStream = in.readLong();
    result = in.readInt();
    kernel = strings.read(in);
    gridX = in.readInt();
    gridY = in.readInt();
    gridZ = in.readInt();
    blockX = in.readInt();
    blockY = in.readInt();
    blockZ = in.readInt();
    sharedMemBytes = in.readInt();
    int params = checkedCount(in.readStopBit(), "parameter count");
    paramCount = 0;
    paramOffsets[0] = 0;
    for (int i = 0; i < params; i++) {
      addParam(checkedCount(in.readStopBit(), "parameter size"));
    }
    int paramTotal = paramOffsets[paramCount];
    if (!in.readFully(paramBytes, paramTotal)) {
      throw new IORuntimeException("journal record truncated in the parameters");
    }
    bytes = in.readLong();
    int accesses = checkedCount(in.readStopBit(), "access count");
    accessCount = 0;
    for (int i = 0; i < accesses; i++) {
      int id = in.readInt();
      long base = in.readLong();
      long offset = in.readLong();
      long size = in.readLong();
      int mode = checkedOrdinal(in.readByte(), ACCESS_MODE_COUNT, "access mode");
      addAccess(id, -1, base, offset, size, AccessMode.ofOrdinal(mode));
    }
    stream = in.readInt();
    int predecessorsRead = checkedCount(in.readStopBit(), "predecessor count");
    predecessorCount = 0;
    for (int i = 0; i < predecessorsRead; i++) {
      addPredecessor(in.readLong());
    }
    setFlags(in.readByte());
    graphWindow = version == FORMAT_VERSION_1 ? 0 : in.readStopBit();
    priority = version < FORMAT_VERSION ? PriorityClass.NORMAL
        : PriorityClass.ofOrdinal(checkedOrdinal(in.readByte(), PRIORITY_COUNT, "priority class"));
  }

  /** The reads a record needs, from Chronicle's bytes or from a plain buffer. */
  private interface Source {
    byte readByte();

    int readInt();

    long readLong();

    /** Chronicle's stop-bit encoding: 7 bits a byte, low first; a negative value is ~n then a 0 byte. */
    long readStopBit();

    /** Reads {@code length} bytes into {@code into}; false when fewer are left. */
    boolean readFully(byte[] into, int length);
  }

  private record ChronicleSource(BytesIn<?> in) implements Source {
    @Override
    public byte readByte() {
      return in.readByte();
    }

    @Override
    public int readInt() {
      return in.readInt();
    }

    @Override
    public long readLong() {
      return in.readLong();
    }

    @Override
    public long readStopBit() {
      return in.readStopBit();
    }

    @Override
    public boolean readFully(byte[] into, int length) {
      return length == 0 || in.read(into, 0, length) == length;
    }
  }

  private record BufferSource(ByteBuffer in) implements Source {
    @Override
    public byte readByte() {
      return in.get();
    }

    @Override
    public int readInt() {
      return in.getInt();
    }

    @Override
    public long readLong() {
      return in.getLong();
    }

    @Override
    public long readStopBit() {
      long value = in.get();
      if (value >= 0) {
        return value;
      }
      value &= 0x7F;
      int shift = 7;
      long b;
      while ((b = in.get()) < 0) {
        value |= (b & 0x7F) << shift;
        shift += 7;
      }
      if (b != 0) {
        if (shift > 56) {
          throw new IORuntimeException("journal record has a stop-bit number of more than 9 bytes");
        }
        return value | b << shift;
      }
      if (shift > 63) {
        throw new IORuntimeException("journal record has a stop-bit number of more than 10 bytes");
      }
      return ~value;
    }

    @Override
    public boolean readFully(byte[] into, int length) {
      if (in.remaining() < length) {
        return false;
      }
      in.get(into, 0, length);
      return true;
    }
  }

  /** Chronicle's bulk write has a fixed cost that short arrays (names, a few parameters) never repay. */
  private static void writeBytes(BytesOut<?> out, byte[] bytes, int from, int length) {
    if (length > 48) {
      out.write(bytes, from, length);
      return;
    }
    for (int i = from, end = from + length; i < end; i++) {
      out.writeByte(bytes[i]);
    }
  }

  private static final int FLAG_UNKNOWN_MEMORY = 1;
  private static final int FLAG_EVENT_RECORDED = 1 << 1;
  private static final int FLAG_HOST_WAITED = 1 << 2;
  private static final int FLAG_HOST_WAIT_NARROWED = 1 << 3;
  private static final int FLAG_BARRIER = 1 << 4;
  private static final int FLAG_GRAPH_CAPTURED = 1 << 5;

  private int flags() {
    return (touchesUnknownMemory ? FLAG_UNKNOWN_MEMORY : 0)
        | (eventRecorded ? FLAG_EVENT_RECORDED : 0)
        | (hostWaited ? FLAG_HOST_WAITED : 0)
        | (hostWaitNarrowed ? FLAG_HOST_WAIT_NARROWED : 0)
        | (barrier ? FLAG_BARRIER : 0)
        | (graphCaptured ? FLAG_GRAPH_CAPTURED : 0);
  }

  private void setFlags(int flags) {
    touchesUnknownMemory = (flags & FLAG_UNKNOWN_MEMORY) != 0;
    eventRecorded = (flags & FLAG_EVENT_RECORDED) != 0;
    hostWaited = (flags & FLAG_HOST_WAITED) != 0;
    hostWaitNarrowed = (flags & FLAG_HOST_WAIT_NARROWED) != 0;
    barrier = (flags & FLAG_BARRIER) != 0;
    graphCaptured = (flags & FLAG_GRAPH_CAPTURED) != 0;
  }

  private static final int KIND_COUNT = CallKind.values().length;
  private static final int ACCESS_MODE_COUNT = AccessMode.values().length;
  private static final int PRIORITY_COUNT = PriorityClass.values().length;

  /** Counts above this are a damaged record, not a real call. */
  private static final int MAX_COUNT = 1 << 20;

  private static int checkedCount(long count, String what) {
    if (count < 0 || count > MAX_COUNT) {
      throw new IORuntimeException("journal record has an impossible " + what + ": " + count);
    }
    return (int) count;
  }

  private static int checkedOrdinal(byte ordinal, int limit, String what) {
    int o = ordinal & 0xFF;
    if (o >= limit) {
      throw new IORuntimeException("journal record has an unknown " + what + ": " + o);
    }
    return o;
  }

  /**
   * Strings on the wire, per thread. Writing: the UTF-8 bytes of each string instance are cached in
   * a small direct-mapped table keyed by identity (the strings are constants), which is several
   * times faster than encoding per call. Reading: the strings of recent byte sequences are cached
   * (direct-mapped, keyed by the bytes), so that a reader does not build a new string per field.
   */
  private static final class Strings {
    static final ThreadLocal<Strings> PER_THREAD = ThreadLocal.withInitial(Strings::new);
    private static final int SIZE = 512;
    private static final int PROBES = 8;

    final String[] encoded = new String[SIZE];
    final byte[][] encodings = new byte[SIZE][];
    private static final int CACHED = 1024;

    byte[] buffer = new byte[64];
    final byte[][] cachedBytes = new byte[CACHED][];
    final String[] cachedStrings = new String[CACHED];

    void write(BytesOut<?> out, String s) {
      byte[] utf8 = encode(s == null ? "" : s);
      out.writeStopBit(utf8.length);
      writeBytes(out, utf8, 0, utf8.length);
    }

    /** Open addressing by identity, a few probes; a crowded neighbourhood evicts its home slot. */
    private byte[] encode(String s) {
      int home = System.identityHashCode(s) & (SIZE - 1);
      for (int p = 0; p < PROBES; p++) {
        int i = (home + p) & (SIZE - 1);
        String k = encoded[i];
        if (k == s) {
          return encodings[i];
        }
        if (k == null) {
          return put(i, s);
        }
      }
      return put(home, s);
    }

    private byte[] put(int i, String s) {
      byte[] utf8 = s.getBytes(StandardCharsets.UTF_8);
      encoded[i] = s;
      encodings[i] = utf8;
      return utf8;
    }

    String read(Source in) {
      int length = checkedCount(in.readStopBit(), "string length");
      if (length == 0) {
        return "";
      }
      if (length > buffer.length) {
        buffer = new byte[Math.max(length, buffer.length * 2)];
      }
      if (!in.readFully(buffer, length)) {
        throw new IORuntimeException("journal record truncated in a string");
      }
      return cached(buffer, length);
    }

    /** The string of these UTF-8 bytes, from a direct-mapped cache keyed by the bytes. */
    private String cached(byte[] utf8, int length) {
      int hash = 1;
      for (int i = 0; i < length; i++) {
        hash = 31 * hash + utf8[i];
      }
      int slot = (hash ^ hash >>> 16) & (CACHED - 1);
      byte[] key = cachedBytes[slot];
      if (key != null && Arrays.equals(key, 0, key.length, utf8, 0, length)) {
        return cachedStrings[slot];
      }
      String s = new String(utf8, 0, length, StandardCharsets.UTF_8);
      cachedBytes[slot] = Arrays.copyOf(utf8, length);
      cachedStrings[slot] = s;
      return s;
    }
  }

  @Override
  public boolean equals(Object o) {
    return this == o;
  }

  @Override
  public int hashCode() {
    return System.identityHashCode(this);
  }

  @Override
  public String toString() {
    return "CallRecord{seq=" + seq + ", " + name + (kernel.isEmpty() ? "" : " " + kernel)
        + ", " + kind + ", thread=" + threadName + ", priority=" + priority.label() + ", stream=" + stream
        + ", accesses=" + accessCount + ", result=" + result + "}";
  }
}
