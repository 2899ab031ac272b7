// libcuda.so.1 for machines without a GPU: the CUDA driver calls the workloads and the agent's test
// programs make, with their kernels (kernels/src/main/cuda, it-tests/src/test/cuda) compiled for the
// CPU. It exists to check host code (launch arguments, buffers, streams, events, copies, and the
// agent that reorders them) against CUDA's documented semantics where no GPU is.
//
// Work is queued per stream and runs only when the host waits for it (a synchronous copy,
// cuStreamSynchronize, cuCtxSynchronize, cuEventSynchronize, a free) or asks about it (a query runs
// one ready operation after answering, so that a polling loop ends). Then ready operations run one at
// a time in a random order (seed: KW_CPU_DEVICE_SEED) that respects stream order, cuStreamWaitEvent,
// graph edges and the legacy default stream's implicit ordering, and nothing else. A dependency the
// host code forgot to express therefore shows up, for some seed, as a wrong result; a missing host
// wait as a read of stale pinned memory. Device memory ends at a guard page, so a compiled-in kernel
// that runs past its buffer crashes (an interpreted one faults as a GPU's does: see below).
//
// What it models, as the CUDA documentation states it: the legacy default stream (null or 0x1)
// waits for and is waited for by every blocking stream; 0x2 is the calling thread's per-thread
// default stream, a blocking stream; non-blocking streams are exempt. Synchronous copies: to the host
// and from pinned memory complete before they return; from pageable memory the host waits for earlier
// work, the data is staged, and the device write completes later (cuBLAS's synchronous set and get
// helpers, in cpu_cublas.cpp, are such copies; its asynchronous ones are queued as cuMemcpyHtoDAsync
// and cuMemcpyDtoHAsync are); device-to-device copies and memsets do not wait. Managed memory
// (cuMemAllocManaged) is device memory that the host reads and writes at the same address, as on a
// device with concurrent managed access: the host sees what kernels wrote there once it has waited
// for them; CU_POINTER_ATTRIBUTE_IS_MANAGED tells it from cuMemAlloc's. Host functions run in stream
// order on one driver thread, never on the thread that enqueued them. Stream capture records kernels,
// copies, memsets, host functions and event fork/join into a graph; a synchronizing call during a
// global capture fails with error 900 and invalidates it. cuDevicePrimaryCtxReset destroys every
// stream, event, module and allocation.
//
// A kernel that calls __trap() makes the context's sticky error CUDA_ERROR_LAUNCH_FAILED, and an
// interpreted kernel that loads, stores or runs an atomic outside every live allocation, page-locked
// or registered host memory and module variable (past a buffer's end, into freed memory) makes it
// CUDA_ERROR_ILLEGAL_ADDRESS and stops (see ptx_executor.cpp): from then on launches, allocations,
// synchronizations, queries and copies return the first such error, until the context is
// destroyed (reset, or the primary context's last release). Dynamic shared memory is checked against
// CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES (48 KiB unless cuFuncSetAttribute raised it).
// KW_CPU_DEVICE_KERNELS_FILE=path: whenever a context ends, the number of kernels run so far is
// written there, so that a program can see what ran before it ended.
// Time, for cuEventElapsedTime, is virtual: each kernel that runs takes 1 ms, everything else none.
//
// KW_CPU_DEVICE_FREE=legacy: cuMemFree waits only for the legacy and blocking streams (see there).
//
// KW_CPU_DEVICE_REUSE_HANDLES=1: a new stream or event takes the handle of the one destroyed last,
// as a GPU's driver soon does, so that what a tool keeps by handle is seen going stale.
//
// Not modelled: several devices; contexts other than the primary one share its streams (the legacy
// default stream included) and memory, so that one context's work is ordered at least as CUDA orders
// it; a context's destroy completes all work and frees nothing.
#include <sys/mman.h>
#include <ucontext.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <condition_variable>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <random>
#include <set>
#include <string>
#include <thread>
#include <type_traits>
#include <utility>
#include <vector>

#include "cuda_on_cpu.h"

// The kernels, compiled for the CPU.
#include "branches.cu"
#include "chain.cu"
#include "corpus.cu"
#include "dynamic.cu"
#include "heads.cu"
#include "pipeline.cu"
#include "rlsim.cu"
// The agent's test programs' kernels (it-tests/src/test/cuda).
#include "pointers.cu"
#include "semantics.cu"
#include "smoke.cu"

#include "cpu_device.h"
#include "ptx_interpreter.h"

kw_dim3 threadIdx, blockIdx, blockDim, gridDim;

namespace {

// ---- Kernels: name, argument sizes, and a call that unpacks cuLaunchKernel's void** arguments.

struct KernelEntry {
  const char *name;
  std::vector<size_t> sizes;
  std::vector<bool> pointers;
  void (*invoke)(void **args);
  // A kernel the PTX interpreter runs: its module and entry (invoke is ptx::runCurrentThread).
  std::shared_ptr<ptx::Program> program = nullptr;
  int entry = -1;
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
      KW_KERNEL(branch_step),   KW_KERNEL(branch_join),     KW_KERNEL(chain_step),
      KW_KERNEL(moe_router),    KW_KERNEL(moe_expert_step), KW_KERNEL(moe_combine),
      KW_KERNEL(heads_mix),     KW_KERNEL(pipe_prepare),    KW_KERNEL(pipe_smooth),
      KW_KERNEL(pipe_finish),   KW_KERNEL(rl_policy),       KW_KERNEL(rl_step),
      KW_KERNEL(rl_reward),     KW_KERNEL(rl_total),        KW_KERNEL(axpb),
      KW_KERNEL(spin_scale),    KW_KERNEL(sum_into),        KW_KERNEL(slow_fill),
      KW_KERNEL(slow_axpb),     KW_KERNEL(constant_axpb),   KW_KERNEL(indirect_fill),
      KW_KERNEL(print_launch),  KW_KERNEL(packed_fill),     KW_KERNEL(fill_before),
      KW_KERNEL(fill_through_difference), KW_KERNEL(add_one),
      KW_KERNEL(trap_if),
      KW_KERNEL(corpus_bias_relu), KW_KERNEL(corpus_add),     KW_KERNEL(corpus_argmax),
      KW_KERNEL(corpus_logistic),  KW_KERNEL(corpus_advance), KW_KERNEL(corpus_blur),
      KW_KERNEL(corpus_sobel),     KW_KERNEL(corpus_blend),   KW_KERNEL(corpus_matvec),
      KW_KERNEL(corpus_square_partials), KW_KERNEL(corpus_sum), KW_KERNEL(corpus_scale),
      KW_KERNEL(corpus_jacobi),
  };
  return all;
}

// ---- Module variables (__constant__ and __device__): one host variable each, handed out by
// cuModuleGetGlobal as device memory.

struct GlobalEntry {
  const char *name;
  void *address;
  size_t size;
};

#define KW_GLOBAL(g) GlobalEntry{#g, static_cast<void *>(&g), sizeof(g)}

std::vector<GlobalEntry> &globals() {
  static std::vector<GlobalEntry> all = {KW_GLOBAL(scale_coef)};
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
  unsigned threads = blockDim.x * blockDim.y * blockDim.z;
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
      threadIdx = {t % blockDim.x, t / blockDim.x % blockDim.y, t / (blockDim.x * blockDim.y)};
      swapcontext(&blockScheduler, &fibers[t]->context);
      unfinished |= !fibers[t]->done;
    }
  }
}

// ---- Queued work.

struct Op {
  std::vector<Op *> after;
  std::function<void()> action;
  bool hostFunction = false;  // runs on the host-function thread, not under the lock
  std::function<bool()> until;  // a stream's wait for a value in memory: ready only once it holds
  enum State { PENDING, RUNNING, DONE } state = PENDING;
};

struct Capture;

// Streams are never freed: a stale handle must find no live stream, not freed memory.
struct Stream {
  bool blocking;
  int priority = 0;            // as cuStreamGetPriority reports it; work runs in one order whatever it is
  Op *last = nullptr;
  Capture *capture = nullptr;  // the capture sequence this stream records into, if any
  std::vector<size_t> tail;    // while capturing: the nodes the next recorded node depends on
};

// One node of a captured graph: what it does, and the nodes (by index) it runs after.
struct Node {
  std::function<void()> action;
  bool hostFunction;
  std::vector<size_t> after;
  std::string label;  // the kernel's or call's name, for KW_CPU_DEVICE_TRACE_PRIORITY
};

struct Graph {
  std::vector<Node> nodes;
};

// A capture sequence: begun on `origin`, joined by the streams that waited on its events.
struct Capture {
  Stream *origin;
  int mode;
  std::thread::id thread;
  bool invalidated = false;
  std::vector<Node> nodes;
  std::vector<Stream *> members;
};

struct Event {
  Op *recorded = nullptr;
  bool timing = true;                 // created without CU_EVENT_DISABLE_TIMING
  std::shared_ptr<double> at;         // the virtual time its latest record completed at
  Capture *capture = nullptr;  // recorded in a capturing stream: a fork/join point of the graph
  std::vector<size_t> tail;
};

struct Module {
  std::set<std::string> entries;
  std::string image;  // the searchable bytes of the image, for its variables' names
  // PTX whose kernels the interpreter runs: every kernel where one is not compiled in (or
  // KW_CPU_DEVICE_PTX=interpret), so that a module's kernels share its variables.
  std::shared_ptr<ptx::Program> program;
  std::map<std::string, KernelEntry> interpreted;
};

// KW_CPU_DEVICE_PTX=interpret: every module loaded as PTX runs interpreted, compiled-in kernels or not.
bool interpretAll() {
  static const bool all = [] {
    const char *mode = std::getenv("KW_CPU_DEVICE_PTX");
    return mode && std::strcmp(mode, "interpret") == 0;
  }();
  return all;
}

struct Allocation {
  size_t size;
  void *region;  // null for a module variable, which is no mapping of ours
  size_t regionSize;
  bool managed = false;  // cuMemAllocManaged: the host's to use as well
};

struct HostRange {
  size_t bytes;
  bool registered;  // cuMemHostRegister: the application's memory, not ours to free
};

struct Context {
  int id;
};

