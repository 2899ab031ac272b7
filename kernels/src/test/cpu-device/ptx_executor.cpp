// Runs interpreted kernels: one thread per fiber (see cpu_device.cpp's runBlock), each with its own
// frames of registers, parameters and local memory. The block's threads meet at bar.sync (a
// counting barrier) and a warp's at shfl.sync, vote.sync and bar.warp.sync: a thread that must wait
// yields to the next fiber until the others have come. Where no thread can move on (a barrier or
// collective some threads never reach), the interpreter stops the process with a message rather
// than run on with undefined values; so does a parameter access out of range.
//
// Bad addresses: a global, constant or generic load, store or atomic outside all device memory (the
// driver's allocations, page-locked and registered host memory, module variables, and the block's
// shared and the thread's local memory that generic addresses reach), and a shared or local access
// outside its window, stop the grid as a GPU's fault does: the thread ends at once, the others at
// their next barrier or warp collective, no other thread or block starts, and launch() returns
// kIllegalAddress (the driver makes it the context's sticky error). Each memory instruction keeps
// the allocation it last touched in the launch's cache (a window), so the usual check is one
// subtraction and one comparison; a miss asks the driver.
//
// Address spaces: .global and .const addresses are host addresses (device memory is host memory);
// .shared, .local and .param addresses are offsets into the block's shared memory, the thread's
// local memory and the frame's parameters; cvta turns them into host addresses and back.
#include <time.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>

#include "cuda_on_cpu.h"
#include "ptx_interpreter.h"
#include "ptx_printf.h"
#include "ptx_semantics.h"

namespace ptx {
namespace {

constexpr unsigned kWarpSize = 32;
constexpr unsigned kBarriers = 16;
constexpr size_t kMaxCallDepth = 64;
constexpr uint64_t kClockStep = 1 << 16;  // %clock64 advances this much per read: spin loops end soon

struct Warp {
  uint64_t arrivals[kWarpSize] = {};  // collectives each lane has reached
  uint64_t values[2][kWarpSize] = {};  // what each lane brought to its latest two collectives
  bool exited[kWarpSize] = {};
  unsigned size = 0;  // lanes that exist (the block's last warp may be partial)
};

// The allocation a memory instruction last touched: an access of its size at address a is inside
// where a - base <= span (span: the allocation's size less the access's).
struct Window {
  uint64_t base, span;
};

// A fresh window's, which admits only the access at `nowhere` itself: a harmless byte of ours.
alignas(16) char nowhere[16];

// Thrown to end a thread when its grid has faulted; caught where the thread began.
struct Stop {};

struct Launch {
  std::shared_ptr<Program> program;
  const Function *kernel;
  std::vector<char> params;
  Dim grid, block;
  unsigned threads;
  std::vector<char> shared;
  std::vector<char> local;
  size_t localPerThread = 0;
  unsigned live;  // threads of the block that have not exited
  unsigned barrierArrived[kBarriers];
  uint64_t barrierGeneration[kBarriers];
  std::vector<Warp> warps;
  uint64_t progress = 0;  // bumped whenever a thread arrives somewhere: no bump in a round is a deadlock
  std::vector<Window> windows;  // per memory instruction (Instr::window)
  DeviceRange deviceRange;
  bool faulted = false;   // a thread touched memory outside every allocation: the grid stops
};

Launch *current = nullptr;
uint64_t executed = 0;
uint64_t clockCounter = 0;
double launchSeconds = 0;     // time spent in interpreted grids
double launchCpuSeconds = 0;  // the same in CPU time of the thread running them (fibers included)

double threadCpuSeconds() {
  timespec t;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + t.tv_nsec * 1e-9;
}

// KW_CPU_DEVICE_PTX_STATS=1: at exit, how many instructions the interpreter ran and how fast.
void printStats() {
  std::fprintf(stderr,
               "cpu-device: PTX interpreter: %llu instructions in %.3f s of interpreted grids (%.1f million/s), "
               "%.3f s of CPU (%.1f million per CPU second)\n",
               static_cast<unsigned long long>(executed), launchSeconds,
               launchSeconds > 0 ? executed / launchSeconds / 1e6 : 0.0, launchCpuSeconds,
               launchCpuSeconds > 0 ? executed / launchCpuSeconds / 1e6 : 0.0);
}

struct Frame {
  const Function *fn;
  uint32_t pc = 0;
  std::vector<uint64_t> regs;
  std::vector<char> params;
  uint64_t localBase;    // offset of this frame's depot in the thread's local memory
  const Instr *call;     // the caller's call instruction
};

class Thread {
 public:
  Thread(Launch &launch, unsigned linear)
      : L(launch), linear(linear), lane(linear % kWarpSize), warp(L.warps[linear / kWarpSize]) {
    tid = {linear % L.block.x, linear / L.block.x % L.block.y, linear / (L.block.x * L.block.y)};
    localArea = L.local.empty() ? nullptr : L.local.data() + linear * L.localPerThread;
    push(L.kernel, 0, nullptr);
    std::memcpy(frames.back().params.data(), L.params.data(), L.params.size());
  }

