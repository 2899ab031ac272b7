// The driver API types and constants cpu_device.cpp implements, and what cpu_cublas.cpp needs of it.
#pragma once

#include <cstddef>
#include <functional>

typedef int CUresult;
typedef int CUdevice;
typedef unsigned long long CUdeviceptr;
typedef struct CUctx_st *CUcontext;
typedef struct CUmod_st *CUmodule;
typedef struct CUfunc_st *CUfunction;
typedef struct CUstream_st *CUstream;
typedef struct CUevent_st *CUevent;
typedef struct CUgraph_st *CUgraph;
typedef struct CUgraphExec_st *CUgraphExec;
typedef void (*CUhostFn)(void *userData);
typedef void (*CUstreamCallback)(CUstream stream, CUresult status, void *userData);

enum {
  CUDA_SUCCESS = 0,
  CUDA_ERROR_INVALID_VALUE = 1,
  CUDA_ERROR_OUT_OF_MEMORY = 2,
  CUDA_ERROR_INVALID_DEVICE = 101,
  CUDA_ERROR_INVALID_IMAGE = 200,
  CUDA_ERROR_INVALID_CONTEXT = 201,
  CUDA_ERROR_INVALID_HANDLE = 400,
  CUDA_ERROR_ILLEGAL_STATE = 401,
  CUDA_ERROR_NOT_FOUND = 500,
  CUDA_ERROR_NOT_READY = 600,
  CUDA_ERROR_ILLEGAL_ADDRESS = 700,
  CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED = 712,
  CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED = 713,
  CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED = 900,
  CUDA_ERROR_STREAM_CAPTURE_INVALIDATED = 901,
  CUDA_ERROR_STREAM_CAPTURE_MERGE = 902,
  CUDA_ERROR_STREAM_CAPTURE_UNMATCHED = 903,
  CUDA_ERROR_STREAM_CAPTURE_UNJOINED = 904,
  CUDA_ERROR_STREAM_CAPTURE_ISOLATION = 905,
  CUDA_ERROR_STREAM_CAPTURE_IMPLICIT = 906,
};

enum { CU_STREAM_NON_BLOCKING = 1 };
enum { CU_EVENT_DISABLE_TIMING = 2 };

// The special stream handles: the legacy default stream (same as null) and the calling thread's
// per-thread default stream.
#define CU_STREAM_LEGACY ((CUstream)0x1)
#define CU_STREAM_PER_THREAD ((CUstream)0x2)

enum {
  CU_STREAM_CAPTURE_MODE_GLOBAL = 0,
  CU_STREAM_CAPTURE_MODE_THREAD_LOCAL = 1,
  CU_STREAM_CAPTURE_MODE_RELAXED = 2,
};

enum {
  CU_STREAM_CAPTURE_STATUS_NONE = 0,
  CU_STREAM_CAPTURE_STATUS_ACTIVE = 1,
  CU_STREAM_CAPTURE_STATUS_INVALIDATED = 2,
};

// Whether [p, p + bytes) lies in one device allocation (cuMemAllocManaged's included).
bool kw_cpu_device_in_device_memory(const void *p, size_t bytes);

// Whether [p, p + bytes) lies in one range of page-locked or registered host memory.
bool kw_cpu_device_in_pinned_memory(const void *p, size_t bytes);

// Queues `action` on `stream` (null: the legacy default stream) like any other operation, or
// records it into the graph that stream is capturing; CUDA_ERROR_INVALID_HANDLE for a destroyed
// stream. `what` names it for KW_CPU_DEVICE_TRACE_PRIORITY.
CUresult kw_cpu_device_enqueue(CUstream stream, std::function<void()> action, const char *what = "a cuBLAS call");

// A synchronous copy, as cuMemcpyHtoD and cuMemcpyDtoH make it: `copy` runs on the legacy default
// stream after its earlier work, and so after every blocking stream's, and the host waits for it; or,
// where `staged` (the caller took pageable host memory's bytes at the call), only for the work
// before it, the device write completing after the return. Fails where a stream capture forbids a
// synchronizing call (error 900), and with the context's sticky error.
CUresult kw_cpu_device_copy(std::function<void()> copy, bool staged, const char *what);

// An asynchronous copy into host memory on `stream`, as cuMemcpyDtoHAsync makes it: into page-locked
// memory (`pinned`) it is queued or captured and writes the host's memory when it runs; into pageable
// memory the host waits for it (and the stream's earlier work) before the call returns.
CUresult kw_cpu_device_copy_to_host_async(CUstream stream, std::function<void()> copy, bool pinned, const char *what);
