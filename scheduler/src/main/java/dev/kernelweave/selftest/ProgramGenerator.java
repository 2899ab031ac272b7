package dev.kernelweave.selftest;

import dev.kernelweave.scheduler.Scheduler;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;

/**
 * Makes random, well-formed programs that are rich in the orderings a scheduler can get wrong:
 * buffers read by many calls and written by one, ranges at offsets into one allocation, writes to
 * buffers just read (write-after-read), reads of buffers just written (read-after-write), frees of
 * buffers still in use followed by allocations that reuse their addresses, synchronous reads in the
 * middle, context synchronizations, opaque calls, application streams and events, and several
 * application threads interleaved; and the {@link Shape}s where only CUDA's own stream semantics make
 * a host observation valid: blocking and non-blocking streams, the legacy and per-thread handles,
 * host memory the device writes, {@code __constant__} memory, kernels without PTX, host functions.
 *
 * <p>Application threads are interleaved calls with a thread number, made one after another by the
 * runner: the scheduler sees several threads on one context, the device one caller.
 *
 * <p>Deterministic: the same seed gives the same program.
 */
public final class ProgramGenerator {

  private static final int MAX_ELEMENTS = 128;
  private static final int HOST_ELEMENTS = 64;

  private final int maxCalls;

  /**
   * @param maxCalls an upper bound on the calls in a program, its first repeated window aside (more
   *     calls: longer, rarer bugs)
   */
  public ProgramGenerator(int maxCalls) {
    if (maxCalls < 8) {
      throw new IllegalArgumentException("maxCalls must be at least 8, was " + maxCalls);
    }
    this.maxCalls = maxCalls;
  }

  public ProgramGenerator() {
    this(80);
  }

  public Program generate(long seed) {
    return new Builder(seed).build();
  }

  private final class Builder {
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

