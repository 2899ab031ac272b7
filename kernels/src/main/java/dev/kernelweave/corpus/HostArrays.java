package dev.kernelweave.corpus;

import dev.kernelweave.kernels.Outputs;
import java.util.function.UnaryOperator;

/**
 * The Java arrays a program copies to the GPU one after another, each processed alike and
 * independently of the others, and the arrays its results are copied back into: the program's
 * output is the results in order, its reference the same processing of each input on the CPU. Not
 * thread-safe; a program's threads may fill different results.
 *
 * @param in the inputs, which nothing changes
 * @param out one result array per input
 */
record HostArrays(float[][] in, float[][] out) {

  /** {@code in} with a result array of {@code outLength} floats for each. */
  static HostArrays of(float[][] in, int outLength) {
    return new HostArrays(in, new float[in.length][outLength]);
  }

  /** The results, one after the other. */
  byte[] output() {
    return Outputs.floats(out);
  }

  /** What {@link #output} must be: {@code processing} of each input, one after the other. */
  byte[] reference(UnaryOperator<float[]> processing) {
    float[][] expected = new float[in.length][];
    for (int i = 0; i < in.length; i++) {
      expected[i] = processing.apply(in[i]);
    }
    return Outputs.floats(expected);
  }
}
