// libcublas.so.12 for machines without a GPU: the few cuBLAS calls the heads workload makes, queued
// on the cpu-device streams. Sums run from the last k to the first, another order than the Java
// reference's, which the heads inputs make irrelevant (see HeadsProblem).
#include <cstdio>

#include "cpu_device.h"

namespace {
struct Handle {
  CUstream stream = nullptr;
  int pointerMode = 0;  // CUBLAS_POINTER_MODE_HOST
};
constexpr int kSuccess = 0;
constexpr int kInvalidValue = 7;
constexpr int kNotSupported = 15;
}  // namespace

extern "C" {

int cublasCreate_v2(Handle **handle) {
  *handle = new Handle();
  return kSuccess;
}

int cublasDestroy_v2(Handle *handle) {
  delete handle;
  return kSuccess;
}

int cublasSetStream_v2(Handle *handle, CUstream stream) {
  handle->stream = stream;
  return kSuccess;
}

int cublasGetPointerMode_v2(Handle *handle, int *mode) {
  *mode = handle->pointerMode;
  return kSuccess;
}

int cublasSetPointerMode_v2(Handle *handle, int mode) {
  if (mode != 0) return kNotSupported;
  handle->pointerMode = mode;
  return kSuccess;
}

int cublasSgemm_v2(Handle *handle, int transa, int transb, int m, int n, int k, const float *alpha,
                   const float *a, int lda, const float *b, int ldb, const float *beta, float *c,
                   int ldc) {
  if (transa != 0 || transb != 0) {
    std::fprintf(stderr, "cpu-device cublas: only CUBLAS_OP_N\n");
    return kNotSupported;
  }
  if (m < 0 || n < 0 || k < 0 || lda < m || ldb < k || ldc < m) return kInvalidValue;
  auto bytes = [](int rows, int ld, int cols) { return sizeof(float) * (size_t(ld) * (cols - 1) + rows); };
  if (!kw_cpu_device_in_device_memory(a, bytes(m, lda, k)) || !kw_cpu_device_in_device_memory(b, bytes(k, ldb, n))
      || !kw_cpu_device_in_device_memory(c, bytes(m, ldc, n))) {
    std::fprintf(stderr, "cpu-device cublas: sgemm operand outside device memory\n");
    return kInvalidValue;
  }
  float al = *alpha;  // host pointer mode: read at the call
  float be = *beta;
  kw_cpu_device_enqueue(handle->stream, [=] {
    for (int j = 0; j < n; j++) {
      for (int i = 0; i < m; i++) {
        float sum = 0.0f;
        for (int p = k - 1; p >= 0; p--) {
          sum = sum + a[i + size_t(p) * lda] * b[p + size_t(j) * ldb];
        }
        float value = al * sum;
        c[i + size_t(j) * ldc] = be == 0.0f ? value : value + be * c[i + size_t(j) * ldc];
      }
    }
  });
  return kSuccess;
}

}  // extern "C"