  // Runs the thread to its end, or to the grid's fault.
  void run() {
    try {
      execute();
    } catch (const Stop &) {
      exitThread();
    }
  }

 private:
  Launch &L;
  unsigned linear, lane;
  Warp &warp;
  kw_dim3 tid;
  char *localArea;
  std::vector<Frame> frames;
  uint64_t count = 0;

  [[noreturn]] void fault(const Instr &in, const std::string &why) {
    std::fprintf(stderr, "cpu-device: kernel %s, block (%u,%u,%u), thread (%u,%u,%u), PTX line %u: %s\n",
                 L.kernel->name.c_str(), blockIdx.x, blockIdx.y, blockIdx.z, tid.x, tid.y, tid.z, in.line,
                 why.c_str());
    std::abort();
  }

  // An access to `bytes` at `a` outside all memory the thread may touch: the grid stops with an
  // illegal address, as a GPU's would. The first such access is reported.
  [[noreturn]] void illegal(const Instr &in, uint64_t a, size_t bytes, const char *where) {
    if (!L.faulted) {
      std::fprintf(stderr,
                   "cpu-device: kernel %s, block (%u,%u,%u), thread (%u,%u,%u), PTX line %u: illegal address: "
                   "%zu bytes at %s 0x%llx, outside %s; the grid stops with CUDA_ERROR_ILLEGAL_ADDRESS\n",
                   L.kernel->name.c_str(), blockIdx.x, blockIdx.y, blockIdx.z, tid.x, tid.y, tid.z, in.line, bytes,
                   in.space == Space::Shared ? "shared offset" : in.space == Space::Local ? "local offset" : "address",
                   static_cast<unsigned long long>(a), where);
      L.faulted = true;
    }
    throw Stop();
  }

  // Whether [a, a + bytes) lies in one range the launch may touch; sets the instruction's window.
  void admit(const Instr &in, uint64_t a, size_t bytes, Window &w) {
    uint64_t begin = 0, end = 0;
    auto within = [&](uint64_t b, uint64_t e) {
      if (a < b || a >= e) return false;
      begin = b;
      end = e;
      return true;
    };
    uint64_t shared = reinterpret_cast<uint64_t>(L.shared.data()), local = reinterpret_cast<uint64_t>(L.local.data());
    bool found = (!L.shared.empty() && within(shared, shared + L.shared.size())) ||
                 (!L.local.empty() && within(local, local + L.local.size()));
    for (size_t i = 0; !found && i < L.program->variables.size(); i++) {
      const Variable &v = L.program->variables[i];
      if (v.space == Space::Global || v.space == Space::Const) found = within(v.address, v.address + v.size);
    }
    if (!found) found = L.deviceRange && L.deviceRange(a, &begin, &end) && a >= begin && a < end;
    if (!found || a + bytes > end || a + bytes < a) illegal(in, a, bytes, "all device memory");
    w = Window{begin, end - begin - bytes};
  }

  void push(const Function *fn, uint64_t localBase, const Instr *call) {
    if (frames.size() == kMaxCallDepth) fault(*call, "calls nested deeper than " + std::to_string(kMaxCallDepth));
    if (localBase + fn->localBytes > L.localPerThread && fn->localBytes > 0) fault(*call, "local memory exhausted");
    frames.push_back(Frame{fn, 0, std::vector<uint64_t>(fn->registers), std::vector<char>(fn->paramBytes),
                           localBase, call});
  }