// The lock, and the condition host threads wait on while a host function runs, are never destroyed:
// the host-function thread may still wait on them while the process exits.
std::mutex &lock = *new std::mutex();
std::condition_variable &changed = *new std::condition_variable();
std::deque<Op *> &hostFunctions = *new std::deque<Op *>();  // ready, for the host-function thread
std::set<Op *> hostFunctionsInFlight;  // handed to the host-function thread, not done yet
bool hostFunctionThreadStarted = false;
double virtualMs = 0;  // advanced 1 ms by every kernel that runs

Stream legacyStream{true};
std::set<Stream *> streams;  // live streams, per-thread default streams included
std::set<Event *> events;
std::set<Module *> modules;
std::set<Graph *> graphs;
std::set<Graph *> graphExecs;
std::set<Capture *> captures;  // active capture sequences
std::vector<Op *> pending;
std::map<uintptr_t, Allocation> deviceMemory;
std::map<uintptr_t, HostRange> pinnedMemory;
unsigned generation = 0;  // bumped by a reset: per-thread default streams of older ones are gone

Context primaryContext{0};
int primaryRetains = 0;
CUresult stickyError = CUDA_SUCCESS;  // set by __trap() or a bad address, cleared when the context is destroyed
long kernelsRun = 0;
std::map<const void *, int> maxDynamicShared;  // per function, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES
constexpr int kDefaultMaxDynamicShared = 48 * 1024;

// Writes the number of kernels run so far where KW_CPU_DEVICE_KERNELS_FILE says, if it says.
void reportKernelsRun() {
  const char *path = std::getenv("KW_CPU_DEVICE_KERNELS_FILE");
  if (!path) return;
  if (FILE *f = std::fopen(path, "w")) {
    std::fprintf(f, "%ld\n", kernelsRun);
    std::fclose(f);
  }
}
CUcontext lastCurrent = nullptr;  // for threads that never set one (see cuCtxGetCurrent)
thread_local CUcontext threadCurrent = nullptr;
thread_local std::vector<CUcontext> contextStack;
thread_local Stream *perThreadStream = nullptr;
thread_local int threadCaptureMode = CU_STREAM_CAPTURE_MODE_GLOBAL;  // cuThreadExchangeStreamCaptureMode
thread_local unsigned perThreadGeneration = 0;

std::mt19937_64 &random() {
  static std::mt19937_64 generator([] {
    const char *seed = std::getenv("KW_CPU_DEVICE_SEED");
    return seed ? std::strtoull(seed, nullptr, 10) : 1ULL;
  }());
  return generator;
}

CUresult fail(CUresult result, const std::string &why) {
  std::fprintf(stderr, "cpu-device: %s\n", why.c_str());
  return result;
}

// The stream a handle names: null and 0x1 the legacy default stream, 0x2 the calling thread's
// per-thread default stream, else a live stream of cuStreamCreate.
// KW_CPU_DEVICE_STALE_STREAMS=abort: a call on a destroyed stream stops the process, as it may crash
// a GPU's; otherwise it returns CUDA_ERROR_INVALID_HANDLE.
bool staleStreamsAbort() {
  static const bool abortOnStale = [] {
    const char *v = std::getenv("KW_CPU_DEVICE_STALE_STREAMS");
    return v && std::strcmp(v, "abort") == 0;
  }();
  return abortOnStale;
}

bool reuseHandles() {
  static const bool reuse = [] {
    const char *v = std::getenv("KW_CPU_DEVICE_REUSE_HANDLES");
    return v && std::strcmp(v, "1") == 0;
  }();
  return reuse;
}

// Destroyed streams and events whose handles a new one takes (KW_CPU_DEVICE_REUSE_HANDLES=1).
std::vector<Stream *> retiredStreams;
std::vector<Event *> retiredEvents;

CUresult resolve(CUstream handle, Stream **stream) {
  if (handle == nullptr || handle == CU_STREAM_LEGACY) {
    *stream = &legacyStream;
    return CUDA_SUCCESS;
  }
  if (handle == CU_STREAM_PER_THREAD) {
    if (!perThreadStream || perThreadGeneration != generation) {
      perThreadStream = new Stream{true};
      perThreadGeneration = generation;
      streams.insert(perThreadStream);
    }
    *stream = perThreadStream;
    return CUDA_SUCCESS;
  }
  Stream *s = reinterpret_cast<Stream *>(handle);
  if (!streams.count(s)) {
    if (staleStreamsAbort()) {
      // A GPU driver may have freed what the handle named: there, such a call can crash the process.
      std::fprintf(stderr, "cpu-device: a call on a destroyed stream\n");
      std::abort();
    }
    return fail(CUDA_ERROR_INVALID_HANDLE, "no such stream (destroyed, or of a reset context)");
  }
  *stream = s;
  return CUDA_SUCCESS;
}

// Queues an operation on a stream, after that stream's previous one and, as the legacy default
// stream requires, after the default stream's work (blocking streams) or every blocking stream's
// work (the default stream itself).
Op *enqueue(Stream *s, std::function<void()> action, bool hostFunction = false,
            const std::vector<Op *> &alsoAfter = {}) {
  Op *op = new Op();
  op->action = std::move(action);
  op->hostFunction = hostFunction;
  if (s->last) op->after.push_back(s->last);
  for (Op *o : alsoAfter) {
    if (o) op->after.push_back(o);
  }
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
    if (before->state != Op::DONE) return false;
  }
  return !op->until || op->until();
}

// The one driver thread that runs host functions, in the order they became ready.
void hostFunctionThread() {
  std::unique_lock<std::mutex> guard(lock);
  for (;;) {
    changed.wait(guard, [] { return !hostFunctions.empty(); });
    Op *op = hostFunctions.front();
    hostFunctions.pop_front();
    std::function<void()> action = std::move(op->action);
    guard.unlock();
    action();
    guard.lock();
    op->state = Op::DONE;
    hostFunctionsInFlight.erase(op);
    changed.notify_all();
  }
}

// Starts a ready operation: a host function is handed to the host-function thread, anything else
// runs here, under the lock.
void start(Op *op) {
  pending.erase(std::find(pending.begin(), pending.end(), op));
  op->state = Op::RUNNING;
  if (op->hostFunction) {
    if (!hostFunctionThreadStarted) {
      std::thread(hostFunctionThread).detach();
      hostFunctionThreadStarted = true;
    }
    hostFunctionsInFlight.insert(op);
    hostFunctions.push_back(op);
    changed.notify_all();
    return;
  }
  op->action();
  op->action = nullptr;
  op->state = Op::DONE;
  changed.notify_all();
}

// Starts one ready operation picked at random; false when none is ready.
bool step() {
  std::vector<Op *> candidates;
  for (Op *op : pending) {
    if (ready(op)) candidates.push_back(op);
  }
  if (candidates.empty()) return false;
  start(candidates[random()() % candidates.size()]);
  return true;
}

// Runs ready operations in random order until `finished` holds. `guard` holds the lock; it is let go
// while only a host function can make progress.
template <typename Finished>
void runUntil(std::unique_lock<std::mutex> &guard, Finished finished) {
  while (!finished()) {
    if (step()) continue;
    if (hostFunctionsInFlight.empty()) {
      std::fprintf(stderr, "cpu-device: waiting for work that can never run\n");
      std::abort();
    }
    changed.wait(guard);
  }
}

void runThrough(std::unique_lock<std::mutex> &guard, Op *op) {
  runUntil(guard, [op] { return op == nullptr || op->state == Op::DONE; });
}

// Completes every operation queued so far, host functions under way included (not the work other
// threads queue meanwhile).
void runAll(std::unique_lock<std::mutex> &guard) {
  std::vector<Op *> before = pending;
  before.insert(before.end(), hostFunctionsInFlight.begin(), hostFunctionsInFlight.end());
  runUntil(guard, [&before] {
    return std::all_of(before.begin(), before.end(), [](Op *op) { return op->state == Op::DONE; });
  });
}

// ---- Stream capture.

void endCapture(Capture *c) {
  for (Stream *s : c->members) {
    s->capture = nullptr;
    s->tail.clear();
  }
  captures.erase(c);
}

void invalidate(Capture *c) { c->invalidated = true; }

// A synchronizing call (`target`: the stream it synchronizes, if one): error 900, and the capture it
// would break invalidated, while `target` captures, or, unless the calling thread's mode is relaxed,
// while this thread captures in a mode other than relaxed or (in the global thread mode) another
// thread captures in global mode.
CUresult synchronizingAllowed(Stream *target, const char *what) {
  CUresult result = CUDA_SUCCESS;
  for (Capture *c : captures) {
    bool own = c->thread == std::this_thread::get_id();
    bool prohibited = threadCaptureMode != CU_STREAM_CAPTURE_MODE_RELAXED
                      && ((own && c->mode != CU_STREAM_CAPTURE_MODE_RELAXED)
                          || (threadCaptureMode == CU_STREAM_CAPTURE_MODE_GLOBAL && c->mode == CU_STREAM_CAPTURE_MODE_GLOBAL));
    bool applies = (target && target->capture == c) || prohibited;
    if (applies) {
      invalidate(c);
      result = CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED;
    }
  }
  if (result) fail(result, std::string(what) + " during stream capture");
  return result;
}

// Work on the legacy stream would join a blocking stream's capture: error 906, capture invalidated.
CUresult legacyAllowed(const char *what) {
  CUresult result = CUDA_SUCCESS;
  for (Capture *c : captures) {
    for (Stream *s : c->members) {
      if (s->blocking) {
        invalidate(c);
        result = CUDA_ERROR_STREAM_CAPTURE_IMPLICIT;
      }
    }
  }
  if (result) fail(result, std::string(what) + " on the legacy stream while a blocking stream captures");
  return result;
}

void record(Stream *s, std::function<void()> action, bool hostFunction, const char *label) {
  Capture *c = s->capture;
  c->nodes.push_back(Node{std::move(action), hostFunction, s->tail, label});
  s->tail = {c->nodes.size() - 1};
}

// KW_CPU_DEVICE_TRACE_PRIORITY=1: every kernel queued (alone or in a launched graph) prints the
// priority of the stream it runs on, so that a test sees where launches went from the driver's side.
bool tracePriority() {
  static const bool on = [] {
    const char *v = std::getenv("KW_CPU_DEVICE_TRACE_PRIORITY");
    return v && std::strcmp(v, "1") == 0;
  }();
  return on;
}

void traceQueued(const Stream *s, const std::string &what) {
  if (tracePriority()) std::fprintf(stderr, "cpu-device: queued %s on priority %d\n", what.c_str(), s->priority);
}

