// Kernels of a program that is not part of KernelWeave (OwnKernelsProgram): compiled to PTX with
// build.sh here and run over the stand-in driver by its PTX interpreter, never compiled into it.
// -fmad=false: the multiply-adds the Java reference does as two roundings stay two roundings; the
// explicit fma() calls stay fused.

// Block sums of squares and a count of the positive inputs: grid-stride accumulation, a warp tree of
// shuffles, warp partials in dynamic shared memory, a second warp tree, one partial per block.
extern "C" __global__ void reduce_squares(const float* __restrict__ in, int n, float* block_sums,
                                          unsigned* positives) {
  extern __shared__ float warp_sums[];
  float sum = 0.0f;
  unsigned count = 0;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
    float v = in[i];
    sum += v * v;
    count += __popc(__ballot_sync(0xffffffffu, v > 0.0f) & (1u << (threadIdx.x & 31)));
  }
  for (int offset = 16; offset > 0; offset >>= 1) {
    sum += __shfl_down_sync(0xffffffffu, sum, offset);
  }
  int lane = threadIdx.x & 31;
  int warp = threadIdx.x >> 5;
  if (lane == 0) warp_sums[warp] = sum;
  __syncthreads();
  if (warp == 0) {
    int warps = blockDim.x >> 5;
    sum = lane < warps ? warp_sums[lane] : 0.0f;
    for (int offset = 16; offset > 0; offset >>= 1) {
      sum += __shfl_xor_sync(0xffffffffu, sum, offset);
    }
    if (lane == 0) block_sums[blockIdx.x] = sum;
  }
  atomicAdd(positives, count);
}

// A histogram of bins = value % bins in shared memory, merged into the global one; the global
// minimum and maximum value, and the lowest index holding the maximum bin's value (a CAS loop).
extern "C" __global__ void histogram(const int* __restrict__ values, int n, int bins, unsigned* histogram,
                                     int* min_max, int* first_of) {
  __shared__ unsigned local[256];
  for (int b = threadIdx.x; b < bins; b += blockDim.x) local[b] = 0;
  __syncthreads();
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    int v = values[i];
    atomicAdd(&local[v % bins], 1u);
    atomicMin(&min_max[0], v);
    atomicMax(&min_max[1], v);
    if (v % bins == bins - 1) {
      int seen = first_of[0];
      while (i < seen) {
        int previous = atomicCAS(&first_of[0], seen, i);
        if (previous == seen) break;
        seen = previous;
      }
    }
  }
  __syncthreads();
  for (int b = threadIdx.x; b < bins; b += blockDim.x) {
    if (local[b] != 0) atomicAdd(&histogram[b], local[b]);
  }
  if (threadIdx.x == 0) atomicExch(&first_of[1], (int)blockIdx.x + 1);
}

// Weight of a neighbour at distance d: not inlined, so the PTX has a call.
__device__ __noinline__ double weight(int d, double falloff) { return 1.0 / (1.0 + falloff * d * d); }

// A 2-D 5-point stencil over a width x height grid of doubles with a shared-memory tile and halo,
// fused multiply-adds, a correctly rounded division and square root, and a local-memory array.
extern "C" __global__ void stencil(const double* __restrict__ in, double* out, int width, int height,
                                   double falloff, const int* order) {
  __shared__ double tile[18][18];
  int x = blockIdx.x * 16 + threadIdx.x;
  int y = blockIdx.y * 16 + threadIdx.y;
  int tx = threadIdx.x + 1, ty = threadIdx.y + 1;
  auto at = [&](int xx, int yy) {
    xx = min(max(xx, 0), width - 1);
    yy = min(max(yy, 0), height - 1);
    return in[yy * width + xx];
  };
  tile[ty][tx] = at(x, y);
  if (threadIdx.x == 0) tile[ty][0] = at(x - 1, y);
  if (threadIdx.x == 15) tile[ty][17] = at(x + 1, y);
  if (threadIdx.y == 0) tile[0][tx] = at(x, y - 1);
  if (threadIdx.y == 15) tile[17][tx] = at(x, y + 1);
  __syncthreads();
  if (x >= width || y >= height) return;
  // The neighbours in an order the host picks: an array indexed at run time lives in local memory.
  double neighbours[4] = {tile[ty][tx - 1], tile[ty][tx + 1], tile[ty - 1][tx], tile[ty + 1][tx]};
  double c = tile[ty][tx];
  double w = weight(1, falloff);
  double acc = c;
  for (int k = 0; k < 4; k++) acc = fma(w, neighbours[order[k]], acc);
  out[y * width + x] = sqrt(fabs(acc) / (1.0 + 4.0 * w));
}

// Approximate math (the fast intrinsics), each on its own output, for a tolerance check.
extern "C" __global__ void approx_math(const float* in, float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float x = in[i];
  out[6 * i + 0] = __expf(x);
  out[6 * i + 1] = __logf(1.0f + x * x);
  out[6 * i + 2] = __sinf(x);
  out[6 * i + 3] = __cosf(x);
  out[6 * i + 4] = rsqrtf(1.0f + x * x);
  out[6 * i + 5] = __fdividef(x, 3.0f + x * x);
}

// Integer and conversion instructions, sixteen results per input pair, for a bit-exact check.
extern "C" __global__ void integer_ops(const int* a, const int* b, int* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  int x = a[i], y = b[i];
  unsigned ux = x, uy = y;
  int* o = out + 16 * i;
  o[0] = __popc(x) + 100 * __clz(x);
  o[1] = __brev(x);
  o[2] = __mulhi(x, y);
  o[3] = __umulhi(ux, uy);
  o[4] = y != 0 ? x / y : 0;
  o[5] = y != 0 ? x % y : 0;
  o[6] = uy != 0 ? ux / uy : 0;
  o[7] = (x >> (y & 31)) ^ (int)(ux >> (y & 31));
  o[8] = __byte_perm(x, y, 0x7251);
  o[9] = (ux << 7 | ux >> 25) + __funnelshift_r(ux, uy, y);
  o[10] = min(x, y) + (int)umax(ux, uy);
  o[11] = (ux >> 5) & 0x3ff;
  o[12] = __float2int_rn((float)x / 3.0f) + __float2int_rz((float)y * 0.7f);
  o[13] = (int)__float2uint_rd(fabsf((float)x) * 0.5f) + __double2int_rn((double)y / 7.0);
  o[14] = (int)((long long)x * y >> 17) + (int)(((unsigned long long)ux * uy) % 1000003ull);
  o[15] = __ffs(x) + 64 * __ffsll((long long)y << 20);
}
