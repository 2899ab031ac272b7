// The parser's text handling: comments, statements, operand lists, literals.
#include <cctype>
#include <cstdlib>
#include <cstring>
#include <set>

#include "ptx_parser.h"

namespace ptx {
namespace parse {

std::string trim(const std::string &s) {
  size_t b = s.find_first_not_of(" \t\r\n");
  if (b == std::string::npos) return "";
  size_t e = s.find_last_not_of(" \t\r\n");
  return s.substr(b, e - b + 1);
}

std::string squeeze(const std::string &s) {  // a statement on one line, for messages
  std::string out;
  for (char c : s) {
    bool space = std::isspace(static_cast<unsigned char>(c));
    if (space && (out.empty() || out.back() == ' ')) continue;
    out.push_back(space ? ' ' : c);
  }
  return trim(out);
}

// Comments, and the line-info directives (.loc, .file: no ';'), become spaces; newlines stay, so
// offsets still give line numbers.
std::string stripComments(const char *text) {
  std::string s(text);
  for (size_t at = 0; at < s.size();) {
    size_t first = s.find_first_not_of(" \t", at);
    size_t end = s.find('\n', at);
    if (end == std::string::npos) end = s.size();
    if (first < end && (s.compare(first, 5, ".loc ") == 0 || s.compare(first, 5, ".loc\t") == 0 ||
                        s.compare(first, 6, ".file ") == 0 || s.compare(first, 6, ".file\t") == 0)) {
      for (size_t i = first; i < end; i++) s[i] = ' ';
    }
    at = end + 1;
  }
  for (size_t i = 0; i < s.size(); i++) {
    if (s[i] == '/' && i + 1 < s.size() && s[i + 1] == '/') {
      while (i < s.size() && s[i] != '\n') s[i++] = ' ';
    } else if (s[i] == '/' && i + 1 < s.size() && s[i + 1] == '*') {
      while (i < s.size() && !(s[i] == '*' && i + 1 < s.size() && s[i + 1] == '/')) {
        if (s[i] != '\n') s[i] = ' ';
        i++;
      }
      if (i < s.size()) s[i] = s[i + 1] = ' ';
    } else if (s[i] == '"') {  // .file "name": skip the string
      for (i++; i < s.size() && s[i] != '"'; i++) {
      }
    }
  }
  return s;
}

Type typeNamed(const std::string &m) {
  static const std::map<std::string, Type> types = {
      {"b8", Type::B8},   {"b16", Type::B16}, {"b32", Type::B32}, {"b64", Type::B64}, {"u8", Type::U8},
      {"u16", Type::U16}, {"u32", Type::U32}, {"u64", Type::U64}, {"s8", Type::S8},   {"s16", Type::S16},
      {"s32", Type::S32}, {"s64", Type::S64}, {"f32", Type::F32}, {"f64", Type::F64}, {"pred", Type::Pred}};
  auto it = types.find(m);
  return it == types.end() ? Type::None : it->second;
}

bool isOtherType(const std::string &m) {  // valid PTX types the interpreter does not run
  static const std::set<std::string> others = {"f16", "f16x2", "bf16", "bf16x2", "b128", "tf32", "e4m3", "e5m2"};
  return others.count(m) > 0;
}

// Splits at commas outside (), [] and {}.
std::vector<std::string> splitOperands(const std::string &s) {
  std::vector<std::string> out;
  int depth = 0;
  std::string cur;
  for (char c : s) {
    if (c == '(' || c == '[' || c == '{') depth++;
    if (c == ')' || c == ']' || c == '}') depth--;
    if (c == ',' && depth == 0) {
      out.push_back(trim(cur));
      cur.clear();
    } else {
      cur.push_back(c);
    }
  }
  if (!trim(cur).empty()) out.push_back(trim(cur));
  return out;
}

std::vector<std::string> words(const std::string &s) {
  std::vector<std::string> out;
  std::string cur;
  for (char c : s) {
    if (std::isspace(static_cast<unsigned char>(c)) || c == ',') {
      if (!cur.empty()) out.push_back(cur);
      cur.clear();
    } else {
      cur.push_back(c);
    }
  }
  if (!cur.empty()) out.push_back(cur);
  return out;
}


// A function's body as statements, each with the labels before it.
std::vector<Statement> splitStatements(const std::string &body, uint32_t firstLine) {
  std::vector<Statement> out;
  uint32_t line = firstLine;
  std::string cur;
  uint32_t curLine = line;
  std::vector<std::string> labels;
  auto flush = [&](bool end) {
    std::string t = trim(cur);
    // Scope braces and labels lead a statement.
    for (;;) {
      if (!t.empty() && (t[0] == '{' || t[0] == '}')) {
        t = trim(t.substr(1));
        continue;
      }
      size_t n = 0;
      while (n < t.size() && (std::isalnum(static_cast<unsigned char>(t[n])) || t[n] == '_' || t[n] == '$')) n++;
      if (n > 0 && n < t.size() && t[n] == ':' && (n + 1 >= t.size() || t[n + 1] != ':')) {
        labels.push_back(t.substr(0, n));
        t = trim(t.substr(n + 1));
        continue;
      }
      break;
    }
    if (!t.empty()) {
      if (end) throw Failure{kInvalidPtx, "line " + std::to_string(curLine) + ": no ';' after `" + squeeze(t) + "`"};
      out.push_back(Statement{t, curLine, labels});
      labels.clear();
    }
    cur.clear();
  };
  for (char c : body) {
    if (c == '\n') line++;
    if (trim(cur).empty()) curLine = line;
    if (c == ';') {
      flush(false);
    } else {
      cur.push_back(c);
    }
  }
  flush(true);
  if (!labels.empty()) out.push_back(Statement{"ret", line, labels});  // a label at the very end
  return out;
}

uint64_t parseInteger(const std::string &s, bool *ok) {
  const char *p = s.c_str();
  bool negative = *p == '-';
  if (negative) p++;
  char *end;
  uint64_t v;
  if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X')) {
    v = std::strtoull(p + 2, &end, 16);
  } else if (p[0] == '0' && p[1] != '\0' && std::isdigit(static_cast<unsigned char>(p[1]))) {
    v = std::strtoull(p + 1, &end, 8);
  } else {
    v = std::strtoull(p, &end, 10);
  }
  if (*end == 'U') end++;
  *ok = end != p && *end == '\0';
  return negative ? ~v + 1 : v;
}

uint64_t floatBits(float f) {
  uint32_t b;
  std::memcpy(&b, &f, 4);
  return b;
}
uint64_t doubleBits(double d) {
  uint64_t b;
  std::memcpy(&b, &d, 8);
  return b;
}

// A literal as the bits of `type`: 0fXXXXXXXX (f32), 0dXXXXXXXXXXXXXXXX (f64), integers, decimals.
bool parseLiteral(const std::string &s, Type type, uint64_t *value) {
  if (s.size() == 10 && s[0] == '0' && (s[1] == 'f' || s[1] == 'F')) {
    uint32_t b = static_cast<uint32_t>(std::strtoull(s.c_str() + 2, nullptr, 16));
    float f;
    std::memcpy(&f, &b, 4);
    *value = type == Type::F64 ? doubleBits(f) : b;
    return true;
  }
  if (s.size() == 18 && s[0] == '0' && (s[1] == 'd' || s[1] == 'D')) {
    uint64_t b = std::strtoull(s.c_str() + 2, nullptr, 16);
    double d;
    std::memcpy(&d, &b, 8);
    *value = type == Type::F32 ? floatBits(static_cast<float>(d)) : b;
    return true;
  }
  if (s.empty() || !(std::isdigit(static_cast<unsigned char>(s[0])) || s[0] == '-')) return false;
  bool ok;
  uint64_t v = parseInteger(s, &ok);
  if (ok) {
    if (type == Type::F32) v = floatBits(static_cast<float>(static_cast<int64_t>(v)));
    if (type == Type::F64) v = doubleBits(static_cast<double>(static_cast<int64_t>(v)));
    *value = v;
    return true;
  }
  char *end;
  double d = std::strtod(s.c_str(), &end);
  if (*end != '\0') return false;
  *value = type == Type::F32 ? floatBits(static_cast<float>(d)) : doubleBits(d);
  return true;
}

}  // namespace parse
}  // namespace ptx
