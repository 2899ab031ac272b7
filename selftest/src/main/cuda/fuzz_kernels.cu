// Kernels the fuzz through the agent launches in place of the self-test's FILL, writing the same
// values (out[i] = k + i * 0x9E3779B9, i < n) through parameters shaped as programs shape them.

// A structure packed to 4 bytes: the pointer sits at offset 4, where the agent must still see it.
struct __attribute__((packed, aligned(4))) PackedFill {
  unsigned k;
  unsigned *out;
  unsigned n;
};

extern "C" __global__ void kw_fill_packed(PackedFill p) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < p.n) p.out[i] = p.k + i * 0x9E3779B9u;
}

// The output reached from another allocation's pointer and the difference of the two: the write
// lands in `out`, though the kernel stores through `other`.
extern "C" __global__ void kw_fill_difference(unsigned *other, unsigned *out, unsigned n, unsigned k) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  long long d = out - other;
  if (i < n) other[d + i] = k + i * 0x9E3779B9u;
}

// A kernel that only prints: its channel (one program's stream as one of its threads uses it,
// numbered by the script) and a counter. CUDA prints such kernels' lines in their stream's order,
// so the fuzz compares each channel's counters with the serial run's; the agent keeps them in
// order by treating a printing kernel as a barrier.
#include <cstdio>

extern "C" __global__ void kw_print(unsigned channel, unsigned count) {
  if (blockIdx.x == 0 && threadIdx.x == 0) printf("device-print %u %u\n", channel, count);
}
