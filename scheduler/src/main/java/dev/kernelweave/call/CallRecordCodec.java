package dev.kernelweave.call;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import net.openhft.chronicle.bytes.BytesIn;
import net.openhft.chronicle.bytes.BytesOut;
import net.openhft.chronicle.core.io.IORuntimeException;

/**
 * The journal's binary form of a {@link CallRecord}: the layout {@link CallRecord#writeMarshallable}
 * writes and the readers of every version still read, through Chronicle or from a plain buffer.
 * Thread-safe: it keeps no state but per-thread string caches.
 */
final class CallRecordCodec {

  /** The first layout, without {@link CallRecord#graphWindow} and {@link CallRecord#priority}; still read. */
  private static final int FORMAT_VERSION_1 = 1;
  /** The layout without {@link CallRecord#priority} (read as normal); still read. */
  private static final int FORMAT_VERSION_2 = 2;

  private CallRecordCodec() {}

  /** See {@link CallRecord#writeMarshallable}. */
  static void write(CallRecord r, BytesOut<?> out) {
    Strings strings = Strings.PER_THREAD.get();
    ChronicleSink sink = strings.chronicle;
    sink.out = out;
    try {
      write(r, sink, strings);
    } finally {
      sink.out = null;
    }
  }

  /** See {@link CallRecord#writeTo}. */
  static void write(CallRecord r, ByteBuffer out) {
    write(r, new BufferSink(out.order(ByteOrder.LITTLE_ENDIAN)), Strings.PER_THREAD.get());
  }

  private static void write(CallRecord r, Sink out, Strings strings) {
    out.writeByte((byte) CallRecord.FORMAT_VERSION);
    out.writeLong(r.seq);
    out.writeLong(r.startNanos);
    out.writeLong(r.durationNanos);
    out.writeLong(r.threadId);
    strings.write(out, r.threadName);
    out.writeLong(r.context);
    out.writeByte((byte) (r.kind == null ? CallKind.OPAQUE : r.kind).ordinal());
    strings.write(out, r.name);
    out.writeLong(r.appStream);
    out.writeInt(r.result);
    strings.write(out, r.kernel);
    out.writeInt(r.gridX);
    out.writeInt(r.gridY);
    out.writeInt(r.gridZ);
    out.writeInt(r.blockX);
    out.writeInt(r.blockY);
    out.writeInt(r.blockZ);
    out.writeInt(r.sharedMemBytes);
    out.writeStopBit(r.paramCount);
    for (int i = 0; i < r.paramCount; i++) {
      out.writeStopBit(r.paramSize(i));
    }
    out.write(r.paramBytes, 0, r.paramCount == 0 ? 0 : r.paramOffsets[r.paramCount]);
    out.writeLong(r.bytes);
    out.writeStopBit(r.accessCount);
    for (int i = 0; i < r.accessCount; i++) {
      out.writeInt(r.accessId[i]);
      out.writeLong(r.accessBase[i]);
      out.writeLong(r.accessOffset[i]);
      out.writeLong(r.accessSize[i]);
      out.writeByte(r.accessMode[i]);
    }
    out.writeInt(r.stream);
    out.writeStopBit(r.predecessorCount);
    for (int i = 0; i < r.predecessorCount; i++) {
      out.writeLong(r.predecessors[i]);
    }
    out.writeByte((byte) flags(r));
    out.writeStopBit(r.graphWindow);
    out.writeByte((byte) r.priority.ordinal());
  }

  /** See {@link CallRecord#readMarshallable}. */
  static void read(CallRecord r, BytesIn<?> in) {
    read(r, new ChronicleSource(in));
  }

  /** See {@link CallRecord#readFrom}. */
  static void read(CallRecord r, ByteBuffer in) {
    read(r, new BufferSource(in.order(ByteOrder.LITTLE_ENDIAN)));
  }

  private static void read(CallRecord r, Source in) {
    int version = in.readByte() & 0xFF;
    if (version != CallRecord.FORMAT_VERSION && version != FORMAT_VERSION_1 && version != FORMAT_VERSION_2) {
      throw new IORuntimeException(
          "journal record format " + version + ", this reader knows " + CallRecord.FORMAT_VERSION);
    }
    Strings strings = Strings.PER_THREAD.get();
    r.seq = in.readLong();
    r.startNanos = in.readLong();
    r.durationNanos = in.readLong();
    r.threadId = in.readLong();
    r.threadName = strings.read(in);
    r.context = in.readLong();
    r.kind = CallKind.ofOrdinal(checkedOrdinal(in.readByte(), KIND_COUNT, "call kind"));
    r.name = strings.read(in);
    r.appStream = in.readLong();
    r.result = in.readInt();
    r.kernel = strings.read(in);
    r.gridX = in.readInt();
    r.gridY = in.readInt();
    r.gridZ = in.readInt();
    r.blockX = in.readInt();
    r.blockY = in.readInt();
    r.blockZ = in.readInt();
    r.sharedMemBytes = in.readInt();
    int params = checkedCount(in.readStopBit(), "parameter count");
    r.paramCount = 0;
    r.paramOffsets[0] = 0;
    for (int i = 0; i < params; i++) {
      r.addParam(checkedCount(in.readStopBit(), "parameter size"));
    }
    int paramTotal = r.paramOffsets[r.paramCount];
    if (!in.readFully(r.paramBytes, paramTotal)) {
      throw new IORuntimeException("journal record truncated in the parameters");
    }
    r.bytes = in.readLong();
    int accesses = checkedCount(in.readStopBit(), "access count");
    r.accessCount = 0;
    for (int i = 0; i < accesses; i++) {
      int id = in.readInt();
      long base = in.readLong();
      long offset = in.readLong();
      long size = in.readLong();
      int mode = checkedOrdinal(in.readByte(), ACCESS_MODE_COUNT, "access mode");
      r.addAccess(id, -1, base, offset, size, AccessMode.ofOrdinal(mode));
    }
    r.stream = in.readInt();
    int predecessorsRead = checkedCount(in.readStopBit(), "predecessor count");
    r.predecessorCount = 0;
    for (int i = 0; i < predecessorsRead; i++) {
      r.addPredecessor(in.readLong());
    }
    setFlags(r, in.readByte());
    r.graphWindow = version == FORMAT_VERSION_1 ? 0 : in.readStopBit();
    r.priority = version < CallRecord.FORMAT_VERSION ? PriorityClass.NORMAL
        : PriorityClass.ofOrdinal(checkedOrdinal(in.readByte(), PRIORITY_COUNT, "priority class"));
  }

