// See ptx_printf.h. Each conversion is parsed (flags, width, precision, length, type, as CUDA's
// printf accepts them) and handed to the host's snprintf with the C type that the length and type
// name, read from the argument buffer at the next offset aligned to its size.
#include "ptx_printf.h"

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <mutex>

namespace ptx {
namespace {

// CUDA's printf takes at most 32 arguments; the conversions after them are printed as they are.
constexpr int kMaxArguments = 32;

class Arguments {
 public:
  explicit Arguments(const char *buffer) : buffer(buffer) {}
  template <typename T>
  T next() {
    offset = (offset + sizeof(T) - 1) / sizeof(T) * sizeof(T);
    T value{};
    if (buffer) std::memcpy(&value, buffer + offset, sizeof(T));
    offset += sizeof(T);
    count++;
    return value;
  }
  int count = 0;

 private:
  const char *buffer;
  size_t offset = 0;
};

template <typename... V>
void append(std::string &out, const std::string &spec, V... values) {
  int n = std::snprintf(nullptr, 0, spec.c_str(), values...);
  if (n <= 0) return;
  std::string text(static_cast<size_t>(n) + 1, '\0');
  std::snprintf(text.data(), text.size(), spec.c_str(), values...);
  text.resize(static_cast<size_t>(n));
  out += text;
}

// One conversion with its width and precision taken (from `*` arguments or the text) as `stars`.
template <typename T>
void convert(std::string &out, const std::string &spec, const int *stars, int nstars, T value) {
  if (nstars == 2) append(out, spec, stars[0], stars[1], value);
  else if (nstars == 1) append(out, spec, stars[0], value);
  else append(out, spec, value);
}

}  // namespace

std::string formatDevicePrintf(const char *format, const char *args, int *parsed) {
  std::string out;
  if (!format) {
    *parsed = -1;
    return out;
  }
  Arguments a(args);
  const char *p = format;
  while (*p) {
    if (*p != '%') {
      out += *p++;
      continue;
    }
    const char *start = p++;
    if (*p == '%') {
      out += '%';
      p++;
      continue;
    }
    int stars[2];
    int nstars = 0;
    while (*p && std::strchr("-+ #0", *p)) p++;
    auto widthOrPrecision = [&] {
      if (*p == '*') {
        if (a.count < kMaxArguments) stars[nstars++] = a.next<int>();
        p++;
      } else {
        while (*p >= '0' && *p <= '9') p++;
      }
    };
    widthOrPrecision();
    if (*p == '.') {
      p++;
      widthOrPrecision();
    }
    int longs = 0;
    while (*p == 'h') p++;  // %hd, %hhx: the argument is an int, which snprintf narrows as C does
    while (*p == 'l' && longs < 2) { longs++; p++; }
    char type = *p;
    if (type) p++;
    std::string spec(start, p);
    bool known = type && std::strchr("cdiouxXpeEfFgGaAs", type);
    if (!known || a.count >= kMaxArguments) {
      out += spec;  // not a conversion CUDA's printf knows, or past its arguments: printed as it is
      continue;
    }
    switch (type) {
      case 'd': case 'i':
        if (longs == 2) convert(out, spec, stars, nstars, a.next<long long>());
        else if (longs == 1) convert(out, spec, stars, nstars, a.next<long>());
        else convert(out, spec, stars, nstars, a.next<int>());
        break;
      case 'o': case 'u': case 'x': case 'X':
        if (longs == 2) convert(out, spec, stars, nstars, a.next<unsigned long long>());
        else if (longs == 1) convert(out, spec, stars, nstars, a.next<unsigned long>());
        else convert(out, spec, stars, nstars, a.next<unsigned>());
        break;
      case 'c':
        convert(out, spec, stars, nstars, a.next<int>());
        break;
      case 's':
        convert(out, spec, stars, nstars, reinterpret_cast<const char *>(a.next<uint64_t>()));
        break;
      case 'p':
        convert(out, spec, stars, nstars, reinterpret_cast<void *>(a.next<uint64_t>()));
        break;
      default:  // e E f F g G a A: a float argument arrives promoted to double
        convert(out, spec, stars, nstars, a.next<double>());
        break;
    }
  }
  *parsed = a.count;
  return out;
}

int deviceVprintf(const char *format, const char *args) {
  static std::mutex lock;
  int parsed;
  std::string text = formatDevicePrintf(format, args, &parsed);
  std::lock_guard<std::mutex> guard(lock);
  std::fwrite(text.data(), 1, text.size(), stdout);
  std::fflush(stdout);
  return parsed;
}

}  // namespace ptx
