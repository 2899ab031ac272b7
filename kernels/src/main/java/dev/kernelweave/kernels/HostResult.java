package dev.kernelweave.kernels;

import jcuda.driver.CUdeviceptr;
import jcuda.driver.CUstream;

/**
 * Where a variant copies a workload's one-buffer result back to at the end of a run: a Java array
 * filled by a synchronous {@code cuMemcpyDtoH}, as users write it (the serial variants), or pinned
 * memory filled by an asynchronous copy on a stream the host then waits for (the tuned variants and
 * their graph twins). Lets a workload write its output, and each variant its copy back, once for
 * both kinds. Not thread-safe: the thread that runs the workload uses it.
 */
public final class HostResult {

  /** The serial variants' array; null for pinned memory. */
  private final float[] array;

  /** The tuned variants' memory and the stream its copy runs on; null for an array. */
  private final PinnedFloats pinned;

  private final CUstream stream;

  private HostResult(float[] array, PinnedFloats pinned, CUstream stream) {
    this.array = array;
    this.pinned = pinned;
    this.stream = stream;
  }

  /** A Java array of {@code floats} floats, filled by a synchronous copy. */
  public static HostResult array(int floats) {
    return new HostResult(new float[floats], null, null);
  }

  /** {@code pinned}, filled by an asynchronous copy on {@code stream} and a wait for it. */
  public static HostResult pinned(PinnedFloats pinned, CUstream stream) {
    return new HostResult(null, pinned, stream);
  }

  /** Copies all of the result from {@code device}; on return the host may read it. */
  public void copyFrom(CUdeviceptr device) {
    if (pinned == null) {
      Cuda.download(array, device);
    } else {
      pinned.readBack(device, stream);
    }
  }

  /** The result's floats as of the last {@link #copyFrom}. */
  public float[] floats() {
    return pinned == null ? array : pinned.toArray();
  }
}
