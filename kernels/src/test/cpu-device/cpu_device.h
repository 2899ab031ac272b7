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

enum {
  CUDA_SUCCESS = 0,
  CUDA_ERROR_INVALID_VALUE = 1,
  CUDA_ERROR_OUT_OF_MEMORY = 2,
  CUDA_ERROR_INVALID_DEVICE = 101,
  CUDA_ERROR_INVALID_IMAGE = 200,
  CUDA_ERROR_INVALID_HANDLE = 400,
  CUDA_ERROR_NOT_FOUND = 500,
};

enum { CU_STREAM_NON_BLOCKING = 1 };

// Whether [p, p + bytes) lies in one device allocation.
bool kw_cpu_device_in_device_memory(const void *p, size_t bytes);

// Queues `action` on `stream` (null: the legacy default stream) like any other operation.
void kw_cpu_device_enqueue(CUstream stream, std::function<void()> action);