  uint64_t special(uint32_t which) {
    switch (which) {
      case kTidX: return tid.x;
      case kTidY: return tid.y;
      case kTidZ: return tid.z;
      case kNtidX: return L.block.x;
      case kNtidY: return L.block.y;
      case kNtidZ: return L.block.z;
      case kCtaidX: return blockIdx.x;
      case kCtaidY: return blockIdx.y;
      case kCtaidZ: return blockIdx.z;
      case kNctaidX: return L.grid.x;
      case kNctaidY: return L.grid.y;
      case kNctaidZ: return L.grid.z;
      case kLaneid: return lane;
      case kWarpid: return linear / kWarpSize;
      case kNwarpid: return L.warps.size();
      case kClock: case kClock64: return clockCounter += kClockStep;
      case kLanemaskEq: return 1u << lane;
      case kLanemaskLt: return (1u << lane) - 1;
      case kLanemaskLe: return low((uint64_t{2} << lane) - 1, 32);
      case kLanemaskGt: return low(~((uint64_t{2} << lane) - 1), 32);
      case kLanemaskGe: return low(~((uint64_t{1} << lane) - 1), 32);
      default:
        return static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                         std::chrono::steady_clock::now().time_since_epoch()).count());
    }
  }

  uint64_t read(const Frame &f, const Operand &o) {
    uint64_t v;
    switch (o.kind) {
      case Operand::Reg: v = f.regs[o.index]; break;
      case Operand::Imm: v = o.imm; break;
      case Operand::Special: v = special(o.index); break;
      case Operand::Local: v = f.localBase + o.imm; break;
      default: v = 0; break;
    }
    return o.negate ? v ^ 1 : v;
  }

  static void write(Frame &f, const Operand &o, uint64_t v) {
    if (o.kind == Operand::Reg) f.regs[o.index] = v;
  }

  // The host address of `bytes` at the instruction's memory operand.
  char *address(Frame &f, const Instr &in, size_t bytes) {
    uint64_t a = read(f, in.addr) + static_cast<uint64_t>(in.addrOffset);
    switch (in.space) {
      case Space::Shared:
        if (a + bytes > L.shared.size() || a + bytes < a) illegal(in, a, bytes, "the block's shared memory");
        return L.shared.data() + a;
      case Space::Local:
        if (a + bytes > L.localPerThread || a + bytes < a) illegal(in, a, bytes, "the thread's local memory");
        return localArea + a;
      case Space::Param:
        if (a + bytes > f.params.size() || a + bytes < a) fault(in, "parameter access out of range");
        return f.params.data() + a;
      default: {
        Window &w = L.windows[in.window];
        if (a - w.base > w.span) admit(in, a, bytes, w);
        return reinterpret_cast<char *>(a);
      }
    }
  }

  uint64_t spaceBase(const Instr &in) {
    if (in.space == Space::Shared) return reinterpret_cast<uint64_t>(L.shared.data());
    if (in.space == Space::Local) return reinterpret_cast<uint64_t>(localArea);
    return 0;
  }

  void yield(const Instr &in, uint64_t *seen, unsigned *idle) {
    if (L.faulted) throw Stop();
    __syncthreads();  // to the next fiber, back after a round
    if (L.faulted) throw Stop();
    if (L.progress != *seen) {
      *seen = L.progress;
      *idle = 0;
    } else if (++*idle > 2) {
      fault(in, "deadlock: threads wait at a barrier or warp collective that others never reach");
    }
  }

  void barrier(const Instr &in, unsigned id) {
    if (id >= kBarriers) fault(in, "barrier id " + std::to_string(id));
    uint64_t generation = L.barrierGeneration[id];
    L.progress++;
    if (++L.barrierArrived[id] >= L.live) {
      L.barrierArrived[id] = 0;
      L.barrierGeneration[id]++;
      return;
    }
    uint64_t seen = L.progress;
    unsigned idle = 0;
    while (L.barrierGeneration[id] == generation) yield(in, &seen, &idle);
  }

  // Brings `value` to the warp's next collective among the lanes of `mask`; returns the slot
  // (values[slot][lane]) where every lane's value is, once all have come.
  unsigned meet(const Instr &in, uint32_t mask, uint64_t value) {
    if (!(mask >> lane & 1)) fault(in, "a warp collective whose mask leaves out the calling lane");
    uint64_t n = warp.arrivals[lane] + 1;
    warp.values[n & 1][lane] = value;
    warp.arrivals[lane] = n;
    L.progress++;
    uint64_t seen = L.progress;
    unsigned idle = 0;
    for (;;) {
      bool all = true;
      for (unsigned j = 0; j < warp.size && all; j++) {
        if ((mask >> j & 1) && !warp.exited[j] && warp.arrivals[j] < n) all = false;
      }
      if (all) return n & 1;
      yield(in, &seen, &idle);
    }
  }

