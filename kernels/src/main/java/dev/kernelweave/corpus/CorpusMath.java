package dev.kernelweave.corpus;

import dev.kernelweave.kernels.CpuMath;

/**
 * The corpus kernels of {@code src/main/cuda/corpus.cu} in Java, with the same float operations in
 * the same order.
 */
final class CorpusMath {

  private CorpusMath() {}

  /**
   * C = A B for column-major A (m x k) at {@code aOffset} and B (k x n) at {@code bOffset}, as
   * {@code cublasSgemm(N, N, m, n, k, 1, A, m, B, k, 0, C, m)}: exact for inputs on the grid of
   * {@link dev.kernelweave.kernels.Seeded#eighths} (so cuBLAS's summation order does not matter).
   */
  static float[] gemm(float[] a, int aOffset, float[] b, int bOffset, int m, int n, int k) {
    float[] c = new float[m * n];
    for (int j = 0; j < n; j++) {
      for (int i = 0; i < m; i++) {
        float s = 0.0f;
        for (int l = 0; l < k; l++) {
          s = s + a[aOffset + i + l * m] * b[bOffset + l + j * k];
        }
        c[i + j * m] = s;
      }
    }
    return c;
  }

  /**
   * The gain of {@code corpus_bias_relu} after a product over {@code inputs} terms: it spreads the
   * pre-activations over the activation's range of 0 to 8 eighths, so that the layers neither die
   * nor saturate.
   */
  static float gain(int inputs) {
    return (float) (16.0 / Math.sqrt(inputs));
  }

  /** {@code corpus_bias_relu} in place, with {@link #gain} of {@code inputs}. */
  static float[] biasRelu(float[] y, float[] bias, int rows, int inputs) {
    float gain = gain(inputs);
    for (int i = 0; i < y.length; i++) {
      float v = (float) Math.rint(gain * y[i] + bias[i % rows]);
      v = v < 0.0f ? 0.0f : (v > 8.0f ? 8.0f : v);
      y[i] = v * 0.125f;
    }
    return y;
  }

  /**
   * {@link DenseLayer#apply} on the CPU: {@link #biasRelu} of the product of the out x in {@code
   * weights} and the {@code batch} columns of {@code x} that start at {@code xOffset}.
   */
  static float[] dense(float[] weights, float[] bias, float[] x, int xOffset, int out, int batch, int in) {
    return biasRelu(gemm(weights, 0, x, xOffset, out, batch, in), bias, out, in);
  }

  /** {@code corpus_add}. */
  static float[] add(float[] a, float[] b) {
    float[] out = new float[a.length];
    for (int i = 0; i < a.length; i++) {
      out[i] = a[i] + b[i];
    }
    return out;
  }

  /** {@code corpus_argmax}. */
  static int[] argmax(float[] scores, int classes) {
    int[] labels = new int[scores.length / classes];
    for (int j = 0; j < labels.length; j++) {
      int best = 0;
      for (int c = 1; c < classes; c++) {
        if (scores[j * classes + c] > scores[j * classes + best]) {
          best = c;
        }
      }
      labels[j] = best;
    }
    return labels;
  }

  /** {@code corpus_logistic}. */
  static float[] logistic(float[] x, int rounds) {
    float[] y = new float[x.length];
    for (int i = 0; i < x.length; i++) {
      y[i] = CpuMath.logistic(x[i], rounds);
    }
    return y;
  }

  /** {@code corpus_advance} in place. */
  static void advance(float[] x, float r) {
    for (int i = 0; i < x.length; i++) {
      float v = x[i];
      x[i] = (r * v) * (1.0f - v);
    }
  }

  /**
   * A filter of one pixel's 3 x 3 neighbourhood {@code p}, row by row from the row above: {@code
   * p[4]} is the pixel, and beyond the image's edges the nearest pixel stands in.
   */
  private interface Stencil {
    float apply(float[] p);
  }

