package dev.kernelweave.agent.cli;

import dev.kernelweave.call.AccessMode;
import dev.kernelweave.call.CallKind;
import dev.kernelweave.call.CallRecord;
import dev.kernelweave.journal.ChronicleLaunchJournal;
import dev.kernelweave.journal.LaunchJournal;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.function.Consumer;
import java.util.stream.Stream;

/**
 * Writes the sample journal shipped in {@code samples/journal}: the calls a small JCuda program
 * makes under the agent, with the scheduler's decisions. Deterministic: the same calls, times and
 * decisions every run (only the queue's file names carry the date it was written).
 *
 * <p>Thread {@code main} loads a module, allocates five buffers, copies three in, runs two
 * independent chains of kernels on streams 0 and 1, joins them in a reduction on stream 0 (a
 * cross-stream wait), copies the result out (a narrowed host wait), runs an sgemm on stream 2 and
 * a device-to-device copy after it, synchronizes the context, makes one call the agent does not
 * understand (a barrier) and frees everything. Thread {@code worker-1} meanwhile fills and
 * histograms a buffer of its own on stream 3 and reads it back.
 *
 * <p>Regenerate with {@code SampleJournalTest} (see its documentation).
 */
final class SampleJournal {

  /** 2026-01-15T10:00:00Z: the sample's first call. */
  static final long EPOCH_NANOS = Instant.parse("2026-01-15T10:00:00Z").getEpochSecond() * 1_000_000_000L;
  static final long CONTEXT = 0x55d0_c0de_0000L;
  static final long MiB = 1 << 20;

  private static final long MAIN = 1;
  private static final long WORKER = 23;

  private final Consumer<CallRecord> sink;
  private final CallRecord r = new CallRecord();
  private long seq;
  private long mainClock = EPOCH_NANOS;
  private long workerClock = EPOCH_NANOS + 98_700_000;
  private long lastStart = Long.MIN_VALUE / 2;

  private SampleJournal(Consumer<CallRecord> sink) {
    this.sink = sink;
  }

  /** Writes the sample into {@code directory}, replacing the queue files of an earlier sample there. */
  static void write(Path directory) throws IOException {
    if (Files.isDirectory(directory)) {
      try (Stream<Path> files = Files.list(directory)) {
        for (Path f : files.toList()) {
          String name = f.getFileName().toString();
          if (name.endsWith(".cq4") || name.endsWith(".cq4t")) {
            Files.delete(f);
          } else {
            throw new IOException(directory + " holds " + name + ", not only an earlier sample");
          }
        }
      }
    }
    ChronicleLaunchJournal journal = ChronicleLaunchJournal.builder(directory)
        .blockSize(64 << 10)
        .queueAtOnce() // a sample of the queue's own files
        .warn(w -> {
          throw new IllegalStateException(w);
        })
        .open();
    try {
      generate(journal::append);
    } finally {
      journal.close();
    }
  }

  /** Hands the sample's calls, in order, to {@code sink} (the record is reused). */
  static void generate(Consumer<CallRecord> sink) {
    new SampleJournal(sink).program();
  }

  /** The sample's calls as separate records. */
  static List<CallRecord> calls() {
    List<CallRecord> all = new java.util.ArrayList<>();
    generate(r -> {
      CallRecord copy = new CallRecord();
      copy.copyFrom(r);
      all.add(copy);
    });
    return all;
  }

  public static void main(String[] args) throws IOException {
    write(Path.of(args.length > 0 ? args[0] : "samples/journal"));
  }

  // Allocation ids and addresses: #1 x, #2 y, #3 z, #4 w, #5 partial sums, #6 c, #7 the worker's bins.
  private static long base(int id) {
    return 0x7f4a_2000_0000L + (id - 1) * 0x10_0000L;
  }

