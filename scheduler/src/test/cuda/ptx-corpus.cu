// Kernels whose parameters the PTX analyzer must classify. build-ptx.sh compiles this file to the
// PTX under src/test/resources/ptx/; the tests read both.
//
// Every kernel is preceded by one line
//   //@expect NAME: TOKEN... [OTHER]
// giving, for each parameter in order, what the kernel does with the memory it names: R (only
// reads), W (only writes), RW, or V (never dereferences it), and OTHER when the kernel touches
// global memory that no parameter names. A token may carry the extent the kernel touches through
// the parameter, in bytes from the pointer's value, where the analysis can prove one: W[0,4) for
// a kernel that stores one float at the pointer. The tests hold optimized PTX to these tokens
// exactly; for debug builds (-G), where locals live in memory, they check only that no parameter
// the kernel writes comes out R or V, and that no extent is narrower than the expected one.

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <cuda_pipeline.h>

#define TID (blockIdx.x * blockDim.x + threadIdx.x)

// ---- plain reads and writes, in-place updates ------------------------------------------------

//@expect copy_f32: R W V
extern "C" __global__ void copy_f32(const float* in, float* out, int n) {
  int i = TID;
  if (i < n) out[i] = in[i];
}

//@expect fill_zero: W V
extern "C" __global__ void fill_zero(float* out, int n) {
  int i = TID;
  if (i < n) out[i] = 0.0f;
}

//@expect scale_in_place: RW V V
extern "C" __global__ void scale_in_place(float* x, float a, int n) {
  int i = TID;
  if (i < n) x[i] *= a;
}

//@expect saxpy: V R RW V
extern "C" __global__ void saxpy(float a, const float* x, float* y, int n) {
  int i = TID;
  if (i < n) y[i] = a * x[i] + y[i];
}

//@expect copy_float4: R W V
extern "C" __global__ void copy_float4(const float4* in, float4* out, int n) {
  int i = TID;
  if (i < n) out[i] = in[i];
}

//@expect sum_columns: R W V V
extern "C" __global__ void sum_columns(const double* m, double* sums, int rows, int cols) {
  int c = TID;
  if (c >= cols) return;
  double s = 0;
  for (int r = 0; r < rows; ++r) s += m[(size_t)r * cols + c];
  sums[c] = s;
}

//@expect _Z5tcopyIdEvPKT_PS0_i: R W V
template <typename T>
__global__ void tcopy(const T* in, T* out, int n) {
  int i = TID;
  if (i < n) out[i] = in[i];
}
template __global__ void tcopy<double>(const double*, double*, int);

//@expect no_params:
extern "C" __global__ void no_params() {}

// ---- pointers chosen by a predicate ----------------------------------------------------------

//@expect select_store: W W V V
extern "C" __global__ void select_store(float* a, float* b, int pick_a, float v) {
  float* dst = pick_a ? a : b;
  dst[TID] = v;
}

//@expect select_load: R R W V
extern "C" __global__ void select_load(const float* a, const float* b, float* out, int pick_a) {
  int i = TID;
  out[i] = (pick_a ? a : b)[i];
}

//@expect select_per_element: RW RW R
extern "C" __global__ void select_per_element(float* a, float* b, const float* key) {
  int i = TID;
  float* p = key[i] > 0.0f ? a : b;
  p[i] = p[i] + 1.0f;
}

//@expect local_pointer_table: W W W W R V
extern "C" __global__ void local_pointer_table(float* a, float* b, float* c, float* d,
                                               const int* which, float v) {
  float* table[4] = {a, b, c, d};
  int i = TID;
  table[which[i] & 3][i] = v;
}

// ---- atomics ---------------------------------------------------------------------------------

//@expect atomic_sum: RW[0,4) R V
extern "C" __global__ void atomic_sum(float* sum, const float* x, int n) {
  int i = TID;
  if (i < n) atomicAdd(sum, x[i]);
}

//@expect atomic_ticket: RW[0,4) W
extern "C" __global__ void atomic_ticket(unsigned* counter, unsigned* tickets) {
  tickets[TID] = atomicAdd(counter, 1u);
}

//@expect atomic_max_cas: RW[0,4) R V
extern "C" __global__ void atomic_max_cas(int* best, const int* x, int n) {
  int i = TID;
  if (i >= n) return;
  int old = *best;
  while (old < x[i]) {
    int seen = atomicCAS(best, old, x[i]);
    if (seen == old) break;
    old = seen;
  }
}

