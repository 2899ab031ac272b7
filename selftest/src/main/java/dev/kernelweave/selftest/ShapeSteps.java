package dev.kernelweave.selftest;

import dev.kernelweave.scheduler.Scheduler;

/**
 * The {@link Shape}s a {@link ProgramGenerator} makes, besides the repeated window: where only CUDA's
 * own stream semantics make a host observation valid (pinned and registered host memory, the legacy
 * stream, {@code __constant__} memory, kernels without PTX, host functions, slices of one allocation).
 *
 * <p>Not thread-safe: one program's making, on one thread.
 */
abstract class ShapeSteps extends RepeatedWindowSteps {

  ShapeSteps(long seed) {
    super(seed);
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
    int host = readIntoHost(stream);
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
    observeHostAfter(stream, host);
    note(Shape.MAPPED_HOST_WRITE);
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
    observeHostAfter(stream, dstHost);
    note(Shape.HOST_FUNCTION);
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
    observeHostAfter(stream, host);
    note(Shape.REGISTERED_HOST_COPIES);
  }
}
