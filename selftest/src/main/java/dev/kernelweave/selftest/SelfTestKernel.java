package dev.kernelweave.selftest;

import dev.kernelweave.call.AccessMode;

/**
 * The kernels a self-test program launches. Every kernel works on 32-bit integers (little-endian in
 * memory), one thread per element, with wrapping arithmetic, so that any device computes the same
 * bits in any order of its threads; {@link #apply} is the reference.
 *
 * <p>Arguments, in this order: {@code out}, {@code in1}, {@code in2} (device addresses; unused
 * inputs are 0), {@code n} (elements), {@code k} (a 32-bit constant). The output range never
 * overlaps an input range. In CUDA terms (all {@code unsigned int}):
 *
 * <pre>
 * FILL:   out[i] = k + i * 0x9E3779B9
 * SCALE:  out[i] = in1[i] * (k | 1) + i
 * MIX:    out[i] = rotl(in1[i], 5) ^ (in2[i] * 0x01000193 + k)
 * UPDATE: out[i] = out[i] * 3 + (in1[i] ^ k)
 * REDUCE: out[0] = k + sum over i &lt; n of in1[i] * (2 * i + 1)    (one output element)
 * FILL_BACKWARD: out[-1 - i] = k + i * 0x9E3779B9                  (out points just past its range)
 * </pre>
 *
 * <p>{@link #FILL_BACKWARD} is given an interior pointer and writes the {@code n} elements below it:
 * the agent must take a kernel's pointer parameter for its whole allocation, not for the bytes from
 * the pointer on.
 */
public enum SelfTestKernel {
  FILL(0, AccessMode.WRITE),
  SCALE(1, AccessMode.WRITE),
  MIX(2, AccessMode.WRITE),
  UPDATE(1, AccessMode.READ_WRITE),
  REDUCE(1, AccessMode.WRITE),
  FILL_BACKWARD(0, AccessMode.WRITE);

  /** Threads per block of every self-test launch: one block for the up to 64 elements a launch takes. */
  public static final int BLOCK = 128;

  private final int inputs;
  private final AccessMode outMode;

  SelfTestKernel(int inputs, AccessMode outMode) {
    this.inputs = inputs;
    this.outMode = outMode;
  }

  /** How many of {@code in1}, {@code in2} the kernel reads. */
  public int inputs() {
    return inputs;
  }

  /** What the kernel does to its output range. */
  public AccessMode outMode() {
    return outMode;
  }

  /**
   * Bytes from the start of the output range to the {@code out} pointer the kernel is given:
   * {@code 4 * n} for {@link #FILL_BACKWARD}, which writes below its pointer, 0 for the others.
   */
  public long outPointerOffset(int n) {
    return this == FILL_BACKWARD ? 4L * n : 0;
  }

  /** The blocks of a launch over {@code n} elements, {@link #BLOCK} threads each. */
  public static int blocks(int n) {
    return Math.max(1, (n + BLOCK - 1) / BLOCK);
  }

  /** The number of output elements for {@code n} input elements. */
  public int outElements(int n) {
    return this == REDUCE ? 1 : n;
  }

  /**
   * Computes the kernel: {@code out} holds the output range's old values on entry (read by
   * {@link #UPDATE}) and the new values on return, from the start of the range (for
   * {@link #FILL_BACKWARD}, {@link #outPointerOffset} below the pointer it is given).
   */
  public void apply(int[] out, int[] in1, int[] in2, int n, int k) {
    switch (this) {
      case FILL -> {
        for (int i = 0; i < n; i++) {
          out[i] = k + i * 0x9E3779B9;
        }
      }
      case SCALE -> {
        for (int i = 0; i < n; i++) {
          out[i] = in1[i] * (k | 1) + i;
        }
      }
      case MIX -> {
        for (int i = 0; i < n; i++) {
          out[i] = Integer.rotateLeft(in1[i], 5) ^ (in2[i] * 0x01000193 + k);
        }
      }
      case UPDATE -> {
        for (int i = 0; i < n; i++) {
          out[i] = out[i] * 3 + (in1[i] ^ k);
        }
      }
      case FILL_BACKWARD -> {
        for (int i = 0; i < n; i++) {
          out[n - 1 - i] = k + i * 0x9E3779B9;
        }
      }
      case REDUCE -> {
        int sum = k;
        for (int i = 0; i < n; i++) {
          sum += in1[i] * (2 * i + 1);
        }
        out[0] = sum;
      }
    }
  }
}