// ---- loops and offsets -----------------------------------------------------------------------

//@expect grid_stride_copy: R W V
extern "C" __global__ void grid_stride_copy(const float* in, float* out, size_t n) {
  for (size_t i = TID; i < n; i += (size_t)gridDim.x * blockDim.x) out[i] = in[i];
}

//@expect pointer_walk: W R V
extern "C" __global__ void pointer_walk(float* dst, const float* src, int n) {
  if (TID != 0) return;
  for (int k = 0; k < n; ++k) *dst++ = 2.0f * *src++;
}

//@expect write_at_offset: W R V V
extern "C" __global__ void write_at_offset(float* out, const float* in, int offset, int n) {
  int i = TID;
  if (i < n) out[offset + i] = in[i];
}

// A 64-bit offset scaled by the element size is an index, not an address: V.
//@expect write_at_offset64: W R V V
extern "C" __global__ void write_at_offset64(float* out, const float* in, size_t offset, int n) {
  int i = TID;
  if (i < n) out[offset + i] = in[i];
}

// A 64-bit scalar multiplied by a value only known at run time cannot be told from a pointer in
// PTX: it gets the access of the address it helps form.
//@expect clear_pitched: W W V V
extern "C" __global__ void clear_pitched(float* base, size_t pitch, int width, int height) {
  int x = TID, y = blockIdx.y;
  if (x < width && y < height) ((float*)((char*)base + y * pitch))[x] = 0.0f;
}

//@expect tagged_pointer: W V
extern "C" __global__ void tagged_pointer(float* tagged, float v) {
  float* p = (float*)((uintptr_t)tagged & ~(uintptr_t)3);
  p[TID] = v;
}

// ---- gathers: indices loaded from memory are not pointers ------------------------------------

//@expect gather32: R R W V
extern "C" __global__ void gather32(const float* in, const int* idx, float* out, int n) {
  int i = TID;
  if (i < n) out[i] = in[idx[i]];
}

//@expect gather64: R R W V
extern "C" __global__ void gather64(const float* in, const long long* idx, float* out, int n) {
  int i = TID;
  if (i < n) out[i] = in[idx[i]];
}

// Limit: a 64-bit value loaded from memory and added unscaled to a pointer (bytes indexed by a
// 64-bit index) cannot be told from a pointer loaded from memory.
//@expect gather_bytes64: R R W V OTHER
extern "C" __global__ void gather_bytes64(const char* in, const long long* idx, char* out, int n) {
  int i = TID;
  if (i < n) out[i] = in[idx[i]];
}

// ---- struct parameters -----------------------------------------------------------------------

struct Span {
  const float* src;
  float* dst;
  int n;
};

struct Inputs {
  const float* a;
  const float* b;
};

//@expect struct_copy: RW
extern "C" __global__ void struct_copy(Span s) {
  int i = TID;
  if (i < s.n) s.dst[i] = s.src[i];
}

//@expect struct_sum: R W V
extern "C" __global__ void struct_sum(Inputs in, float* out, int n) {
  int i = TID;
  if (i < n) out[i] = in.a[i] + in.b[i];
}

__device__ __noinline__ void copy_span(const Span* s, int i) {
  if (i < s->n) s->dst[i] = s->src[i];
}

//@expect grid_constant_span: RW
extern "C" __global__ void grid_constant_span(const __grid_constant__ Span s) {
  copy_span(&s, TID);
}

struct Pointers {
  float* p[4];
};

//@expect param_pointer_array: W V V
extern "C" __global__ void param_pointer_array(Pointers ps, int k, float v) {
  ps.p[k & 3][TID] = v;
}

// ---- calls that are not inlined --------------------------------------------------------------

__device__ __noinline__ void store_at(float* p, int i, float v) { p[i] = v; }

__device__ __noinline__ float load_at(const float* p, int i) { return p[i]; }

__device__ __noinline__ float* pick(float* a, float* b, int which) { return which ? a : b; }

__device__ __noinline__ void zero_range(float* p, int lo, int hi) {
  if (hi - lo <= 1) {
    if (hi > lo) p[lo] = 0.0f;
    return;
  }
  int mid = lo + (hi - lo) / 2;
  zero_range(p, lo, mid);
  zero_range(p, mid, hi);
}