  // A lane that exists, has not exited and is in the mask brings a value; others count as absent.
  bool present(uint32_t mask, unsigned j) { return j < warp.size && (mask >> j & 1) && !warp.exited[j]; }

  void shuffle(Frame &f, const Instr &in) {
    uint64_t a = read(f, in.ops[2]), b = low(read(f, in.ops[3]), 32), c = read(f, in.ops[4]);
    uint32_t mask = static_cast<uint32_t>(read(f, in.ops[5]));
    unsigned slot = meet(in, mask, a);
    unsigned clamp = c & 0x1f, segmask = (c >> 8) & 0x1f;
    unsigned maxLane = (lane & segmask) | (clamp & ~segmask), minLane = lane & segmask;
    long j;
    bool inRange;
    switch (in.mode) {
      case kShflUp: j = static_cast<long>(lane) - static_cast<long>(b); inRange = j >= static_cast<long>(maxLane); break;
      case kShflDown: j = lane + b; inRange = j <= static_cast<long>(maxLane); break;
      case kShflBfly: j = lane ^ b; inRange = j <= static_cast<long>(maxLane); break;
      default: j = minLane | (b & ~segmask); inRange = j <= static_cast<long>(maxLane); break;
    }
    if (!inRange) j = lane;
    if (!present(mask, static_cast<unsigned>(j))) j = lane;  // an absent source: undefined on a GPU
    write(f, in.ops[0], warp.values[slot][j]);
    write(f, in.ops[1], inRange ? 1 : 0);
  }

  void vote(Frame &f, const Instr &in) {
    uint64_t p = read(f, in.ops[1]) & 1;
    uint32_t mask = static_cast<uint32_t>(read(f, in.ops[2]));
    unsigned slot = meet(in, mask, p);
    uint32_t ballot = 0, members = 0;
    for (unsigned j = 0; j < kWarpSize; j++) {
      if (!present(mask, j)) continue;
      members |= 1u << j;
      ballot |= static_cast<uint32_t>(warp.values[slot][j] & 1) << j;
    }
    uint64_t r;
    switch (in.mode) {
      case kVoteAll: r = ballot == members; break;
      case kVoteAny: r = ballot != 0; break;
      case kVoteUni: r = ballot == 0 || ballot == members; break;
      default: r = ballot; break;
    }
    write(f, in.ops[0], r);
  }

  void execute();

  void exitThread() {
    warp.exited[lane] = true;
    L.live--;
    L.progress++;
    for (unsigned id = 0; id < kBarriers; id++) {  // the waiting threads no longer wait for this one
      if (L.barrierArrived[id] > 0 && L.barrierArrived[id] >= L.live) {
        L.barrierArrived[id] = 0;
        L.barrierGeneration[id]++;
      }
    }
    executed += count;
  }
};