  private void program() {
    call(MAIN, CallKind.CONTEXT, "cuInit", 2_100_000).end();
    call(MAIN, CallKind.CONTEXT, "cuCtxCreate", 95_000_000).end();
    call(MAIN, CallKind.MODULE, "cuModuleLoadData", 1_200_000).end();
    for (int i = 0; i < 4; i++) {
      call(MAIN, CallKind.MODULE, "cuModuleGetFunction", 3_000).end();
    }
    for (int id = 1; id <= 6; id++) {
      call(MAIN, CallKind.ALLOC, "cuMemAlloc", 60_000).access(id, 0, MiB, AccessMode.WRITE).end();
    }
    call(WORKER, CallKind.ALLOC, "cuMemAlloc", 55_000).access(7, 0, 64 << 10, AccessMode.WRITE).end();

    // Host-to-device copies from Java arrays: synchronous, on the legacy stream.
    long x = copyIn(1);
    call(WORKER, CallKind.MEMSET, "cuMemsetD32Async", 6_000)
        .bytes(64 << 10).stream(3).access(7, 0, 64 << 10, AccessMode.WRITE).end();
    long y = copyIn(2);
    long w = copyIn(4);

    // Chain A on stream 0: x *= 2; y = a*x + y; y = relu(y).
    long scaleA = launch("scale", 1024, 256).ptr(1).scalar(262144).stream(0)
        .access(1, 0, MiB, AccessMode.READ_WRITE).after(x).end();
    long histogram = call(WORKER, CallKind.LAUNCH, "cuLaunchKernel", 8_200).kernel("histogram", 64, 256)
        .ptr(7).scalar(16384).stream(3).access(7, 0, 64 << 10, AccessMode.READ_WRITE).end();
    launch("saxpy", 1024, 256).ptr(1).ptr(2).scalar(0x40000000).scalar(262144).stream(0)
        .access(1, 0, MiB, AccessMode.READ).access(2, 0, MiB, AccessMode.READ_WRITE).after(y).end();
    launch("relu", 1024, 256).ptr(2).scalar(262144).stream(0)
        .access(2, 0, MiB, AccessMode.READ_WRITE).end();
    // Chain B on stream 1: w *= 2; z = w * w; z = relu(z).
    long scaleB = launch("scale", 1024, 256).ptr(4).scalar(262144).stream(1)
        .access(4, 0, MiB, AccessMode.READ_WRITE).after(w).end();
    launch("square", 1024, 256).ptr(4).ptr(3).scalar(262144).stream(1)
        .access(4, 0, MiB, AccessMode.READ).access(3, 0, MiB, AccessMode.WRITE).end();
    long reluB = launch("relu", 1024, 256).ptr(3).scalar(262144).stream(1)
        .access(3, 0, MiB, AccessMode.READ_WRITE).end();
    // The worker reads its bins back: the host waits for stream 3 only.
    call(WORKER, CallKind.COPY_DEVICE_TO_HOST, "cuMemcpyDtoH", 41_000).bytes(64 << 10)
        .access(7, 0, 64 << 10, AccessMode.READ).after(histogram).hostWait(true).end();

    // Join: partial sums of y and z into #5, 256 bytes at offset 0x40, on stream 0 after stream 1.
    long reduce = launch("reduce_sum", 64, 256).sharedMem(1024).ptr(2).ptr(3).ptr(5).stream(0)
        .access(2, 0, MiB, AccessMode.READ).access(3, 0, MiB, AccessMode.READ)
        .access(5, 0x40, 256, AccessMode.WRITE).after(reluB).end();
    call(MAIN, CallKind.COPY_DEVICE_TO_HOST, "cuMemcpyDtoH", 24_000).bytes(256)
        .access(5, 0x40, 256, AccessMode.READ).after(reduce).hostWait(true).end();

    // c = x * w (sgemm) on stream 2, then y = c on the same stream.
    call(MAIN, CallKind.BLAS, "cublasSgemm_v2", 14_000).stream(2)
        .access(1, 0, MiB, AccessMode.READ).access(4, 0, MiB, AccessMode.READ)
        .access(6, 0, MiB, AccessMode.WRITE).after(scaleA).after(scaleB).end();
    // Waits for the reduction (it reads y) through the event recorded for the host's wait above.
    call(MAIN, CallKind.COPY_DEVICE_TO_DEVICE, "cuMemcpyDtoDAsync", 7_000).bytes(MiB).stream(2)
        .access(6, 0, MiB, AccessMode.READ).access(2, 0, MiB, AccessMode.WRITE).after(reduce).noEvent().end();

    call(MAIN, CallKind.SYNC, "cuCtxSynchronize", 310_000).hostWait(false).end();
    call(WORKER, CallKind.SYNC, "cuStreamSynchronize", 2_000).end();
    call(MAIN, CallKind.COPY_DEVICE_TO_HOST, "cuMemcpyDtoH", 160_000).bytes(MiB)
        .access(2, 0, MiB, AccessMode.READ).end();
    call(MAIN, CallKind.OPAQUE, "cufftExecC2C", 52_000).barrier().hostWait(false).end();
    for (int id = 1; id <= 6; id++) {
      call(MAIN, CallKind.FREE, "cuMemFree", 9_000).access(id, 0, MiB, AccessMode.WRITE).end();
    }
    call(WORKER, CallKind.FREE, "cuMemFree", 8_000).access(7, 0, 64 << 10, AccessMode.WRITE).end();
  }

