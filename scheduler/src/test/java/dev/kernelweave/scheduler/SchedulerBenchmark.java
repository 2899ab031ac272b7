package dev.kernelweave.scheduler;

import com.sun.management.ThreadMXBean;
import dev.kernelweave.call.AccessMode;
import dev.kernelweave.call.CallKind;
import dev.kernelweave.call.CallRecord;
import java.lang.management.ManagementFactory;
import java.util.Locale;
import java.util.SplittableRandom;

/**
 * Decisions per second and bytes allocated per call of {@code beforeAsyncWork} + {@code afterWork},
 * with 64 live allocations and a device that does nothing, without and with priority lanes
 * ({@code +p}: every call normal, the high and low lanes beside). Not a test: run it by hand,
 *
 * <pre>
 * mvn -q -o -pl scheduler test-compile
 * java -cp scheduler/target/classes:scheduler/target/test-classes dev.kernelweave.scheduler.SchedulerBenchmark
 * </pre>
 */
public final class SchedulerBenchmark {

  private static final int ALLOCATIONS = 64;
  private static final int CALLS = 1 << 16;

  private SchedulerBenchmark() {}

  /** A pre-generated stream of launches: each reads two allocations and writes one. */
  private record Workload(String name, int[] slots, byte[] modes) {}

  public static void main(String[] args) {
    System.out.printf(Locale.ROOT, "%-44s %7s %12s %10s %12s %10s%n", "workload", "streams", "decisions/s", "ns/call",
        "bytes/call", "ops/call");
    for (int streams : new int[] {16, 4}) {
      for (Workload w : new Workload[] {random(), chains(), independent()}) {
        measure(w, streams, false);
        measure(w, streams, true); // the same normal-class calls, with the (unused) high and low lanes beside
      }
    }
  }

  private static void measure(Workload w, int streams, boolean priorityLanes) {
    ThreadMXBean threads = (ThreadMXBean) ManagementFactory.getThreadMXBean();
    long thread = Thread.currentThread().getId();
    NullDevice device = new NullDevice();
    Scheduler scheduler = new Scheduler(device, streams, priorityLanes ? Scheduler.AGENT_CLASS_LANES : 0, OrderingRules.CUDA);
    CallRecord call = new CallRecord();
    long[] seq = {0};
    Runnable batch = () -> {
      int[] slots = w.slots();
      byte[] modes = w.modes();
      for (int i = 0; i < slots.length; i += 3) {
        call.reset();
        call.seq = ++seq[0];
        call.kind = CallKind.LAUNCH;
        for (int a = 0; a < 3; a++) {
          int slot = slots[i + a];
          call.addAccess(slot + 1, slot, 0x7f0000000000L + slot * 4096L, 0, 4096, AccessMode.ofOrdinal(modes[i + a]));
        }
        scheduler.beforeAsyncWork(call);
        scheduler.afterWork(call, true);
      }
    };
    long warmUntil = System.nanoTime() + 2_000_000_000L;
    while (System.nanoTime() < warmUntil) {
      batch.run();
    }
    long ops = device.operations;
    long calls = 0;
    long bytes = threads.getThreadAllocatedBytes(thread);
    long start = System.nanoTime();
    long end = start + 3_000_000_000L;
    while (System.nanoTime() < end) {
      batch.run();
      calls += CALLS / 3;
    }
    long elapsed = System.nanoTime() - start;
    bytes = threads.getThreadAllocatedBytes(thread) - bytes;
    ops = device.operations - ops;
    System.out.printf(Locale.ROOT, "%-44s %7s %12.0f %10.1f %12.4f %10.2f%n", w.name(),
        streams + (priorityLanes ? "+p" : ""), calls * 1e9 / elapsed,
        (double) elapsed / calls, (double) bytes / calls, (double) ops / calls);
  }

  /** Uniformly random: read two of the 64 allocations, write a third. */
  private static Workload random() {
    SplittableRandom r = new SplittableRandom(1);
    int[] slots = new int[CALLS / 3 * 3];
    byte[] modes = new byte[slots.length];
    for (int i = 0; i < slots.length; i += 3) {
      slots[i] = r.nextInt(ALLOCATIONS);
      slots[i + 1] = r.nextInt(ALLOCATIONS);
      slots[i + 2] = r.nextInt(ALLOCATIONS);
      modes[i] = (byte) AccessMode.READ.ordinal();
      modes[i + 1] = (byte) AccessMode.READ.ordinal();
      modes[i + 2] = (byte) (r.nextInt(4) == 0 ? AccessMode.READ_WRITE : AccessMode.WRITE).ordinal();
    }
    return new Workload("random: 2 reads + 1 write of 64 allocations", slots, modes);
  }

  /** Eight independent chains of eight allocations each, interleaved. */
  private static Workload chains() {
    SplittableRandom r = new SplittableRandom(2);
    int[] slots = new int[CALLS / 3 * 3];
    byte[] modes = new byte[slots.length];
    int[] step = new int[8];
    for (int i = 0; i < slots.length; i += 3) {
      int chain = r.nextInt(8);
      int base = chain * 8;
      int s = step[chain]++;
      slots[i] = base + s % 8;
      slots[i + 1] = base + (s + 3) % 8;
      slots[i + 2] = base + (s + 1) % 8;
      modes[i] = (byte) AccessMode.READ.ordinal();
      modes[i + 1] = (byte) AccessMode.READ.ordinal();
      modes[i + 2] = (byte) AccessMode.WRITE.ordinal();
    }
    return new Workload("8 interleaved chains over 64 allocations", slots, modes);
  }

  /** Each call reads a constant input and writes its own output, round-robin over 64 allocations. */
  private static Workload independent() {
    int[] slots = new int[CALLS / 3 * 3];
    byte[] modes = new byte[slots.length];
    for (int i = 0, c = 0; i < slots.length; i += 3, c++) {
      slots[i] = 0;
      slots[i + 1] = 1;
      slots[i + 2] = 2 + c % (ALLOCATIONS - 2);
      modes[i] = (byte) AccessMode.READ.ordinal();
      modes[i + 1] = (byte) AccessMode.READ.ordinal();
      modes[i + 2] = (byte) AccessMode.WRITE.ordinal();
    }
    return new Workload("independent: shared inputs, 62 outputs", slots, modes);
  }
}
