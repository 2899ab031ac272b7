// Kernels KernelMerging must refuse, one reason each (KernelMergingTest). Built with
// -rdc=true (dynamic parallelism and grid-wide sync need it): see build-merge-ptx.sh.
#include <cooperative_groups.h>
namespace cg = cooperative_groups;

extern "C" __global__ void timed_copy(const float* in, float* out, long long* cycles, int n) {
  long long start = clock64();
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[i];
  if (threadIdx.x == 0) cycles[blockIdx.x] = clock64() - start;
}

extern "C" __global__ void sm_tagged(int* out) {
  unsigned sm;
  asm volatile("mov.u32 %0, %%smid;" : "=r"(sm));
  out[blockIdx.x * blockDim.x + threadIdx.x] = (int)sm;
}

extern "C" __global__ void global_timer(unsigned long long* out) {
  unsigned long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  out[blockIdx.x] = t;
}

extern "C" __global__ void grid_synced(float* x, int n) {
  cg::grid_group grid = cg::this_grid();
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] += 1.0f;
  grid.sync();
  if (i < n) x[i] += x[(i + 1) % n];
}

__global__ void child(float* x) { x[threadIdx.x] *= 2.0f; }

extern "C" __global__ void launches_child(float* x) {
  if (threadIdx.x == 0) child<<<1, 32>>>(x + blockIdx.x * 32);
}

extern "C" __global__ void __cluster_dims__(2, 1, 1) clustered(float* x) {
  cg::cluster_group cluster = cg::this_cluster();
  x[blockIdx.x * blockDim.x + threadIdx.x] = (float)cluster.block_rank();
  cluster.sync();
}
