// corpus: the kernels of the corpus of ordinary programs (dev.kernelweave.corpus), small kernels of
// the kind users write beside cuBLAS calls. Each has a Java twin in the program that launches it,
// with the same float operations in the same order (built with -fmad=false, see common.cuh).
#include "common.cuh"

// Activation of a layer whose product came from cuBLAS (column-major, `rows` features per sample):
// y = clamp(rint(gain y + bias[row]), 0, 8) / 8, which keeps activations on a grid of multiples
// of 1/8 in [0, 1] so that the next product is exact whatever order cuBLAS sums in.
extern "C" __global__ void corpus_bias_relu(float* __restrict__ y, const float* __restrict__ bias,
                                            float gain, int rows, int n) {
  KW_FOR_EACH(i, n) {
    float v = rintf(gain * y[i] + bias[i % rows]);
    v = v < 0.0f ? 0.0f : (v > 8.0f ? 8.0f : v);
    y[i] = v * 0.125f;
  }
}

// out = a + b.
extern "C" __global__ void corpus_add(const float* __restrict__ a, const float* __restrict__ b,
                                      float* __restrict__ out, int n) {
  KW_FOR_EACH(i, n) { out[i] = a[i] + b[i]; }
}

// labels[j] = the first class of the highest score of sample j (scores column-major, `classes`
// per sample).
extern "C" __global__ void corpus_argmax(const float* __restrict__ scores, int* __restrict__ labels,
                                         int classes, int samples) {
  KW_FOR_EACH(j, samples) {
    const float* s = scores + j * classes;
    int best = 0;
    for (int c = 1; c < classes; c++) {
      if (s[c] > s[best]) best = c;
    }
    labels[j] = best;
  }
}

// y = the logistic map applied `rounds` times to x.
extern "C" __global__ void corpus_logistic(const float* __restrict__ x, float* __restrict__ y,
                                           int rounds, int n) {
  KW_FOR_EACH(i, n) { y[i] = kw_logistic(x[i], rounds); }
}

// x = (r x) (1 - x) in place, with a rate the host chooses each step.
extern "C" __global__ void corpus_advance(float* __restrict__ x, float r, int n) {
  KW_FOR_EACH(i, n) {
    float v = x[i];
    x[i] = (r * v) * (1.0f - v);
  }
}

// Pixel i's 3x3 neighbourhood in a w x h image, row-major, edges clamped: the rows above, at and
// below it, and the columns left of it (x0), at it (x) and right of it (x1).
#define CORPUS_NEIGHBOURHOOD(in, w, h, i)                                                \
  int y = (i) / (w);                                                                     \
  int x = (i) - y * (w);                                                                 \
  int x0 = x == 0 ? 0 : x - 1, x1 = x == (w) - 1 ? x : x + 1;                            \
  int y0 = y == 0 ? 0 : y - 1, y1 = y == (h) - 1 ? y : y + 1;                            \
  const float* up = (in) + y0 * (w);                                                     \
  const float* mid = (in) + y * (w);                                                     \
  const float* down = (in) + y1 * (w)

// 3x3 smoothing (1 2 1 / 2 4 2 / 1 2 1) / 16 of a w x h image, row-major, edges clamped.
extern "C" __global__ void corpus_blur(const float* __restrict__ in, float* __restrict__ out, int w,
                                       int h) {
  KW_FOR_EACH(i, w * h) {
    CORPUS_NEIGHBOURHOOD(in, w, h, i);
    float top = (up[x0] + 2.0f * up[x]) + up[x1];
    float centre = (2.0f * mid[x0] + 4.0f * mid[x]) + 2.0f * mid[x1];
    float bottom = (down[x0] + 2.0f * down[x]) + down[x1];
    out[i] = ((top + centre) + bottom) * 0.0625f;
  }
}

// Sobel edge strength |gx| + |gy| of a w x h image, row-major, edges clamped.
extern "C" __global__ void corpus_sobel(const float* __restrict__ in, float* __restrict__ out, int w,
                                        int h) {
  KW_FOR_EACH(i, w * h) {
    CORPUS_NEIGHBOURHOOD(in, w, h, i);
    float gx = ((up[x1] - up[x0]) + 2.0f * (mid[x1] - mid[x0])) + (down[x1] - down[x0]);
    float gy = ((down[x0] - up[x0]) + 2.0f * (down[x] - up[x])) + (down[x1] - up[x1]);
    out[i] = fabsf(gx) + fabsf(gy);
  }
}

// out = wa a + wb b.
extern "C" __global__ void corpus_blend(const float* __restrict__ a, const float* __restrict__ b,
                                        float* __restrict__ out, float wa, float wb, int n) {
  KW_FOR_EACH(i, n) { out[i] = wa * a[i] + wb * b[i]; }
}

// y = A x for a row-major n x n matrix, each row summed from the first column on.
extern "C" __global__ void corpus_matvec(const float* __restrict__ a, const float* __restrict__ x,
                                         float* __restrict__ y, int n) {
  KW_FOR_EACH(i, n) {
    const float* row = a + (long long)i * n;
    float s = 0.0f;
    for (int j = 0; j < n; j++) s = s + row[j] * x[j];
    y[i] = s;
  }
}

// First pass of a sum of squares: block b writes partials[b], the kw_block_sum of its threads'
// sums of x[i]^2 for i = b * 256 + t, then on by the whole grid's width. Launched with exactly
// KW_REDUCE_THREADS threads per block.
extern "C" __global__ void corpus_square_partials(const float* __restrict__ x,
                                                  float* __restrict__ partials, int n) {
  float s = 0.0f;
  KW_FOR_EACH(i, n) { s = s + x[i] * x[i]; }
  float total = kw_block_sum(s);
  if (threadIdx.x == 0) partials[blockIdx.x] = total;
}

// Second pass: out[0] = the kw_block_sum of `count` partial sums (one block of
// KW_REDUCE_THREADS threads).
extern "C" __global__ void corpus_sum(const float* __restrict__ partials, float* __restrict__ out,
                                      int count) {
  float s = 0.0f;
  for (int i = threadIdx.x; i < count; i += blockDim.x) s = s + partials[i];
  float total = kw_block_sum(s);
  if (threadIdx.x == 0) out[0] = total;
}

// x = s y.
extern "C" __global__ void corpus_scale(const float* __restrict__ y, float* __restrict__ x, float s,
                                        int n) {
  KW_FOR_EACH(i, n) { x[i] = s * y[i]; }
}

// One Jacobi sweep for A x = b (A row-major n x n, diagonally dominant): next[i] = (b[i] - the sum
// over j != i of A[i][j] x[j], from the first column on) / A[i][i]; change[i] = next[i] - x[i].
extern "C" __global__ void corpus_jacobi(const float* __restrict__ a, const float* __restrict__ b,
                                         const float* __restrict__ x, float* __restrict__ next,
                                         float* __restrict__ change, int n) {
  KW_FOR_EACH(i, n) {
    const float* row = a + (long long)i * n;
    float s = b[i];
    for (int j = 0; j < n; j++) {
      if (j != i) s = s - row[j] * x[j];
    }
    float v = s / row[i];
    change[i] = v - x[i];
    next[i] = v;
  }
}
