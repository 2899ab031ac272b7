// libcuda.so.1 for machines without a GPU: the CUDA driver calls the workloads make, with the
// kernels of src/main/cuda compiled for the CPU. It exists to check the workloads' host code (launch
// arguments, buffers, streams, events, copies) against the CPU references where no GPU is.
//
// Work is queued per stream and runs only when the host waits for it (a synchronous copy,
// cuStreamSynchronize, cuCtxSynchronize, a free). Then ready operations run one at a time in a random
// order (seed: KW_CPU_DEVICE_SEED) that respects stream order, cuStreamWaitEvent and the legacy
// default stream's implicit ordering, and nothing else. A dependency the host code forgot to express
// therefore shows up, for some seed, as a wrong result; a missing host wait as a read of stale pinned
// memory. Device memory ends at a guard page, so a kernel that runs past its buffer crashes.
#include <sys/mman.h>
#include <ucontext.h>
#include <unistd.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <random>
#include <set>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "cuda_on_cpu.h"

// The kernels, compiled for the CPU.
#include "branches.cu"
#include "chain.cu"
#include "dynamic.cu"
#include "heads.cu"
#include "pipeline.cu"
#include "rlsim.cu"

#include "cpu_device.h"

kw_dim3 threadIdx, blockIdx, blockDim, gridDim;

