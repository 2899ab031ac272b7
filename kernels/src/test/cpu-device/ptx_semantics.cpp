// The value instructions' semantics, as the PTX ISA states them. Float arithmetic is the CPU's SSE
// (built with -ffp-contract=off, no fast-math): add, sub, mul, fma, div.rn, sqrt.rn, rcp.rn and cvt
// round to nearest even as a GPU does, bit for bit. The .approx instructions are computed in double
// and rounded, so they are at least as accurate as the ISA's stated bounds for a GPU's, but not
// equal to a GPU's bits. f32 NaN results are the canonical NaN 0x7fffffff, as a GPU's are.
#include <cmath>
#include <limits>

#include "ptx_semantics.h"

namespace ptx {
namespace {

float f32(uint64_t v) {
  uint32_t b = static_cast<uint32_t>(v);
  float f;
  std::memcpy(&f, &b, 4);
  return f;
}
double f64(uint64_t v) {
  double d;
  std::memcpy(&d, &v, 8);
  return d;
}
uint64_t bitsOf(float f) {
  if (std::isnan(f)) return 0x7fffffffu;
  uint32_t b;
  std::memcpy(&b, &f, 4);
  return b;
}
uint64_t bitsOf(double d) {
  uint64_t b;
  std::memcpy(&b, &d, 8);
  return b;
}
float flush(float f, bool ftz) { return ftz && std::fpclassify(f) == FP_SUBNORMAL ? std::copysign(0.0f, f) : f; }

bool isInteger(Type t) { return t != Type::None && t != Type::Pred && !isFloat(t); }
bool isBits(Type t) { return t == Type::B8 || t == Type::B16 || t == Type::B32 || t == Type::B64; }

// min/max of floats: a NaN operand gives the other; -0 is below +0.
template <typename F>
F floatMin(F a, F b, bool max) {
  if (std::isnan(a)) return b;
  if (std::isnan(b)) return a;
  if (a == b) return (std::signbit(a) != max) ? a : b;
  return (a < b) != max ? a : b;
}

template <typename F>
F approx(Op op, F a) {
  double x = a;
  switch (op) {
    case Op::Rsqrt: return static_cast<F>(1.0 / std::sqrt(x));
    case Op::Ex2: return static_cast<F>(std::exp2(x));
    case Op::Lg2: return static_cast<F>(std::log2(x));
    case Op::Sin: return static_cast<F>(std::sin(x));
    case Op::Cos: return static_cast<F>(std::cos(x));
    case Op::Tanh: return static_cast<F>(std::tanh(x));
    default: return a;
  }
}

template <typename F>
F floatOp(const Instr &in, F a, F b, F c) {
  switch (in.op) {
    case Op::Add: return a + b;
    case Op::Sub: return a - b;
    case Op::Mul: return a * b;
    case Op::Mad: case Op::Fma: return std::fma(a, b, c);
    case Op::Div: return in.mode == kRn ? a / b : static_cast<F>(static_cast<double>(a) / b);
    case Op::Abs: return std::fabs(a);
    case Op::Neg: return -a;
    case Op::Min: return floatMin(a, b, false);
    case Op::Max: return floatMin(a, b, true);
    case Op::Copysign: return std::copysign(b, a);
    case Op::Sqrt: return in.mode == kRn ? std::sqrt(a) : static_cast<F>(std::sqrt(static_cast<double>(a)));
    case Op::Rcp: return in.mode == kRn ? F(1) / a : static_cast<F>(1.0 / a);
    default: return approx(in.op, a);
  }
}

uint64_t floatResult(const Instr &in, uint64_t a, uint64_t b, uint64_t c) {
  if (in.type == Type::F64) return bitsOf(floatOp<double>(in, f64(a), f64(b), f64(c)));
  float r = floatOp<float>(in, flush(f32(a), in.ftz), flush(f32(b), in.ftz), flush(f32(c), in.ftz));
  if ((in.op == Op::Abs || in.op == Op::Neg || in.op == Op::Copysign) && std::isnan(r)) {
    uint32_t raw;  // sign operations keep a NaN's payload
    std::memcpy(&raw, &r, 4);
    return raw;
  }
  return bitsOf(flush(r, in.ftz));
}

// Integer multiply: the low half, the high half, or the double-width product.
uint64_t multiply(const Instr &in, uint64_t a, uint64_t b) {
  int n = bits(in.type);
  bool s = isSigned(in.type);
  if (in.mode == kWide) return s ? static_cast<uint64_t>(static_cast<int64_t>(a) * static_cast<int64_t>(b)) : a * b;
  if (in.mode == kLo) return a * b;
  if (n == 64) {
    if (s) return static_cast<uint64_t>((static_cast<__int128>(static_cast<int64_t>(a)) * static_cast<int64_t>(b)) >> 64);
    return static_cast<uint64_t>((static_cast<unsigned __int128>(a) * b) >> 64);
  }
  uint64_t product = s ? static_cast<uint64_t>(static_cast<int64_t>(a) * static_cast<int64_t>(b)) : a * b;
  return product >> n;
}

uint64_t bitFieldExtract(Type t, uint64_t a, uint64_t b, uint64_t c) {
  int n = bits(t);
  unsigned pos = b & 0xff, len = c & 0xff;
  uint64_t fill = 0;
  if (isSigned(t) && len != 0) fill = (a >> std::min<unsigned>(pos + len - 1, n - 1)) & 1;
  uint64_t d = 0;
  for (int i = 0; i < n; i++) {
    uint64_t bit = (static_cast<unsigned>(i) < len && pos + i < static_cast<unsigned>(n)) ? (a >> (pos + i)) & 1 : fill;
    d |= bit << i;
  }
  return d;
}

uint64_t bitFieldInsert(Type t, uint64_t a, uint64_t b, uint64_t c, uint64_t d) {
  int n = bits(t);
  unsigned pos = c & 0xff, len = d & 0xff;
  uint64_t f = b;
  for (unsigned i = 0; i < len && pos + i < static_cast<unsigned>(n); i++) {
    f = (f & ~(uint64_t{1} << (pos + i))) | (((a >> i) & 1) << (pos + i));
  }
  return f;
}

uint64_t permute(uint64_t a, uint64_t b, uint64_t c) {
  uint64_t bytes = low(a, 32) | (low(b, 32) << 32);
  uint64_t d = 0;
  for (int i = 0; i < 4; i++) {
    unsigned selector = (c >> (4 * i)) & 0xf;
    uint64_t byte = (bytes >> (8 * (selector & 7))) & 0xff;
    if (selector & 8) byte = (byte & 0x80) ? 0xff : 0;
    d |= byte << (8 * i);
  }
  return d;
}

uint64_t lookupTable(uint64_t a, uint64_t b, uint64_t c, uint64_t lut) {
  uint64_t d = 0;
  for (int k = 0; k < 8; k++) {
    if (!((lut >> k) & 1)) continue;
    d |= ((k & 4) ? a : ~a) & ((k & 2) ? b : ~b) & ((k & 1) ? c : ~c);
  }
  return d;
}

// Float to integer: rounded as the modifier says, saturated to the type's range, NaN to 0.
uint64_t floatToInteger(const Instr &in, double x) {
  switch (in.mode) {
    case kRni: x = std::nearbyint(x); break;
    case kRzi: x = std::trunc(x); break;
    case kRmi: x = std::floor(x); break;
    default: x = std::ceil(x); break;
  }
  if (std::isnan(x)) return 0;
  int n = bits(in.type);
  if (isSigned(in.type)) {
    double lo = -std::ldexp(1.0, n - 1), hi = std::ldexp(1.0, n - 1);
    if (x <= lo) return signExtend(uint64_t{1} << (n - 1), n);
    if (x >= hi) return low(~uint64_t{0}, n - 1);
    return as(static_cast<uint64_t>(static_cast<int64_t>(x)), in.type);
  }
  if (x <= 0) return 0;
  if (x >= std::ldexp(1.0, n)) return low(~uint64_t{0}, n);
  return static_cast<uint64_t>(x);
}

uint64_t convert(const Instr &in, uint64_t a) {
  Type to = in.type, from = in.type2;
  if (!isFloat(to) && !isFloat(from)) return as(as(a, from), to);
  if (isFloat(from) && !isFloat(to)) {
    return floatToInteger(in, from == Type::F64 ? f64(a) : flush(f32(a), in.ftz));
  }
  if (!isFloat(from)) {
    uint64_t v = as(a, from);
    bool s = isSigned(from);
    if (to == Type::F64) return bitsOf(s ? static_cast<double>(static_cast<int64_t>(v)) : static_cast<double>(v));
    return bitsOf(s ? static_cast<float>(static_cast<int64_t>(v)) : static_cast<float>(v));
  }
  double x = from == Type::F64 ? f64(a) : flush(f32(a), in.ftz);
  if (in.mode >= kRni) {
    switch (in.mode) {
      case kRni: x = std::nearbyint(x); break;
      case kRzi: x = std::trunc(x); break;
      case kRmi: x = std::floor(x); break;
      default: x = std::ceil(x); break;
    }
  }
  if (to == Type::F64) return bitsOf(x);
  return bitsOf(flush(static_cast<float>(x), in.ftz));
}

}  // namespace

const char *unsupportedReason(const Instr &in) {
  Type t = in.type;
  bool integer = isInteger(t), floating = isFloat(t);
  switch (in.op) {
    case Op::Add: case Op::Sub: case Op::Min: case Op::Max:
      return (integer && !(isBits(t) && (in.op == Op::Min || in.op == Op::Max))) || floating ? nullptr : "this type";
    case Op::Mul: case Op::Mad:
      if (floating) return nullptr;
      if (!integer) return "this type";
      return in.mode == kWide && bits(t) == 64 ? "mul.wide of 64 bits" : nullptr;
    case Op::Div: case Op::Rem:
      if (floating && in.op == Op::Div) return t == Type::F64 && in.mode != kRn ? "div.approx/full.f64" : nullptr;
      return integer ? nullptr : "this type";
    case Op::Abs: case Op::Neg:
      return isSigned(t) || floating ? nullptr : "this type";
    case Op::Fma: case Op::Copysign:
      return floating ? nullptr : "this type";
    case Op::Sqrt: case Op::Rcp:
      return floating ? nullptr : "this type";
    case Op::Rsqrt:
      return floating ? nullptr : "this type";
    case Op::Ex2: case Op::Lg2: case Op::Sin: case Op::Cos: case Op::Tanh:
      return t == Type::F32 ? nullptr : "this type";
    case Op::And: case Op::Or: case Op::Xor: case Op::Not: case Op::Cnot:
      return (integer || t == Type::Pred) && !(in.op == Op::Cnot && t == Type::Pred) ? nullptr : "this type";
    case Op::Shl:
      return isBits(t) ? nullptr : "this type";
    case Op::Shr:
      return integer ? nullptr : "this type";
    case Op::Popc: case Op::Clz: case Op::Brev:
      return t == Type::B32 || t == Type::B64 ? nullptr : "this type";
    case Op::Bfe:
      return integer && !isBits(t) && bits(t) >= 32 ? nullptr : "this type";
    case Op::Bfi:
      return t == Type::B32 || t == Type::B64 ? nullptr : "this type";
    case Op::Prmt: case Op::Lop3: case Op::Shf:
      return t == Type::B32 ? nullptr : "this type";
    case Op::Bfind:
      return integer && !isBits(t) && bits(t) >= 32 ? nullptr : "this type";
    case Op::Setp:
      if (t == Type::Pred) return "setp of predicates";
      if (!floating && in.mode >= kEqu) return "an unordered comparison of integers";
      return nullptr;
    case Op::Cvt:
      return t == Type::Pred || in.type2 == Type::Pred ? "cvt of predicates" : nullptr;
    case Op::Ld: case Op::St:
      return t == Type::Pred ? "ld/st of predicates" : nullptr;
    case Op::Cvta: case Op::CvtaTo:
      if (in.space == Space::Param || in.space == Space::Generic) return "cvta of this space";
      return bits(t) >= 32 ? nullptr : "this type";
    case Op::Atom: case Op::Red: {
      if (in.space == Space::Const || in.space == Space::Local || in.space == Space::Param) return "atomics on this space";
      int n = bits(t);
      if (n != 32 && n != 64) return "atomics of this size";
      switch (in.mode) {
        case kAtomAdd: return isBits(t) ? "atom.add of bits" : nullptr;
        case kAtomMin: case kAtomMax: return floating || isBits(t) ? "atomic min/max of this type" : nullptr;
        case kAtomExch: case kAtomCas: return nullptr;
        case kAtomAnd: case kAtomOr: case kAtomXor: return floating ? "bitwise atomics on floats" : nullptr;
        default: return t == Type::U32 ? nullptr : "atom.inc/dec of other than u32";
      }
    }
    case Op::Shfl:
      return t == Type::B32 ? nullptr : "shfl of other than b32";
    case Op::Vote:
      return (in.mode == kVoteBallot) == (t == Type::B32) && (t == Type::B32 || t == Type::Pred) ? nullptr : "this vote";
    default:
      return nullptr;
  }
}

uint64_t compute(const Instr &in, uint64_t a, uint64_t b, uint64_t c, uint64_t d) {
  Type t = in.type;
  int n = bits(t);
  if (in.op == Op::Cvt) return convert(in, a);
  if (isFloat(t) && in.op != Op::Mov && in.op != Op::Selp) return floatResult(in, a, b, c);
  bool s = isSigned(t);
  switch (in.op) {
    case Op::Mov: return as(a, t);
    case Op::Selp: return as((c & 1) ? a : b, t);
    case Op::Add: return as(a + b, t);
    case Op::Sub: return as(a - b, t);
    case Op::Mul: return in.mode == kWide ? multiply(in, as(a, t), as(b, t)) : as(multiply(in, as(a, t), as(b, t)), t);
    case Op::Mad:
      if (in.mode == kWide) return multiply(in, as(a, t), as(b, t)) + c;
      return as(multiply(in, as(a, t), as(b, t)) + c, t);
    case Op::Div: case Op::Rem: {
      uint64_t x = as(a, t), y = as(b, t);
      bool div = in.op == Op::Div;
      if (y == 0) return div ? low(~uint64_t{0}, n) : x;  // no trap on a GPU: a defined, odd value
      if (s) {
        int64_t sx = static_cast<int64_t>(x), sy = static_cast<int64_t>(y);
        if (sy == -1) return as(div ? 0 - x : 0, t);  // avoids the CPU's trap on INT_MIN / -1
        return as(static_cast<uint64_t>(div ? sx / sy : sx % sy), t);
      }
      return div ? x / y : x % y;
    }
    case Op::Abs: { uint64_t v = as(a, t); return as(static_cast<int64_t>(v) < 0 ? 0 - v : v, t); }
    case Op::Neg: return as(0 - a, t);
    case Op::Min: case Op::Max: {
      uint64_t x = as(a, t), y = as(b, t);
      bool less = s ? static_cast<int64_t>(x) < static_cast<int64_t>(y) : x < y;
      return (less == (in.op == Op::Min)) ? x : y;
    }
    case Op::And: return as(a & b, t);
    case Op::Or: return as(a | b, t);
    case Op::Xor: return as(a ^ b, t);
    case Op::Not: return t == Type::Pred ? (~a & 1) : as(~a, t);
    case Op::Cnot: return as(a, t) == 0 ? 1 : 0;
    case Op::Shl: { uint64_t k = low(b, 32); return k >= static_cast<uint64_t>(n) ? 0 : as(a << k, t); }
    case Op::Shr: {
      uint64_t k = low(b, 32), x = as(a, t);
      if (s) return as(static_cast<uint64_t>(static_cast<int64_t>(x) >> std::min<uint64_t>(k, 63)), t);
      return k >= static_cast<uint64_t>(n) ? 0 : x >> k;
    }
    case Op::Popc: return static_cast<uint64_t>(__builtin_popcountll(low(a, n)));
    case Op::Clz: { uint64_t x = low(a, n); return x == 0 ? n : static_cast<uint64_t>(__builtin_clzll(x) - (64 - n)); }
    case Op::Brev: {
      uint64_t x = low(a, n), r = 0;
      for (int i = 0; i < n; i++) r |= ((x >> i) & 1) << (n - 1 - i);
      return r;
    }
    case Op::Bfe: return as(bitFieldExtract(t, as(a, t), b, c), t);
    case Op::Bfi: return as(bitFieldInsert(t, a, b, c, d), t);
    case Op::Prmt: return permute(a, b, c);
    case Op::Lop3: return low(lookupTable(a, b, c, d), 32);
    case Op::Shf: {
      // The funnel {b:a} shifted by c (wrapped to 0..31, or clamped to 32).
      uint64_t k = low(c, 32), funnel = low(a, 32) | (low(b, 32) << 32);
      k = (in.mode & kShfWrap) ? k & 31 : std::min<uint64_t>(k, 32);
      return (in.mode & kShfRight) ? low(funnel >> k, 32) : low((funnel << k) >> 32, 32);
    }
    case Op::Bfind: {
      // The most significant bit that differs from the sign (s) or is set (u); 0xffffffff if none.
      uint64_t x = as(a, t);
      if (s && static_cast<int64_t>(x) < 0) x = ~x;
      x = low(x, n);
      if (x == 0) return 0xffffffffu;
      uint64_t position = 63 - static_cast<uint64_t>(__builtin_clzll(x));
      return (in.mode & kBfindShiftAmount) ? n - 1 - position : position;
    }
    default: return 0;
  }
}

bool compare(const Instr &in, uint64_t a, uint64_t b) {
  Type t = in.type;
  if (isFloat(t)) {
    double x = t == Type::F64 ? f64(a) : flush(f32(a), in.ftz);
    double y = t == Type::F64 ? f64(b) : flush(f32(b), in.ftz);
    bool unordered = std::isnan(x) || std::isnan(y);
    switch (in.mode) {
      case kEq: return !unordered && x == y;
      case kNe: return !unordered && x != y;
      case kLt: return !unordered && x < y;
      case kLe: return !unordered && x <= y;
      case kGt: return !unordered && x > y;
      case kGe: return !unordered && x >= y;
      case kEqu: return unordered || x == y;
      case kNeu: return unordered || x != y;
      case kLtu: return unordered || x < y;
      case kLeu: return unordered || x <= y;
      case kGtu: return unordered || x > y;
      case kGeu: return unordered || x >= y;
      case kNum: return !unordered;
      case kNan: return unordered;
      default: return false;
    }
  }
  uint64_t x = as(a, t), y = as(b, t);
  int64_t sx = static_cast<int64_t>(x), sy = static_cast<int64_t>(y);
  bool s = isSigned(t);
  switch (in.mode) {
    case kEq: return x == y;
    case kNe: return x != y;
    case kLt: return s ? sx < sy : x < y;
    case kLe: return s ? sx <= sy : x <= y;
    case kGt: return s ? sx > sy : x > y;
    case kGe: return s ? sx >= sy : x >= y;
    case kLo_: return x < y;
    case kLs: return x <= y;
    case kHi_: return x > y;
    case kHs: return x >= y;
    default: return false;
  }
}

uint64_t loadValue(Type t, const void *p) {
  switch (bits(t)) {
    case 8: { uint8_t v; std::memcpy(&v, p, 1); return as(v, t); }
    case 16: { uint16_t v; std::memcpy(&v, p, 2); return as(v, t); }
    case 32: { uint32_t v; std::memcpy(&v, p, 4); return as(v, t); }
    default: { uint64_t v; std::memcpy(&v, p, 8); return v; }
  }
}

void storeValue(Type t, void *p, uint64_t v) { std::memcpy(p, &v, static_cast<size_t>(bits(t) / 8)); }

// One thread runs at a time, so an atomic is a plain read-modify-write.
uint64_t atomic(const Instr &in, void *address, uint64_t b, uint64_t c) {
  Type t = in.type;
  uint64_t old = loadValue(t, address), x = as(b, t), r = old;
  bool s = isSigned(t);
  switch (in.mode) {
    case kAtomAdd:
      // PTX: atom/red.add.f32 flushes subnormal inputs and results to zero.
      if (t == Type::F32) r = bitsOf(flush(flush(f32(old), true) + flush(f32(x), true), true));
      else if (t == Type::F64) r = bitsOf(f64(old) + f64(x));
      else r = old + x;
      break;
    case kAtomMin: case kAtomMax: {
      bool less = s ? static_cast<int64_t>(x) < static_cast<int64_t>(old) : x < old;
      if (less == (in.mode == kAtomMin)) r = x;
      break;
    }
    case kAtomExch: r = x; break;
    case kAtomCas: if (old == x) r = as(c, t); break;
    case kAtomAnd: r = old & x; break;
    case kAtomOr: r = old | x; break;
    case kAtomXor: r = old ^ x; break;
    case kAtomInc: r = low(old, 32) >= low(x, 32) ? 0 : old + 1; break;
    case kAtomDec: r = (low(old, 32) == 0 || low(old, 32) > low(x, 32)) ? x : old - 1; break;
    default: break;
  }
  storeValue(t, address, r);
  return old;
}

}  // namespace ptx