void Thread::execute() {
  Frame *f = &frames.back();
  for (;;) {
    const Instr &in = f->fn->code[f->pc++];
    count++;
    if (in.guard >= 0 && ((f->regs[static_cast<size_t>(in.guard)] & 1) != 0) == in.guardNegated) continue;
    switch (in.op) {
      case Op::Bra:
        f->pc = in.target;
        break;
      case Op::Ld: {
        size_t size = static_cast<size_t>(bits(in.type) / 8);
        char *p = address(*f, in, size * in.vec);
        for (unsigned i = 0; i < in.vec; i++) write(*f, in.ops[i], loadValue(in.type, p + i * size));
        break;
      }
      case Op::St: {
        size_t size = static_cast<size_t>(bits(in.type) / 8);
        char *p = address(*f, in, size * in.vec);
        for (unsigned i = 0; i < in.vec; i++) storeValue(in.type, p + i * size, read(*f, in.ops[i]));
        break;
      }
      case Op::Setp: {
        bool r = compare(in, read(*f, in.ops[2]), read(*f, in.ops[3]));
        bool c = (read(*f, in.ops[4]) & 1) != 0;
        auto combine = [&](bool x) {
          switch (in.combine) {
            case kCombineAnd: return x && c;
            case kCombineOr: return x || c;
            case kCombineXor: return x != c;
            default: return x;
          }
        };
        write(*f, in.ops[0], combine(r));
        write(*f, in.ops[1], combine(!r));
        break;
      }
      case Op::Cvta:
        write(*f, in.ops[0], low(spaceBase(in) + read(*f, in.ops[1]), bits(in.type)));
        break;
      case Op::CvtaTo:
        write(*f, in.ops[0], low(read(*f, in.ops[1]) - spaceBase(in), bits(in.type)));
        break;
      case Op::Pack: {
        int half = bits(in.type) / 2;
        write(*f, in.ops[0], low(read(*f, in.ops[1]), half) | (low(read(*f, in.ops[2]), half) << half));
        break;
      }
      case Op::Unpack: {
        int half = bits(in.type) / 2;
        uint64_t v = read(*f, in.ops[2]);
        write(*f, in.ops[0], low(v, half));
        write(*f, in.ops[1], low(v >> half, half));
        break;
      }
      case Op::Atom: case Op::Red: {
        char *p = address(*f, in, static_cast<size_t>(bits(in.type) / 8));
        uint64_t old = atomic(in, p, read(*f, in.ops[1]), read(*f, in.ops[2]));
        write(*f, in.ops[0], old);
        break;
      }
      case Op::Call: {
        const Function *callee = &L.program->functions[in.target];
        if (callee->builtin == Builtin::Vprintf) {
          uint64_t format, args;
          std::memcpy(&format, f->params.data() + in.callParams[in.mode], 8);
          std::memcpy(&args, f->params.data() + in.callParams[in.mode + 1], 8);
          int32_t result = deviceVprintf(reinterpret_cast<const char *>(format), reinterpret_cast<const char *>(args));
          std::memcpy(f->params.data() + in.callParams[0], &result, 4);
          break;
        }
        uint64_t depot = (f->localBase + f->fn->localBytes + 15) / 16 * 16;
        push(callee, depot, &in);
        Frame &caller = frames[frames.size() - 2];
        f = &frames.back();
        for (size_t i = 0; i < callee->params.size(); i++) {
          const Param &p = callee->params[i];
          std::memcpy(f->params.data() + p.offset, caller.params.data() + in.callParams[in.mode + i], p.size);
        }
        break;
      }
      case Op::Ret: {
        if (frames.size() == 1) return exitThread();
        Frame &caller = frames[frames.size() - 2];
        const Instr &call = *f->call;
        for (size_t i = 0; i < f->fn->returns.size(); i++) {
          const Param &p = f->fn->returns[i];
          std::memcpy(caller.params.data() + call.callParams[i], f->params.data() + p.offset, p.size);
        }
        frames.pop_back();
        f = &frames.back();
        break;
      }
      case Op::Exit:
        return exitThread();
      case Op::Trap:
        // The context's sticky error, as a compiled-in kernel's __trap() sets it; the thread ends.
        __trap();
        return exitThread();
      case Op::Bar:
        barrier(in, static_cast<unsigned>(read(*f, in.ops[0])));
        break;
      case Op::WarpSync:
        meet(in, static_cast<uint32_t>(read(*f, in.ops[0])), 0);
        break;
      case Op::Shfl:
        shuffle(*f, in);
        break;
      case Op::Vote:
        vote(*f, in);
        break;
      case Op::Nop:
        break;
      default:
        write(*f, in.ops[0], compute(in, read(*f, in.ops[1]), read(*f, in.ops[2]), read(*f, in.ops[3]), read(*f, in.ops[4])));
        break;
    }
  }
}

size_t totalLocalBytes(const Program &p) {
  size_t sum = 0;
  for (const Function &fn : p.functions) sum += (fn.localBytes + 15) / 16 * 16;
  return sum;
}

}  // namespace

int findEntry(const Program &p, const char *name) {
  auto it = p.functionIndex.find(name);
  if (it == p.functionIndex.end() || !p.functions[it->second].entry) return -1;
  return static_cast<int>(it->second);
}

const char *entryName(const Program &p, int entry) { return p.functions[static_cast<size_t>(entry)].name.c_str(); }