namespace {

// ---- Kernels: name, argument sizes, and a call that unpacks cuLaunchKernel's void** arguments.

struct KernelEntry {
  const char *name;
  std::vector<size_t> sizes;
  std::vector<bool> pointers;
  void (*invoke)(void **args);
};

template <typename F, F f>
struct Invoker;

template <typename... A, void (*f)(A...)>
struct Invoker<void (*)(A...), f> {
  static void call(void **args) { unpack(args, std::index_sequence_for<A...>{}); }
  template <size_t... I>
  static void unpack(void **args, std::index_sequence<I...>) {
    f(*static_cast<std::remove_cv_t<A> *>(args[I])...);
  }
  static KernelEntry entry(const char *name) {
    return KernelEntry{name, {sizeof(A)...}, {std::is_pointer<A>::value...}, &call};
  }
};

#define KW_KERNEL(k) Invoker<decltype(&k), &k>::entry(#k)

std::vector<KernelEntry> &kernels() {
  static std::vector<KernelEntry> all = {
      KW_KERNEL(branch_step), KW_KERNEL(branch_join),   KW_KERNEL(chain_step),
      KW_KERNEL(moe_router),  KW_KERNEL(moe_expert_step), KW_KERNEL(moe_combine),
      KW_KERNEL(heads_mix),   KW_KERNEL(pipe_prepare),  KW_KERNEL(pipe_smooth),
      KW_KERNEL(pipe_finish), KW_KERNEL(rl_policy),     KW_KERNEL(rl_step),
      KW_KERNEL(rl_reward),   KW_KERNEL(rl_total),
  };
  return all;
}

// ---- One block at a time, its threads as fibers.

constexpr size_t kStackBytes = 64 * 1024;

struct Fiber {
  ucontext_t context;
  std::unique_ptr<char[]> stack{new char[kStackBytes]};
  bool done = false;
};

ucontext_t blockScheduler;
std::vector<std::unique_ptr<Fiber>> fibers;
unsigned currentFiber;
const KernelEntry *runningKernel;
void **runningArgs;

void fiberMain() {
  runningKernel->invoke(runningArgs);
  fibers[currentFiber]->done = true;
}

void runBlock() {
  unsigned threads = blockDim.x;
  while (fibers.size() < threads) {
    fibers.emplace_back(new Fiber());
  }
  for (unsigned t = 0; t < threads; t++) {
    Fiber &f = *fibers[t];
    getcontext(&f.context);
    f.context.uc_stack.ss_sp = f.stack.get();
    f.context.uc_stack.ss_size = kStackBytes;
    f.context.uc_link = &blockScheduler;
    makecontext(&f.context, fiberMain, 0);
    f.done = false;
  }
  // Round robin: in each round every unfinished thread runs to its next barrier or its end, so no
  // thread passes a barrier before all have reached it.
  bool unfinished = true;
  while (unfinished) {
    unfinished = false;
    for (unsigned t = 0; t < threads; t++) {
      if (fibers[t]->done) {
        continue;
      }
      currentFiber = t;
      threadIdx = {t, 0, 0};
      swapcontext(&blockScheduler, &fibers[t]->context);
      unfinished |= !fibers[t]->done;
    }
  }
}

// ---- Queued work.

struct Op {
  std::vector<Op *> after;
  std::function<void()> action;
  bool done = false;
};

struct Stream {
  bool blocking;
  Op *last = nullptr;
};

struct Event {
  Op *recorded = nullptr;
};

struct Module {
  std::set<std::string> entries;
};

struct Allocation {
  size_t size;
  void *region;
  size_t regionSize;
};

std::recursive_mutex lock;
Stream legacyStream{true};
std::set<Stream *> streams;
std::vector<Op *> pending;
std::map<uintptr_t, Allocation> deviceMemory;
std::map<uintptr_t, size_t> pinnedMemory;
std::mt19937_64 &random() {
  static std::mt19937_64 generator([] {
    const char *seed = std::getenv("KW_CPU_DEVICE_SEED");
    return seed ? std::strtoull(seed, nullptr, 10) : 1ULL;
  }());
  return generator;
}

Stream *streamOf(CUstream s) { return s ? reinterpret_cast<Stream *>(s) : &legacyStream; }

CUresult fail(CUresult result, const std::string &why) {
  std::fprintf(stderr, "cpu-device: %s\n", why.c_str());
  return result;
}

// Queues an operation on a stream, after that stream's previous one and, as the legacy default
// stream requires, after the default stream's work (blocking streams) or every blocking stream's
// work (the default stream itself).
Op *enqueue(Stream *s, std::function<void()> action, Op *alsoAfter = nullptr) {
  Op *op = new Op();
  op->action = std::move(action);
  if (s->last) op->after.push_back(s->last);
  if (alsoAfter) op->after.push_back(alsoAfter);
  if (s == &legacyStream) {
    for (Stream *other : streams) {
      if (other->blocking && other->last) op->after.push_back(other->last);
    }
  } else if (s->blocking && legacyStream.last) {
    op->after.push_back(legacyStream.last);
  }
  s->last = op;
  pending.push_back(op);
  return op;
}

bool ready(const Op *op) {
  for (const Op *before : op->after) {
    if (!before->done) return false;
  }
  return true;
}

// Runs ready operations in random order until `finished` holds.
template <typename Finished>
void runUntil(Finished finished) {
  std::vector<size_t> candidates;
  while (!finished()) {
    candidates.clear();
    for (size_t i = 0; i < pending.size(); i++) {
      if (ready(pending[i])) candidates.push_back(i);
    }
    if (candidates.empty()) {
      std::fprintf(stderr, "cpu-device: waiting for work that can never run\n");
      std::abort();
    }
    size_t pick = candidates[random()() % candidates.size()];
    Op *op = pending[pick];
    pending.erase(pending.begin() + pick);
    op->action();
    op->action = nullptr;
    op->done = true;
  }
}

void runAll() {
  runUntil([] { return pending.empty(); });
}

void runThrough(Op *op) {
  runUntil([op] { return op == nullptr || op->done; });
}

bool inDevice(uintptr_t p, size_t bytes) {
  auto it = deviceMemory.upper_bound(p);
  if (it == deviceMemory.begin()) return false;
  --it;
  return p >= it->first && p + bytes <= it->first + it->second.size;
}

bool inPinned(const void *host, size_t bytes) {
  uintptr_t p = reinterpret_cast<uintptr_t>(host);
  auto it = pinnedMemory.upper_bound(p);
  if (it == pinnedMemory.begin()) return false;
  --it;
  return p >= it->first && p + bytes <= it->first + it->second;
}

}  // namespace

void __syncthreads() { swapcontext(&fibers[currentFiber]->context, &blockScheduler); }

// ---- For the cuBLAS of this directory.

bool kw_cpu_device_in_device_memory(const void *p, size_t bytes) {
  std::lock_guard<std::recursive_mutex> guard(lock);
  return inDevice(reinterpret_cast<uintptr_t>(p), bytes);
}