//@expect call_copy: R W V
extern "C" __global__ void call_copy(const float* in, float* out, int n) {
  int i = TID;
  if (i < n) store_at(out, i, load_at(in, i));
}

//@expect call_pick_store: W W R V
extern "C" __global__ void call_pick_store(float* a, float* b, const float* src, int which) {
  int i = TID;
  pick(a, b, which)[i] = load_at(src, i);
}

//@expect recursive_zero: W V
extern "C" __global__ void recursive_zero(float* p, int n) {
  if (TID == 0) zero_range(p, 0, n);
}

__device__ __noinline__ float twice(float x) { return 2.0f * x; }
__device__ __noinline__ float halve(float x) { return 0.5f * x; }
__device__ float (*volatile g_op)(float) = twice;

//@expect call_through_pointer: RW V g_op:R OTHER
extern "C" __global__ void call_through_pointer(float* data, int n) {
  int i = TID;
  if (i < n) data[i] = g_op(data[i]);
}

// ---- inline PTX ------------------------------------------------------------------------------

//@expect asm_store: W V V
extern "C" __global__ void asm_store(float* out, float v, int n) {
  int i = TID;
  if (i < n) asm volatile("st.global.f32 [%0], %1;" ::"l"(out + i), "f"(v) : "memory");
}

//@expect asm_load: R W V
extern "C" __global__ void asm_load(const float* in, float* out, int n) {
  int i = TID;
  float x;
  if (i < n) {
    asm volatile("ld.global.nc.f32 %0, [%1];" : "=f"(x) : "l"(in + i));
    out[i] = x;
  }
}

//@expect asm_generic_store: W V
extern "C" __global__ void asm_generic_store(int* out, int n) {
  int i = TID;
  if (i < n) asm volatile("{ .reg .b32 t; mov.b32 t, %1; st.u32 [%0], t; }" ::"l"(out + i), "r"(i) : "memory");
}

// ---- pointers loaded from memory -------------------------------------------------------------

//@expect gather_rows: R W V OTHER
extern "C" __global__ void gather_rows(const float* const* rows, float* out, int n) {
  int i = TID;
  if (i < n) out[i] = rows[blockIdx.y][i];
}

//@expect scatter_through_table: R V OTHER
extern "C" __global__ void scatter_through_table(float* const* table, float v) {
  table[blockIdx.y][TID] = v;
}

struct Node {
  float* data;
  int n;
};

//@expect walk_nodes: R OTHER
extern "C" __global__ void walk_nodes(const Node* nodes) {
  const Node& node = nodes[blockIdx.x];
  if ((int)threadIdx.x < node.n) node.data[threadIdx.x] += 1.0f;
}

//@expect publish_pointer: V W[0,8)
extern "C" __global__ void publish_pointer(float* buf, float** slot) {
  if (TID == 0) *slot = buf;
}

struct __attribute__((packed)) Packed {
  char tag;
  float* data;
};

//@expect packed_pointer: R OTHER
extern "C" __global__ void packed_pointer(const Packed* items) {
  items[blockIdx.x].data[threadIdx.x] = 1.0f;
}

//@expect heap_scratch: W V OTHER
extern "C" __global__ void heap_scratch(float* out, int n) {
  float* scratch = (float*)malloc(n * sizeof(float));
  if (scratch == nullptr) return;
  for (int k = 0; k < n; ++k) scratch[k] = (float)k;
  out[TID] = scratch[TID % n];
  free(scratch);
}

// ---- module variables ------------------------------------------------------------------------

__device__ float g_bias[256];
__device__ unsigned g_counter;
__constant__ float c_coeffs[16];
__constant__ const float* c_table;

//@expect add_global_bias: R W V g_bias:R
extern "C" __global__ void add_global_bias(const float* in, float* out, int n) {
  int i = TID;
  if (i < n) out[i] = in[i] + g_bias[i & 255];
}

//@expect count_positive: R V g_counter:RW
extern "C" __global__ void count_positive(const float* x, int n) {
  int i = TID;
  if (i < n && x[i] > 0.0f) atomicAdd(&g_counter, 1u);
}

//@expect apply_constant: R W V c_coeffs:R
extern "C" __global__ void apply_constant(const float* in, float* out, int n) {
  int i = TID;
  if (i < n) out[i] = in[i] * c_coeffs[i & 15];
}

