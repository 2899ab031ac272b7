package dev.kernelweave.selftest;

import dev.kernelweave.scheduler.Scheduler;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;

/**
 * What a {@link ProgramGenerator} knows while it makes one program: the seeded random, the calls so
 * far, the threads, streams, events, host buffers and live allocations, the buffers just read and
 * just written, and the basic steps (allocations, frees, launches, copies, synchronizations) that
 * the richer steps of its subclasses are made of. The steps live in a chain of subclasses by kind
 * ({@link RepeatedWindowSteps}, {@link ShapeSteps}, {@link ProgramBuilder}) so that they share this
 * state without passing it around.
 *
 * <p>Not thread-safe: one program's making, on one thread.
 */
abstract class GeneratorState {

  static final int MAX_ELEMENTS = 128;
  static final int HOST_ELEMENTS = 64;

  final long seed;
  final SplittableRandom random;
  final List<Op> ops = new ArrayList<>();
  final int threads;
  final long[][] streams;
  final List<Long> nonBlockingStreams = new ArrayList<>();
  final int events;
  final int hosts;
  final boolean[] registered;
  final Map<Shape, Integer> shapes = new EnumMap<>(Shape.class);
  int gates;
  final List<int[]> live = new ArrayList<>(); // {buf, elements, owner}
  final List<Integer> recentlyWritten = new ArrayList<>();
  final List<Integer> recentlyRead = new ArrayList<>();
  /** Streams with an asynchronous copy into page-locked memory not yet synchronized. */
  final List<Long> readbackStreams = new ArrayList<>();
  /** Events recorded on such a stream, not yet synchronized. */
  final List<Integer> readbackEvents = new ArrayList<>();
  int nextBuf;
  int thread;
  /** Calls of the program's first repeated window, which the program's length leaves out. */
  int extra = -1;

  GeneratorState(long seed) {
    this.seed = seed;
    this.random = new SplittableRandom(seed);
    threads = 1 + random.nextInt(3);
    streams = new long[threads][];
    for (int t = 0; t < threads; t++) {
      int own = random.nextInt(3);
      streams[t] = new long[1 + own];
      for (int j = 1; j <= own; j++) {
        streams[t][j] = 100L * (t + 1) + j;
      }
    }
    events = 1 + random.nextInt(3);
    hosts = random.nextInt(5) == 0 ? 0 : 1 + random.nextInt(2);
    registered = new boolean[hosts];
  }

  void note(Shape shape) {
    shapes.merge(shape, 1, Integer::sum);
  }

  /** A new allocation of {@code elements}; its buffer number. */
  int allocated(int elements) {
    alloc(elements);
    return live.get(live.size() - 1)[0];
  }

  void streamSync(long stream) {
    ops.add(new Op.StreamSync(thread, stream));
    if (stream == 0 || stream == Scheduler.LEGACY_HANDLE) {
      note(Shape.LEGACY_STREAM_SYNCHRONIZE);
    }
  }

  /** An asynchronous copy of a buffer into a random place of a random host buffer on {@code stream}; that host buffer. */
  int readIntoHost(long stream) {
    int[] b = pickToRead();
    int n = Math.min(length(b[1]), HOST_ELEMENTS);
    int host = random.nextInt(hosts);
    ops.add(new Op.ReadAsync(thread, stream, host, random.nextInt(HOST_ELEMENTS - n + 1), at(b, n), n));
    noteRead(b[0]);
    return host;
  }

  /** The host waits for {@code stream}, then reads {@code host}. */
  void observeHostAfter(long stream, int host) {
    waitForStream(stream);
    ops.add(new Op.ObserveHost(thread, host));
  }

  /** The host waits for a stream: directly, or through an event recorded on it. */
  void waitForStream(long stream) {
    if (random.nextBoolean()) {
      streamSync(stream);
    } else {
      int event = random.nextInt(events);
      ops.add(new Op.EventRecord(thread, event, stream));
      ops.add(new Op.EventSync(thread, event));
    }
  }

  /** One of the legacy stream's names: the null handle, or {@code 0x1}. */
  long legacyName() {
    if (random.nextBoolean()) {
      return 0;
    }
    note(Shape.LEGACY_HANDLE);
    return Scheduler.LEGACY_HANDLE;
  }

  /** A stream the legacy stream synchronizes with: the legacy one, the per-thread one, or a blocking one. */
  long blockingStream() {
    for (int attempt = 0; attempt < 4; attempt++) {
      long s = stream();
      if (!nonBlockingStreams.contains(s)) {
        return s;
      }
    }
    return legacyName();
  }

  /** A registered host buffer, else any; -1 when the program has none. */
  int registeredHost() {
    for (int h = 0; h < hosts; h++) {
      if (registered[h]) {
        return h;
      }
    }
    return hosts == 0 ? -1 : random.nextInt(hosts);
  }

  void alloc(int elements) {
    int buf = nextBuf++;
    ops.add(new Op.Alloc(thread, buf, elements, random.nextLong()));
    live.add(new int[] {buf, elements, thread});
    noteWritten(buf);
  }

  void free() {
    if (live.size() < 2) {
      return;
    }
    int[] b = random.nextInt(10) < 7 ? recent(random.nextBoolean() ? recentlyRead : recentlyWritten) : null;
    if (b == null) {
      b = live.get(random.nextInt(live.size()));
    }
    ops.add(new Op.Free(thread, b[0]));
    live.remove(b);
    recentlyRead.remove(Integer.valueOf(b[0]));
    recentlyWritten.remove(Integer.valueOf(b[0]));
    if (random.nextInt(10) < 6) {
      // Same size: a first-fit allocator hands the freed address out again.
      alloc(b[1]);
    }
  }