  /** The writes a record needs, to Chronicle's bytes or to a plain buffer. */
  private interface Sink {
    void writeByte(byte b);

    void writeInt(int v);

    void writeLong(long v);

    /** Chronicle's stop-bit encoding, as {@link Source#readStopBit} reads it. */
    void writeStopBit(long v);

    void write(byte[] bytes, int from, int length);
  }

  /** Chronicle's bytes; one per thread, pointed at the record's document while it is written. */
  private static final class ChronicleSink implements Sink {
    BytesOut<?> out;

    @Override
    public void writeByte(byte b) {
      out.writeByte(b);
    }

    @Override
    public void writeInt(int v) {
      out.writeInt(v);
    }

    @Override
    public void writeLong(long v) {
      out.writeLong(v);
    }

    @Override
    public void writeStopBit(long v) {
      out.writeStopBit(v);
    }

    /** Chronicle's bulk write has a fixed cost that short arrays (names, a few parameters) never repay. */
    @Override
    public void write(byte[] bytes, int from, int length) {
      if (length > 48) {
        out.write(bytes, from, length);
        return;
      }
      for (int i = from, end = from + length; i < end; i++) {
        out.writeByte(bytes[i]);
      }
    }
  }

  private record BufferSink(ByteBuffer out) implements Sink {
    @Override
    public void writeByte(byte b) {
      out.put(b);
    }

    @Override
    public void writeInt(int v) {
      out.putInt(v);
    }

    @Override
    public void writeLong(long v) {
      out.putLong(v);
    }

    @Override
    public void writeStopBit(long v) {
      long n = v < 0 ? ~v : v;
      while ((n & ~0x7FL) != 0) {
        out.put((byte) (0x80 | (n & 0x7F)));
        n >>>= 7;
      }
      if (v < 0) {
        out.put((byte) (0x80 | n));
        out.put((byte) 0);
      } else {
        out.put((byte) n);
      }
    }

    @Override
    public void write(byte[] bytes, int from, int length) {
      out.put(bytes, from, length);
    }
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

  private static final int FLAG_UNKNOWN_MEMORY = 1;
  private static final int FLAG_EVENT_RECORDED = 1 << 1;
  private static final int FLAG_HOST_WAITED = 1 << 2;
  private static final int FLAG_HOST_WAIT_NARROWED = 1 << 3;
  private static final int FLAG_BARRIER = 1 << 4;
  private static final int FLAG_GRAPH_CAPTURED = 1 << 5;
  /** Bits a reader of an older agent ignores: a merged instance reads there as a plain replayed launch. */
  private static final int FLAG_MERGED = 1 << 6;
  private static final int FLAG_FIRST_MERGED = 1 << 7;

  private static int flags(CallRecord r) {
    return (r.touchesUnknownMemory ? FLAG_UNKNOWN_MEMORY : 0)
        | (r.eventRecorded ? FLAG_EVENT_RECORDED : 0)
        | (r.hostWaited ? FLAG_HOST_WAITED : 0)
        | (r.hostWaitNarrowed ? FLAG_HOST_WAIT_NARROWED : 0)
        | (r.barrier ? FLAG_BARRIER : 0)
        | (r.graphCaptured ? FLAG_GRAPH_CAPTURED : 0)
        | (r.merged ? FLAG_MERGED : 0)
        | (r.firstMerged ? FLAG_FIRST_MERGED : 0);
  }

  private static void setFlags(CallRecord r, int flags) {
    r.touchesUnknownMemory = (flags & FLAG_UNKNOWN_MEMORY) != 0;
    r.eventRecorded = (flags & FLAG_EVENT_RECORDED) != 0;
    r.hostWaited = (flags & FLAG_HOST_WAITED) != 0;
    r.hostWaitNarrowed = (flags & FLAG_HOST_WAIT_NARROWED) != 0;
    r.barrier = (flags & FLAG_BARRIER) != 0;
    r.graphCaptured = (flags & FLAG_GRAPH_CAPTURED) != 0;
    r.merged = (flags & FLAG_MERGED) != 0;
    r.firstMerged = (flags & FLAG_FIRST_MERGED) != 0;
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
   * A thread-local, owned by this codec alone: records are encoded and decoded on any thread, and
   * a shared table would need a lock on every field.
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

    /** The sink {@link #write(CallRecord, BytesOut)} reuses, so that a record costs no allocation. */
    final ChronicleSink chronicle = new ChronicleSink();

    void write(Sink out, String s) {
      byte[] utf8 = encode(s == null ? "" : s);
      out.writeStopBit(utf8.length);
      out.write(utf8, 0, utf8.length);
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
}
