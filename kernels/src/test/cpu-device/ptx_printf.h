// Device printf for the PTX interpreter: nvcc compiles printf(format, ...) into a call to
// vprintf(format, args), args pointing to the arguments packed in local memory, each aligned to its
// size (int, unsigned and char as 4 bytes; float promoted to double, long, long long and pointers as
// 8). CUDA formats them on the host with the host's C library; so does this.
#pragma once

#include <string>

namespace ptx {

// The text printf(format, ...) prints on the host, and into *parsed the number of arguments it
// read (what CUDA's device printf returns; -1 for a null format).
std::string formatDevicePrintf(const char *format, const char *args, int *parsed);

// vprintf as a kernel calls it: the text goes to stdout at once, flushed so that it keeps its place
// among the host's own output. Returns CUDA's result (see formatDevicePrintf).
int deviceVprintf(const char *format, const char *args);

}  // namespace ptx