std::vector<size_t> paramSizes(const Program &p, int entry) {
  std::vector<size_t> sizes;
  for (const Param &param : p.functions[static_cast<size_t>(entry)].params) sizes.push_back(param.size);
  return sizes;
}

std::vector<size_t> paramOffsets(const Program &p, int entry) {
  std::vector<size_t> offsets;
  for (const Param &param : p.functions[static_cast<size_t>(entry)].params) offsets.push_back(param.offset);
  return offsets;
}

size_t paramBytes(const Program &p, int entry) {
  const Function &fn = p.functions[static_cast<size_t>(entry)];
  return fn.params.empty() ? 0 : fn.params.back().offset + fn.params.back().size;
}

bool findVariable(const Program &p, const char *name, void **address, size_t *bytes) {
  for (const Variable &v : p.variables) {
    if (v.name == name && (v.space == Space::Global || v.space == Space::Const)) {
      *address = reinterpret_cast<void *>(v.address);
      *bytes = v.size;
      return true;
    }
  }
  return false;
}

std::vector<std::pair<void *, size_t>> variables(const Program &p) {
  std::vector<std::pair<void *, size_t>> all;
  for (const Variable &v : p.variables) {
    if (v.space == Space::Global || v.space == Space::Const) all.emplace_back(reinterpret_cast<void *>(v.address), v.size);
  }
  return all;
}

int launch(const std::shared_ptr<Program> &p, int entry, const char *params, Dim grid, Dim block,
           unsigned dynamicSharedBytes, void (*runBlock)(), DeviceRange deviceRange) {
  Launch L;
  L.deviceRange = deviceRange;
  uint64_t fresh = reinterpret_cast<uint64_t>(nowhere);
  L.windows.assign(p->windows, Window{fresh, 0});
  L.program = p;
  L.kernel = &p->functions[static_cast<size_t>(entry)];
  L.params.assign(params, params + paramBytes(*p, entry));
  L.grid = grid;
  L.block = block;
  L.threads = block.x * block.y * block.z;
  L.shared.assign((p->staticSharedBytes + 15) / 16 * 16 + dynamicSharedBytes, 0);
  if (p->usesLocal) {
    L.localPerThread = 4 * totalLocalBytes(*p);  // room for calls to nest a few deep
    L.local.assign(L.threads * L.localPerThread, 0);
  }
  static const bool stats = [] {
    const char *on = std::getenv("KW_CPU_DEVICE_PTX_STATS");
    if (on && std::strcmp(on, "1") == 0) std::atexit(printStats);
    return true;
  }();
  (void)stats;
  auto start = std::chrono::steady_clock::now();
  double cpuStart = threadCpuSeconds();
  gridDim = {grid.x, grid.y, grid.z};
  blockDim = {block.x, block.y, block.z};
  current = &L;
  for (unsigned z = 0; z < grid.z && !L.faulted; z++) {
    for (unsigned y = 0; y < grid.y && !L.faulted; y++) {
      for (unsigned x = 0; x < grid.x && !L.faulted; x++) {
        blockIdx = {x, y, z};
        L.live = L.threads;
        for (unsigned id = 0; id < kBarriers; id++) L.barrierArrived[id] = L.barrierGeneration[id] = 0;
        L.warps.assign((L.threads + kWarpSize - 1) / kWarpSize, Warp());
        for (size_t w = 0; w < L.warps.size(); w++) {
          L.warps[w].size = std::min(kWarpSize, L.threads - static_cast<unsigned>(w) * kWarpSize);
        }
        if (L.kernel->meets) {
          runBlock();
        } else {
          // No barrier or warp collective: running the threads one after another is one of the
          // orders a GPU may take, and needs no fibers.
          for (unsigned t = 0; t < L.threads && !L.faulted; t++) Thread(L, t).run();
        }
      }
    }
  }
  current = nullptr;
  launchSeconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  launchCpuSeconds += threadCpuSeconds() - cpuStart;
  return L.faulted ? kIllegalAddress : 0;
}

void runCurrentThread(void **) {
  Launch &L = *current;
  if (L.faulted) return;  // the grid has stopped: the block's later threads never start
  unsigned linear = threadIdx.x + L.block.x * (threadIdx.y + L.block.y * threadIdx.z);
  Thread(L, linear).run();
}

uint64_t executedInstructions() { return executed; }

}  // namespace ptx
