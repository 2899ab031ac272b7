package dev.kernelweave.call;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.Arrays;

/** Deterministic calls for journal tests, and a field-by-field comparison of what is journaled. */
public final class TestCalls {

  private static final CallKind[] KINDS = CallKind.values();
  private static final String[] KERNELS = {"saxpy", "reduce_sum", "stencil_3d", "softmax"};
  private static final String[] THREADS = {"main", "worker-1", "gpu-feeder \u00e9\u4e2d"};

  private TestCalls() {}

  /** Fills {@code into} with the call numbered {@code seq}: every field set, sizes varying with seq. */
  public static CallRecord fill(CallRecord into, long seq) {
    into.reset();
    int v = (int) (seq % 97);
    into.seq = seq;
    into.startNanos = 1_700_000_000_000_000_000L + seq * 9_000L;
    into.durationNanos = 8_000 + v;
    into.threadId = 1 + seq % 3;
    into.threadName = THREADS[(int) (seq % THREADS.length)];
    into.priority = PriorityClass.ofOrdinal((int) (seq % PriorityClass.values().length));
    into.context = 0x7f00_0000_1000L + (seq % 2);
    into.kind = KINDS[(int) (seq % KINDS.length)];
    into.name = into.kind == CallKind.LAUNCH ? "cuLaunchKernel" : "cuCall" + (seq % 5);
    into.appStream = seq % 4 == 0 ? 0 : 0x5555_0000L + seq % 4;
    into.result = seq % 50 == 0 ? CallRecord.RESULT_THREW : (int) (seq % 7);
    into.kernel = into.kind == CallKind.LAUNCH ? KERNELS[(int) (seq % KERNELS.length)] : "";
    into.gridX = 1 + v;
    into.gridY = 2 + v % 3;
    into.gridZ = 3;
    into.blockX = 128 + v;
    into.blockY = 1;
    into.blockZ = 4 + v % 2;
    into.sharedMemBytes = v * 64;
    int params = (int) (seq % 11);
    for (int i = 0; i < params; i++) {
      int size = i % 3 == 0 ? 8 : 4;
      int at = into.addParam(size);
      for (int b = 0; b < size; b++) {
        into.paramBytes[at + b] = (byte) (seq * 31 + i * 7 + b);
      }
    }
    into.bytes = seq * 4096L;
    int accesses = (int) (seq % 9);
    for (int i = 0; i < accesses; i++) {
      into.addAccess(1 + (int) ((seq + i) % 13), i, 0x7000_0000_0000L + i * 0x10_0000L, i * 64L,
          256L * (i + 1), AccessMode.ofOrdinal((int) ((seq + i) % 3)));
    }
    into.touchesUnknownMemory = seq % 13 == 0;
    into.stream = seq % 6 == 0 ? CallRecord.NO_STREAM : (int) (seq % 16);
    int predecessors = (int) (seq % 7);
    for (int i = 0; i < predecessors; i++) {
      into.addPredecessor(Math.max(0, seq - 1 - i));
    }
    into.eventRecorded = seq % 2 == 0;
    into.hostWaited = seq % 3 == 0;
    into.hostWaitNarrowed = seq % 5 == 0;
    into.barrier = seq % 17 == 0;
    return into;
  }

  /** Asserts that {@code actual} holds every journaled field of {@code expected}. */
  public static void assertSameCall(CallRecord expected, CallRecord actual) {
    String at = "seq " + expected.seq + ": ";
    assertEquals(expected.seq, actual.seq, at + "seq");
    assertEquals(expected.startNanos, actual.startNanos, at + "startNanos");
    assertEquals(expected.durationNanos, actual.durationNanos, at + "durationNanos");
    assertEquals(expected.threadId, actual.threadId, at + "threadId");
    assertEquals(expected.threadName, actual.threadName, at + "threadName");
    assertEquals(expected.priority, actual.priority, at + "priority");
    assertEquals(expected.context, actual.context, at + "context");
    assertEquals(expected.kind, actual.kind, at + "kind");
    assertEquals(expected.name, actual.name, at + "name");
    assertEquals(expected.appStream, actual.appStream, at + "appStream");
    assertEquals(expected.result, actual.result, at + "result");
    assertEquals(expected.kernel, actual.kernel, at + "kernel");
    assertArrayEquals(
        new int[] {expected.gridX, expected.gridY, expected.gridZ, expected.blockX, expected.blockY,
            expected.blockZ, expected.sharedMemBytes},
        new int[] {actual.gridX, actual.gridY, actual.gridZ, actual.blockX, actual.blockY,
            actual.blockZ, actual.sharedMemBytes},
        at + "dims");
    assertEquals(expected.paramCount, actual.paramCount, at + "paramCount");
    assertArrayEquals(Arrays.copyOf(expected.paramOffsets, expected.paramCount + 1),
        Arrays.copyOf(actual.paramOffsets, actual.paramCount + 1), at + "paramOffsets");
    int paramBytes = expected.paramOffsets[expected.paramCount];
    assertArrayEquals(Arrays.copyOf(expected.paramBytes, paramBytes),
        Arrays.copyOf(actual.paramBytes, paramBytes), at + "paramBytes");
    assertEquals(expected.bytes, actual.bytes, at + "bytes");
    int n = expected.accessCount;
    assertEquals(n, actual.accessCount, at + "accessCount");
    assertArrayEquals(Arrays.copyOf(expected.accessId, n), Arrays.copyOf(actual.accessId, n), at + "accessId");
    assertArrayEquals(Arrays.copyOf(expected.accessBase, n), Arrays.copyOf(actual.accessBase, n), at + "accessBase");
    assertArrayEquals(Arrays.copyOf(expected.accessOffset, n), Arrays.copyOf(actual.accessOffset, n),
        at + "accessOffset");
    assertArrayEquals(Arrays.copyOf(expected.accessSize, n), Arrays.copyOf(actual.accessSize, n), at + "accessSize");
    assertArrayEquals(Arrays.copyOf(expected.accessMode, n), Arrays.copyOf(actual.accessMode, n), at + "accessMode");
    assertEquals(expected.touchesUnknownMemory, actual.touchesUnknownMemory, at + "touchesUnknownMemory");
    assertEquals(expected.stream, actual.stream, at + "stream");
    assertEquals(expected.predecessorCount, actual.predecessorCount, at + "predecessorCount");
    assertArrayEquals(Arrays.copyOf(expected.predecessors, expected.predecessorCount),
        Arrays.copyOf(actual.predecessors, actual.predecessorCount), at + "predecessors");
    assertEquals(expected.eventRecorded, actual.eventRecorded, at + "eventRecorded");
    assertEquals(expected.hostWaited, actual.hostWaited, at + "hostWaited");
    assertEquals(expected.hostWaitNarrowed, actual.hostWaitNarrowed, at + "hostWaitNarrowed");
    assertEquals(expected.barrier, actual.barrier, at + "barrier");
    assertEquals(expected.merged, actual.merged, at + "merged");
    assertEquals(expected.firstMerged, actual.firstMerged, at + "firstMerged");
  }
}