// An asynchronous operation: recorded into the graph when its stream captures, else queued.
CUresult submit(CUstream handle, std::function<void()> action, const char *what, bool hostFunction = false) {
  Stream *s;
  if (CUresult r = resolve(handle, &s)) return r;
  if (s->capture) {
    record(s, std::move(action), hostFunction, what);
    return CUDA_SUCCESS;
  }
  if (s == &legacyStream) {
    if (CUresult r = legacyAllowed(what)) return r;
  }
  traceQueued(s, what);
  enqueue(s, std::move(action), hostFunction);
  return CUDA_SUCCESS;
}

// The nodes `tail` depends on, itself included.
std::set<size_t> ancestors(const std::vector<Node> &nodes, const std::vector<size_t> &tail) {
  std::set<size_t> seen;
  std::vector<size_t> todo(tail);
  while (!todo.empty()) {
    size_t n = todo.back();
    todo.pop_back();
    if (!seen.insert(n).second) continue;
    for (size_t a : nodes[n].after) todo.push_back(a);
  }
  return seen;
}

// ---- Memory.

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
  return p >= it->first && p + bytes <= it->first + it->second.bytes;
}

bool overlapsPinned(const void *host, size_t bytes) {
  uintptr_t p = reinterpret_cast<uintptr_t>(host);
  auto it = pinnedMemory.lower_bound(p + bytes);
  if (it == pinnedMemory.begin()) return false;
  --it;
  return it->first + it->second.bytes > p;
}

// For the PTX interpreter (ptx::DeviceRange): the device allocation or page-locked or registered
// host memory that holds `address`. The driver's lock is held: kernels run under it.
bool deviceRangeOf(uint64_t address, uint64_t *begin, uint64_t *end) {
  auto device = deviceMemory.upper_bound(address);
  if (device != deviceMemory.begin()) {
    --device;
    if (address < device->first + device->second.size) {
      *begin = device->first;
      *end = device->first + device->second.size;
      return true;
    }
  }
  auto pinned = pinnedMemory.upper_bound(address);
  if (pinned != pinnedMemory.begin()) {
    --pinned;
    if (address < pinned->first + pinned->second.bytes) {
      *begin = pinned->first;
      *end = pinned->first + pinned->second.bytes;
      return true;
    }
  }
  return false;
}

// The wait of a synchronous copy on the legacy stream (cuMemcpyHtoD, cuMemcpyDtoH, cuBLAS's set and
// get): `copy` is queued on the legacy stream, after its earlier work and so after every blocking
// stream's, and the host waits for it; or, where the caller has staged pageable host memory, only
// for the work before it, the device write completing after the call returns. `guard` holds the lock.
void copyOnLegacyStream(std::unique_lock<std::mutex> &guard, std::function<void()> copy, bool staged) {
  Op *op = enqueue(&legacyStream, std::move(copy));
  if (!staged) {
    runThrough(guard, op);
    return;
  }
  std::vector<Op *> before = op->after;
  runUntil(guard, [&before] {
    return std::all_of(before.begin(), before.end(), [](Op *o) { return o->state == Op::DONE; });
  });
}

// An asynchronous copy into host memory (cuMemcpyDtoHAsync, cuBLAS's asynchronous get): into
// page-locked memory it is queued on the stream (or recorded into its capture) and writes the host's
// memory when it runs; into pageable memory the host waits for it, which a capture forbids.
CUresult copyToHostAsync(std::unique_lock<std::mutex> &guard, CUstream handle, std::function<void()> copy, bool pinned,
                         const char *what) {
  if (pinned) return submit(handle, std::move(copy), what);
  Stream *s;
  if (CUresult r = resolve(handle, &s)) return r;
  if (CUresult r = synchronizingAllowed(s, (std::string(what) + " to pageable memory").c_str())) return r;
  runThrough(guard, enqueue(s, std::move(copy)));
  return CUDA_SUCCESS;
}

void registerGlobals() {
  for (const GlobalEntry &g : globals()) {
    deviceMemory[reinterpret_cast<uintptr_t>(g.address)] = Allocation{g.size, nullptr, 0};
  }
}

// Everything a context owns, gone: streams, events, modules, graphs, allocations, host memory.
void destroyContextState(std::unique_lock<std::mutex> &guard) {
  runAll(guard);
  reportKernelsRun();
  stickyError = CUDA_SUCCESS;
  maxDynamicShared.clear();
  for (auto it = deviceMemory.begin(); it != deviceMemory.end();) {
    if (it->second.region) {
      munmap(it->second.region, it->second.regionSize);
      it = deviceMemory.erase(it);
    } else {
      ++it;
    }
  }
  for (auto &[base, range] : pinnedMemory) {
    if (!range.registered) std::free(reinterpret_cast<void *>(base));
  }
  pinnedMemory.clear();
  for (Capture *c : std::vector<Capture *>(captures.begin(), captures.end())) endCapture(c);
  streams.clear();
  events.clear();
  modules.clear();
  graphs.clear();
  graphExecs.clear();
  legacyStream.last = nullptr;
  generation++;
}

// Kernel names in a module image: PTX `.entry` lines, or, in a cubin or an uncompressed fatbin, the
// `.text.NAME` sections of the kernels compiled in here.
CUresult readImage(const void *image, Module *m) {
  const unsigned char *bytes = static_cast<const unsigned char *>(image);
  size_t size = 0;
  if (std::memcmp(bytes, "\x7f" "ELF", 4) == 0) {
    uint64_t sectionHeaders;
    uint16_t entrySize, count;
    std::memcpy(&sectionHeaders, bytes + 0x28, 8);
    std::memcpy(&entrySize, bytes + 0x3a, 2);
    std::memcpy(&count, bytes + 0x3c, 2);
    size = sectionHeaders + size_t{entrySize} * count;
  } else if (bytes[0] == 0x50 && bytes[1] == 0xed && bytes[2] == 0x55 && bytes[3] == 0xba) {
    uint16_t headerSize;
    uint64_t fatSize;
    std::memcpy(&headerSize, bytes + 6, 2);
    std::memcpy(&fatSize, bytes + 8, 8);
    size = headerSize + fatSize;
  }
  if (size > 0) {
    m->image.assign(reinterpret_cast<const char *>(bytes), size);
    for (const KernelEntry &k : kernels()) {
      std::string section = std::string(".text.") + k.name;
      section.push_back('\0');
      if (m->image.find(section) != std::string::npos) m->entries.insert(k.name);
    }
    return m->entries.empty() ? fail(CUDA_ERROR_INVALID_IMAGE, "no kernel of cpu-device in the cubin or fatbin")
                              : CUDA_SUCCESS;
  }
  const char *text = static_cast<const char *>(image);
  m->image = text;
  for (const char *at = std::strstr(text, ".entry "); at; at = std::strstr(at + 1, ".entry ")) {
    const char *name = at + 7;
    size_t length = std::strcspn(name, "( \t\n");
    m->entries.insert(std::string(name, length));
  }
  if (m->entries.empty()) return fail(CUDA_ERROR_INVALID_IMAGE, "no .entry in the module image");
  bool allCompiledIn = true;
  for (const std::string &name : m->entries) {
    bool found = false;
    for (const KernelEntry &k : kernels()) found |= name == k.name;
    allCompiledIn &= found;
  }
  if (allCompiledIn && !interpretAll()) return CUDA_SUCCESS;
  ptx::LoadError error;
  m->program = ptx::load(text, &error);
  if (!m->program) return fail(error.code, error.message);
  for (auto [address, bytes] : ptx::variables(*m->program)) {
    deviceMemory[reinterpret_cast<uintptr_t>(address)] = Allocation{bytes, nullptr, 0};
  }
  return CUDA_SUCCESS;
}

bool declares(const Module *m, const char *name) {
  size_t length = std::strlen(name);
  for (size_t at = m->image.find(name); at != std::string::npos; at = m->image.find(name, at + 1)) {
    auto identifier = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '$'; };
    bool starts = at == 0 || !identifier(m->image[at - 1]);
    bool ends = at + length >= m->image.size() || !identifier(m->image[at + length]);
    if (starts && ends) return true;
  }
  return false;
}

}  // namespace

void __syncthreads() { swapcontext(&fibers[currentFiber]->context, &blockScheduler); }

void __trap() { stickyError = 719; }  // CUDA_ERROR_LAUNCH_FAILED

// ---- For the cuBLAS of this directory.

bool kw_cpu_device_in_device_memory(const void *p, size_t bytes) {
  std::lock_guard<std::mutex> guard(lock);
  return inDevice(reinterpret_cast<uintptr_t>(p), bytes);
}

bool kw_cpu_device_in_pinned_memory(const void *p, size_t bytes) {
  std::lock_guard<std::mutex> guard(lock);
  return inPinned(p, bytes);
}

CUresult kw_cpu_device_enqueue(CUstream stream, std::function<void()> action, const char *what) {
  std::lock_guard<std::mutex> guard(lock);
  return submit(stream, std::move(action), what);
}

CUresult kw_cpu_device_copy(std::function<void()> copy, bool staged, const char *what) {
  std::unique_lock<std::mutex> guard(lock);
  if (CUresult r = synchronizingAllowed(&legacyStream, what)) return r;
  if (stickyError) return stickyError;
  copyOnLegacyStream(guard, std::move(copy), staged);
  return stickyError;
}

CUresult kw_cpu_device_copy_to_host_async(CUstream stream, std::function<void()> copy, bool pinned, const char *what) {
  std::unique_lock<std::mutex> guard(lock);
  return copyToHostAsync(guard, stream, std::move(copy), pinned, what);
}

// ---- The driver API.

