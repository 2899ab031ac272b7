package dev.kernelweave.selftest;

import java.util.ArrayList;
import java.util.List;

/**
 * Makes one program for a {@link ProgramGenerator}: its length, and the mix of steps it is made of.
 *
 * <p>Not thread-safe: one program's making, on one thread.
 */
final class ProgramBuilder extends ShapeSteps {

  private final int maxCalls;

  ProgramBuilder(long seed, int maxCalls) {
    super(seed);
    this.maxCalls = maxCalls;
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
    switch (random.nextInt(10)) {
      case 8 -> repeatedWindow();
      case 9 -> mergeableWindow();
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
   * What an application's step loop does: copy a result back asynchronously, launch the next
   * step's work on the same stream (which may land on other streams of the agent), then wait
   * for the stream, directly or through an event, and read the result on the host.
   */
  void readbackStep() {
    if (hosts == 0) {
      return;
    }
    long stream = stream();
    int host = readIntoHost(stream);
    for (int i = random.nextInt(4); i > 0; i--) {
      int[] out = any();
      int m = length(out[1]);
      ops.add(new Op.Launch(thread, stream, SelfTestKernel.FILL, at(out, m), null, null, m, random.nextInt(),
          Op.LaunchMode.PRECISE));
      noteWritten(out[0]);
    }
    observeHostAfter(stream, host);
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
}
