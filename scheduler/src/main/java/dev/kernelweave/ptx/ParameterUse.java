package dev.kernelweave.ptx;

import dev.kernelweave.call.AccessMode;
import java.util.Optional;

/**
 * What a kernel does with the global memory that one of its parameters points to.
 *
 * <p>The analysis is never optimistic: a parameter through which the kernel may store is never
 * {@link #R} or {@link #V}, and one through which it may load is never {@link #W} or {@link #V}.
 */
public enum ParameterUse {
  /** Addresses derived from it are only loaded from. */
  R,
  /** Addresses derived from it are only stored to. */
  W,
  /** Loaded from and stored to, used by an atomic, or not provably either alone. */
  RW,
  /** Never used as the address of global memory: a scalar, or a pointer only compared or passed on. */
  V;

  /** The token of the command line and the journal: R, W, RW or V, the constant's name. */
  public String symbol() {
    return name();
  }

  public boolean reads() {
    return this == R || this == RW;
  }

  public boolean writes() {
    return this == W || this == RW;
  }

  /** The access of the allocation the parameter points into; empty for {@link #V}. */
  public Optional<AccessMode> accessMode() {
    switch (this) {
      case R:
        return Optional.of(AccessMode.READ);
      case W:
        return Optional.of(AccessMode.WRITE);
      case RW:
        return Optional.of(AccessMode.READ_WRITE);
      default:
        return Optional.empty();
    }
  }

  /** The use that reads and writes as told: {@code of(false, false)} is {@link #V}. */
  public static ParameterUse of(boolean reads, boolean writes) {
    if (reads && writes) return RW;
    if (reads) return R;
    if (writes) return W;
    return V;
  }
}
