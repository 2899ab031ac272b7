package dev.kernelweave.journal;

import dev.kernelweave.call.AccessMode;
import dev.kernelweave.call.CallKind;
import dev.kernelweave.call.CallRecord;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * Measures what {@link ChronicleLaunchJournal#append} costs the calling thread: nanoseconds and
 * bytes allocated per call, for bursts that fit the ring and for a sustained stream that outruns
 * the writer. Not a test: run it by hand (see the class path in the surefire report, or the
 * project's notes) with the same --add-opens flags as the tests.
 */
public final class AppendCostMain {
  private AppendCostMain() {}

  public static void main(String[] args) throws Exception {
    com.sun.management.ThreadMXBean threads =
        (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
    Path dir = Files.createTempDirectory("kernelweave-append-cost");
    ChronicleLaunchJournal journal = ChronicleLaunchJournal.builder(dir).open();
    CallRecord call = launch();
    int burst = journal.ringCapacity() / 2;
    int rounds = 400;

    for (int warm = 0; warm < 200; warm++) {
      burst(journal, call, burst);
    }
    long allocated = 0;
    long nanos = 0;
    long[] perRound = new long[rounds];
    for (int r = 0; r < rounds; r++) {
      long a0 = threads.getCurrentThreadAllocatedBytes();
      long t = burst(journal, call, burst);
      allocated += threads.getCurrentThreadAllocatedBytes() - a0;
      nanos += t;
      perRound[r] = t;
    }
    java.util.Arrays.sort(perRound);
    long appends = (long) rounds * burst;
    System.out.printf("burst (%d calls into an empty ring of %d, %d rounds): mean %.1f ns/append,"
            + " median round %.1f ns/append, %.3f bytes/append%n",
        burst, journal.ringCapacity(), rounds, (double) nanos / appends,
        (double) perRound[rounds / 2] / burst, (double) allocated / appends);

    int sustained = 2_000_000;
    long waits0 = journal.fullWaits();
    long a0 = threads.getCurrentThreadAllocatedBytes();
    long t0 = System.nanoTime();
    for (int i = 0; i < sustained; i++) {
      call.seq = i;
      journal.append(call);
    }
    long t = System.nanoTime() - t0;
    long a = threads.getCurrentThreadAllocatedBytes() - a0;
    journal.awaitWritten(60, TimeUnit.SECONDS);
    System.out.printf("sustained (%d calls back to back): %.1f ns/append, %.3f bytes/append,"
            + " %d appends found the ring full%n",
        sustained, (double) t / sustained, (double) a / sustained, journal.fullWaits() - waits0);
    journal.close();
    long size;
    try (Stream<Path> files = Files.walk(dir)) {
      size = files.filter(Files::isRegularFile).mapToLong(p -> p.toFile().length()).sum();
    }
    System.out.printf("journal: %d calls written, %.1f MiB of files (apparent size)%n",
        journal.written(), size / 1048576.0);
    try (Stream<Path> files = Files.walk(dir)) {
      files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    }
  }

  private static long burst(ChronicleLaunchJournal journal, CallRecord call, int n) {
    long t0 = System.nanoTime();
    for (int i = 0; i < n; i++) {
      call.seq++;
      journal.append(call);
    }
    long t = System.nanoTime() - t0;
    journal.awaitWritten(10, TimeUnit.SECONDS);
    return t;
  }

  /** A typical launch: four pointer parameters and two scalars, three accesses, one predecessor. */
  private static CallRecord launch() {
    CallRecord c = new CallRecord();
    c.kind = CallKind.LAUNCH;
    c.name = "cuLaunchKernel";
    c.kernel = "saxpy";
    c.threadName = "main";
    c.threadId = 1;
    c.startNanos = System.currentTimeMillis() * 1_000_000L;
    c.durationNanos = 8_500;
    c.gridX = 256;
    c.gridY = c.gridZ = c.blockY = c.blockZ = 1;
    c.blockX = 256;
    for (int i = 0; i < 6; i++) {
      c.addParam(i < 4 ? 8 : 4);
    }
    c.addAccess(1, 0, 0x7f0000000000L, 0, 1 << 20, AccessMode.READ);
    c.addAccess(2, 1, 0x7f0000100000L, 0, 1 << 20, AccessMode.READ);
    c.addAccess(3, 2, 0x7f0000200000L, 0, 1 << 20, AccessMode.WRITE);
    c.stream = 3;
    c.addPredecessor(41);
    return c;
  }
}
