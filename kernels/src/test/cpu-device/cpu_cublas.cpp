// libcublas.so.12 for machines without a GPU: handles with their stream, pointer mode, math mode,
// atomics mode, SM count target and workspace, and sgemm (CUBLAS_OP_N), queued on the cpu-device
// streams. Sums run from the last k to the first, another order than the Java reference's, which
// the heads inputs make irrelevant (see HeadsProblem).
//
// The settings change the bytes, so that a handle configured unlike the application's shows:
// TF32 math mode rounds the inputs to TF32, atomics allowed sums from the first k. An sgemm whose
// output fits the handle's workspace (the one set with cublasSetWorkspace, else a default one of
// the handle's own) is two operations on the stream: the products into the workspace, then the
// workspace into C; two handles sharing a workspace on two streams can then mix their results,
// as they could on a GPU.
//
// With KW_CPU_CUBLAS_STATS set, the number of calls of each function is printed on stderr at exit.
#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "cpu_device.h"

extern "C" CUresult cuCtxSynchronize();

namespace {
constexpr int kSuccess = 0;
constexpr int kNotInitialized = 1;
constexpr int kInvalidValue = 7;
constexpr int kNotSupported = 15;
constexpr int kPointerModeDevice = 1;
constexpr int kTf32TensorOpMath = 3;
constexpr int kAtomicsAllowed = 1;
constexpr size_t kDefaultWorkspaceBytes = 64 * 1024;

struct Handle {
  CUstream stream = nullptr;
  int pointerMode = 0;  // CUBLAS_POINTER_MODE_HOST
  int mathMode = 0;     // CUBLAS_DEFAULT_MATH
  int atomicsMode = 0;  // CUBLAS_ATOMICS_NOT_ALLOWED
  int smCountTarget = 0;
  std::vector<float> defaultWorkspace = std::vector<float>(kDefaultWorkspaceBytes / sizeof(float));
  bool userWorkspace = false;  // cublasSetWorkspace since the last cublasSetStream
  float *workspace = nullptr;
  size_t workspaceBytes = 0;
};

enum Counted { kCreate, kDestroy, kSetStream, kGetStream, kSetPointerMode, kSetMathMode, kSetAtomicsMode,
               kSetSmCountTarget, kSetWorkspace, kSgemm, kCountedCount };
const char *const kCountedNames[] = {"cublasCreate_v2", "cublasDestroy_v2", "cublasSetStream_v2",
                                     "cublasGetStream_v2", "cublasSetPointerMode_v2", "cublasSetMathMode",
                                     "cublasSetAtomicsMode", "cublasSetSmCountTarget", "cublasSetWorkspace_v2",
                                     "cublasSgemm_v2"};

struct Stats {
  std::atomic<long> calls[kCountedCount] = {};
  ~Stats() {
    if (!std::getenv("KW_CPU_CUBLAS_STATS")) return;
    std::fprintf(stderr, "cpu-device cublas calls:");
    for (int i = 0; i < kCountedCount; i++) std::fprintf(stderr, " %s=%ld", kCountedNames[i], calls[i].load());
    std::fprintf(stderr, "\n");
  }
} stats;

void count(Counted c) { stats.calls[c]++; }

float tf32(float x) {
  uint32_t bits;
  std::memcpy(&bits, &x, sizeof bits);
  bits = (bits + 0x1000u) & ~0x1fffu;  // 10 mantissa bits, rounded half up
  std::memcpy(&x, &bits, sizeof x);
  return x;
}
}  // namespace

