package dev.kernelweave.scheduler;

/** The one 64-bit mix of the scheduler's keys: window shapes, launch configurations. */
final class Mix64 {

  private Mix64() {}

  /** A 64-bit mix of two values (the finalizer of MurmurHash3 over their combination). */
  static long of(long h, long v) {
    long x = h * 0xC2B2AE3D27D4EB4FL + v;
    x ^= x >>> 33;
    x *= 0xFF51AFD7ED558CCDL;
    x ^= x >>> 33;
    x *= 0xC4CEB9FE1A85EC53L;
    x ^= x >>> 33;
    return x;
  }
}