extern "C" {

// KW_CPU_DEVICE_INIT_MS=N makes cuInit take N ms, as a real driver's initialization does (about
// 250 ms on the H100 machine): start-up measurements can then see what the agent does meanwhile.
CUresult cuInit(unsigned int) {
  static const long initMillis = [] {
    const char *ms = std::getenv("KW_CPU_DEVICE_INIT_MS");
    return ms ? std::strtol(ms, nullptr, 10) : 0L;
  }();
  if (initMillis > 0) usleep(static_cast<useconds_t>(initMillis) * 1000);
  return CUDA_SUCCESS;
}

CUresult cuDeviceGetCount(int *count) {
  *count = 1;
  return CUDA_SUCCESS;
}

CUresult cuDeviceGet(CUdevice *device, int ordinal) {
  if (ordinal != 0) return fail(CUDA_ERROR_INVALID_DEVICE, "only device 0");
  *device = 0;
  return CUDA_SUCCESS;
}

CUresult cuDevicePrimaryCtxRetain(CUcontext *context, CUdevice device) {
  std::lock_guard<std::mutex> guard(lock);
  if (device != 0) return fail(CUDA_ERROR_INVALID_DEVICE, "only device 0");
  primaryRetains++;
  *context = reinterpret_cast<CUcontext>(&primaryContext);
  return CUDA_SUCCESS;
}

// The last release destroys the primary context, as cuDevicePrimaryCtxReset does; its handle stays
// the same for the next retain.
CUresult cuDevicePrimaryCtxRelease_v2(CUdevice device) {
  std::unique_lock<std::mutex> guard(lock);
  if (device != 0) return fail(CUDA_ERROR_INVALID_DEVICE, "only device 0");
  if (primaryRetains == 0) return fail(CUDA_ERROR_INVALID_CONTEXT, "cuDevicePrimaryCtxRelease without a retain");
  if (--primaryRetains == 0) destroyContextState(guard);
  return CUDA_SUCCESS;
}

CUresult cuDevicePrimaryCtxReset_v2(CUdevice device) {
  std::unique_lock<std::mutex> guard(lock);
  if (device != 0) return fail(CUDA_ERROR_INVALID_DEVICE, "only device 0");
  destroyContextState(guard);
  primaryRetains = 0;
  return CUDA_SUCCESS;
}

CUresult cuDevicePrimaryCtxGetState(CUdevice device, unsigned int *flags, int *active) {
  std::lock_guard<std::mutex> guard(lock);
  if (device != 0) return fail(CUDA_ERROR_INVALID_DEVICE, "only device 0");
  *flags = 0;
  *active = primaryRetains > 0;
  return CUDA_SUCCESS;
}

CUresult cuCtxCreate_v2(CUcontext *context, unsigned int, CUdevice device) {
  std::lock_guard<std::mutex> guard(lock);
  if (device != 0) return fail(CUDA_ERROR_INVALID_DEVICE, "only device 0");
  static int contexts = 0;
  *context = reinterpret_cast<CUcontext>(new Context{++contexts});
  threadCurrent = lastCurrent = *context;
  return CUDA_SUCCESS;
}

CUresult cuCtxDestroy_v2(CUcontext context) {
  std::unique_lock<std::mutex> guard(lock);
  runAll(guard);
  reportKernelsRun();
  if (threadCurrent == context) threadCurrent = nullptr;
  if (lastCurrent == context) lastCurrent = nullptr;
  return CUDA_SUCCESS;
}

CUresult cuCtxSetCurrent(CUcontext context) {
  std::lock_guard<std::mutex> guard(lock);
  threadCurrent = context;
  if (context) lastCurrent = context;
  return CUDA_SUCCESS;
}

// A thread that never made a context current sees the one made current last, so that the agent's
// own threads find the application's context.
CUresult cuCtxGetCurrent(CUcontext *context) {
  std::lock_guard<std::mutex> guard(lock);
  *context = threadCurrent ? threadCurrent
                           : lastCurrent ? lastCurrent : reinterpret_cast<CUcontext>(&primaryContext);
  return CUDA_SUCCESS;
}

CUresult cuCtxPushCurrent_v2(CUcontext context) {
  std::lock_guard<std::mutex> guard(lock);
  contextStack.push_back(threadCurrent);
  threadCurrent = context;
  return CUDA_SUCCESS;
}

CUresult cuCtxPopCurrent_v2(CUcontext *context) {
  std::lock_guard<std::mutex> guard(lock);
  if (contextStack.empty()) return fail(CUDA_ERROR_INVALID_CONTEXT, "cuCtxPopCurrent with nothing pushed");
  if (context) *context = threadCurrent;
  threadCurrent = contextStack.back();
  contextStack.pop_back();
  return CUDA_SUCCESS;
}

CUresult cuCtxGetDevice(CUdevice *device) {
  *device = 0;
  return CUDA_SUCCESS;
}

CUresult cuCtxSynchronize() {
  std::unique_lock<std::mutex> guard(lock);
  if (CUresult r = synchronizingAllowed(nullptr, "cuCtxSynchronize")) return r;
  runAll(guard);
  return stickyError;
}

CUresult cuModuleLoadData(CUmodule *module, const void *image) {
  std::lock_guard<std::mutex> guard(lock);
  Module *m = new Module();
  if (CUresult r = readImage(image, m)) {
    delete m;
    return r;
  }
  // A new module's variables start at zero.
  for (const GlobalEntry &g : globals()) {
    if (!m->program && declares(m, g.name)) std::memset(g.address, 0, g.size);
  }
  modules.insert(m);
  *module = reinterpret_cast<CUmodule>(m);
  return CUDA_SUCCESS;
}

// A .ptx (or cubin) file.
CUresult cuModuleLoad(CUmodule *module, const char *path) {
  FILE *file = std::fopen(path, "rb");
  if (!file) return fail(CUDA_ERROR_NOT_FOUND, std::string("cuModuleLoad: no file ") + path);
  std::string bytes;
  char buffer[65536];
  for (size_t n; (n = std::fread(buffer, 1, sizeof buffer, file)) > 0;) bytes.append(buffer, n);
  std::fclose(file);
  return cuModuleLoadData(module, bytes.c_str());
}

CUresult cuModuleLoadDataEx(CUmodule *module, const void *image, unsigned int, void *, void **) {
  return cuModuleLoadData(module, image);
}

CUresult cuModuleLoadFatBinary(CUmodule *module, const void *image) { return cuModuleLoadData(module, image); }

CUresult cuModuleUnload(CUmodule module) {
  std::lock_guard<std::mutex> guard(lock);
  Module *m = reinterpret_cast<Module *>(module);
  if (!modules.erase(m)) return fail(CUDA_ERROR_INVALID_HANDLE, "cuModuleUnload of no module");
  if (m->program) {
    for (auto [address, bytes] : ptx::variables(*m->program)) deviceMemory.erase(reinterpret_cast<uintptr_t>(address));
  }
  delete m;
  return CUDA_SUCCESS;
}

CUresult cuModuleGetFunction(CUfunction *function, CUmodule module, const char *name) {
  std::lock_guard<std::mutex> guard(lock);
  Module *m = reinterpret_cast<Module *>(module);
  if (!modules.count(m)) return fail(CUDA_ERROR_INVALID_HANDLE, "cuModuleGetFunction of no module");
  if (!m->entries.count(name)) return fail(CUDA_ERROR_NOT_FOUND, std::string("no kernel ") + name + " in the module");
  if (m->program) {
    int entry = ptx::findEntry(*m->program, name);
    if (entry < 0) return fail(CUDA_ERROR_NOT_FOUND, std::string("no kernel ") + name + " in the module");
    auto it = m->interpreted.find(name);
    if (it == m->interpreted.end()) {
      std::vector<size_t> sizes = ptx::paramSizes(*m->program, entry);
      KernelEntry k{ptx::entryName(*m->program, entry), sizes, std::vector<bool>(sizes.size(), false),
                    &ptx::runCurrentThread, m->program, entry};
      it = m->interpreted.emplace(name, k).first;
    }
    *function = reinterpret_cast<CUfunction>(&it->second);
    return CUDA_SUCCESS;
  }
  for (KernelEntry &k : kernels()) {
    if (std::strcmp(k.name, name) == 0) {
      *function = reinterpret_cast<CUfunction>(&k);
      return CUDA_SUCCESS;
    }
  }
  return fail(CUDA_ERROR_NOT_FOUND, std::string("kernel ") + name + " is not compiled into cpu-device");
}

CUresult cuModuleGetGlobal_v2(CUdeviceptr *pointer, size_t *bytes, CUmodule module, const char *name) {
  std::lock_guard<std::mutex> guard(lock);
  Module *m = reinterpret_cast<Module *>(module);
  if (!modules.count(m)) return fail(CUDA_ERROR_INVALID_HANDLE, "cuModuleGetGlobal of no module");
  if (m->program) {
    void *address;
    size_t size;
    if (!ptx::findVariable(*m->program, name, &address, &size)) return CUDA_ERROR_NOT_FOUND;
    if (pointer) *pointer = reinterpret_cast<CUdeviceptr>(address);
    if (bytes) *bytes = size;
    return CUDA_SUCCESS;
  }
  for (const GlobalEntry &g : globals()) {
    if (std::strcmp(g.name, name) == 0 && declares(m, name)) {
      registerGlobals();
      if (pointer) *pointer = reinterpret_cast<CUdeviceptr>(g.address);
      if (bytes) *bytes = g.size;
      return CUDA_SUCCESS;
    }
  }
  // Silent: the agent looks up every variable a module declares.
  return CUDA_ERROR_NOT_FOUND;
}

// KW_CPU_DEVICE_MEMORY: the bytes of device memory, as a GPU's are few; unset, as much as mmap gives.
size_t deviceMemoryLimit() {
  static const size_t limit = [] {
    const char *bytes = std::getenv("KW_CPU_DEVICE_MEMORY");
    return bytes ? static_cast<size_t>(std::strtoull(bytes, nullptr, 10)) : SIZE_MAX;
  }();
  return limit;
}

// Managed memory is left out: a GPU that pages it may hold more of it than its memory.
size_t deviceMemoryInUse() {
  size_t used = 0;
  for (const auto &[base, a] : deviceMemory) if (a.region && !a.managed) used += a.size;
  return used;
}

// A new allocation that ends at a guard page, filled with 0xff bytes; the lock is held.
static CUresult mapAllocation(CUdeviceptr *pointer, size_t bytes, bool managed) {
  size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  size_t pages = (bytes + page - 1) / page;
  size_t regionSize = (pages + 1) * page;
  void *region = mmap(nullptr, regionSize, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (region == MAP_FAILED) return fail(CUDA_ERROR_OUT_OF_MEMORY, "mmap failed");
  char *guardPage = static_cast<char *>(region) + pages * page;
  mprotect(guardPage, page, PROT_NONE);
  // The allocation ends where the guard page starts (8-byte aligned: floats, and pointers in tables).
  uintptr_t base = reinterpret_cast<uintptr_t>(guardPage) - ((bytes + 7) & ~size_t{7});
  std::memset(reinterpret_cast<void *>(base), 0xff, bytes);  // NaN floats, not zeros
  deviceMemory[base] = Allocation{bytes, region, regionSize, managed};
  *pointer = base;
  return CUDA_SUCCESS;
}

CUresult cuMemAlloc_v2(CUdeviceptr *pointer, size_t bytes) {
  std::lock_guard<std::mutex> guard(lock);
  if (stickyError) return stickyError;
  // Out of memory is an answer, not a fault: CUDA prints nothing.
  if (bytes > deviceMemoryLimit() || deviceMemoryInUse() > deviceMemoryLimit() - bytes) return CUDA_ERROR_OUT_OF_MEMORY;
  return mapAllocation(pointer, bytes, false);
}

// Managed memory: one address for the host and the kernels, which here share the address space. It
// is device memory like cuMemAlloc's (kernels, copies, cuBLAS, cuMemGetAddressRange, cuMemFree)
// that the host reads and writes directly, as on a device with concurrent managed access (Pascal and
// later on Linux): there CU_MEM_ATTACH_HOST is only a hint, so both flags give the same memory. The
// host sees what kernels wrote once it has waited for them; before, what was there (0xff bytes at
// first, as cuMemAlloc's).
CUresult cuMemAllocManaged(CUdeviceptr *pointer, size_t bytes, unsigned int flags) {
  const unsigned int attachGlobal = 1, attachHost = 2;  // CU_MEM_ATTACH_GLOBAL, CU_MEM_ATTACH_HOST
  std::lock_guard<std::mutex> guard(lock);
  if (stickyError) return stickyError;
  if (bytes == 0) return fail(CUDA_ERROR_INVALID_VALUE, "cuMemAllocManaged of 0 bytes");
  if (flags != attachGlobal && flags != attachHost) {
    return fail(CUDA_ERROR_INVALID_VALUE, "cuMemAllocManaged: flags must be CU_MEM_ATTACH_GLOBAL or CU_MEM_ATTACH_HOST");
  }
  return mapAllocation(pointer, bytes, true);
}

// CUDA says only that cuMemFree "may perform implicit synchronization". By default it waits for
// everything; with KW_CPU_DEVICE_FREE=legacy only for what a call on the legacy default stream waits
// for (the legacy and blocking streams), so that work on non-blocking streams still using the memory
// runs after it is unmapped (a fault) or allocated again (a wrong result): a program (or an agent)
// that frees memory must itself wait for its users there.
bool freeWaitsForLegacyOnly() {
  static const bool legacyOnly = [] {
    const char *mode = std::getenv("KW_CPU_DEVICE_FREE");
    return mode && std::strcmp(mode, "legacy") == 0;
  }();
  return legacyOnly;
}

CUresult cuMemFree_v2(CUdeviceptr pointer) {
  std::unique_lock<std::mutex> guard(lock);
  auto it = deviceMemory.find(pointer);
  if (it == deviceMemory.end() || !it->second.region) return fail(CUDA_ERROR_INVALID_VALUE, "cuMemFree of no allocation");
  if (freeWaitsForLegacyOnly()) {
    runThrough(guard, enqueue(&legacyStream, [] {}));
  } else {
    runAll(guard);
  }
  it = deviceMemory.find(pointer);
  munmap(it->second.region, it->second.regionSize);
  deviceMemory.erase(it);
  return CUDA_SUCCESS;
}

CUresult cuMemGetAddressRange_v2(CUdeviceptr *base, size_t *size, CUdeviceptr pointer) {
  std::lock_guard<std::mutex> guard(lock);
  if (stickyError) return stickyError;
  auto it = deviceMemory.upper_bound(pointer);
  if (it == deviceMemory.begin()) return CUDA_ERROR_NOT_FOUND;
  --it;
  if (pointer >= it->first + it->second.size) return CUDA_ERROR_NOT_FOUND;
  if (base) *base = it->first;
  if (size) *size = it->second.size;  // the size asked for, as CUDA reports it
  return CUDA_SUCCESS;
}

CUresult cuPointerGetAttribute(void *data, int attribute, CUdeviceptr pointer) {
  // CU_POINTER_ATTRIBUTE_IS_MANAGED, _RANGE_START_ADDR, _RANGE_SIZE
  const int isManaged = 8, rangeStart = 11, rangeSize = 12;
  if (attribute == isManaged) {
    // Device memory answers whether cuMemAllocManaged made it; page-locked and registered memory no;
    // any other address is no CUDA pointer.
    std::lock_guard<std::mutex> guard(lock);
    bool managed = false;
    auto it = deviceMemory.upper_bound(pointer);
    if (it != deviceMemory.begin() && pointer < std::prev(it)->first + std::prev(it)->second.size) {
      managed = std::prev(it)->second.managed;
    } else if (!inPinned(reinterpret_cast<const void *>(pointer), 1)) {
      return fail(CUDA_ERROR_INVALID_VALUE, "cuPointerGetAttribute of no CUDA pointer");
    }
    *static_cast<int *>(data) = managed ? 1 : 0;
    return CUDA_SUCCESS;
  }
  if (attribute != rangeStart && attribute != rangeSize) {
    return fail(CUDA_ERROR_INVALID_VALUE, "cuPointerGetAttribute: only the managed and range attributes are simulated");
  }
  CUdeviceptr base = 0;
  size_t size = 0;
  CUresult result = cuMemGetAddressRange_v2(&base, &size, pointer);
  if (result != CUDA_SUCCESS) return result;
  if (attribute == rangeStart) *static_cast<CUdeviceptr *>(data) = base;
  else *static_cast<size_t *>(data) = size;
  return CUDA_SUCCESS;
}

CUresult cuMemAllocHost_v2(void **pointer, size_t bytes) {
  std::lock_guard<std::mutex> guard(lock);
  void *p = std::aligned_alloc(4096, (bytes + 4095) / 4096 * 4096);
  if (!p) return fail(CUDA_ERROR_OUT_OF_MEMORY, "aligned_alloc failed");
  std::memset(p, 0xff, bytes);
  pinnedMemory[reinterpret_cast<uintptr_t>(p)] = HostRange{bytes, false};
  *pointer = p;
  return CUDA_SUCCESS;
}

CUresult cuMemHostAlloc(void **pointer, size_t bytes, unsigned int) { return cuMemAllocHost_v2(pointer, bytes); }

CUresult cuMemFreeHost(void *pointer) {
  std::unique_lock<std::mutex> guard(lock);
  auto it = pinnedMemory.find(reinterpret_cast<uintptr_t>(pointer));
  if (it == pinnedMemory.end() || it->second.registered) return fail(CUDA_ERROR_INVALID_VALUE, "cuMemFreeHost of no allocation");
  runAll(guard);
  pinnedMemory.erase(reinterpret_cast<uintptr_t>(pointer));
  std::free(pointer);
  return CUDA_SUCCESS;
}

CUresult cuMemHostRegister_v2(void *pointer, size_t bytes, unsigned int) {
  std::lock_guard<std::mutex> guard(lock);
  if (bytes == 0) return fail(CUDA_ERROR_INVALID_VALUE, "cuMemHostRegister of 0 bytes");
  if (overlapsPinned(pointer, bytes)) {
    return fail(CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED, "cuMemHostRegister of memory already page-locked");
  }
  pinnedMemory[reinterpret_cast<uintptr_t>(pointer)] = HostRange{bytes, true};
  return CUDA_SUCCESS;
}

// Unified addressing: registered and page-locked memory has the host's address on the device too.
CUresult cuMemHostGetDevicePointer_v2(CUdeviceptr *device, void *host, unsigned int) {
  std::lock_guard<std::mutex> guard(lock);
  if (!inPinned(host, 1)) return fail(CUDA_ERROR_INVALID_VALUE, "cuMemHostGetDevicePointer of memory not page-locked");
  *device = reinterpret_cast<CUdeviceptr>(host);
  return CUDA_SUCCESS;
}

CUresult cuMemHostUnregister(void *pointer) {
  std::unique_lock<std::mutex> guard(lock);
  auto it = pinnedMemory.find(reinterpret_cast<uintptr_t>(pointer));
  if (it == pinnedMemory.end() || !it->second.registered) {
    return fail(CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED, "cuMemHostUnregister of memory not registered");
  }
  runAll(guard);
  pinnedMemory.erase(reinterpret_cast<uintptr_t>(pointer));
  return CUDA_SUCCESS;
}

// Synchronous copies run on the legacy stream. From pageable memory the host waits for earlier work
// and the data is staged; the device write may complete after the call returns.
CUresult cuMemcpyHtoD_v2(CUdeviceptr device, const void *host, size_t bytes) {
  std::unique_lock<std::mutex> guard(lock);
  if (!inDevice(device, bytes)) return fail(CUDA_ERROR_INVALID_VALUE, "cuMemcpyHtoD outside device memory");
  if (CUresult r = synchronizingAllowed(&legacyStream, "cuMemcpyHtoD")) return r;
  if (inPinned(host, bytes)) {
    copyOnLegacyStream(guard, [=] { std::memcpy(reinterpret_cast<void *>(device), host, bytes); }, false);
    return CUDA_SUCCESS;
  }
  auto staged = std::make_shared<std::vector<char>>(static_cast<const char *>(host), static_cast<const char *>(host) + bytes);
  copyOnLegacyStream(guard, [=] { std::memcpy(reinterpret_cast<void *>(device), staged->data(), bytes); }, true);
  return CUDA_SUCCESS;
}

CUresult cuMemcpyDtoH_v2(void *host, CUdeviceptr device, size_t bytes) {
  std::unique_lock<std::mutex> guard(lock);
  if (!inDevice(device, bytes)) return fail(CUDA_ERROR_INVALID_VALUE, "cuMemcpyDtoH outside device memory");
  if (CUresult r = synchronizingAllowed(&legacyStream, "cuMemcpyDtoH")) return r;
  if (stickyError) return stickyError;
  copyOnLegacyStream(guard, [=] { std::memcpy(host, reinterpret_cast<void *>(device), bytes); }, false);
  return stickyError;
}

// Contexts share the memory here. cuMemcpyPeer is "serialized with respect to all pending and future
// asynchronous work" of the current, source and destination contexts, every stream's: here it
// completes all pending work (of any context, which CUDA allows) and copies before returning.
CUresult cuMemcpyPeer(CUdeviceptr to, CUcontext, CUdeviceptr from, CUcontext, size_t bytes) {
  std::unique_lock<std::mutex> guard(lock);
  if (!inDevice(to, bytes) || !inDevice(from, bytes)) return fail(CUDA_ERROR_INVALID_VALUE, "cuMemcpyPeer outside device memory");
  if (CUresult r = synchronizingAllowed(nullptr, "cuMemcpyPeer")) return r;
  if (stickyError) return stickyError;
  runAll(guard);
  std::memmove(reinterpret_cast<void *>(to), reinterpret_cast<void *>(from), bytes);
  return CUDA_SUCCESS;
}

// An ordinary device-to-device copy on the stream: ordered with its stream's work only.
CUresult cuMemcpyPeerAsync(CUdeviceptr to, CUcontext, CUdeviceptr from, CUcontext, size_t bytes, CUstream stream) {
  std::lock_guard<std::mutex> guard(lock);
  if (!inDevice(to, bytes) || !inDevice(from, bytes)) return fail(CUDA_ERROR_INVALID_VALUE, "cuMemcpyPeerAsync outside device memory");
  return submit(stream, [=] { std::memmove(reinterpret_cast<void *>(to), reinterpret_cast<void *>(from), bytes); },
                "cuMemcpyPeerAsync");
}

CUresult cuMemcpyDtoD_v2(CUdeviceptr to, CUdeviceptr from, size_t bytes) {
  std::lock_guard<std::mutex> guard(lock);
  if (!inDevice(to, bytes) || !inDevice(from, bytes)) return fail(CUDA_ERROR_INVALID_VALUE, "cuMemcpyDtoD outside device memory");
  return submit(nullptr, [=] { std::memmove(reinterpret_cast<void *>(to), reinterpret_cast<void *>(from), bytes); },
                "cuMemcpyDtoD");
}

// From pageable memory the data is staged at once; from pinned memory it is read when the copy runs.
CUresult cuMemcpyHtoDAsync_v2(CUdeviceptr device, const void *host, size_t bytes, CUstream stream) {
  std::lock_guard<std::mutex> guard(lock);
  if (!inDevice(device, bytes)) return fail(CUDA_ERROR_INVALID_VALUE, "cuMemcpyHtoDAsync outside device memory");
  if (inPinned(host, bytes)) {
    return submit(stream, [=] { std::memcpy(reinterpret_cast<void *>(device), host, bytes); }, "cuMemcpyHtoDAsync");
  }
  auto staged = std::make_shared<std::vector<char>>(static_cast<const char *>(host), static_cast<const char *>(host) + bytes);
  return submit(stream, [=] { std::memcpy(reinterpret_cast<void *>(device), staged->data(), bytes); }, "cuMemcpyHtoDAsync");
}

// To pageable memory the copy completes before the call returns.
CUresult cuMemcpyDtoHAsync_v2(void *host, CUdeviceptr device, size_t bytes, CUstream stream) {
  std::unique_lock<std::mutex> guard(lock);
  if (!inDevice(device, bytes)) return fail(CUDA_ERROR_INVALID_VALUE, "cuMemcpyDtoHAsync outside device memory");
  auto copy = [=] { std::memcpy(host, reinterpret_cast<void *>(device), bytes); };
  return copyToHostAsync(guard, stream, copy, inPinned(host, bytes), "cuMemcpyDtoHAsync");
}

CUresult cuMemcpyDtoDAsync_v2(CUdeviceptr to, CUdeviceptr from, size_t bytes, CUstream stream) {
  std::lock_guard<std::mutex> guard(lock);
  if (!inDevice(to, bytes) || !inDevice(from, bytes)) return fail(CUDA_ERROR_INVALID_VALUE, "cuMemcpyDtoDAsync outside device memory");
  return submit(stream, [=] { std::memmove(reinterpret_cast<void *>(to), reinterpret_cast<void *>(from), bytes); },
                "cuMemcpyDtoDAsync");
}

}  // extern "C"

namespace {

template <typename T>
CUresult memset(CUdeviceptr device, T value, size_t count, CUstream stream, const char *what) {
  std::lock_guard<std::mutex> guard(lock);
  if (!inDevice(device, count * sizeof(T))) return fail(CUDA_ERROR_INVALID_VALUE, std::string(what) + " outside device memory");
  return submit(stream, [=] { std::fill_n(reinterpret_cast<T *>(device), count, value); }, what);
}

}  // namespace

extern "C" {

// Memsets of device memory do not wait, the synchronous ones included.
CUresult cuMemsetD8_v2(CUdeviceptr d, unsigned char v, size_t n) { return memset<unsigned char>(d, v, n, nullptr, "cuMemsetD8"); }
CUresult cuMemsetD16_v2(CUdeviceptr d, unsigned short v, size_t n) { return memset<unsigned short>(d, v, n, nullptr, "cuMemsetD16"); }
CUresult cuMemsetD32_v2(CUdeviceptr d, unsigned int v, size_t n) { return memset<unsigned int>(d, v, n, nullptr, "cuMemsetD32"); }
CUresult cuMemsetD8Async(CUdeviceptr d, unsigned char v, size_t n, CUstream s) {
  return memset<unsigned char>(d, v, n, s, "cuMemsetD8Async");
}
CUresult cuMemsetD16Async(CUdeviceptr d, unsigned short v, size_t n, CUstream s) {
  return memset<unsigned short>(d, v, n, s, "cuMemsetD16Async");
}
CUresult cuMemsetD32Async(CUdeviceptr d, unsigned int v, size_t n, CUstream s) {
  return memset<unsigned int>(d, v, n, s, "cuMemsetD32Async");
}

// Stream memory operations. A wait is ready once its condition holds; one that no queued work can
// satisfy stops the process ("waiting for work that can never run"), as the stand-in cannot wait for
// other threads to queue the write.
CUresult streamWaitValue(CUstream stream, CUdeviceptr address, uint64_t value, unsigned int flags, bool wide,
                         const char *what) {
  std::lock_guard<std::mutex> guard(lock);
  if (!inDevice(address, wide ? 8 : 4)) return fail(CUDA_ERROR_INVALID_VALUE, std::string(what) + " outside device memory");
  Stream *s;
  if (CUresult r = resolve(stream, &s)) return r;
  if (s->capture) return fail(CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED, std::string(what) + " during stream capture");
  Op *op = enqueue(s, [] {});
  op->until = [=] {
    uint64_t v = wide ? *reinterpret_cast<volatile uint64_t *>(address) : *reinterpret_cast<volatile uint32_t *>(address);
    switch (flags & 0x3) {
      case 0: return wide ? static_cast<int64_t>(v - value) >= 0 : static_cast<int32_t>(static_cast<uint32_t>(v - value)) >= 0;  // GEQ
      case 1: return v == value;                                                                                 // EQ
      case 2: return (v & value) != 0;                                                                           // AND
      default: return wide ? ~(v | value) != 0 : static_cast<uint32_t>(~(v | value)) != 0;                      // NOR
    }
  };
  return CUDA_SUCCESS;
}

CUresult streamWriteValue(CUstream stream, CUdeviceptr address, uint64_t value, bool wide, const char *what) {
  std::lock_guard<std::mutex> guard(lock);
  if (!inDevice(address, wide ? 8 : 4)) return fail(CUDA_ERROR_INVALID_VALUE, std::string(what) + " outside device memory");
  return submit(stream, [=] {
    if (wide) {
      *reinterpret_cast<uint64_t *>(address) = value;
    } else {
      *reinterpret_cast<uint32_t *>(address) = static_cast<uint32_t>(value);
    }
  }, what);
}

CUresult cuStreamWaitValue32_v2(CUstream s, CUdeviceptr a, uint32_t v, unsigned int flags) {
  return streamWaitValue(s, a, v, flags, false, "cuStreamWaitValue32");
}
CUresult cuStreamWaitValue64_v2(CUstream s, CUdeviceptr a, uint64_t v, unsigned int flags) {
  return streamWaitValue(s, a, v, flags, true, "cuStreamWaitValue64");
}
CUresult cuStreamWriteValue32_v2(CUstream s, CUdeviceptr a, uint32_t v, unsigned int) {
  return streamWriteValue(s, a, v, false, "cuStreamWriteValue32");
}
CUresult cuStreamWriteValue64_v2(CUstream s, CUdeviceptr a, uint64_t v, unsigned int) {
  return streamWriteValue(s, a, v, true, "cuStreamWriteValue64");
}

CUresult cuStreamCreate(CUstream *stream, unsigned int flags) {
  std::lock_guard<std::mutex> guard(lock);
  Stream *s;
  if (reuseHandles() && !retiredStreams.empty()) {
    s = retiredStreams.back();  // its work ran through at its destroy: nothing refers to it now
    retiredStreams.pop_back();
    *s = Stream{(flags & CU_STREAM_NON_BLOCKING) == 0};
  } else {
    s = new Stream{(flags & CU_STREAM_NON_BLOCKING) == 0};
  }
  streams.insert(s);
  *stream = reinterpret_cast<CUstream>(s);
  return CUDA_SUCCESS;
}

// The range of a recent GPU: 0 least (the default), -5 greatest; lower numbers are more urgent.
constexpr int LEAST_STREAM_PRIORITY = 0;
constexpr int GREATEST_STREAM_PRIORITY = -5;

CUresult cuCtxGetStreamPriorityRange(int *leastPriority, int *greatestPriority) {
  if (leastPriority) *leastPriority = LEAST_STREAM_PRIORITY;  // either pointer may be null
  if (greatestPriority) *greatestPriority = GREATEST_STREAM_PRIORITY;
  return CUDA_SUCCESS;
}

// A priority outside the range is clamped to it, as CUDA documents.
CUresult cuStreamCreateWithPriority(CUstream *stream, unsigned int flags, int priority) {
  CUresult r = cuStreamCreate(stream, flags);
  if (r != CUDA_SUCCESS) return r;
  std::lock_guard<std::mutex> guard(lock);
  reinterpret_cast<Stream *>(*stream)->priority =
      std::min(LEAST_STREAM_PRIORITY, std::max(GREATEST_STREAM_PRIORITY, priority));
  return CUDA_SUCCESS;
}

CUresult cuStreamGetPriority(CUstream stream, int *priority) {
  std::lock_guard<std::mutex> guard(lock);
  Stream *s;
  if (CUresult r = resolve(stream, &s)) return r;
  if (!priority) return fail(CUDA_ERROR_INVALID_VALUE, "cuStreamGetPriority without a result pointer");
  *priority = s->priority;  // the default streams have priority 0
  return CUDA_SUCCESS;
}

CUresult cuStreamDestroy_v2(CUstream stream) {
  std::unique_lock<std::mutex> guard(lock);
  if (stream == nullptr || stream == CU_STREAM_LEGACY || stream == CU_STREAM_PER_THREAD) {
    return fail(CUDA_ERROR_INVALID_HANDLE, "cuStreamDestroy of a default stream");
  }
  Stream *s;
  if (CUresult r = resolve(stream, &s)) return r;
  streams.erase(s);
  runThrough(guard, s->last);  // its work completes; the Stream stays for operations that follow it
  if (reuseHandles()) retiredStreams.push_back(s);
  return CUDA_SUCCESS;
}

CUresult cuStreamGetFlags(CUstream stream, unsigned int *flags) {
  std::lock_guard<std::mutex> guard(lock);
  Stream *s;
  if (CUresult r = resolve(stream, &s)) return r;
  *flags = s->blocking ? 0 : CU_STREAM_NON_BLOCKING;
  return CUDA_SUCCESS;
}

CUresult cuStreamGetCtx(CUstream stream, CUcontext *context) {
  std::lock_guard<std::mutex> guard(lock);
  Stream *s;
  if (CUresult r = resolve(stream, &s)) return r;
  *context = threadCurrent ? threadCurrent : lastCurrent ? lastCurrent : reinterpret_cast<CUcontext>(&primaryContext);
  return CUDA_SUCCESS;
}

CUresult cuStreamSynchronize(CUstream stream) {
  std::unique_lock<std::mutex> guard(lock);
  Stream *s;
  if (CUresult r = resolve(stream, &s)) return r;
  if (s->capture || s == &legacyStream) {
    if (CUresult r = synchronizingAllowed(s, "cuStreamSynchronize")) return r;
  }
  runThrough(guard, s->last);
  return stickyError;
}

// Answers at once; then, standing in for the time that passes on a device, starts one ready operation.
CUresult cuStreamQuery(CUstream stream) {
  std::lock_guard<std::mutex> guard(lock);
  Stream *s;
  if (CUresult r = resolve(stream, &s)) return r;
  if (s->capture) {
    invalidate(s->capture);
    return fail(CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED, "cuStreamQuery of a capturing stream");
  }
  if (stickyError) return stickyError;
  if (s->last == nullptr || s->last->state == Op::DONE) return CUDA_SUCCESS;
  step();
  return CUDA_ERROR_NOT_READY;
}

CUresult cuEventCreate(CUevent *event, unsigned int flags) {
  std::lock_guard<std::mutex> guard(lock);
  Event *e;
  if (reuseHandles() && !retiredEvents.empty()) {
    e = retiredEvents.back();  // work waiting for its old record holds that record's operation, not the event
    retiredEvents.pop_back();
    *e = Event();
  } else {
    e = new Event();
  }
  e->timing = (flags & CU_EVENT_DISABLE_TIMING) == 0;
  events.insert(e);
  *event = reinterpret_cast<CUevent>(e);
  return CUDA_SUCCESS;
}

CUresult cuEventDestroy_v2(CUevent event) {
  std::lock_guard<std::mutex> guard(lock);
  if (!events.erase(reinterpret_cast<Event *>(event))) return fail(CUDA_ERROR_INVALID_HANDLE, "cuEventDestroy of no event");
  if (reuseHandles()) retiredEvents.push_back(reinterpret_cast<Event *>(event));
  return CUDA_SUCCESS;  // not freed: a stale handle must find no live event, or (reused) the new one
}

CUresult cuEventRecord(CUevent event, CUstream stream) {
  std::lock_guard<std::mutex> guard(lock);
  Event *e = reinterpret_cast<Event *>(event);
  if (!events.count(e)) return fail(CUDA_ERROR_INVALID_HANDLE, "cuEventRecord of no event");
  Stream *s;
  if (CUresult r = resolve(stream, &s)) return r;
  if (s->capture) {
    e->capture = s->capture;
    e->tail = s->tail;
    return CUDA_SUCCESS;
  }
  if (s == &legacyStream) {
    if (CUresult r = legacyAllowed("cuEventRecord")) return r;
  }
  e->capture = nullptr;
  auto at = std::make_shared<double>(0);
  e->at = at;
  e->recorded = enqueue(s, [at] { *at = virtualMs; });
  return CUDA_SUCCESS;
}

CUresult cuEventRecordWithFlags(CUevent event, CUstream stream, unsigned int) { return cuEventRecord(event, stream); }

CUresult cuEventQuery(CUevent event) {
  std::lock_guard<std::mutex> guard(lock);
  Event *e = reinterpret_cast<Event *>(event);
  if (!events.count(e)) return fail(CUDA_ERROR_INVALID_HANDLE, "cuEventQuery of no event");
  if (e->capture) return fail(CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED, "cuEventQuery of an event recorded in a capture");
  if (stickyError) return stickyError;
  bool complete = e->recorded == nullptr || e->recorded->state == Op::DONE;
  // Time passes on a device whatever the answer: later work goes on (and may fault meanwhile).
  step();
  return complete ? CUDA_SUCCESS : CUDA_ERROR_NOT_READY;
}

// Virtual milliseconds between two completed records (see virtualMs).
CUresult cuEventElapsedTime(float *ms, CUevent start, CUevent end) {
  std::lock_guard<std::mutex> guard(lock);
  Event *a = reinterpret_cast<Event *>(start);
  Event *b = reinterpret_cast<Event *>(end);
  if (!events.count(a) || !events.count(b)) return fail(CUDA_ERROR_INVALID_HANDLE, "cuEventElapsedTime of no event");
  if (!a->timing || !b->timing || !a->recorded || !b->recorded) {
    return fail(CUDA_ERROR_INVALID_HANDLE, "cuEventElapsedTime of an event without timing or never recorded");
  }
  if (a->recorded->state != Op::DONE || b->recorded->state != Op::DONE) return CUDA_ERROR_NOT_READY;
  *ms = static_cast<float>(*b->at - *a->at);
  return CUDA_SUCCESS;
}

CUresult cuEventSynchronize(CUevent event) {
  std::unique_lock<std::mutex> guard(lock);
  Event *e = reinterpret_cast<Event *>(event);
  if (!events.count(e)) return fail(CUDA_ERROR_INVALID_HANDLE, "cuEventSynchronize of no event");
  if (e->capture) return fail(CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED, "cuEventSynchronize of an event recorded in a capture");
  runThrough(guard, e->recorded);
  return CUDA_SUCCESS;
}

CUresult cuStreamWaitEvent(CUstream stream, CUevent event, unsigned int flags) {
  std::lock_guard<std::mutex> guard(lock);
  if (flags != 0) return fail(CUDA_ERROR_INVALID_VALUE, "cuStreamWaitEvent flags");
  Event *e = reinterpret_cast<Event *>(event);
  if (!events.count(e)) return fail(CUDA_ERROR_INVALID_HANDLE, "cuStreamWaitEvent of no event");
  Stream *s;
  if (CUresult r = resolve(stream, &s)) return r;
  if (e->capture && captures.count(e->capture)) {
    Capture *c = e->capture;
    if (s->capture == c) {  // a join
      for (size_t n : e->tail) {
        if (std::find(s->tail.begin(), s->tail.end(), n) == s->tail.end()) s->tail.push_back(n);
      }
      return CUDA_SUCCESS;
    }
    if (s->capture) {
      invalidate(c);
      invalidate(s->capture);
      return fail(CUDA_ERROR_STREAM_CAPTURE_MERGE, "cuStreamWaitEvent joins two capture sequences");
    }
    s->capture = c;  // a fork: the stream joins the capture
    s->tail = e->tail;
    c->members.push_back(s);
    return CUDA_SUCCESS;
  }
  if (s->capture) {
    invalidate(s->capture);
    return fail(CUDA_ERROR_STREAM_CAPTURE_ISOLATION, "a capturing stream waits for an event recorded outside the capture");
  }
  if (s == &legacyStream) {
    if (CUresult r = legacyAllowed("cuStreamWaitEvent")) return r;
  }
  // The wait is on the event's latest record as of now; one never recorded is complete.
  enqueue(s, [] {}, false, {e->recorded});
  return CUDA_SUCCESS;
}

// KW_CPU_DEVICE_LAUNCH_US=N makes each cuLaunchKernel take N us of the calling thread, outside the
// stand-in's lock, as a real driver's launch takes microseconds of host time: threads launching at
// once then overlap those microseconds, unless something above the driver serializes them.
CUresult cuLaunchKernel(CUfunction function, unsigned int gridX, unsigned int gridY, unsigned int gridZ,
                        unsigned int blockX, unsigned int blockY, unsigned int blockZ,
                        unsigned int sharedBytes, CUstream stream, void **params, void **extra) {
  static const long launchMicros = [] {
    const char *us = std::getenv("KW_CPU_DEVICE_LAUNCH_US");
    return us ? std::strtol(us, nullptr, 10) : 0L;
  }();
  if (launchMicros > 0) usleep(static_cast<useconds_t>(launchMicros));
  std::lock_guard<std::mutex> guard(lock);
  const KernelEntry *k = reinterpret_cast<const KernelEntry *>(function);
  if (stickyError) return stickyError;
  if (extra) return fail(CUDA_ERROR_INVALID_VALUE, std::string(k->name) + ": kernel arguments in `extra`");
  if (!k->program && (gridY != 1 || gridZ != 1 || blockY != 1 || blockZ != 1)) {
    return fail(CUDA_ERROR_INVALID_VALUE, std::string(k->name) + ": only 1-D launches");
  }
  auto limit = maxDynamicShared.find(k);
  if (sharedBytes > static_cast<unsigned>(limit == maxDynamicShared.end() ? kDefaultMaxDynamicShared : limit->second)) {
    return fail(CUDA_ERROR_INVALID_VALUE, std::string(k->name) + ": more dynamic shared memory than the function allows");
  }
  if (gridX == 0 || gridY == 0 || gridZ == 0 || blockX == 0 || blockY == 0 || blockZ == 0 ||
      uint64_t{blockX} * blockY * blockZ > 1024 || blockZ > 64) {
    return fail(CUDA_ERROR_INVALID_VALUE, std::string(k->name) + ": bad launch size");
  }
  // Copy the arguments now: the caller's may change once the launch returns.
  // Each argument in its own slot of whole 8-byte words (a structure passed by value may be larger);
  // an interpreted kernel's where its PTX lays them out.
  std::vector<size_t> offsets;
  size_t total = 0;
  for (size_t i = 0; i < k->sizes.size(); i++) {
    offsets.push_back(total);
    total += std::max<size_t>(8, (k->sizes[i] + 7) & ~size_t{7});
  }
  if (k->program) {
    offsets = ptx::paramOffsets(*k->program, k->entry);
    total = std::max<size_t>(ptx::paramBytes(*k->program, k->entry), 1);
  }
  auto values = std::make_shared<std::vector<char>>(total);
  for (size_t i = 0; i < k->sizes.size(); i++) {
    std::memcpy(values->data() + offsets[i], params[i], k->sizes[i]);
    if (k->pointers[i]) {
      uintptr_t p;
      std::memcpy(&p, params[i], sizeof p);
      // Page-locked and registered memory is the device's too: unified addressing.
      if (!inDevice(p, 1) && !inPinned(reinterpret_cast<const void *>(p), 1)) {
        return fail(CUDA_ERROR_INVALID_VALUE, std::string(k->name) + ": argument " + std::to_string(i) + " points into no device allocation");
      }
    }
  }
  if (k->program) {
    ptx::Dim grid{gridX, gridY, gridZ}, block{blockX, blockY, blockZ};
    // A copy, which keeps the PTX program alive: the module may be unloaded before this runs.
    auto kernel = std::make_shared<const KernelEntry>(*k);
    return submit(stream, [kernel, values, grid, block, sharedBytes] {
      runningKernel = kernel.get();
      kernelsRun++;
      // A bad address stops the grid; the context keeps the first error, as a GPU's does.
      int result = ptx::launch(kernel->program, kernel->entry, values->data(), grid, block, sharedBytes, runBlock,
                               deviceRangeOf);
      if (result != CUDA_SUCCESS && stickyError == CUDA_SUCCESS) stickyError = CUDA_ERROR_ILLEGAL_ADDRESS;
      virtualMs += 1;
    }, k->name);
  }
  return submit(stream, [k, values, offsets, gridX, blockX] {
    std::vector<void *> args;
    for (size_t offset : offsets) args.push_back(values->data() + offset);
    gridDim = {gridX, 1, 1};
    blockDim = {blockX, 1, 1};
    runningKernel = k;
    runningArgs = args.data();
    kernelsRun++;
    for (unsigned b = 0; b < gridX; b++) {
      blockIdx = {b, 0, 0};
      runBlock();
    }
    virtualMs += 1;
  }, k->name);
}

// Only CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES (8), up to 227 KiB as on an H100.
CUresult cuFuncSetAttribute(CUfunction function, int attribute, int value) {
  std::lock_guard<std::mutex> guard(lock);
  if (attribute != 8) return fail(CUDA_ERROR_INVALID_VALUE, "cuFuncSetAttribute: only the maximum dynamic shared memory");
  if (value < 0 || value > 227 * 1024) return fail(CUDA_ERROR_INVALID_VALUE, "cuFuncSetAttribute: too much shared memory");
  maxDynamicShared[reinterpret_cast<const KernelEntry *>(function)] = value;
  return CUDA_SUCCESS;
}

CUresult cuLaunchHostFunc(CUstream stream, CUhostFn function, void *userData) {
  std::lock_guard<std::mutex> guard(lock);
  if (!function) return fail(CUDA_ERROR_INVALID_VALUE, "cuLaunchHostFunc without a function");
  return submit(stream, [function, userData] { function(userData); }, "cuLaunchHostFunc", true);
}

// A stream callback: a host function that is handed the stream it was added to.
CUresult cuStreamAddCallback(CUstream stream, CUstreamCallback callback, void *userData, unsigned int flags) {
  std::lock_guard<std::mutex> guard(lock);
  if (!callback || flags != 0) return fail(CUDA_ERROR_INVALID_VALUE, "cuStreamAddCallback without a function, or with flags");
  return submit(stream, [callback, stream, userData] { callback(stream, CUDA_SUCCESS, userData); }, "cuStreamAddCallback", true);
}

CUresult cuStreamBeginCapture_v2(CUstream stream, int mode) {
  std::lock_guard<std::mutex> guard(lock);
  Stream *s;
  if (CUresult r = resolve(stream, &s)) return r;
  if (s == &legacyStream) return fail(CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED, "cuStreamBeginCapture of the legacy stream");
  if (s->capture) return fail(CUDA_ERROR_ILLEGAL_STATE, "cuStreamBeginCapture of a stream already capturing");
  if (mode < CU_STREAM_CAPTURE_MODE_GLOBAL || mode > CU_STREAM_CAPTURE_MODE_RELAXED) {
    return fail(CUDA_ERROR_INVALID_VALUE, "cuStreamBeginCapture mode");
  }
  Capture *c = new Capture{s, mode, std::this_thread::get_id()};
  c->members.push_back(s);
  captures.insert(c);
  s->capture = c;
  s->tail.clear();
  return CUDA_SUCCESS;
}

CUresult cuStreamEndCapture(CUstream stream, CUgraph *graph) {
  std::lock_guard<std::mutex> guard(lock);
  Stream *s;
  if (CUresult r = resolve(stream, &s)) return r;
  *graph = nullptr;
  Capture *c = s->capture;
  if (!c) return fail(CUDA_ERROR_ILLEGAL_STATE, "cuStreamEndCapture of a stream not capturing");
  if (c->origin != s) {
    invalidate(c);
    return fail(CUDA_ERROR_STREAM_CAPTURE_UNMATCHED, "cuStreamEndCapture on a stream that did not begin the capture");
  }
  endCapture(c);  // every member stream leaves the capture, whatever the outcome
  if (c->invalidated) return fail(CUDA_ERROR_STREAM_CAPTURE_INVALIDATED, "cuStreamEndCapture of an invalidated capture");
  std::set<size_t> joined = ancestors(c->nodes, s->tail);
  for (Stream *member : c->members) {
    for (size_t n : member->tail) {
      if (!joined.count(n)) return fail(CUDA_ERROR_STREAM_CAPTURE_UNJOINED, "a forked stream was not joined before cuStreamEndCapture");
    }
  }
  Graph *g = new Graph{c->nodes};
  graphs.insert(g);
  *graph = reinterpret_cast<CUgraph>(g);
  return CUDA_SUCCESS;
}

CUresult cuThreadExchangeStreamCaptureMode(int *mode) {
  if (!mode || *mode < CU_STREAM_CAPTURE_MODE_GLOBAL || *mode > CU_STREAM_CAPTURE_MODE_RELAXED) {
    return fail(CUDA_ERROR_INVALID_VALUE, "cuThreadExchangeStreamCaptureMode mode");
  }
  std::swap(*mode, threadCaptureMode);
  return CUDA_SUCCESS;
}

CUresult cuStreamIsCapturing(CUstream stream, int *status) {
  std::lock_guard<std::mutex> guard(lock);
  Stream *s;
  if (CUresult r = resolve(stream, &s)) return r;
  *status = !s->capture ? CU_STREAM_CAPTURE_STATUS_NONE
            : s->capture->invalidated ? CU_STREAM_CAPTURE_STATUS_INVALIDATED : CU_STREAM_CAPTURE_STATUS_ACTIVE;
  return CUDA_SUCCESS;
}

CUresult cuGraphInstantiateWithFlags(CUgraphExec *exec, CUgraph graph, unsigned long long) {
  std::lock_guard<std::mutex> guard(lock);
  Graph *g = reinterpret_cast<Graph *>(graph);
  if (!graphs.count(g)) return fail(CUDA_ERROR_INVALID_HANDLE, "cuGraphInstantiate of no graph");
  Graph *e = new Graph{g->nodes};
  graphExecs.insert(e);
  *exec = reinterpret_cast<CUgraphExec>(e);
  return CUDA_SUCCESS;
}

// The graph's nodes run after the stream's earlier work, in any order their edges allow, and the
// stream's later work runs after all of them.
CUresult cuGraphLaunch(CUgraphExec exec, CUstream stream) {
  std::lock_guard<std::mutex> guard(lock);
  Graph *g = reinterpret_cast<Graph *>(exec);
  if (!graphExecs.count(g)) return fail(CUDA_ERROR_INVALID_HANDLE, "cuGraphLaunch of no executable graph");
  Stream *s;
  if (CUresult r = resolve(stream, &s)) return r;
  if (s->capture) {  // captured as its nodes
    Capture *c = s->capture;
    size_t first = c->nodes.size();
    std::vector<size_t> roots = s->tail, leaves;
    for (const Node &n : g->nodes) {
      std::vector<size_t> after;
      for (size_t a : n.after) after.push_back(first + a);
      if (n.after.empty()) after = roots;
      c->nodes.push_back(Node{n.action, n.hostFunction, after, n.label});
      leaves.push_back(c->nodes.size() - 1);
    }
    if (!leaves.empty()) s->tail = leaves;
    return CUDA_SUCCESS;
  }
  if (s == &legacyStream) {
    if (CUresult r = legacyAllowed("cuGraphLaunch")) return r;
  }
  Op *entry = enqueue(s, [] {});
  std::vector<Op *> ops;
  for (const Node &n : g->nodes) {
    traceQueued(s, n.label);
    Op *op = new Op();
    op->action = n.action;
    op->hostFunction = n.hostFunction;
    op->after.push_back(entry);
    for (size_t a : n.after) op->after.push_back(ops[a]);
    ops.push_back(op);
    pending.push_back(op);
  }
  enqueue(s, [] {}, false, ops);
  return CUDA_SUCCESS;
}

CUresult cuGraphExecDestroy(CUgraphExec exec) {
  std::lock_guard<std::mutex> guard(lock);
  Graph *g = reinterpret_cast<Graph *>(exec);
  if (!graphExecs.erase(g)) return fail(CUDA_ERROR_INVALID_HANDLE, "cuGraphExecDestroy of no executable graph");
  delete g;  // launches already queued hold copies of its nodes
  return CUDA_SUCCESS;
}

CUresult cuGraphDestroy(CUgraph graph) {
  std::lock_guard<std::mutex> guard(lock);
  Graph *g = reinterpret_cast<Graph *>(graph);
  if (!graphs.erase(g)) return fail(CUDA_ERROR_INVALID_HANDLE, "cuGraphDestroy of no graph");
  delete g;
  return CUDA_SUCCESS;
}

}  // extern "C"