  void launch(Op.LaunchMode mode) {
    SelfTestKernel kernel = SelfTestKernel.values()[random.nextInt(SelfTestKernel.values().length)];
    for (int attempt = 0; attempt < 8; attempt++) {
      int[] out = pickToWrite();
      int[] in1 = kernel.inputs() >= 1 ? pickToRead() : null;
      int[] in2 = kernel.inputs() >= 2 ? pickToRead() : null;
      int limit = 64;
      if (kernel == SelfTestKernel.FILL_BACKWARD) {
        limit = Math.min(limit, out[1] - 1); // its pointer stays inside the allocation
      } else if (kernel != SelfTestKernel.REDUCE) {
        limit = Math.min(limit, out[1]);
      }
      if (limit < 1) {
        continue;
      }
      if (in1 != null) {
        limit = Math.min(limit, in1[1]);
      }
      if (in2 != null) {
        limit = Math.min(limit, in2[1]);
      }
      int n = 1 + random.nextInt(limit);
      int outN = kernel.outElements(n);
      Op.At outAt = kernel == SelfTestKernel.FILL_BACKWARD ? backwardRange(out, outN) : at(out, outN);
      Op.At in1At = in1 == null ? null : at(in1, n);
      Op.At in2At = in2 == null ? null : at(in2, n);
      if (overlaps(outAt, outN, in1At, n) || overlaps(outAt, outN, in2At, n)) {
        continue;
      }
      ops.add(new Op.Launch(thread, stream(), kernel, outAt, in1At, in2At, n, random.nextInt(), mode));
      if (in1 != null) {
        noteRead(in1[0]);
      }
      if (in2 != null) {
        noteRead(in2[0]);
      }
      noteWritten(out[0]);
      return;
    }
  }

  void copy() {
    for (int attempt = 0; attempt < 8; attempt++) {
      int[] dst = pickToWrite();
      int[] src = pickToRead();
      int n = 1 + random.nextInt(Math.min(dst[1], src[1]));
      Op.At dstAt = at(dst, n);
      Op.At srcAt = at(src, n);
      if (overlaps(dstAt, n, srcAt, n)) {
        continue;
      }
      ops.add(new Op.Copy(thread, stream(), dstAt, srcAt, n));
      noteRead(src[0]);
      noteWritten(dst[0]);
      return;
    }
  }

  void observeHosts() {
    for (int h = 0; h < hosts; h++) {
      if (random.nextInt(10) < 8) {
        // Dropped again by Program.wellFormed when a copy into h is not yet synchronized.
        ops.add(new Op.ObserveHost(thread, h));
      }
    }
  }

  /** Mostly a stream with an unsynchronized copy into page-locked memory, when there is one. */
  long syncStream() {
    if (!readbackStreams.isEmpty() && random.nextInt(10) < 7) {
      return readbackStreams.get(random.nextInt(readbackStreams.size()));
    }
    return stream();
  }

  /** The null handle half the time, else the legacy or per-thread handle or one of the thread's own streams. */
  long stream() {
    if (random.nextBoolean()) {
      return 0;
    }
    int r = random.nextInt(10);
    if (r == 0) {
      note(Shape.LEGACY_HANDLE);
      return Scheduler.LEGACY_HANDLE;
    }
    if (r == 1) {
      note(Shape.PER_THREAD_HANDLE);
      return Scheduler.PER_THREAD_HANDLE;
    }
    long[] own = streams[thread];
    return own[random.nextInt(own.length)];
  }

  int length(int elements) {
    int n = 1 + random.nextInt(Math.min(elements, 64));
    return n;
  }

  /** An output range of {@code n} elements for {@link SelfTestKernel#FILL_BACKWARD}: its end, its pointer, inside {@code b}. */
  Op.At backwardRange(int[] b, int n) {
    return new Op.At(b[0], random.nextInt(b[1] - n));
  }

  Op.At at(int[] b, int n) {
    return new Op.At(b[0], random.nextInt(b[1] - n + 1));
  }

  int[] pickToRead() {
    int[] b = random.nextInt(10) < 6 ? recent(recentlyWritten) : null;
    return b != null ? b : any();
  }

  int[] pickToWrite() {
    int r = random.nextInt(10);
    int[] b = r < 3 ? recent(recentlyRead) : r < 5 ? recent(recentlyWritten) : null;
    return b != null ? b : any();
  }

  /** A live buffer, mostly one of the current thread's own. */
  int[] any() {
    if (random.nextInt(10) < 8) {
      List<int[]> own = new ArrayList<>();
      for (int[] b : live) {
        if (b[2] == thread) {
          own.add(b);
        }
      }
      if (!own.isEmpty()) {
        return own.get(random.nextInt(own.size()));
      }
    }
    return live.get(random.nextInt(live.size()));
  }

  int[] recent(List<Integer> bufs) {
    if (bufs.isEmpty()) {
      return null;
    }
    int buf = bufs.get(bufs.size() - 1 - random.nextInt(Math.min(2, bufs.size())));
    for (int[] b : live) {
      if (b[0] == buf) {
        return b;
      }
    }
    return null;
  }

  void noteRead(int buf) {
    remember(recentlyRead, buf);
  }

  void noteWritten(int buf) {
    remember(recentlyWritten, buf);
  }

  void remember(List<Integer> list, int buf) {
    list.remove(Integer.valueOf(buf));
    list.add(buf);
    if (list.size() > 4) {
      list.remove(0);
    }
  }

  static boolean overlaps(Op.At a, int an, Op.At b, int bn) {
    return b != null && a.buf() == b.buf() && a.offset() < b.offset() + bn && b.offset() < a.offset() + an;
  }
}
