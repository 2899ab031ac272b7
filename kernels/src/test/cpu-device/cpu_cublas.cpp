// libcublas.so.12 for machines without a GPU: handles with their stream, pointer mode, math mode,
// atomics mode, SM count target and workspace, sgemm (CUBLAS_OP_N), queued on the cpu-device
// streams, and the vector and matrix copy helpers. Sums run from the last k to the first, another order than the Java reference's, which
// the heads inputs make irrelevant (see HeadsProblem).
//
// The settings change the bytes, so that a handle configured unlike the application's shows:
// TF32 math mode rounds the inputs to TF32, atomics allowed sums from the first k. An sgemm whose
// output fits the handle's workspace (the one set with cublasSetWorkspace, else a default one of
// the handle's own) is two operations on the stream: the products into the workspace, then the
// workspace into C; two handles sharing a workspace on two streams can then mix their results,
// as they could on a GPU.
//
// The helpers that copy vectors and matrices between host and device memory (cublasSetVector,
// cublasGetVector, cublasSetMatrix, cublasGetMatrix, their Async forms and the _64 forms of all
// eight) are strided copies as cudaMemcpy2D makes them, column-major with increments and leading
// dimensions in elements; a device side outside device memory (managed memory is device memory) is
// CUBLAS_STATUS_MAPPING_ERROR, as is a copy the driver refuses; n, rows or cols below 0, elemSize, an
// increment or a leading dimension below 1, or a leading dimension below rows is
// CUBLAS_STATUS_INVALID_VALUE; nothing to copy is success at once. The synchronous ones take no handle
// and ignore every handle's stream: they are synchronous copies on the legacy default stream, as the
// driver's cuMemcpyHtoD and cuMemcpyDtoH are (the host waits for the legacy stream's earlier work, and
// so for every blocking stream's; from pageable memory the data is staged at the call and the device
// write may complete after it returns). The Async ones are queued on their stream (null: the legacy
// default stream) as cuMemcpyHtoDAsync and cuMemcpyDtoHAsync are: page-locked host memory is read or
// written when the copy runs, so the host must wait before it reuses or reads it; pageable memory is
// staged at the call (set) or waited for (get).
//
// With KW_CPU_CUBLAS_STATS set, the number of calls of each function is printed on stderr at exit.
#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <vector>

#include "cpu_device.h"

extern "C" CUresult cuCtxSynchronize();

namespace {
constexpr int kSuccess = 0;
constexpr int kNotInitialized = 1;
constexpr int kInvalidValue = 7;
constexpr int kMappingError = 11;
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
               kSetSmCountTarget, kSetWorkspace, kSgemm,
               kSetVector, kGetVector, kSetMatrix, kGetMatrix,
               kSetVectorAsync, kGetVectorAsync, kSetMatrixAsync, kGetMatrixAsync,
               kSetVector64, kGetVector64, kSetMatrix64, kGetMatrix64,
               kSetVectorAsync64, kGetVectorAsync64, kSetMatrixAsync64, kGetMatrixAsync64, kCountedCount };
const char *const kCountedNames[] = {"cublasCreate_v2", "cublasDestroy_v2", "cublasSetStream_v2",
                                     "cublasGetStream_v2", "cublasSetPointerMode_v2", "cublasSetMathMode",
                                     "cublasSetAtomicsMode", "cublasSetSmCountTarget", "cublasSetWorkspace_v2",
                                     "cublasSgemm_v2",
                                     "cublasSetVector", "cublasGetVector", "cublasSetMatrix", "cublasGetMatrix",
                                     "cublasSetVectorAsync", "cublasGetVectorAsync", "cublasSetMatrixAsync",
                                     "cublasGetMatrixAsync",
                                     "cublasSetVector_64", "cublasGetVector_64", "cublasSetMatrix_64",
                                     "cublasGetMatrix_64",
                                     "cublasSetVectorAsync_64", "cublasGetVectorAsync_64", "cublasSetMatrixAsync_64",
                                     "cublasGetMatrixAsync_64"};
static_assert(sizeof kCountedNames / sizeof kCountedNames[0] == kCountedCount, "a name for every counted call");

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

// What cudaMemcpy2D copies: `height` rows of `width` bytes, `hostPitch` and `devicePitch` bytes apart.
struct Shape {
  size_t width, height, hostPitch, devicePitch;
  size_t extent(size_t pitch) const { return pitch * (height - 1) + width; }
};

void copy2D(void *to, size_t toPitch, const void *from, size_t fromPitch, size_t width, size_t height) {
  for (size_t row = 0; row < height; row++) {
    std::memcpy(static_cast<char *>(to) + row * toPitch, static_cast<const char *>(from) + row * fromPitch, width);
  }
}

