package dev.kernelweave.selftest;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

/**
 * Makes random, well-formed programs that are rich in the orderings a scheduler can get wrong:
 * buffers read by many calls and written by one, ranges at offsets into one allocation, writes to
 * buffers just read (write-after-read), reads of buffers just written (read-after-write), frees of
 * buffers still in use followed by allocations that reuse their addresses, synchronous reads in the
 * middle, context synchronizations, opaque calls, application streams and events, and several
 * application threads interleaved.
 *
 * <p>Deterministic: the same seed gives the same program.
 */
public final class ProgramGenerator {

  private static final int MAX_ELEMENTS = 128;
  private static final int HOST_ELEMENTS = 64;

  private final int maxCalls;

  /** @param maxCalls an upper bound on the calls in a program (more calls: longer, rarer bugs) */
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
    final int events;
    final int hosts;
    final List<int[]> live = new ArrayList<>(); // {buf, elements, owner}
    final List<Integer> recentlyWritten = new ArrayList<>();
    final List<Integer> recentlyRead = new ArrayList<>();
    /** Streams with an asynchronous copy into page-locked memory not yet synchronized. */
    final List<Long> readbackStreams = new ArrayList<>();
    /** Events recorded on such a stream, not yet synchronized. */
    final List<Integer> readbackEvents = new ArrayList<>();
    int nextBuf;
    int thread;

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
    }

    Program build() {
      for (int h = 0; h < hosts; h++) {
        ops.add(new Op.AllocHost(0, h, HOST_ELEMENTS));
      }
      int initial = 2 + random.nextInt(4);
      for (int i = 0; i < initial; i++) {
        thread = random.nextInt(threads);
        alloc(1 + random.nextInt(MAX_ELEMENTS));
      }
      int length = 8 + random.nextInt(maxCalls - 7);
      while (ops.size() < length) {
        if (random.nextInt(10) >= 7) {
          thread = random.nextInt(threads);
        }
        step();
      }
      return new Program(seed, Program.wellFormed(ops));
    }

    void step() {
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
        ops.add(new Op.StreamSync(thread, stream));
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
        ops.add(new Op.Launch(thread, stream, Kernel.FILL, at(out, m), null, null, m, random.nextInt(),
            Op.LaunchMode.PRECISE));
        noteWritten(out[0]);
      }
      if (random.nextBoolean()) {
        ops.add(new Op.StreamSync(thread, stream));
      } else {
        int event = random.nextInt(events);
        ops.add(new Op.EventRecord(thread, event, stream));
        ops.add(new Op.EventSync(thread, event));
      }
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
        ops.add(new Op.Launch(thread, stream(), Kernel.SCALE, at(out, n), at(src, n), null, n, random.nextInt(),
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
          ops.add(new Op.Launch(thread, stream(), Kernel.MIX, outAt, aAt, bAt, n, random.nextInt(),
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
      Kernel kernel = Kernel.values()[random.nextInt(Kernel.values().length)];
      for (int attempt = 0; attempt < 8; attempt++) {
        int[] out = pickToWrite();
        int[] in1 = kernel.inputs() >= 1 ? pickToRead() : null;
        int[] in2 = kernel.inputs() >= 2 ? pickToRead() : null;
        int limit = 64;
        if (kernel != Kernel.REDUCE) {
          limit = Math.min(limit, out[1]);
        }
        if (in1 != null) {
          limit = Math.min(limit, in1[1]);
        }
        if (in2 != null) {
          limit = Math.min(limit, in2[1]);
        }
        int n = 1 + random.nextInt(limit);
        int outN = kernel.outElements(n);
        Op.At outAt = at(out, outN);
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

    long stream() {
      long[] own = streams[thread];
      return random.nextBoolean() ? 0 : own[random.nextInt(own.length)];
    }

    int length(int elements) {
      int n = 1 + random.nextInt(Math.min(elements, 64));
      return n;
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
