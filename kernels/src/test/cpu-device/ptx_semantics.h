// What the value instructions compute, on registers held as 64 raw bits: an f32 in the low 32 bits,
// an integer of fewer than 64 bits extended as its type's signedness says, a predicate as 0 or 1.
#pragma once

#include <cstdint>

#include "ptx_program.h"

namespace ptx {

// Null where the executor runs `in`, else why not (the load fails with it).
const char *unsupportedReason(const Instr &in);

inline uint64_t low(uint64_t v, int n) { return n >= 64 ? v : v & ((uint64_t{1} << n) - 1); }
inline uint64_t signExtend(uint64_t v, int n) {
  return n >= 64 ? v : static_cast<uint64_t>(static_cast<int64_t>(v << (64 - n)) >> (64 - n));
}
// A register's bits read as `t`.
inline uint64_t as(uint64_t v, Type t) {
  int n = bits(t);
  return isSigned(t) ? signExtend(v, n) : low(v, n);
}

// The result of a value instruction (mov, cvt, arithmetic, logic, selp...) from its sources.
uint64_t compute(const Instr &in, uint64_t a, uint64_t b, uint64_t c, uint64_t d);
// setp's comparison of a and b.
bool compare(const Instr &in, uint64_t a, uint64_t b);
// atom/red on memory at `address`: the old value.
uint64_t atomic(const Instr &in, void *address, uint64_t b, uint64_t c);

uint64_t loadValue(Type t, const void *address);
void storeValue(Type t, void *address, uint64_t v);

}  // namespace ptx