// A vector of n elements, incx and incy elements apart on the host and the device side.
bool vectorShape(int64_t n, int64_t elemSize, int64_t hostInc, int64_t deviceInc, Shape *shape) {
  if (n < 0 || elemSize <= 0 || hostInc <= 0 || deviceInc <= 0) return false;
  *shape = Shape{size_t(elemSize), size_t(n), size_t(hostInc * elemSize), size_t(deviceInc * elemSize)};
  return true;
}

// A column-major matrix of rows x cols elements, columns lda and ldb elements apart.
bool matrixShape(int64_t rows, int64_t cols, int64_t elemSize, int64_t hostLd, int64_t deviceLd, Shape *shape) {
  if (rows < 0 || cols < 0 || elemSize <= 0 || hostLd < std::max<int64_t>(1, rows)
      || deviceLd < std::max<int64_t>(1, rows)) {
    return false;
  }
  *shape = Shape{size_t(rows * elemSize), size_t(cols), size_t(hostLd * elemSize), size_t(deviceLd * elemSize)};
  return true;
}

// Host to device: synchronous on the legacy stream, or (async) queued on `stream`. Page-locked host
// memory is read when the copy runs, pageable memory staged now.
int toDevice(const void *host, void *device, const Shape &s, bool async, CUstream stream, const char *what) {
  if (s.width == 0 || s.height == 0) return kSuccess;
  if (!kw_cpu_device_in_device_memory(device, s.extent(s.devicePitch))) {
    std::fprintf(stderr, "cpu-device cublas: %s to memory outside device memory\n", what);
    return kMappingError;
  }
  CUresult result;
  if (kw_cpu_device_in_pinned_memory(host, s.extent(s.hostPitch))) {
    auto copy = [=] { copy2D(device, s.devicePitch, host, s.hostPitch, s.width, s.height); };
    result = async ? kw_cpu_device_enqueue(stream, copy, what) : kw_cpu_device_copy(copy, false, what);
  } else {
    auto staged = std::make_shared<std::vector<char>>(s.width * s.height);
    copy2D(staged->data(), s.width, host, s.hostPitch, s.width, s.height);
    auto copy = [=] { copy2D(device, s.devicePitch, staged->data(), s.width, s.width, s.height); };
    result = async ? kw_cpu_device_enqueue(stream, copy, what) : kw_cpu_device_copy(copy, true, what);
  }
  return result == CUDA_SUCCESS ? kSuccess : kMappingError;
}

// Device to host: synchronous on the legacy stream, or (async) queued on `stream`, where page-locked
// host memory is written when the copy runs and pageable memory before the call returns.
int toHost(const void *device, void *host, const Shape &s, bool async, CUstream stream, const char *what) {
  if (s.width == 0 || s.height == 0) return kSuccess;
  if (!kw_cpu_device_in_device_memory(device, s.extent(s.devicePitch))) {
    std::fprintf(stderr, "cpu-device cublas: %s from memory outside device memory\n", what);
    return kMappingError;
  }
  auto copy = [=] { copy2D(host, s.hostPitch, device, s.devicePitch, s.width, s.height); };
  CUresult result = async ? kw_cpu_device_copy_to_host_async(stream, copy,
                                                             kw_cpu_device_in_pinned_memory(host, s.extent(s.hostPitch)), what)
                          : kw_cpu_device_copy(copy, false, what);
  return result == CUDA_SUCCESS ? kSuccess : kMappingError;
}

int setVector(int64_t n, int64_t elemSize, const void *x, int64_t incx, void *y, int64_t incy, bool async,
              CUstream stream, const char *what) {
  Shape s;
  if (!vectorShape(n, elemSize, incx, incy, &s)) return kInvalidValue;
  return toDevice(x, y, s, async, stream, what);
}

int getVector(int64_t n, int64_t elemSize, const void *x, int64_t incx, void *y, int64_t incy, bool async,
              CUstream stream, const char *what) {
  Shape s;
  if (!vectorShape(n, elemSize, incy, incx, &s)) return kInvalidValue;
  return toHost(x, y, s, async, stream, what);
}

int setMatrix(int64_t rows, int64_t cols, int64_t elemSize, const void *a, int64_t lda, void *b, int64_t ldb,
              bool async, CUstream stream, const char *what) {
  Shape s;
  if (!matrixShape(rows, cols, elemSize, lda, ldb, &s)) return kInvalidValue;
  return toDevice(a, b, s, async, stream, what);
}

