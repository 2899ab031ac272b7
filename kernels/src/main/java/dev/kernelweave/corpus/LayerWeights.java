package dev.kernelweave.corpus;

import dev.kernelweave.kernels.Seeded;

/**
 * The weights and biases of a stack of dense layers, layer {@code l} mapping {@code ins[l]} inputs
 * to {@code outs[l]} outputs: multiples of 1/8 (see {@link Seeded#eighths}), drawn layer by layer,
 * its weights then its biases, so that a program's inputs depend only on its seed and shapes.
 */
record LayerWeights(float[][] weights, float[][] biases) {

  static LayerWeights draw(Seeded random, int[] outs, int[] ins) {
    float[][] weights = new float[outs.length][];
    float[][] biases = new float[outs.length][];
    for (int l = 0; l < outs.length; l++) {
      weights[l] = random.eighths(outs[l] * ins[l]);
      biases[l] = random.eighths(outs[l]);
    }
    return new LayerWeights(weights, biases);
  }
}