  private long copyIn(int id) {
    return call(MAIN, CallKind.COPY_HOST_TO_DEVICE, "cuMemcpyHtoD", 118_000).bytes(MiB)
        .access(id, 0, MiB, AccessMode.WRITE).end();
  }

  private SampleJournal launch(String kernel, int grid, int block) {
    return call(MAIN, CallKind.LAUNCH, "cuLaunchKernel", 8_400 + kernel.length() * 40).kernel(kernel, grid, block);
  }

  private SampleJournal call(long thread, CallKind kind, String name, long hostNanos) {
    r.reset();
    r.seq = seq;
    r.threadId = thread;
    r.threadName = thread == MAIN ? "main" : "worker-1";
    r.context = CONTEXT;
    r.kind = kind;
    r.name = name;
    r.durationNanos = hostNanos;
    // Sequence numbers follow the order in which calls start, across threads.
    if (thread == MAIN) {
      r.startNanos = Math.max(mainClock, lastStart + 400);
      mainClock = r.startNanos + hostNanos + 1_700;
    } else {
      r.startNanos = Math.max(workerClock, lastStart + 400);
      workerClock = r.startNanos + hostNanos + 25_000;
    }
    lastStart = r.startNanos;
    return this;
  }

  private SampleJournal kernel(String kernel, int grid, int block) {
    r.kernel = kernel;
    r.gridX = grid;
    r.gridY = 1;
    r.gridZ = 1;
    r.blockX = block;
    r.blockY = 1;
    r.blockZ = 1;
    return this;
  }

  private SampleJournal sharedMem(int bytes) {
    r.sharedMemBytes = bytes;
    return this;
  }

  private SampleJournal ptr(int id) {
    long v = base(id);
    int at = r.addParam(8);
    for (int b = 0; b < 8; b++) {
      r.paramBytes[at + b] = (byte) (v >>> (8 * b));
    }
    return this;
  }

  private SampleJournal scalar(int v) {
    int at = r.addParam(4);
    for (int b = 0; b < 4; b++) {
      r.paramBytes[at + b] = (byte) (v >>> (8 * b));
    }
    return this;
  }

  private SampleJournal bytes(long n) {
    r.bytes = n;
    return this;
  }

  private SampleJournal stream(int stream) {
    r.stream = stream;
    return this;
  }

  private SampleJournal access(int id, long offset, long size, AccessMode mode) {
    r.addAccess(id, id - 1, base(id), offset, size, mode);
    return this;
  }

  /** A cross-stream wait for {@code predecessor}, on an event recorded after it for this call. */
  private SampleJournal after(long predecessor) {
    r.addPredecessor(predecessor);
    r.eventRecorded = true;
    return this;
  }

  /** The wait reuses an event recorded earlier. */
  private SampleJournal noEvent() {
    r.eventRecorded = false;
    return this;
  }

  private SampleJournal hostWait(boolean narrowed) {
    r.hostWaited = true;
    r.hostWaitNarrowed = narrowed;
    return this;
  }

  private SampleJournal barrier() {
    r.barrier = true;
    return this;
  }

  private long end() {
    sink.accept(r);
    return seq++;
  }
}
