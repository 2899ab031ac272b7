// The parser's pieces shared by ptx_parser.cpp (module, declarations, operands) and
// ptx_instructions.cpp (opcodes, modifiers and operand lists).
#pragma once

#include <functional>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "ptx_program.h"

namespace ptx {
namespace parse {

// Thrown by the parser: code 218 (CUDA_ERROR_INVALID_PTX) for text that is not PTX as we read it,
// 801 (CUDA_ERROR_NOT_SUPPORTED) for valid PTX the interpreter does not run.
struct Failure {
  int code;
  std::string message;
};
constexpr int kInvalidPtx = 218;
constexpr int kNotSupported = 801;

// Comments, and the line-info directives, become spaces; newlines stay.
std::string stripComments(const char *text);
std::string trim(const std::string &s);
std::string squeeze(const std::string &s);
std::vector<std::string> splitOperands(const std::string &s);
std::vector<std::string> words(const std::string &s);
Type typeNamed(const std::string &m);
bool isOtherType(const std::string &m);
uint64_t parseInteger(const std::string &s, bool *ok);
bool parseLiteral(const std::string &s, Type type, uint64_t *value);

struct Statement {
  std::string text;
  uint32_t line;
  std::vector<std::string> labels;
};

// A function's body as statements, each with the labels before it.
std::vector<Statement> splitStatements(const std::string &body, uint32_t firstLine);

// What a function body's names mean while it is parsed.
struct Scope {
  Function *fn;
  std::map<std::string, uint32_t> registers;
  std::map<std::string, uint64_t> params;  // name -> offset in the frame's param area
  std::map<std::string, uint64_t> locals;  // name -> offset in the frame's local depot
  std::map<std::string, uint32_t> labels;
};

using Branches = std::vector<std::pair<size_t, std::string>>;  // instruction index, label

class Parser {
 public:
  explicit Parser(Program &p) : prog(p) {}
  void parse(const std::string &text);

 private:
  struct Item {
    std::string header;  // up to '{' or ';'
    std::string body;    // a function's body, else empty
    bool hasBody;
    uint32_t line, bodyLine;
  };
  Program &prog;
  std::map<std::string, size_t> variableIndex;
  std::vector<size_t> externShared;

  [[noreturn]] void unsupported(const Statement &s, const std::string &why);
  [[noreturn]] void invalid(const Statement &s, const std::string &why);
  void declareVariable(const Statement &s);
  void declareFunction(const Item &item);
  void parseBody(Function &fn, const Item &item);
  void declare(Scope &scope, const Statement &s);
  Operand value(Scope &scope, const Statement &s, const std::string &token, Type type);
  void memory(Scope &scope, const Statement &s, const std::string &token, Instr &in);
  // ptx_instructions.cpp
  Instr instruction(Scope &scope, const Statement &s, Branches &branches);
  void operands(Scope &scope, const Statement &s, const std::vector<std::string> &args, Instr &in, Branches &branches);
};

}  // namespace parse
}  // namespace ptx
