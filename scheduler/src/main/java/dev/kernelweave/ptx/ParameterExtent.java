package dev.kernelweave.ptx;

/**
 * The bytes a kernel may touch through one pointer parameter, relative to the pointer's value:
 * {@code [start, end)}, or unbounded. Immutable.
 *
 * <p>Invariant, never optimistic: when {@link #isBounded()}, every global memory address the kernel
 * may load from, store to or use atomically through the parameter lies in {@code [value + start,
 * value + end)}. {@code start} may be negative (a kernel may index backwards from the pointer it is
 * given). Unbounded means nothing is known: the kernel may touch any byte of the allocation the
 * pointer falls in, before or after it.
 */
public final class ParameterExtent {

  /** Nothing known: the whole allocation the pointer falls in. */
  public static final ParameterExtent UNBOUNDED = new ParameterExtent(0, 0);

  private final long start;
  private final long end;

  private ParameterExtent(long start, long end) {
    this.start = start;
    this.end = end;
  }

  /** {@code [start, end)} bytes from the pointer's value. @throws IllegalArgumentException unless {@code start < end} */
  public static ParameterExtent of(long start, long end) {
    if (start >= end) throw new IllegalArgumentException("empty extent [" + start + "," + end + ")");
    return new ParameterExtent(start, end);
  }

  public boolean isBounded() {
    return this != UNBOUNDED;
  }

  /** The first byte, relative to the pointer's value. @throws IllegalStateException when unbounded */
  public long start() {
    requireBounded();
    return start;
  }

  /** One past the last byte, relative to the pointer's value. @throws IllegalStateException when unbounded */
  public long end() {
    requireBounded();
    return end;
  }

  private void requireBounded() {
    if (!isBounded()) throw new IllegalStateException("unbounded extent");
  }

  @Override
  public boolean equals(Object o) {
    if (!(o instanceof ParameterExtent)) return false;
    ParameterExtent e = (ParameterExtent) o;
    return isBounded() == e.isBounded() && start == e.start && end == e.end;
  }

  @Override
  public int hashCode() {
    return isBounded() ? Long.hashCode(start) * 31 + Long.hashCode(end) : -1;
  }

  /** {@code [start,end)} as the command line prints it after the use; {@code unbounded} otherwise. */
  @Override
  public String toString() {
    return isBounded() ? "[" + start + "," + end + ")" : "unbounded";
  }
}
