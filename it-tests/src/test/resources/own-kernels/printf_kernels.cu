// Device printf for DevicePrintfProgram: the conversions nvcc programs use, with widths and
// precisions, run by the stand-in's PTX interpreter (vprintf). Each launch prints `lines` lines
// from one thread and keeps what each printf returned (CUDA: the number of arguments it read).
#include <cstdio>

extern "C" __global__ void print_values(int tag, int lines, float scale, const char* name, int* returns) {
  if (threadIdx.x != 0 || blockIdx.x != 0) return;
  for (int i = 0; i < lines; i++) {
    float x = scale * i;
    returns[3 * i] = printf("launch %d line %i: %u 0x%x %X|%5d|%-4d|%05.1f|%e|%g|%.3g\n", tag, i,
                            4000000000u + i, 255 * i, 255 * i, -i, i, x, x, x / 3.0f, x);
    returns[3 * i + 1] = printf("launch %d line %d: %s|%8s|%.2s|%c|%ld|%lu|%lld|%llu|%%\n", tag, i, name, name, name,
                                'a' + i, -(1L << 40) - i, 1UL << 63, -(1LL << 50), 18446744073709551615ULL - i);
    returns[3 * i + 2] = printf("launch %d line %d ends|%*d|%.*f|%hd\n", tag, i, 4, i, 2, x, (short)-i);
  }
}
