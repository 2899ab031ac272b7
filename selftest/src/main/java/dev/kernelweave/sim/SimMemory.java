package dev.kernelweave.sim;

import java.util.Arrays;

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

  /** {@code n} little-endian ints from {@code address}, zeros where memory was never allocated. */
  int[] ints(long address, int n) {
    int[] v = new int[n];
    readInts(address, v, n);
    return v;
  }

  /** Reads {@code n} ints into {@code into}, as {@link #ints}, without a new array. */
  void readInts(long address, int[] into, int n) {
    Arena arena = arenaOf(address);
    if (arena != null && arena.backs(address, n * 4L)) {
      arena.readInts(address, into, n);
    } else {
      Arrays.fill(into, 0, n, 0);
    }
  }

  int intAt(long address) {
    Arena arena = arenaOf(address);
    return arena != null && arena.backs(address, 4) ? arena.intAt(address) : 0;
  }

  long longAt(long address) {
    Arena arena = arenaOf(address);
    return arena != null && arena.backs(address, 8) ? arena.longAt(address) : 0;
  }

  /** Writes {@code v} little-endian at {@code address}, where memory was allocated. */
  void writeInts(long address, int[] v) {
    Arena arena = arenaOf(address);
    if (arena != null && arena.backs(address, v.length * 4L)) {
      arena.writeInts(address, v);
    }
  }
}