    Builder(long seed) {
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

    Program build() {
      for (int h = 0; h < hosts; h++) {
        registered[h] = random.nextInt(3) == 0;
        ops.add(new Op.AllocHost(0, h, HOST_ELEMENTS, registered[h]));
      }
      for (int t = 0; t < threads; t++) {
        for (int j = 1; j < streams[t].length; j++) {
          boolean nonBlocking = random.nextBoolean();
          ops.add(new Op.CreateStream(t, streams[t][j], nonBlocking));
          note(nonBlocking ? Shape.NON_BLOCKING_STREAM : Shape.BLOCKING_STREAM);
          if (nonBlocking) {
            nonBlockingStreams.add(streams[t][j]);
          }
        }
      }
      if (threads > 1) {
        note(Shape.SEVERAL_THREADS);
      }
      int initial = 2 + random.nextInt(4);
      for (int i = 0; i < initial; i++) {
        thread = random.nextInt(threads);
        alloc(1 + random.nextInt(MAX_ELEMENTS));
      }
      int length = 8 + random.nextInt(maxCalls - 7);
      while (ops.size() < length + Math.max(extra, 0)) {
        if (random.nextInt(10) >= 7) {
          thread = random.nextInt(threads);
        }
        step();
      }
      return new Program(seed, Program.wellFormed(ops), shapes);
    }

    void note(Shape shape) {
      shapes.merge(shape, 1, Integer::sum);
    }

    void step() {
      if (random.nextInt(100) < 14) {
        shapeStep();
        return;
      }
      int r = random.nextInt(100);
      if (r < 36) {
        launch(Op.LaunchMode.PRECISE);
      } else if (r < 40) {
        forkJoin();
      } else if (r < 43) {
        int m = random.nextInt(5);
        launch(m < 2 ? Op.LaunchMode.CONSERVATIVE : m < 4 ? Op.LaunchMode.UNKNOWN_POINTER : Op.LaunchMode.FAILS);
      } else if (r < 45) {
        launch(Op.LaunchMode.OPAQUE);
      } else if (r < 52) {
        int[] b = pickToRead();
        int n = length(b[1]);
        ops.add(new Op.Read(thread, at(b, n), n));
        noteRead(b[0]);
      } else if (r < 54) {
        readbackStep();
      } else if (r < 58) {
        if (hosts > 0) {
          int[] b = pickToRead();
          int n = Math.min(length(b[1]), HOST_ELEMENTS);
          long stream = stream();
          ops.add(new Op.ReadAsync(thread, stream, random.nextInt(hosts), random.nextInt(HOST_ELEMENTS - n + 1),
              at(b, n), n));
          noteRead(b[0]);
          readbackStreams.add(stream);
        }
      } else if (r < 64) {
        copy();
      } else if (r < 69) {
        int[] b = pickToWrite();
        int n = length(b[1]);
        boolean sync = random.nextBoolean();
        ops.add(new Op.Memset(thread, sync ? 0 : stream(), sync, at(b, n), n, (byte) random.nextInt()));
        noteWritten(b[0]);
      } else if (r < 73) {
        int[] b = pickToWrite();
        int n = length(b[1]);
        ops.add(new Op.Write(thread, at(b, n), n, random.nextLong()));
        noteWritten(b[0]);
      } else if (r < 79) {
        if (live.size() < 10) {
          alloc(1 + random.nextInt(MAX_ELEMENTS));
        }
      } else if (r < 86) {
        free();
      } else if (r < 88) {
        ops.add(new Op.SyncContext(thread));
        readbackStreams.clear();
        readbackEvents.clear();
        observeHosts();
      } else if (r < 92) {
        long stream = syncStream();
        streamSync(stream);
        readbackStreams.removeIf(s -> s == stream);
        observeHosts();
      } else if (r < 96) {
        long stream = syncStream();
        int event = random.nextInt(events);
        ops.add(new Op.EventRecord(thread, event, stream));
        if (readbackStreams.remove(Long.valueOf(stream))) {
          readbackEvents.add(event);
        }
      } else {
        int event = !readbackEvents.isEmpty() && random.nextInt(10) < 7
            ? readbackEvents.remove(readbackEvents.size() - 1) : random.nextInt(events);
        ops.add(new Op.EventSync(thread, event));
        observeHosts();
      }
    }

    /** One of the shapes CUDA's own semantics make valid (see {@link Shape}). */
    void shapeStep() {
      switch (random.nextInt(9)) {
        case 8 -> repeatedWindow();
        case 0 -> pinnedReadbackThenSynchronousCopy();
        case 1 -> legacyWaitsForEvent();
        case 2 -> constantBetweenLaunches();
        case 3 -> kernelWithoutPtx();
        case 4 -> registeredHostCopies();
        case 5 -> mappedHostWrite();
        case 6 -> slicedAllocation();
        default -> hostFunction();
      }
    }

    /**
     * What an application's step loop does: the same few launches on one stream (a window), several
     * times, a host synchronization between iterations (a synchronous read, a stream, event or
     * context synchronize, new input copied in). Some launches' scalars change now and then or every
     * iteration; buffers may rotate (two or three places per role used in turn, allocations of their
     * own or offsets inside one, sometimes two roles swapping places); one iteration may differ (a
     * launch more, one less, another kernel), or run on another stream. The agent holds a window it
     * saw before and replays it as a graph from the second repeat on: only the launches' scalars and
     * pointers tell one window from another that touches the same allocations.
     */
    void repeatedWindow() {
      int before = ops.size();
      int roles = 2 + random.nextInt(2);
      int r = random.nextInt(10);
      int rotation = r < 5 ? 1 : r < 9 ? 2 : 3;
      int m = 4 + random.nextInt(29);
      boolean swapping = rotation > 1 && random.nextInt(3) == 0;
      int layout = random.nextInt(3); // 0: a place per allocation, 1: an allocation per role, 2: one for all
      Op.At[][] places = new Op.At[roles][rotation];
      int all = -1;
      if (layout == 2) {
        all = allocated(m * roles * rotation);
      }
      for (int role = 0; role < roles; role++) {
        if (swapping && role == 1) {
          continue;
        }
        int own = layout == 1 ? allocated(m * rotation) : -1;
        for (int turn = 0; turn < rotation; turn++) {
          places[role][turn] = layout == 0 ? new Op.At(allocated(m), 0)
              : layout == 1 ? new Op.At(own, turn * m) : new Op.At(all, (role * rotation + turn) * m);
        }
      }
      if (swapping) {
        for (int turn = 0; turn < rotation; turn++) {
          places[1][turn] = places[0][(turn + 1) % rotation];
        }
      }
      List<int[]> body = new ArrayList<>(); // {kernel, out role, in1 role, in2 role, n, k, scalar policy}
      for (int i = 2 + random.nextInt(3); i > 0; i--) {
        body.add(windowLaunch(roles, m));
      }
      int iterations = Math.min(9, rotation * 3 + 1 + random.nextInt(3));
      int diverging = random.nextInt(3) == 0 ? 2 + random.nextInt(iterations - 2) : -1;
      int separator = random.nextInt(5);
      long stream = stream();
      for (int it = 0; it < iterations; it++) {
        int turn = it % rotation;
        List<int[]> launches = new ArrayList<>();
        for (int[] step : body) {
          if (step[6] == 1 && it > 0) {
            step[5]++; // a step counter
          } else if (step[6] == 2 && it > 0 && random.nextInt(3) == 0) {
            if (random.nextInt(4) == 0) {
              step[4] = windowElements(step[0], m);
            } else {
              step[5] = random.nextInt();
            }
          }
          launches.add(step.clone());
        }
        if (it == diverging) {
          switch (random.nextInt(3)) {
            case 0 -> launches.add(windowLaunch(roles, m));
            case 1 -> launches.remove(launches.size() - 1);
            default -> {
              int[] other = windowLaunch(roles, m);
              int at = 1 + random.nextInt(launches.size() - 1);
              launches.set(at, other);
            }
          }
        }
        long on = it > 0 && random.nextInt(10) == 0 ? stream() : stream;
        for (int[] l : launches) {
          SelfTestKernel kernel = SelfTestKernel.values()[l[0]];
          int n = l[4];
          Op.At out = places[l[1]][turn];
          ops.add(new Op.Launch(thread, on, kernel, out, kernel.inputs() >= 1 ? places[l[2]][turn] : null,
              kernel.inputs() >= 2 ? places[l[3]][turn] : null, n, l[5], Op.LaunchMode.PRECISE));
          noteWritten(out.buf());
        }
        windowSeparator(random.nextInt(4) == 0 ? random.nextInt(5) : separator, places, turn, m, on);
      }
      note(Shape.REPEATED_WINDOW);
      if (extra < 0) {
        extra = ops.size() - before; // a loop is long: it must not crowd out the other shapes
      }
    }

    /** A launch of a window: {kernel, out role, in1 role, in2 role, n, k, scalars: 0 fixed, 1 counting, 2 changing}. */
    int[] windowLaunch(int roles, int m) {
      SelfTestKernel kernel = SelfTestKernel.values()[random.nextInt(SelfTestKernel.values().length)];
      int out = random.nextInt(roles);
      int in1 = (out + 1 + random.nextInt(roles - 1)) % roles;
      int in2 = (out + 1 + random.nextInt(roles - 1)) % roles;
      int p = random.nextInt(20);
      return new int[] {kernel.ordinal(), out, in1, in2, windowElements(kernel.ordinal(), m), random.nextInt(),
          p < 12 ? 0 : p < 15 ? 1 : 2};
    }

    /** Elements a window's launch takes in places of {@code m}: FILL_BACKWARD's pointer stays inside its place. */
    int windowElements(int kernel, int m) {
      return SelfTestKernel.values()[kernel] == SelfTestKernel.FILL_BACKWARD ? 1 + random.nextInt(m - 1) : 1 + random.nextInt(m);
    }

    /** The host synchronization after an iteration of a window. */
    void windowSeparator(int kind, Op.At[][] places, int turn, int m, long stream) {
      Op.At place = places[random.nextInt(places.length)][turn];
      int n = 1 + random.nextInt(m);
      switch (kind) {
        case 0, 1 -> {
          ops.add(new Op.Read(thread, place, n));
          noteRead(place.buf());
        }
        case 2 -> streamSync(stream);
        case 3 -> {
          if (random.nextBoolean()) {
            ops.add(new Op.SyncContext(thread));
          } else {
            int event = random.nextInt(events);
            ops.add(new Op.EventRecord(thread, event, stream));
            ops.add(new Op.EventSync(thread, event));
          }
        }
        default -> {
          // New input for the next iteration: the same window, other data.
          ops.add(new Op.Write(thread, place, n, random.nextLong()));
          noteWritten(place.buf());
        }
      }
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

    /**
     * An asynchronous copy into pinned memory on a stream the legacy stream synchronizes with, then a
     * synchronous copy of another buffer, then the host reads the pinned memory: valid only because
     * the synchronous copy completes all earlier work of the blocking streams.
     */
    void pinnedReadbackThenSynchronousCopy() {
      if (hosts == 0) {
        return;
      }
      long stream = blockingStream();
      int[] b = pickToRead();
      int n = Math.min(length(b[1]), HOST_ELEMENTS);
      int host = random.nextInt(hosts);
      ops.add(new Op.ReadAsync(thread, stream, host, random.nextInt(HOST_ELEMENTS - n + 1), at(b, n), n));
      noteRead(b[0]);
      int[] other = any();
      int m = length(other[1]);
      if (random.nextBoolean()) {
        ops.add(new Op.Read(thread, at(other, m), m));
        noteRead(other[0]);
      } else {
        ops.add(new Op.Write(thread, at(other, m), m, random.nextLong()));
        noteWritten(other[0]);
      }
      ops.add(new Op.ObserveHost(thread, host));
      note(Shape.PINNED_READBACK_THEN_SYNCHRONOUS_COPY);
    }

    /**
     * Work on a non-blocking stream, an event recorded there, the legacy stream (by one of its names)
     * made to wait for it, then either a host wait on the legacy stream (by either name) and a host
     * read of the copy's result, or work enqueued on the legacy stream (by either name) that reads
     * what a host function there wrote: only the wait on the event orders them.
     */
    void legacyWaitsForEvent() {
      if (hosts == 0 || nonBlockingStreams.isEmpty()) {
        return;
      }
      long stream = nonBlockingStreams.get(random.nextInt(nonBlockingStreams.size()));
      int[] b = pickToRead();
      int n = Math.min(length(b[1]), 8);
      int host = random.nextInt(hosts);
      int offset = random.nextInt(16 - n + 1);
      ops.add(new Op.ReadAsync(thread, stream, host, offset, at(b, n), n));
      noteRead(b[0]);
      boolean throughHostFunction = random.nextBoolean();
      int dstHost = random.nextInt(hosts);
      int dstOffset = 16 + random.nextInt(16 - n + 1);
      if (throughHostFunction) {
        ops.add(new Op.HostFunction(thread, stream, -1, host, offset, dstHost, dstOffset, n));
      }
      int event = random.nextInt(events);
      ops.add(new Op.EventRecord(thread, event, stream));
      long waiting = legacyName();
      ops.add(new Op.StreamWaitEvent(thread, waiting, event));
      // Mostly the other name of the legacy stream: both must mean the same stream.
      long later = random.nextInt(10) < 7 ? (waiting == 0 ? Scheduler.LEGACY_HANDLE : 0) : waiting;
      if (throughHostFunction) {
        int[] dst = pickToWrite();
        int k = Math.min(n, dst[1]);
        Op.At at = at(dst, k);
        ops.add(new Op.WriteAsync(thread, later, at, dstHost, dstOffset, k));
        ops.add(new Op.Read(thread, at, k));
        noteWritten(dst[0]);
      } else {
        switch (random.nextInt(3)) {
          case 0 -> {
            int[] other = any();
            int m = length(other[1]);
            ops.add(new Op.Read(thread, at(other, m), m));
            noteRead(other[0]);
          }
          case 1 -> streamSync(later);
          default -> {
            int second = random.nextInt(events);
            ops.add(new Op.EventRecord(thread, second, later));
            ops.add(new Op.EventSync(thread, second));
          }
        }
        ops.add(new Op.ObserveHost(thread, host));
      }
      if (later == Scheduler.LEGACY_HANDLE) {
        note(Shape.LEGACY_HANDLE);
      }
      note(Shape.LEGACY_WAITS_FOR_EVENT);
    }

    /** The {@code __constant__} words written by a synchronous copy between launches that read them. */
    void constantBetweenLaunches() {
      ops.add(new Op.WriteConstant(thread, random.nextLong()));
      for (int round = 0; round < 2; round++) {
        for (int i = 1 + random.nextInt(2); i > 0; i--) {
          int[] out = pickToWrite();
          int n = length(out[1]);
          ops.add(new Op.LaunchReadingConstant(thread, stream(), at(out, n), n, random.nextInt()));
          noteWritten(out[0]);
        }
        if (round == 0) {
          ops.add(new Op.WriteConstant(thread, random.nextLong()));
        }
      }
      note(Shape.CONSTANT_BETWEEN_LAUNCHES);
    }

    /**
     * A kernel without PTX that writes a buffer through a pointer stored in another; the buffer is
     * then used only where CUDA orders the use after the kernel (its stream, or the legacy stream
     * for a blocking one), so that the program is valid whatever the agent could see.
     */
    void kernelWithoutPtx() {
      int n = 1 + random.nextInt(32);
      int slot = nextBuf++;
      ops.add(new Op.Alloc(thread, slot, 2, random.nextLong()));
      int target = nextBuf++;
      ops.add(new Op.Alloc(thread, target, n, random.nextLong()));
      long stream = stream();
      ops.add(new Op.LaunchWithoutPtx(thread, stream, new Op.At(slot, 0), new Op.At(target, 0), n, random.nextInt()));
      int[] targetBuf = {target, n, thread};
      if (!nonBlockingStreams.contains(stream) && random.nextBoolean()) {
        int m = length(n);
        ops.add(new Op.Read(thread, at(targetBuf, m), m));
      } else {
        int[] out = any();
        int m = Math.min(length(n), out[1]);
        ops.add(new Op.Launch(thread, stream, SelfTestKernel.SCALE, at(out, m), at(targetBuf, m), null, m, random.nextInt(),
            Op.LaunchMode.PRECISE));
        noteWritten(out[0]);
      }
      note(Shape.KERNEL_WITHOUT_PTX);
    }

    /**
     * Calls on disjoint slices of one allocation, on several streams (memsets, copies in and out,
     * kernels given a pointer inside the allocation, one writing below it), sometimes a call
     * straddling two slices, then a call covering them all: only byte ranges order them.
     */
    void slicedAllocation() {
      int[] b = any();
      if (b[1] < 8) {
        alloc(8 + random.nextInt(MAX_ELEMENTS - 7));
        b = live.get(live.size() - 1);
      }
      int parts = 2 + random.nextInt(3);
      int slice = b[1] / parts;
      for (int p = 0; p < parts; p++) {
        sliceCall(b, p * slice, slice, p * slice + slice < b[1]);
      }
      if (random.nextBoolean()) {
        int from = slice / 2 + random.nextInt(slice) * (parts - 1) / parts;
        int n = 1 + random.nextInt(Math.min(slice, b[1] - from));
        sliceCall(b, from, n, from + n < b[1]);
      }
      if (random.nextBoolean()) {
        ops.add(new Op.Read(thread, new Op.At(b[0], 0), b[1] <= 64 ? b[1] : 64));
      } else {
        int[] dst = any();
        int n = Math.min(b[1], dst[1]);
        if (dst != b) {
          ops.add(new Op.Copy(thread, stream(), at(dst, n), new Op.At(b[0], 0), n));
          noteWritten(dst[0]);
        }
      }
      noteRead(b[0]);
      note(Shape.SLICED_ALLOCATION);
    }

    /** One call on {@code b[from .. from + n)}; {@code interior}: a pointer just past it is still inside {@code b}. */
    void sliceCall(int[] b, int from, int n, boolean interior) {
      Op.At at = new Op.At(b[0], from);
      int[] other = any();
      int m = Math.min(n, other[1]);
      switch (random.nextInt(interior ? 5 : 4)) {
        case 0 -> {
          boolean sync = random.nextInt(4) == 0;
          ops.add(new Op.Memset(thread, sync ? 0 : stream(), sync, at, n, (byte) random.nextInt()));
          noteWritten(b[0]);
        }
        case 1 -> {
          if (other != b) {
            ops.add(new Op.Copy(thread, stream(), new Op.At(b[0], from), at(other, m), m));
            noteWritten(b[0]);
          }
        }
        case 2 -> {
          if (other != b) {
            ops.add(new Op.Copy(thread, stream(), at(other, m), new Op.At(b[0], from), m));
            noteWritten(other[0]);
          }
        }
        case 3 -> {
          if (other != b) {
            ops.add(new Op.Launch(thread, stream(), SelfTestKernel.SCALE, at, at(other, m), null, m, random.nextInt(),
                Op.LaunchMode.PRECISE));
            noteWritten(b[0]);
          }
        }
        default -> {
          ops.add(new Op.Launch(thread, stream(), SelfTestKernel.FILL_BACKWARD, at, null, null, n, random.nextInt(),
              Op.LaunchMode.PRECISE));
          noteWritten(b[0]);
        }
      }
    }

    /** The host fills registered memory, copies it in and a result back out on one stream, waits, reads. */
    void registeredHostCopies() {
      int host = registeredHost();
      if (host < 0) {
        return;
      }
      long stream = stream();
      if (random.nextInt(3) == 0) {
        ops.add(new Op.SyncContext(thread));
      }
      int[] dst = pickToWrite();
      int n = Math.min(length(dst[1]), HOST_ELEMENTS / 2);
      int offset = random.nextInt(HOST_ELEMENTS / 2 - n + 1);
      ops.add(new Op.HostWrite(thread, host, offset, n, random.nextLong()));
      ops.add(new Op.WriteAsync(thread, stream, at(dst, n), host, offset, n));
      noteWritten(dst[0]);
      int[] src = random.nextBoolean() ? dst : pickToRead();
      int m = Math.min(length(src[1]), HOST_ELEMENTS / 2);
      ops.add(new Op.ReadAsync(thread, stream, host, HOST_ELEMENTS / 2 + random.nextInt(HOST_ELEMENTS / 2 - m + 1),
          at(src, m), m));
      noteRead(src[0]);
      waitForStream(stream);
      ops.add(new Op.ObserveHost(thread, host));
      note(Shape.REGISTERED_HOST_COPIES);
    }

    /** A kernel writes pinned memory through its mapped address; the host waits and reads it. */
    void mappedHostWrite() {
      if (hosts == 0) {
        return;
      }
      long stream = stream();
      int[] in = pickToRead();
      int n = Math.min(length(in[1]), HOST_ELEMENTS);
      int host = random.nextInt(hosts);
      ops.add(new Op.LaunchIntoHost(thread, stream, host, random.nextInt(HOST_ELEMENTS - n + 1), at(in, n), n,
          random.nextInt()));
      noteRead(in[0]);
      waitForStream(stream);
      ops.add(new Op.ObserveHost(thread, host));
      note(Shape.MAPPED_HOST_WRITE);
    }

    /**
     * A copy into host memory, a host function on the same stream that transforms it into other host
     * memory, a copy of that result to the device on the stream, a wait, a host read. Sometimes the
     * function waits for a gate that the host opens a few asynchronous calls later (one of them
     * another host function): a host that blocked before enqueuing a host function would never get
     * there.
     */
    void hostFunction() {
      if (hosts == 0) {
        return;
      }
      long stream = stream();
      int n = 1 + random.nextInt(8);
      int srcHost = random.nextInt(hosts);
      int dstHost = random.nextInt(hosts);
      int srcOffset = random.nextInt(16 - n + 1);
      int dstOffset = 16 + random.nextInt(16 - n + 1);
      int[] b = pickToRead();
      int m = Math.min(n, b[1]);
      ops.add(new Op.ReadAsync(thread, stream, srcHost, srcOffset, at(b, m), m));
      noteRead(b[0]);
      boolean gated = random.nextBoolean();
      int gate = gated ? gates++ : -1;
      ops.add(new Op.HostFunction(thread, stream, gate, srcHost, srcOffset, dstHost, dstOffset, n));
      if (gated) {
        for (int i = random.nextInt(3); i > 0; i--) {
          launch(Op.LaunchMode.PRECISE);
        }
        ops.add(new Op.HostFunction(thread, stream(), -1, srcHost, srcOffset, dstHost, 32 + random.nextInt(16 - n + 1),
            n));
        ops.add(new Op.OpenGate(thread, gate));
        note(Shape.HOST_FUNCTION_WAITING_FOR_HOST);
      }
      int[] dst = pickToWrite();
      int k = Math.min(n, dst[1]);
      ops.add(new Op.WriteAsync(thread, stream, at(dst, k), dstHost, dstOffset, k));
      noteWritten(dst[0]);
      waitForStream(stream);
      ops.add(new Op.ObserveHost(thread, dstHost));
      note(Shape.HOST_FUNCTION);
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

    /**
     * What an application's step loop does: copy a result back asynchronously, launch the next
     * step's work on the same stream (which may land on other streams of the agent), then wait
     * for the stream, directly or through an event, and read the result on the host.
     */
    void readbackStep() {
      if (hosts == 0) {
        return;
      }
      long stream = stream();
      int[] b = pickToRead();
      int n = Math.min(length(b[1]), HOST_ELEMENTS);
      int host = random.nextInt(hosts);
      ops.add(new Op.ReadAsync(thread, stream, host, random.nextInt(HOST_ELEMENTS - n + 1), at(b, n), n));
      noteRead(b[0]);
      for (int i = random.nextInt(4); i > 0; i--) {
        int[] out = any();
        int m = length(out[1]);
        ops.add(new Op.Launch(thread, stream, SelfTestKernel.FILL, at(out, m), null, null, m, random.nextInt(),
            Op.LaunchMode.PRECISE));
        noteWritten(out[0]);
      }
      waitForStream(stream);
      ops.add(new Op.ObserveHost(thread, host));
    }

    /**
     * One input read by several launches (a fork, spread over streams), other work in between,
     * then launches that join two of the branches: the shapes where waits are shared and reused.
     */
    void forkJoin() {
      int[] src = pickToRead();
      List<int[]> branches = new ArrayList<>();
      for (int i = 2 + random.nextInt(3); i > 0; i--) {
        int[] out = any();
        if (out == src) {
          continue;
        }
        int n = 1 + random.nextInt(Math.min(Math.min(src[1], out[1]), 64));
        ops.add(new Op.Launch(thread, stream(), SelfTestKernel.SCALE, at(out, n), at(src, n), null, n, random.nextInt(),
            Op.LaunchMode.PRECISE));
        noteRead(src[0]);
        noteWritten(out[0]);
        branches.add(out);
        if (random.nextBoolean()) {
          launch(Op.LaunchMode.PRECISE);
        }
      }
      for (int j = 0; j + 1 < branches.size(); j++) {
        int[] a = branches.get(j + 1);
        // The other input: an earlier branch, or whatever was written last (work that went on
        // behind the fork on some stream).
        int[] b = random.nextBoolean() ? branches.get(j) : recent(recentlyWritten);
        if (b == null) {
          continue;
        }
        int[] out = any();
        int n = 1 + random.nextInt(Math.min(Math.min(a[1], b[1]), Math.min(out[1], 64)));
        Op.At outAt = at(out, n);
        Op.At aAt = at(a, n);
        Op.At bAt = at(b, n);
        if (!overlaps(outAt, n, aAt, n) && !overlaps(outAt, n, bAt, n)) {
          ops.add(new Op.Launch(thread, stream(), SelfTestKernel.MIX, outAt, aAt, bAt, n, random.nextInt(),
              Op.LaunchMode.PRECISE));
          noteWritten(out[0]);
        }
      }
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
  }

  private static boolean overlaps(Op.At a, int an, Op.At b, int bn) {
    return b != null && a.buf() == b.buf() && a.offset() < b.offset() + bn && b.offset() < a.offset() + an;
  }
}
