package dev.kernelweave.scheduler;

import dev.kernelweave.call.CallRecord;

/**
 * The (function, grid, block, shared memory) combinations that launched successfully in one
 * context: a launch with one of them cannot fail synchronously (a bad configuration or handle is
 * reported when the launch is made), so it may be held and issued later. An exact open-addressing
 * set, allocation-free once grown. Not thread-safe.
 */
final class LaunchConfigurations {

  /** The most combinations kept; launches with others are simply never held. */
  static final int MAX_SIZE = 1 << 14;

  /** Per cell: the function (0: empty), then grid and block packed exactly. */
  private long[] cells = new long[3 * 64];
  private int size;

  boolean contains(CallRecord call) {
    long g = grid(call);
    long b = block(call);
    return call.function != 0 && g >= 0 && b >= 0 && find(cells, call.function, g, b) >= 0;
  }

  void add(CallRecord call) {
    long g = grid(call);
    long b = block(call);
    if (call.function == 0 || g < 0 || b < 0 || size == MAX_SIZE || find(cells, call.function, g, b) >= 0) {
      return;
    }
    if (2 * (size + 1) * 3 > cells.length) {
      long[] old = cells;
      cells = new long[old.length * 2];
      for (int at = 0; at < old.length; at += 3) {
        if (old[at] != 0) {
          put(cells, old[at], old[at + 1], old[at + 2]);
        }
      }
    }
    put(cells, call.function, g, b);
    size++;
  }

  void clear() {
    java.util.Arrays.fill(cells, 0);
    size = 0;
  }

  /** The cell holding the combination, or -1. */
  private static int find(long[] cells, long f, long g, long b) {
    int n = cells.length / 3;
    for (int i = slot(f, g, b, n); ; i = (i + 1) % n) {
      int at = 3 * i;
      if (cells[at] == 0) {
        return -1;
      }
      if (cells[at] == f && cells[at + 1] == g && cells[at + 2] == b) {
        return at;
      }
    }
  }

  private static void put(long[] cells, long f, long g, long b) {
    int n = cells.length / 3;
    int i = slot(f, g, b, n);
    while (cells[3 * i] != 0) {
      i = (i + 1) % n;
    }
    cells[3 * i] = f;
    cells[3 * i + 1] = g;
    cells[3 * i + 2] = b;
  }

  private static int slot(long f, long g, long b, int n) {
    return (int) ((Mix64.of(Mix64.of(f, g), b) >>> 1) % n);
  }

  /** gridX (31 bits), gridY and gridZ (16 bits each, CUDA's limit), or -1 when outside those. */
  private static long grid(CallRecord c) {
    if (c.gridX < 0 || c.gridY < 0 || c.gridY > 0xFFFF || c.gridZ < 0 || c.gridZ > 0xFFFF) {
      return -1;
    }
    return ((long) c.gridX << 32) | ((long) c.gridY << 16) | c.gridZ;
  }

  /** blockX, blockY (11 bits each), blockZ (7 bits) and shared memory (32 bits), or -1 when outside. */
  private static long block(CallRecord c) {
    if (c.blockX < 0 || c.blockX > 0x7FF || c.blockY < 0 || c.blockY > 0x7FF || c.blockZ < 0 || c.blockZ > 0x7F
        || c.sharedMemBytes < 0) {
      return -1;
    }
    return ((long) c.blockX << 50) | ((long) c.blockY << 39) | ((long) c.blockZ << 32) | (c.sharedMemBytes & 0xFFFFFFFFL);
  }
}
