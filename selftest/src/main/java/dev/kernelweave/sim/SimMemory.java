package dev.kernelweave.sim;

/**
 * The simulated device's memory: a device arena and a page-locked host arena, bytes at addresses,
 * the allocation numbers that tell a reused address from the allocation an operation was issued on,
 * and the module's constant.
 *
 * <p>Not thread-safe: it belongs to one {@link SimDevice}.
 */
final class SimMemory {

  private static final long DEVICE_BASE = 0x7f3a_0000_0000L;
  private static final long HOST_BASE = 0x7f9c_0000_0000L;
  private static final long ARENA_SIZE = 1L << 30;
  private static final byte UNINITIALIZED = (byte) 0xCD;

  final Arena device = new Arena(DEVICE_BASE, ARENA_SIZE, UNINITIALIZED);
  final Arena host = new Arena(HOST_BASE, ARENA_SIZE, (byte) 0);
  private int allocations;
  private long constant;

  /** The number of the next allocation, device or host. */
  int nextAllocation() {
    return ++allocations;
  }

  /** The module's constant, allocated on first use. */
  long moduleConstant() {
    if (constant == 0) {
      constant = device.allocate(++allocations, 16).base();
    }
    return constant;
  }

  /** The constant's address as it is now, without allocating it. */
  long constant() {
    return constant;
  }

  Arena.Allocation allocationAt(long address) {
    Arena arena = arenaOf(address);
    return arena == null ? null : arena.find(address);
  }

  private Arena arenaOf(long address) {
    return device.holds(address) ? device : host.holds(address) ? host : null;
  }

  byte[] read(long address, int length) {
    byte[] into = new byte[length];
    Arena arena = arenaOf(address);
    if (arena != null && arena.backs(address, length)) {
      arena.read(address, into, 0, length);
    }
    return into;
  }

  void write(long address, byte[] data) {
    Arena arena = arenaOf(address);
    if (arena != null && arena.backs(address, data.length)) {
      arena.write(address, data, 0, data.length);
    }
  }

  int[] ints(long address, int n) {
    byte[] b = read(address, n * 4);
    int[] v = new int[n];
    for (int i = 0; i < n; i++) {
      v[i] = (b[4 * i] & 0xFF) | (b[4 * i + 1] & 0xFF) << 8 | (b[4 * i + 2] & 0xFF) << 16 | (b[4 * i + 3] & 0xFF) << 24;
    }
    return v;
  }

  static byte[] toBytes(int[] v) {
    byte[] b = new byte[v.length * 4];
    for (int i = 0; i < v.length; i++) {
      b[4 * i] = (byte) v[i];
      b[4 * i + 1] = (byte) (v[i] >>> 8);
      b[4 * i + 2] = (byte) (v[i] >>> 16);
      b[4 * i + 3] = (byte) (v[i] >>> 24);
    }
    return b;
  }
}