extern "C" {

int cublasCreate_v2(Handle **handle) {
  count(kCreate);
  *handle = new Handle();
  return kSuccess;
}

int cublasDestroy_v2(Handle *handle) {
  count(kDestroy);
  if (!handle) return kNotInitialized;
  cuCtxSynchronize();  // as cuBLAS documents: its work may still use the handle's workspace
  delete handle;
  return kSuccess;
}

int cublasSetStream_v2(Handle *handle, CUstream stream) {
  count(kSetStream);
  if (!handle) return kNotInitialized;
  handle->stream = stream;
  handle->userWorkspace = false;  // as cuBLAS documents: back to the default workspace
  return kSuccess;
}

int cublasGetStream_v2(Handle *handle, CUstream *stream) {
  count(kGetStream);
  if (!handle) return kNotInitialized;
  *stream = handle->stream;
  return kSuccess;
}

int cublasGetPointerMode_v2(Handle *handle, int *mode) {
  if (!handle) return kNotInitialized;
  *mode = handle->pointerMode;
  return kSuccess;
}

int cublasSetPointerMode_v2(Handle *handle, int mode) {
  count(kSetPointerMode);
  if (!handle) return kNotInitialized;
  if (mode != 0 && mode != kPointerModeDevice) return kInvalidValue;
  handle->pointerMode = mode;
  return kSuccess;
}

int cublasGetMathMode(Handle *handle, int *mode) {
  if (!handle) return kNotInitialized;
  *mode = handle->mathMode;
  return kSuccess;
}

int cublasSetMathMode(Handle *handle, int mode) {
  count(kSetMathMode);
  if (!handle) return kNotInitialized;
  handle->mathMode = mode;
  return kSuccess;
}

int cublasGetAtomicsMode(Handle *handle, int *mode) {
  if (!handle) return kNotInitialized;
  *mode = handle->atomicsMode;
  return kSuccess;
}

int cublasSetAtomicsMode(Handle *handle, int mode) {
  count(kSetAtomicsMode);
  if (!handle) return kNotInitialized;
  if (mode != 0 && mode != kAtomicsAllowed) return kInvalidValue;
  handle->atomicsMode = mode;
  return kSuccess;
}

int cublasGetSmCountTarget(Handle *handle, int *target) {
  if (!handle) return kNotInitialized;
  *target = handle->smCountTarget;
  return kSuccess;
}

int cublasSetSmCountTarget(Handle *handle, int target) {
  count(kSetSmCountTarget);
  if (!handle) return kNotInitialized;
  if (target < 0) return kInvalidValue;
  handle->smCountTarget = target;
  return kSuccess;
}

int cublasSetWorkspace_v2(Handle *handle, void *workspace, size_t bytes) {
  count(kSetWorkspace);
  if (!handle) return kNotInitialized;
  if (bytes > 0 && !kw_cpu_device_in_device_memory(workspace, bytes)) {
    std::fprintf(stderr, "cpu-device cublas: workspace outside device memory\n");
    return kInvalidValue;
  }
  handle->userWorkspace = true;
  handle->workspace = static_cast<float *>(workspace);
  handle->workspaceBytes = bytes;
  return kSuccess;
}

int cublasSgemm_v2(Handle *handle, int transa, int transb, int m, int n, int k, const float *alpha,
                   const float *a, int lda, const float *b, int ldb, const float *beta, float *c,
                   int ldc) {
  count(kSgemm);
  if (!handle) return kNotInitialized;
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
  bool devicePointers = handle->pointerMode == kPointerModeDevice;
  if (devicePointers && (!kw_cpu_device_in_device_memory(alpha, sizeof(float))
                         || !kw_cpu_device_in_device_memory(beta, sizeof(float)))) {
    std::fprintf(stderr, "cpu-device cublas: device pointer mode with scalars outside device memory\n");
    return kInvalidValue;
  }
  // Host pointer mode: the scalars are read at the call; device pointer mode: when the work runs.
  float hostAlpha = devicePointers ? 0.0f : *alpha;
  float hostBeta = devicePointers ? 0.0f : *beta;
  bool tf32Inputs = (handle->mathMode & 0xf) == kTf32TensorOpMath;
  bool forward = handle->atomicsMode == kAtomicsAllowed;
  float *scratch = handle->userWorkspace ? handle->workspace : handle->defaultWorkspace.data();
  size_t scratchBytes = handle->userWorkspace ? handle->workspaceBytes : kDefaultWorkspaceBytes;
  bool staged = sizeof(float) * size_t(m) * n <= scratchBytes;
  auto products = [=](float *out, size_t ldOut) {
    float al = devicePointers ? *alpha : hostAlpha;
    for (int j = 0; j < n; j++) {
      for (int i = 0; i < m; i++) {
        float sum = 0.0f;
        for (int q = 0; q < k; q++) {
          int p = forward ? q : k - 1 - q;
          float x = a[i + size_t(p) * lda];
          float y = b[p + size_t(j) * ldb];
          sum = sum + (tf32Inputs ? tf32(x) * tf32(y) : x * y);
        }
        out[i + j * ldOut] = al * sum;
      }
    }
  };
  auto into = [=](const float *products, size_t ldProducts) {
    float be = devicePointers ? *beta : hostBeta;
    for (int j = 0; j < n; j++) {
      for (int i = 0; i < m; i++) {
        float value = products[i + j * ldProducts];
        c[i + size_t(j) * ldc] = be == 0.0f ? value : value + be * c[i + size_t(j) * ldc];
      }
    }
  };
  if (staged) {
    kw_cpu_device_enqueue(handle->stream, [=] { products(scratch, size_t(m)); });
    kw_cpu_device_enqueue(handle->stream, [=] { into(scratch, size_t(m)); });
  } else {
    kw_cpu_device_enqueue(handle->stream, [=] {
      std::vector<float> local(size_t(m) * n);
      products(local.data(), size_t(m));
      into(local.data(), size_t(m));
    });
  }
  return kSuccess;
}

}  // extern "C"
