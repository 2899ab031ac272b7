package dev.kernelweave.scheduler;

import dev.kernelweave.call.CallRecord;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.util.Arrays;

/**
 * A window's launches written out as words: everything a graph's replay depends on (function, grid,
 * block, shared memory, parameter sizes and bytes, the allocations and byte ranges each launch
 * touches), each launch's count fields before its variable parts, so that equal words mean equal
 * launches. A held window is compared with the one a graph was captured from in one pass over two
 * arrays, and each launch is fingerprinted from the same words.
 *
 * <p>Words rather than the records themselves because the comparison runs once per replay, often
 * just after a synchronous copy of the program has pushed the agent's data out of the CPU's caches:
 * one array costs a few cache misses where the captured records' dozen arrays each cost one.
 *
 * <p>Not thread-safe: owned by one {@link LaunchWindows}.
 */
final class LaunchSignature {

  /** Eight parameter bytes as one word, the first byte lowest. */
  private static final VarHandle LITTLE_ENDIAN_LONG =
      MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);

  /** {@link OrderingRules.Rule#REPLAY_MATCHES_SCALAR_ARGUMENTS}: whether the parameter bytes are part of the signature. */
  private final boolean matchesScalarArguments;
  private long[] words = new long[256];
  private int length;

  LaunchSignature(OrderingRules rules) {
    this.matchesScalarArguments = rules.keeps(OrderingRules.Rule.REPLAY_MATCHES_SCALAR_ARGUMENTS);
  }

  /** Starts a new window. */
  void clear() {
    length = 0;
  }

  /**
   * Appends the launch's words.
   *
   * @return the launch's fingerprint, a hash of exactly the words appended
   */
  long append(CallRecord c) {
    int bytes = c.paramCount == 0 ? 0 : c.paramOffsets[c.paramCount];
    ensureRoom(6 + c.paramCount + (bytes + 7) / 8 + 3 * c.accessCount);
    int from = length;
    long[] w = words;
    int n = length;
    w[n++] = c.function;
    w[n++] = pair(c.gridX, c.gridY);
    w[n++] = pair(c.gridZ, c.blockX);
    w[n++] = pair(c.blockY, c.blockZ);
    w[n++] = pair(c.sharedMemBytes, c.paramCount);
    w[n++] = c.accessCount;
    for (int i = 1; i <= c.paramCount; i++) {
      w[n++] = c.paramOffsets[i];
    }
    if (matchesScalarArguments) {
      for (int at = 0; at < bytes; at += 8) {
        long word;
        if (at + 8 <= bytes) {
          word = (long) LITTLE_ENDIAN_LONG.get(c.paramBytes, at);
        } else {
          word = 0;
          for (int b = bytes - 1; b >= at; b--) {
            word = (word << 8) | (c.paramBytes[b] & 0xFFL);
          }
        }
        w[n++] = word;
      }
    }
    for (int i = 0; i < c.accessCount; i++) {
      w[n++] = ((long) c.accessId[i] << 8) | (c.accessMode[i] & 0xFFL);
      w[n++] = c.accessOffset[i];
      w[n++] = c.accessSize[i];
    }
    length = n;
    long h = 0x9E3779B97F4A7C15L;
    for (int i = from; i < n; i++) {
      h = Mix64.of(h, w[i]);
    }
    return h;
  }

  /** Whether the launches appended since {@link #clear} are those {@code captured} was copied from. */
  boolean matches(long[] captured) {
    return captured != null && Arrays.equals(words, 0, length, captured, 0, captured.length);
  }

  /** The words appended since {@link #clear}. */
  long[] copy() {
    return Arrays.copyOf(words, length);
  }

  private void ensureRoom(int more) {
    if (length + more > words.length) {
      words = Arrays.copyOf(words, Math.max(words.length * 2, length + more));
    }
  }

  private static long pair(int high, int low) {
    return ((long) high << 32) | (low & 0xFFFFFFFFL);
  }
}