int getMatrix(int64_t rows, int64_t cols, int64_t elemSize, const void *a, int64_t lda, void *b, int64_t ldb,
              bool async, CUstream stream, const char *what) {
  Shape s;
  if (!matrixShape(rows, cols, elemSize, ldb, lda, &s)) return kInvalidValue;
  return toHost(a, b, s, async, stream, what);
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

// The helpers of cublas_api.h: x and A the source, y and B the destination (host to device for Set,
// device to host for Get); the _64 forms take 64-bit sizes and are otherwise the same.

int cublasSetVector(int n, int elemSize, const void *x, int incx, void *y, int incy) {
  count(kSetVector);
  return setVector(n, elemSize, x, incx, y, incy, false, nullptr, "cublasSetVector");
}

int cublasGetVector(int n, int elemSize, const void *x, int incx, void *y, int incy) {
  count(kGetVector);
  return getVector(n, elemSize, x, incx, y, incy, false, nullptr, "cublasGetVector");
}

int cublasSetMatrix(int rows, int cols, int elemSize, const void *a, int lda, void *b, int ldb) {
  count(kSetMatrix);
  return setMatrix(rows, cols, elemSize, a, lda, b, ldb, false, nullptr, "cublasSetMatrix");
}

int cublasGetMatrix(int rows, int cols, int elemSize, const void *a, int lda, void *b, int ldb) {
  count(kGetMatrix);
  return getMatrix(rows, cols, elemSize, a, lda, b, ldb, false, nullptr, "cublasGetMatrix");
}

int cublasSetVectorAsync(int n, int elemSize, const void *x, int incx, void *y, int incy, CUstream stream) {
  count(kSetVectorAsync);
  return setVector(n, elemSize, x, incx, y, incy, true, stream, "cublasSetVectorAsync");
}

int cublasGetVectorAsync(int n, int elemSize, const void *x, int incx, void *y, int incy, CUstream stream) {
  count(kGetVectorAsync);
  return getVector(n, elemSize, x, incx, y, incy, true, stream, "cublasGetVectorAsync");
}

int cublasSetMatrixAsync(int rows, int cols, int elemSize, const void *a, int lda, void *b, int ldb, CUstream stream) {
  count(kSetMatrixAsync);
  return setMatrix(rows, cols, elemSize, a, lda, b, ldb, true, stream, "cublasSetMatrixAsync");
}

int cublasGetMatrixAsync(int rows, int cols, int elemSize, const void *a, int lda, void *b, int ldb, CUstream stream) {
  count(kGetMatrixAsync);
  return getMatrix(rows, cols, elemSize, a, lda, b, ldb, true, stream, "cublasGetMatrixAsync");
}

int cublasSetVector_64(int64_t n, int64_t elemSize, const void *x, int64_t incx, void *y, int64_t incy) {
  count(kSetVector64);
  return setVector(n, elemSize, x, incx, y, incy, false, nullptr, "cublasSetVector_64");
}

int cublasGetVector_64(int64_t n, int64_t elemSize, const void *x, int64_t incx, void *y, int64_t incy) {
  count(kGetVector64);
  return getVector(n, elemSize, x, incx, y, incy, false, nullptr, "cublasGetVector_64");
}

int cublasSetMatrix_64(int64_t rows, int64_t cols, int64_t elemSize, const void *a, int64_t lda, void *b, int64_t ldb) {
  count(kSetMatrix64);
  return setMatrix(rows, cols, elemSize, a, lda, b, ldb, false, nullptr, "cublasSetMatrix_64");
}

int cublasGetMatrix_64(int64_t rows, int64_t cols, int64_t elemSize, const void *a, int64_t lda, void *b, int64_t ldb) {
  count(kGetMatrix64);
  return getMatrix(rows, cols, elemSize, a, lda, b, ldb, false, nullptr, "cublasGetMatrix_64");
}

int cublasSetVectorAsync_64(int64_t n, int64_t elemSize, const void *x, int64_t incx, void *y, int64_t incy,
                            CUstream stream) {
  count(kSetVectorAsync64);
  return setVector(n, elemSize, x, incx, y, incy, true, stream, "cublasSetVectorAsync_64");
}

int cublasGetVectorAsync_64(int64_t n, int64_t elemSize, const void *x, int64_t incx, void *y, int64_t incy,
                            CUstream stream) {
  count(kGetVectorAsync64);
  return getVector(n, elemSize, x, incx, y, incy, true, stream, "cublasGetVectorAsync_64");
}

int cublasSetMatrixAsync_64(int64_t rows, int64_t cols, int64_t elemSize, const void *a, int64_t lda, void *b,
                            int64_t ldb, CUstream stream) {
  count(kSetMatrixAsync64);
  return setMatrix(rows, cols, elemSize, a, lda, b, ldb, true, stream, "cublasSetMatrixAsync_64");
}

int cublasGetMatrixAsync_64(int64_t rows, int64_t cols, int64_t elemSize, const void *a, int64_t lda, void *b,
                            int64_t ldb, CUstream stream) {
  count(kGetMatrixAsync64);
  return getMatrix(rows, cols, elemSize, a, lda, b, ldb, true, stream, "cublasGetMatrixAsync_64");
}

}  // extern "C"
