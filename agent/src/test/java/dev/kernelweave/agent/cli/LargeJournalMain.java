package dev.kernelweave.agent.cli;

import dev.kernelweave.call.AccessMode;
import dev.kernelweave.call.CallKind;
import dev.kernelweave.call.CallRecord;
import dev.kernelweave.journal.ChronicleLaunchJournal;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Writes a large synthetic journal, for measuring {@code inspect} on journals far larger than the
 * unit tests use. Not a test: run it by hand with the agent's test class path, for example
 *
 * <pre>
 * java -cp agent/target/test-classes:agent/target/kernelweave-agent.jar \
 *     dev.kernelweave.agent.cli.LargeJournalMain /tmp/big 10000000 [threads]
 * </pre>
 *
 * Calls: every 16th a host-to-device copy, every 64th a synchronize, the rest launches on 16
 * allocations (each reads one slice and writes another, so that the dependency graph has edges and
 * accesses pile up between writes) that also read one allocation of weights never written (whose
 * reads pile up for the whole journal). {@code threads} distinct application threads (default 4) take
 * turns; with a huge count (millions) every call comes from a thread of its own.
 */
public final class LargeJournalMain {
  private static final int WEIGHTS = 100;

  private LargeJournalMain() {}

  public static void main(String[] args) throws Exception {
    if (args.length < 2) {
      System.err.println("usage: LargeJournalMain DIR CALLS [THREADS]");
      System.exit(2);
    }
    Path dir = Path.of(args[0]);
    long calls = Long.parseLong(args[1]);
    long threads = args.length > 2 ? Long.parseLong(args[2]) : 4;
    Files.createDirectories(dir);
    ChronicleLaunchJournal journal = ChronicleLaunchJournal.builder(dir)
        .blockSize(64L << 20)
        .warn(w -> System.err.println("journal: " + w))
        .open();
    CallRecord r = new CallRecord();
    long start = 1_767_225_600_000_000_000L; // 2026-01-01T00:00:00Z
    long t0 = System.nanoTime();
    String[] names = new String[(int) Math.min(threads, 64)];
    for (int i = 0; i < names.length; i++) {
      names[i] = "worker-" + i;
    }
    for (long seq = 1; seq <= calls; seq++) {
      r.reset();
      r.seq = seq;
      r.startNanos = start + seq * 1_000;
      r.durationNanos = 500 + seq % 300;
      r.threadId = 1 + (seq % threads);
      r.threadName = names[(int) (r.threadId % names.length)];
      r.context = 0x7f00_0000_1000L;
      r.stream = (int) (seq % 4);
      int buffer = (int) (seq % 16);
      long slice = (seq / 16) % 8;
      if (seq % 64 == 0) {
        r.kind = CallKind.SYNC;
        r.name = "cuCtxSynchronize";
        r.stream = CallRecord.NO_STREAM;
      } else if (seq % 16 == 0) {
        r.kind = CallKind.COPY_HOST_TO_DEVICE;
        r.name = "cuMemcpyHtoDAsync";
        r.bytes = 1 << 16;
        r.addAccess(buffer, 0, 0x1000_0000L * (buffer + 1), 0, 1 << 20,
            AccessMode.WRITE);
      } else {
        r.kind = CallKind.LAUNCH;
        r.name = "cuLaunchKernel";
        r.kernel = "kernel" + (seq % 8);
        r.gridX = 64;
        r.blockX = 256;
        long base = 0x1000_0000L * (buffer + 1);
        r.addAccess(buffer, 0, base, slice << 16, 1 << 16, AccessMode.READ);
        int out = (buffer + 1) % 16;
        long outBase = 0x1000_0000L * (out + 1);
        r.addAccess(WEIGHTS, 0, 0x9000_0000L, 0, 1 << 20, AccessMode.READ);
        r.addAccess(out, 0, outBase, ((slice + 1) % 8) << 16, 1 << 16, AccessMode.WRITE);
      }
      journal.append(r);
    }
    journal.close();
    System.out.printf("wrote %d calls to %s in %.1f s%n", calls, dir, (System.nanoTime() - t0) / 1e9);
  }
}
