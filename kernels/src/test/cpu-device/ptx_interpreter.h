// The PTX interpreter of the stand-in driver: a module loaded as PTX text runs on the CPU even where
// its kernels are not compiled into cpu-device. A block's threads run as the same cooperative fibers
// as the compiled-in kernels; an interpreted thread yields (__syncthreads() of cuda_on_cpu.h) at
// bar.sync and at the warp collectives (shfl.sync, vote.sync, bar.warp.sync), where it waits for
// the other threads, so the 32 threads of a warp meet there.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace ptx {

struct Program;

// Why a module did not load, and the CUresult for it.
struct LoadError {
  int code = 0;  // 0: loaded
  std::string message;
};

// Parses and checks a module; null (and *error set) where it is not PTX or uses an instruction the
// interpreter does not run: such a module fails at load, never with a wrong answer at run time.
std::shared_ptr<Program> load(const char *text, LoadError *error);

// The kernel (.entry) named `name`, or -1.
int findEntry(const Program &p, const char *name);
const char *entryName(const Program &p, int entry);

// A kernel's parameters: their sizes and their offsets in the parameter buffer a launch passes.
std::vector<size_t> paramSizes(const Program &p, int entry);
std::vector<size_t> paramOffsets(const Program &p, int entry);
size_t paramBytes(const Program &p, int entry);

// A .global or .const variable of the module: its host address and size.
bool findVariable(const Program &p, const char *name, void **address, size_t *bytes);
// Every such variable, for the driver's map of device memory.
std::vector<std::pair<void *, size_t>> variables(const Program &p);

struct Dim {
  unsigned x, y, z;
};

// The device memory that holds `address` (allocations, page-locked and registered host memory,
// variables), as [*begin, *end); false where none does. The interpreter asks it on a cache miss.
using DeviceRange = bool (*)(uint64_t address, uint64_t *begin, uint64_t *end);

// What a grid's run ends with: 0, or CUDA_ERROR_ILLEGAL_ADDRESS where a thread loaded, stored or
// ran an atomic outside all device memory (or outside its block's shared or its own local memory).
constexpr int kIllegalAddress = 700;

// Runs a grid: for each block sets blockIdx and calls runBlock, which runs the block's threads on
// fibers; each calls runCurrentThread. `params` is the parameter buffer (paramOffsets' layout).
// Every global, constant and generic access is checked against the launch's shared and local
// memory, the module's variables and `deviceRange`; the first one outside them all stops the grid
// (no thread goes on past its next barrier or warp collective, no further thread or block starts)
// and the launch returns kIllegalAddress, having printed where.
int launch(const std::shared_ptr<Program> &p, int entry, const char *params, Dim grid, Dim block,
           unsigned dynamicSharedBytes, void (*runBlock)(), DeviceRange deviceRange);

// The body of one interpreted thread: the launch's kernel for threadIdx of blockIdx.
void runCurrentThread(void **unused);

// Instructions the interpreter has executed in this process, for speed measurements.
uint64_t executedInstructions();

}  // namespace ptx