//@expect through_constant_pointer: W V c_table:R OTHER
extern "C" __global__ void through_constant_pointer(float* out, int n) {
  int i = TID;
  if (i < n) out[i] = c_table[i];
}

// Two kernels that talk through a __device__ variable the host never asks for.
__device__ int g_flag;

//@expect publish_flag: V g_flag:W
extern "C" __global__ void publish_flag(int v) {
  if (TID == 0) g_flag = v;
}

//@expect read_flag: W[0,4) g_flag:R
extern "C" __global__ void read_flag(int* out) {
  if (TID == 0) *out = g_flag;
}

// A constant read in a function of its own (at -G, through its generic address).
__device__ __noinline__ float load_generic(const float* p, int i) { return p[i]; }

//@expect constant_through_generic_pointer: W V c_coeffs:R
extern "C" __global__ void constant_through_generic_pointer(float* out, int n) {
  int i = TID;
  if (i < n) out[i] = load_generic(c_coeffs, i & 15);
}

//@expect print_value: R $str:R PRINTF
extern "C" __global__ void print_value(const float* x) {
  printf("x[%d] = %f\n", (int)threadIdx.x, x[threadIdx.x]);
}

// ---- restrict and read-only loads ------------------------------------------------------------

//@expect restrict_copy: R W V
extern "C" __global__ void restrict_copy(const float* __restrict__ in, float* __restrict__ out, int n) {
  int i = TID;
  if (i < n) out[i] = in[i];
}

//@expect ldg_sum: R R W V
extern "C" __global__ void ldg_sum(const float* a, const float* b, float* out, int n) {
  int i = TID;
  if (i < n) out[i] = __ldg(a + i) + __ldg(b + i);
}

// ---- shared memory ---------------------------------------------------------------------------

//@expect reverse_block: R W
extern "C" __global__ void reverse_block(const float* in, float* out) {
  __shared__ float tile[256];
  int t = threadIdx.x;
  tile[t] = in[blockIdx.x * 256 + t];
  __syncthreads();
  out[blockIdx.x * 256 + t] = tile[255 - t];
}

//@expect block_sum: R RW[0,4) V
extern "C" __global__ void block_sum(const float* x, float* total, int n) {
  extern __shared__ float partial[];
  int t = threadIdx.x, i = TID;
  partial[t] = i < n ? x[i] : 0.0f;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (t < s) partial[t] += partial[t + s];
    __syncthreads();
  }
  if (t == 0) atomicAdd(total, partial[0]);
}

//@expect async_stage: R W V
extern "C" __global__ void async_stage(const float* in, float* out, int n) {
  __shared__ float stage[256];
  int t = threadIdx.x, i = TID;
  if (i < n) {
#if __CUDA_ARCH__ >= 800
    unsigned dst = (unsigned)__cvta_generic_to_shared(&stage[t]);
    asm volatile("cp.async.ca.shared.global [%0], [%1], 4;" ::"r"(dst), "l"(in + i) : "memory");
    asm volatile("cp.async.wait_all;" ::: "memory");
#else
    stage[t] = in[i];
#endif
  }
  __syncthreads();
  if (i < n) out[i] = stage[t] * 2.0f;
}

//@expect shared_pointer_broadcast: W W V
extern "C" __global__ void shared_pointer_broadcast(float* a, float* b, int use_a) {
  __shared__ float* target;
  if (threadIdx.x == 0) target = use_a ? a : b;
  __syncthreads();
  target[TID] = 1.0f;
}

//@expect shuffled_pointer: W W
extern "C" __global__ void shuffled_pointer(float* a, float* b) {
  float* mine = (threadIdx.x & 1) ? a : b;
  float* p = (float*)__shfl_sync(0xffffffffu, (unsigned long long)mine, 0);
  p[TID] = 1.0f;
}

// ---- pointer comparisons ---------------------------------------------------------------------

//@expect same_buffer: V V W[0,4)
extern "C" __global__ void same_buffer(const float* a, const float* b, int* result) {
  if (TID == 0) *result = (a == b);
}

//@expect copy_unless_alias: W R V
extern "C" __global__ void copy_unless_alias(float* dst, const float* src, int n) {
  int i = TID;
  if (dst == src || i >= n) return;
  dst[i] = src[i];
}