  /** {@code stencil} of every pixel of a w x h image, as the corpus's filter kernels index it. */
  private static float[] filter(float[] in, int w, int h, Stencil stencil) {
    float[] out = new float[w * h];
    float[] p = new float[9];
    for (int i = 0; i < w * h; i++) {
      int y = i / w;
      int x = i - y * w;
      int[] columns = {x == 0 ? 0 : x - 1, x, x == w - 1 ? x : x + 1};
      int[] rows = {(y == 0 ? 0 : y - 1) * w, y * w, (y == h - 1 ? y : y + 1) * w};
      for (int r = 0; r < 3; r++) {
        for (int c = 0; c < 3; c++) {
          p[r * 3 + c] = in[rows[r] + columns[c]];
        }
      }
      out[i] = stencil.apply(p);
    }
    return out;
  }

  /** {@code corpus_blur} of a w x h image. */
  static float[] blur(float[] in, int w, int h) {
    return filter(in, w, h, p -> {
      float top = (p[0] + 2.0f * p[1]) + p[2];
      float centre = (2.0f * p[3] + 4.0f * p[4]) + 2.0f * p[5];
      float bottom = (p[6] + 2.0f * p[7]) + p[8];
      return ((top + centre) + bottom) * 0.0625f;
    });
  }

  /** {@code corpus_sobel} of a w x h image. */
  static float[] sobel(float[] in, int w, int h) {
    return filter(in, w, h, p -> {
      float gx = ((p[2] - p[0]) + 2.0f * (p[5] - p[3])) + (p[8] - p[6]);
      float gy = ((p[6] - p[0]) + 2.0f * (p[7] - p[1])) + (p[8] - p[2]);
      return Math.abs(gx) + Math.abs(gy);
    });
  }

  /** {@code corpus_blend}. */
  static float[] blend(float[] a, float[] b, float wa, float wb) {
    float[] out = new float[a.length];
    for (int i = 0; i < a.length; i++) {
      out[i] = wa * a[i] + wb * b[i];
    }
    return out;
  }

  /** {@code corpus_matvec} of a row-major n x n matrix. */
  static float[] matvec(float[] a, float[] x) {
    int n = x.length;
    float[] y = new float[n];
    for (int i = 0; i < n; i++) {
      float s = 0.0f;
      for (int j = 0; j < n; j++) {
        s = s + a[i * n + j] * x[j];
      }
      y[i] = s;
    }
    return y;
  }

  /**
   * The sum of squares of {@code x} as {@code corpus_square_partials} on {@code blocks} blocks of
   * 256 threads, then {@code corpus_sum}, compute it.
   */
  static float sumOfSquares(float[] x, int blocks) {
    int threads = CpuMath.REDUCE_THREADS;
    float[] partials = new float[blocks];
    for (int b = 0; b < blocks; b++) {
      float[] perThread = new float[threads];
      for (int t = 0; t < threads; t++) {
        float s = 0.0f;
        for (int i = b * threads + t; i < x.length; i += blocks * threads) {
          s = s + x[i] * x[i];
        }
        perThread[t] = s;
      }
      partials[b] = CpuMath.blockSum(perThread);
    }
    return CpuMath.blockSum(partials);
  }

  /** {@code corpus_scale}. */
  static float[] scale(float[] y, float s) {
    float[] x = new float[y.length];
    for (int i = 0; i < y.length; i++) {
      x[i] = s * y[i];
    }
    return x;
  }

  /** {@code corpus_jacobi}: the next iterate; {@code change} gets next - x. */
  static float[] jacobi(float[] a, float[] b, float[] x, float[] change) {
    int n = x.length;
    float[] next = new float[n];
    for (int i = 0; i < n; i++) {
      float s = b[i];
      for (int j = 0; j < n; j++) {
        if (j != i) {
          s = s - a[i * n + j] * x[j];
        }
      }
      float v = s / a[i * n + i];
      change[i] = v - x[i];
      next[i] = v;
    }
    return next;
  }
}