void kw_cpu_device_enqueue(CUstream stream, std::function<void()> action) {
  std::lock_guard<std::recursive_mutex> guard(lock);
  enqueue(streamOf(stream), std::move(action));
}

// ---- The driver API.

extern "C" {

CUresult cuInit(unsigned int) { return CUDA_SUCCESS; }

CUresult cuDeviceGetCount(int *count) {
  *count = 1;
  return CUDA_SUCCESS;
}

CUresult cuDeviceGet(CUdevice *device, int ordinal) {
  if (ordinal != 0) return fail(CUDA_ERROR_INVALID_DEVICE, "only device 0");
  *device = 0;
  return CUDA_SUCCESS;
}

static int primary;

CUresult cuDevicePrimaryCtxRetain(CUcontext *context, CUdevice) {
  *context = reinterpret_cast<CUcontext>(&primary);
  return CUDA_SUCCESS;
}

CUresult cuCtxSetCurrent(CUcontext) { return CUDA_SUCCESS; }

// The one context is always current; the agent asks for it.
CUresult cuCtxGetCurrent(CUcontext *context) {
  *context = reinterpret_cast<CUcontext>(&primary);
  return CUDA_SUCCESS;
}

CUresult cuCtxSynchronize() {
  std::lock_guard<std::recursive_mutex> guard(lock);
  runAll();
  return CUDA_SUCCESS;
}

CUresult cuModuleLoadData(CUmodule *module, const void *image) {
  const char *text = static_cast<const char *>(image);
  Module *m = new Module();
  for (const char *at = std::strstr(text, ".entry "); at; at = std::strstr(at + 1, ".entry ")) {
    const char *name = at + 7;
    size_t length = std::strcspn(name, "( \t\n");
    m->entries.insert(std::string(name, length));
  }
  if (m->entries.empty()) return fail(CUDA_ERROR_INVALID_IMAGE, "no .entry in the module image");
  *module = reinterpret_cast<CUmodule>(m);
  return CUDA_SUCCESS;
}

CUresult cuModuleUnload(CUmodule module) {
  delete reinterpret_cast<Module *>(module);
  return CUDA_SUCCESS;
}

CUresult cuModuleGetFunction(CUfunction *function, CUmodule module, const char *name) {
  Module *m = reinterpret_cast<Module *>(module);
  if (!m->entries.count(name)) return fail(CUDA_ERROR_NOT_FOUND, std::string("no kernel ") + name + " in the module");
  for (KernelEntry &k : kernels()) {
    if (std::strcmp(k.name, name) == 0) {
      *function = reinterpret_cast<CUfunction>(&k);
      return CUDA_SUCCESS;
    }
  }
  return fail(CUDA_ERROR_NOT_FOUND, std::string("kernel ") + name + " is not compiled into cpu-device");
}

// No module variables here: the kernels are compiled in, and a name is never found. Silent, since
// the agent looks up every variable a module declares.
CUresult cuModuleGetGlobal_v2(CUdeviceptr *, size_t *, CUmodule, const char *) { return CUDA_ERROR_NOT_FOUND; }

CUresult cuMemAlloc_v2(CUdeviceptr *pointer, size_t bytes) {
  std::lock_guard<std::recursive_mutex> guard(lock);
  size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  size_t pages = (bytes + page - 1) / page;
  size_t regionSize = (pages + 1) * page;
  void *region = mmap(nullptr, regionSize, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (region == MAP_FAILED) return fail(CUDA_ERROR_OUT_OF_MEMORY, "mmap failed");
  char *guardPage = static_cast<char *>(region) + pages * page;
  mprotect(guardPage, page, PROT_NONE);
  // The allocation ends where the guard page starts (4-byte aligned: the workloads allocate floats).
  uintptr_t base = reinterpret_cast<uintptr_t>(guardPage) - ((bytes + 3) & ~size_t{3});
  std::memset(reinterpret_cast<void *>(base), 0xff, bytes);  // NaN floats, not zeros
  deviceMemory[base] = Allocation{bytes, region, regionSize};
  *pointer = base;
  return CUDA_SUCCESS;
}

CUresult cuMemFree_v2(CUdeviceptr pointer) {
  std::lock_guard<std::recursive_mutex> guard(lock);
  runAll();
  auto it = deviceMemory.find(pointer);
  if (it == deviceMemory.end()) return fail(CUDA_ERROR_INVALID_VALUE, "cuMemFree of no allocation");
  munmap(it->second.region, it->second.regionSize);
  deviceMemory.erase(it);
  return CUDA_SUCCESS;
}

CUresult cuMemAllocHost_v2(void **pointer, size_t bytes) {
  std::lock_guard<std::recursive_mutex> guard(lock);
  void *p = std::aligned_alloc(4096, (bytes + 4095) / 4096 * 4096);
  if (!p) return fail(CUDA_ERROR_OUT_OF_MEMORY, "aligned_alloc failed");
  std::memset(p, 0xff, bytes);
  pinnedMemory[reinterpret_cast<uintptr_t>(p)] = bytes;
  *pointer = p;
  return CUDA_SUCCESS;
}

CUresult cuMemFreeHost(void *pointer) {
  std::lock_guard<std::recursive_mutex> guard(lock);
  runAll();
  if (!pinnedMemory.erase(reinterpret_cast<uintptr_t>(pointer))) {
    return fail(CUDA_ERROR_INVALID_VALUE, "cuMemFreeHost of no allocation");
  }
  std::free(pointer);
  return CUDA_SUCCESS;
}

CUresult cuMemcpyHtoD_v2(CUdeviceptr device, const void *host, size_t bytes) {
  std::lock_guard<std::recursive_mutex> guard(lock);
  if (!inDevice(device, bytes)) return fail(CUDA_ERROR_INVALID_VALUE, "cuMemcpyHtoD outside device memory");
  Op *op = enqueue(&legacyStream, [=] { std::memcpy(reinterpret_cast<void *>(device), host, bytes); });
  runThrough(op);
  return CUDA_SUCCESS;
}

CUresult cuMemcpyDtoH_v2(void *host, CUdeviceptr device, size_t bytes) {
  std::lock_guard<std::recursive_mutex> guard(lock);
  if (!inDevice(device, bytes)) return fail(CUDA_ERROR_INVALID_VALUE, "cuMemcpyDtoH outside device memory");
  Op *op = enqueue(&legacyStream, [=] { std::memcpy(host, reinterpret_cast<void *>(device), bytes); });
  runThrough(op);
  return CUDA_SUCCESS;
}

CUresult cuMemcpyHtoDAsync_v2(CUdeviceptr device, const void *host, size_t bytes, CUstream stream) {
  std::lock_guard<std::recursive_mutex> guard(lock);
  if (!inDevice(device, bytes)) return fail(CUDA_ERROR_INVALID_VALUE, "cuMemcpyHtoDAsync outside device memory");
  if (!inPinned(host, bytes)) return fail(CUDA_ERROR_INVALID_VALUE, "cuMemcpyHtoDAsync from memory not from cuMemAllocHost");
  enqueue(streamOf(stream), [=] { std::memcpy(reinterpret_cast<void *>(device), host, bytes); });
  return CUDA_SUCCESS;
}

CUresult cuMemcpyDtoHAsync_v2(void *host, CUdeviceptr device, size_t bytes, CUstream stream) {
  std::lock_guard<std::recursive_mutex> guard(lock);
  if (!inDevice(device, bytes)) return fail(CUDA_ERROR_INVALID_VALUE, "cuMemcpyDtoHAsync outside device memory");
  if (!inPinned(host, bytes)) return fail(CUDA_ERROR_INVALID_VALUE, "cuMemcpyDtoHAsync to memory not from cuMemAllocHost");
  enqueue(streamOf(stream), [=] { std::memcpy(host, reinterpret_cast<void *>(device), bytes); });
  return CUDA_SUCCESS;
}

CUresult cuStreamCreate(CUstream *stream, unsigned int flags) {
  std::lock_guard<std::recursive_mutex> guard(lock);
  Stream *s = new Stream{(flags & CU_STREAM_NON_BLOCKING) == 0};
  streams.insert(s);
  *stream = reinterpret_cast<CUstream>(s);
  return CUDA_SUCCESS;
}

CUresult cuStreamDestroy_v2(CUstream stream) {
  std::lock_guard<std::recursive_mutex> guard(lock);
  Stream *s = reinterpret_cast<Stream *>(stream);
  if (!streams.erase(s)) return fail(CUDA_ERROR_INVALID_HANDLE, "cuStreamDestroy of no stream");
  runThrough(s->last);  // its work completes; the Stream stays for operations that follow it
  return CUDA_SUCCESS;
}

CUresult cuStreamSynchronize(CUstream stream) {
  std::lock_guard<std::recursive_mutex> guard(lock);
  Stream *s = streamOf(stream);
  if (s != &legacyStream && !streams.count(s)) return fail(CUDA_ERROR_INVALID_HANDLE, "cuStreamSynchronize of no stream");
  runThrough(s->last);
  return CUDA_SUCCESS;
}

CUresult cuEventCreate(CUevent *event, unsigned int) {
  *event = reinterpret_cast<CUevent>(new Event());
  return CUDA_SUCCESS;
}

CUresult cuEventDestroy_v2(CUevent event) {
  delete reinterpret_cast<Event *>(event);
  return CUDA_SUCCESS;
}

CUresult cuEventRecord(CUevent event, CUstream stream) {
  std::lock_guard<std::recursive_mutex> guard(lock);
  reinterpret_cast<Event *>(event)->recorded = enqueue(streamOf(stream), [] {});
  return CUDA_SUCCESS;
}

CUresult cuStreamWaitEvent(CUstream stream, CUevent event, unsigned int flags) {
  std::lock_guard<std::recursive_mutex> guard(lock);
  if (flags != 0) return fail(CUDA_ERROR_INVALID_VALUE, "cuStreamWaitEvent flags");
  // The wait is on the event's latest record as of now; one never recorded is complete.
  enqueue(streamOf(stream), [] {}, reinterpret_cast<Event *>(event)->recorded);
  return CUDA_SUCCESS;
}

CUresult cuLaunchKernel(CUfunction function, unsigned int gridX, unsigned int gridY, unsigned int gridZ,
                        unsigned int blockX, unsigned int blockY, unsigned int blockZ,
                        unsigned int sharedBytes, CUstream stream, void **params, void **extra) {
  std::lock_guard<std::recursive_mutex> guard(lock);
  const KernelEntry *k = reinterpret_cast<const KernelEntry *>(function);
  if (gridY != 1 || gridZ != 1 || blockY != 1 || blockZ != 1 || sharedBytes != 0 || extra) {
    return fail(CUDA_ERROR_INVALID_VALUE, std::string(k->name) + ": only 1-D launches without dynamic shared memory");
  }
  if (gridX == 0 || blockX == 0 || blockX > 1024) return fail(CUDA_ERROR_INVALID_VALUE, std::string(k->name) + ": bad launch size");
  // Copy the arguments now: the caller's may change once the launch returns.
  // Each argument in its own 8-byte slot.
  std::vector<size_t> offsets;
  for (size_t i = 0; i < k->sizes.size(); i++) offsets.push_back(8 * i);
  size_t total = 8 * k->sizes.size();
  auto values = std::make_shared<std::vector<char>>(total);
  for (size_t i = 0; i < k->sizes.size(); i++) {
    std::memcpy(values->data() + offsets[i], params[i], k->sizes[i]);
    if (k->pointers[i]) {
      uintptr_t p;
      std::memcpy(&p, params[i], sizeof p);
      if (!inDevice(p, 1)) {
        return fail(CUDA_ERROR_INVALID_VALUE, std::string(k->name) + ": argument " + std::to_string(i) + " points into no device allocation");
      }
    }
  }
  enqueue(streamOf(stream), [k, values, offsets, gridX, blockX] {
    std::vector<void *> args;
    for (size_t offset : offsets) args.push_back(values->data() + offset);
    gridDim = {gridX, 1, 1};
    blockDim = {blockX, 1, 1};
    runningKernel = k;
    runningArgs = args.data();
    for (unsigned b = 0; b < gridX; b++) {
      blockIdx = {b, 0, 0};
      runBlock();
    }
  });
  return CUDA_SUCCESS;
}

}  // extern "C"