// ---- scalars ---------------------------------------------------------------------------------

//@expect wide_scalars: W V V V V
extern "C" __global__ void wide_scalars(double* out, long long n, double scale, float bias,
                                        unsigned long long seed) {
  long long i = TID;
  if (i < n) out[i] = scale * (double)(seed ^ (unsigned long long)i) + bias;
}

//@expect small_scalars: W V V V
extern "C" __global__ void small_scalars(int* out, char c, short s, bool flag) {
  out[TID] = flag ? c : s;
}

// ---- device memcpy and memset ----------------------------------------------------------------

//@expect memcpy_bytes: W R V
extern "C" __global__ void memcpy_bytes(void* dst, const void* src, size_t bytes) {
  if (TID == 0) memcpy(dst, src, bytes);
}

//@expect memcpy_fixed: W R
extern "C" __global__ void memcpy_fixed(Span* dst, const Span* src) {
  memcpy(dst + TID, src + TID, sizeof(Span));
}

//@expect memset_bytes: W V
extern "C" __global__ void memset_bytes(void* dst, size_t bytes) {
  if (TID == 0) memset(dst, 0, bytes);
}

// ---- opaque handles --------------------------------------------------------------------------

//@expect texture_fetch: V W OTHER
extern "C" __global__ void texture_fetch(cudaTextureObject_t tex, float* out) {
  out[TID] = tex1Dfetch<float>(tex, TID);
}

// ---- extents: memory at constant offsets from a pointer ----------------------------------------

//@expect one_result: R W[0,4) V
extern "C" __global__ void one_result(const float* x, float* result, int n) {
  float sum = 0.0f;
  for (int i = threadIdx.x; i < n; i += blockDim.x) sum += x[i];
  if (threadIdx.x == 0) result[0] = sum;
}

struct Stats {
  float sum;
  float best;
  int count;
  int flags;
};

//@expect two_fields: W[4,12) V V
extern "C" __global__ void two_fields(Stats* stats, float best, int count) {
  if (TID == 0) {
    stats->best = best;
    stats->count = count;
  }
}

//@expect before_the_pointer: W[-4,12)
extern "C" __global__ void before_the_pointer(float* p) {
  if (TID == 0) {
    p[-1] = 1.0f;
    p[2] = 2.0f;
  }
}

//@expect one_float4: W[16,32) V
extern "C" __global__ void one_float4(float4* out, float v) {
  if (TID == 0) out[1] = make_float4(v, v, v, v);
}

//@expect cached_constant_slot: R[12,16) W
extern "C" __global__ void cached_constant_slot(const float* __restrict__ in, float* out) {
  out[TID] = __ldg(in + 3);
}

//@expect counter_at_offset: RW[8,12)
extern "C" __global__ void counter_at_offset(int* counters) {
  atomicAdd(counters + 2, 1);
}

//@expect thread_indexed_after_offset: W
extern "C" __global__ void thread_indexed_after_offset(float* out) {
  out[threadIdx.x + 1] = 1.0f;
}

//@expect pointer_walked_in_a_loop: W V
extern "C" __global__ void pointer_walked_in_a_loop(int* p, int n) {
  if (TID == 0) {
    for (int i = 0; i < n; i++) p[i] = i * i;
  }
}

__device__ __noinline__ void store_first(float* p) { p[0] = 1.0f; }

//@expect pointer_passed_to_a_function: W
extern "C" __global__ void pointer_passed_to_a_function(float* p) {
  if (TID == 0) store_first(p);
}

//@expect pointer_stored_then_used: W W[0,8)
extern "C" __global__ void pointer_stored_then_used(float* p, float** slot) {
  if (TID == 0) {
    p[0] = 1.0f;
    slot[0] = p;
  }
}

__device__ __noinline__ void store_through(float** pp) { (*pp)[1] = 1.0f; }

// nvcc passes a copy of the parameter's value rather than its address: the pointer is passed on.
//@expect parameter_address_taken: W
extern "C" __global__ void parameter_address_taken(float* p) {
  if (TID == 0) store_through(&p);
}

// The offset is chosen at run time (selp of 4 and 12, added to the pointer): no extent.
//@expect one_of_two_slots: W V
extern "C" __global__ void one_of_two_slots(float* p, int which) {
  if (TID == 0) p[which ? 1 : 3] = 2.0f;
}
