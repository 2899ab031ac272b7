package dev.kernelweave.interceptor;

/** Wall-clock nanoseconds from {@link System#nanoTime}, anchored once, so that each call reads one clock. */
final class Clock {

  private static final long EPOCH_NANOS_AT_START;
  private static final long NANO_AT_START;

  static {
    java.time.Instant now = java.time.Instant.now();
    NANO_AT_START = System.nanoTime();
    EPOCH_NANOS_AT_START = now.getEpochSecond() * 1_000_000_000L + now.getNano();
  }

  private Clock() {}

  static long epochNanos(long nanoTime) {
    return EPOCH_NANOS_AT_START + (nanoTime - NANO_AT_START);
  }
}
