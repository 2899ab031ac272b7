// PTX text -> ptx::Program. Accepts what nvcc emits for ordinary kernels and rejects, naming the
// statement, every opcode, modifier or type it does not know: what loads, the executor can run.
#include <cctype>
#include <cstdlib>
#include <functional>
#include <set>

#include "ptx_interpreter.h"
#include "ptx_parser.h"

namespace ptx {

namespace parse {

void Parser::unsupported(const Statement &s, const std::string &why) {
  throw Failure{kNotSupported, "PTX line " + std::to_string(s.line) + ": `" + squeeze(s.text) +
                                   "`: the PTX interpreter does not support " + why};
}

void Parser::invalid(const Statement &s, const std::string &why) {
  throw Failure{kInvalidPtx, "PTX line " + std::to_string(s.line) + ": `" + squeeze(s.text) + "`: " + why};
}

void Parser::parse(const std::string &text) {
  // Module level: statements ending in ';', and functions whose header ends in '{'.
  std::vector<Item> items;
  uint32_t line = 1;
  size_t i = 0;
  while (i < text.size()) {
    if (std::isspace(static_cast<unsigned char>(text[i]))) {
      if (text[i++] == '\n') line++;
      continue;
    }
    // Directives that end at the end of their line, without ';'.
    bool lineDirective = false;
    for (const char *d : {".version", ".target", ".address_size"}) {
      lineDirective |= text.compare(i, std::strlen(d), d) == 0;
    }
    if (lineDirective) {
      while (i < text.size() && text[i] != '\n') i++;
      continue;
    }
    if (text.compare(i, 8, ".section") == 0) {  // debug sections (-G): bytes in braces
      size_t open = text.find('{', i), close = text.find('}', i);
      i = open != std::string::npos && open < close ? close + 1 : text.find('\n', i);
      continue;
    }
    size_t start = i;
    uint32_t startLine = line;
    int parens = 0;
    bool initializer = false;
    while (i < text.size()) {
      char c = text[i];
      if (c == '(') parens++;
      if (c == ')') parens--;
      if (c == '=') initializer = true;
      if ((c == ';' || (c == '{' && !initializer)) && parens == 0) break;
      if (c == '\n') line++;
      i++;
    }
    std::string header = text.substr(start, i - start);
    if (i >= text.size()) {
      if (!trim(header).empty()) throw Failure{kInvalidPtx, "PTX ends inside `" + squeeze(header) + "`"};
      break;
    }
    Item item{header, "", text[i] == '{', startLine, line};
    if (text[i] == '{') {
      int depth = 1;
      size_t bodyStart = ++i;
      uint32_t bodyLine = line;
      while (i < text.size() && depth > 0) {
        if (text[i] == '{') depth++;
        if (text[i] == '}') depth--;
        if (text[i] == '\n') line++;
        i++;
      }
      if (depth != 0) throw Failure{kInvalidPtx, "PTX ends inside the function `" + squeeze(header) + "`"};
      item.body = text.substr(bodyStart, i - 1 - bodyStart);
      item.bodyLine = bodyLine;
    } else {
      i++;
    }
    // Leading whitespace lines count for the statement's own line.
    size_t lead = 0;
    while (lead < header.size() && std::isspace(static_cast<unsigned char>(header[lead]))) {
      if (header[lead] == '\n') item.line++;
      lead++;
    }
    if (!trim(header).empty()) items.push_back(item);
  }
  for (const Item &item : items) {
    Statement s{trim(item.header), item.line, {}};
    bool function = s.text.find(".entry") != std::string::npos || s.text.find(".func") != std::string::npos;
    if (function) {
      declareFunction(item);
    } else if (s.text.rfind(".version", 0) == 0 || s.text.rfind(".target", 0) == 0 ||
               s.text.rfind(".address_size", 0) == 0 || s.text.rfind(".file", 0) == 0 ||
               s.text.rfind(".pragma", 0) == 0) {
      continue;
    } else {
      declareVariable(s);
    }
  }
  // Variables a body declares (.shared ones demoted from a kernel) come before dynamic shared memory.
  for (const Item &item : items) {
    if (!item.hasBody) continue;
    for (const Statement &st : splitStatements(item.body, item.bodyLine)) {
      if (st.text.rfind(".shared", 0) == 0) declareVariable(st);
    }
  }
  for (size_t v : externShared) {
    Variable &var = prog.variables[v];
    var.address = (prog.staticSharedBytes + var.align - 1) / var.align * var.align;
  }
  for (const Item &item : items) {
    if (!item.hasBody) continue;
    bool function = item.header.find(".entry") != std::string::npos || item.header.find(".func") != std::string::npos;
    if (!function) continue;
    std::string name;
    {
      // The function's name: the word before its parameter list.
      std::string h = trim(item.header);
      size_t open = h.rfind('(');
      size_t close = h.rfind(')');
      std::string beforeParams = h;
      if (open != std::string::npos && close != std::string::npos && close > open) {
        // With a return value `.func (.param ...) name (params)`: the last '(' opens the parameters.
        beforeParams = h.substr(0, open);
      }
      std::vector<std::string> w = words(beforeParams);
      name = w.empty() ? "" : w.back();
      if (!name.empty() && name.back() == ')') name.clear();
    }
    auto it = prog.functionIndex.find(name);
    if (it == prog.functionIndex.end()) continue;
    parseBody(prog.functions[it->second], item);
  }
  bool calleesMeet = false;
  for (Function &fn : prog.functions) {
    if (fn.code.empty() && fn.entry) throw Failure{kInvalidPtx, "kernel " + fn.name + " has no body"};
    for (const Instr &in : fn.code) {
      fn.meets |= in.op == Op::Bar || in.op == Op::WarpSync || in.op == Op::Shfl || in.op == Op::Vote;
      if (in.op == Op::Call && prog.functions[in.target].code.empty() &&
          prog.functions[in.target].builtin == Builtin::None) {
        throw Failure{kNotSupported, "PTX line " + std::to_string(in.line) + ": the PTX interpreter does not support "
                                         "the external function " + prog.functions[in.target].name +
                                         " (of the functions outside the module it runs vprintf alone)"};
      }
    }
    if (!fn.entry) calleesMeet |= fn.meets;
  }
  // Any device function that meets may be called (directly or not) by any kernel that calls.
  for (Function &fn : prog.functions) {
    for (const Instr &in : fn.code) fn.meets |= calleesMeet && in.op == Op::Call;
  }
}

void Parser::declareVariable(const Statement &s) {
  std::string decl = s.text, init;
  size_t eq = decl.find('=');
  if (eq != std::string::npos) {
    init = trim(decl.substr(eq + 1));
    decl = decl.substr(0, eq);
  }
  std::vector<std::string> w = words(decl);
  Variable v{"", Space::Generic, 0, 0};
  bool isExtern = false;
  Type type = Type::None;
  size_t i = 0;
  for (; i + 1 < w.size(); i++) {
    const std::string &t = w[i];
    if (t == ".visible" || t == ".weak" || t == ".common") continue;
    if (t == ".extern") { isExtern = true; continue; }
    if (t == ".global") { v.space = Space::Global; continue; }
    if (t == ".const") { v.space = Space::Const; continue; }
    if (t == ".shared") { v.space = Space::Shared; continue; }
    if (t == ".align") { v.align = std::strtoull(w[++i].c_str(), nullptr, 10); continue; }
    if (t.size() > 1 && t[0] == '.' && typeNamed(t.substr(1)) != Type::None) { type = typeNamed(t.substr(1)); continue; }
    unsupported(s, "the declaration attribute " + t);
  }
  if (v.space == Space::Generic || type == Type::None || i >= w.size()) unsupported(s, "this declaration");
  std::string name = w[i];
  size_t count = 1;
  bool unsized = false;
  size_t bracket = name.find('[');
  if (bracket != std::string::npos) {
    std::string dims = name.substr(bracket);
    name = name.substr(0, bracket);
    for (size_t at = 0; at < dims.size();) {
      size_t close = dims.find(']', at);
      std::string n = dims.substr(at + 1, close - at - 1);
      if (n.empty()) unsized = true; else count *= std::strtoull(n.c_str(), nullptr, 10);
      at = close + 1;
    }
  }
  size_t elem = static_cast<size_t>(bits(type) / 8);
  v.name = name;
  v.size = unsized ? 0 : elem * count;
  if (v.align == 0) v.align = elem;
  if (v.space == Space::Shared) {
    if (isExtern || unsized) {
      externShared.push_back(prog.variables.size());
    } else {
      prog.staticSharedBytes = (prog.staticSharedBytes + v.align - 1) / v.align * v.align;
      v.address = prog.staticSharedBytes;
      prog.staticSharedBytes += v.size;
    }
  } else {
    if (isExtern) unsupported(s, "an .extern variable (the module must define it)");
    // At least 8 bytes and 16-aligned: a variable is device memory of its own.
    prog.storage.emplace_back(new (std::align_val_t(16)) char[std::max<size_t>(v.size, 8)]());
    char *bytes = prog.storage.back().get();
    v.address = reinterpret_cast<uint64_t>(bytes);
    if (!init.empty()) {
      std::string list = init;
      if (list.front() == '{') list = list.substr(1, list.rfind('}') - 1);
      size_t k = 0;
      for (const std::string &item : splitOperands(list)) {
        uint64_t value;
        if (!parseLiteral(item, type, &value)) unsupported(s, "the initializer " + item);
        if ((k + 1) * elem > v.size) invalid(s, "more initializers than elements");
        std::memcpy(bytes + k * elem, &value, elem);
        k++;
      }
    }
  }
  variableIndex[name] = prog.variables.size();
  prog.variables.push_back(v);
}

// .param declarations of a function's parameter list, laid out in `params` from `*offset`.
void parseParams(const std::string &list, std::vector<Param> &params, size_t *offset, const std::function<void(const std::string &)> &bad) {
  for (const std::string &p : splitOperands(list)) {
    std::vector<std::string> w = words(p);
    size_t align = 0, elem = 0;
    std::string name;
    for (size_t i = 0; i < w.size(); i++) {
      if (w[i] == ".param" || w[i] == ".ptr" || w[i] == ".global" || w[i] == ".const" || w[i] == ".shared" ||
          w[i] == ".local") continue;
      if (w[i] == ".align") { align = std::strtoull(w[++i].c_str(), nullptr, 10); continue; }
      if (w[i][0] == '.' && typeNamed(w[i].substr(1)) != Type::None) { elem = bits(typeNamed(w[i].substr(1))) / 8; continue; }
      if (w[i][0] == '.') bad("the parameter attribute " + w[i]);
      name = w[i];
    }
    if (elem == 0 || name.empty()) bad("the parameter `" + p + "`");
    size_t count = 1;
    size_t bracket = name.find('[');
    if (bracket != std::string::npos) {
      count = std::strtoull(name.c_str() + bracket + 1, nullptr, 10);
      name = name.substr(0, bracket);
    }
    if (align == 0) align = elem;
    *offset = (*offset + align - 1) / align * align;
    params.push_back(Param{name, *offset, elem * count});
    *offset += elem * count;
  }
}

void Parser::declareFunction(const Item &item) {
  Statement s{trim(item.header), item.line, {}};
  std::string h = s.text;
  Function fn;
  fn.entry = h.find(".entry") != std::string::npos;
  size_t at = h.find(fn.entry ? ".entry" : ".func") + (fn.entry ? 6 : 5);
  std::string rest = trim(h.substr(at));
  auto bad = [&](const std::string &why) { unsupported(s, why); };
  size_t offset = 0;
  if (!fn.entry && !rest.empty() && rest[0] == '(') {
    size_t close = rest.find(')');
    parseParams(rest.substr(1, close - 1), fn.returns, &offset, bad);
    rest = trim(rest.substr(close + 1));
  }
  size_t open = rest.find('(');
  fn.name = trim(rest.substr(0, open));
  if (open != std::string::npos) {
    size_t close = rest.find(')', open);
    parseParams(rest.substr(open + 1, close - open - 1), fn.params, &offset, bad);
  }
  fn.paramBytes = offset;
  if (words(h.substr(0, h.find(".func"))) == std::vector<std::string>{".extern"} && fn.name == "vprintf") {
    // The one external the executor implements. Any other may be declared (a module's kernels
    // that are never launched may use it); a call to it fails at load, naming it.
    bool shaped = fn.returns.size() == 1 && fn.returns[0].size == 4 && fn.params.size() == 2 &&
                  fn.params[0].size == 8 && fn.params[1].size == 8;
    if (!shaped) unsupported(s, "vprintf declared with another signature");
    fn.builtin = Builtin::Vprintf;
  }
  if (prog.functionIndex.count(fn.name)) {
    if (item.hasBody) {
      Function &earlier = prog.functions[prog.functionIndex[fn.name]];
      earlier = fn;  // the definition after a prototype
    }
    return;
  }
  prog.functionIndex[fn.name] = static_cast<uint32_t>(prog.functions.size());
  prog.functions.push_back(fn);
}

void Parser::parseBody(Function &fn, const Item &item) {
  Scope scope{&fn, {}, {}, {}, {}};
  for (const Param &p : fn.params) scope.params[p.name] = p.offset;
  for (const Param &p : fn.returns) scope.params[p.name] = p.offset;
  Branches branches;
  for (const Statement &st : splitStatements(item.body, item.bodyLine)) {
    for (const std::string &label : st.labels) scope.labels[label] = static_cast<uint32_t>(fn.code.size());
    if (st.text[0] == '.') {
      declare(scope, st);
    } else {
      fn.code.push_back(instruction(scope, st, branches));
    }
  }
  Instr ret;
  ret.op = Op::Ret;
  fn.code.push_back(ret);
  for (auto &[index, label] : branches) {
    auto it = scope.labels.find(label);
    if (it == scope.labels.end()) {
      throw Failure{kInvalidPtx, "PTX line " + std::to_string(fn.code[index].line) + ": no label " + label};
    }
    fn.code[index].target = it->second;
  }
  fn.registers = static_cast<uint32_t>(scope.registers.size());
}

void Parser::declare(Scope &scope, const Statement &s) {
  std::vector<std::string> w = words(s.text);
  const std::string &kind = w[0];
  if (kind == ".reg") {
    for (size_t i = 1; i < w.size(); i++) {
      if (w[i][0] == '.') {
        if (w[i] == ".v2" || w[i] == ".v4" || isOtherType(w[i].substr(1))) unsupported(s, "registers of " + w[i]);
        if (typeNamed(w[i].substr(1)) == Type::None) unsupported(s, "registers of " + w[i]);
        continue;
      }
      std::string name = w[i];
      size_t lt = name.find('<');
      if (lt != std::string::npos) {
        size_t n = std::strtoull(name.c_str() + lt + 1, nullptr, 10);
        std::string base = name.substr(0, lt);
        for (size_t k = 0; k < n; k++) {
          scope.registers.emplace(base + std::to_string(k), static_cast<uint32_t>(scope.registers.size()));
        }
      } else {
        scope.registers.emplace(name, static_cast<uint32_t>(scope.registers.size()));
      }
    }
  } else if (kind == ".local") {
    size_t align = 8, size = 0;
    std::string name;
    for (size_t i = 1; i < w.size(); i++) {
      if (w[i] == ".align") { align = std::strtoull(w[++i].c_str(), nullptr, 10); continue; }
      if (w[i][0] == '.') { size = bits(typeNamed(w[i].substr(1))) / 8; continue; }
      name = w[i];
    }
    size_t count = 1, bracket = name.find('[');
    if (bracket != std::string::npos) {
      count = std::strtoull(name.c_str() + bracket + 1, nullptr, 10);
      name = name.substr(0, bracket);
    }
    if (size == 0 || align == 0) unsupported(s, "this .local declaration");
    Function &fn = *scope.fn;
    fn.localBytes = (fn.localBytes + align - 1) / align * align;
    scope.locals[name] = fn.localBytes;
    fn.localBytes += size * count;
    prog.usesLocal = true;
  } else if (kind == ".param") {
    std::vector<Param> ps;
    size_t offset = scope.fn->paramBytes;
    parseParams(s.text, ps, &offset, [&](const std::string &why) { unsupported(s, why); });
    for (const Param &p : ps) scope.params[p.name] = p.offset;
    scope.fn->paramBytes = offset;
  } else if (kind == ".shared") {
    // Laid out with the module's shared variables before the bodies were parsed.
  } else if (kind == ".pragma" || kind == ".loc" || kind == ".maxntid" || kind == ".reqntid") {
  } else {
    unsupported(s, "the directive " + kind);
  }
}

Operand Parser::value(Scope &scope, const Statement &s, const std::string &token, Type type) {
  Operand o;
  std::string t = token;
  if (t == "_") return o;
  if (!t.empty() && t[0] == '!') {
    o.negate = true;
    t = t.substr(1);
  }
  if (!t.empty() && t[0] != '%') {
    // PTX register names need no %: inline assembly declares `.reg .b32 t;` in a scoped block.
    auto r = scope.registers.find(t);
    if (r != scope.registers.end()) {
      o.kind = Operand::Reg;
      o.index = r->second;
      return o;
    }
  }
  if (!t.empty() && t[0] == '%') {
    auto r = scope.registers.find(t);
    if (r != scope.registers.end()) {
      o.kind = Operand::Reg;
      o.index = r->second;
      return o;
    }
    static const std::map<std::string, uint32_t> specials = {
        {"%tid.x", kTidX}, {"%tid.y", kTidY}, {"%tid.z", kTidZ}, {"%ntid.x", kNtidX}, {"%ntid.y", kNtidY},
        {"%ntid.z", kNtidZ}, {"%ctaid.x", kCtaidX}, {"%ctaid.y", kCtaidY}, {"%ctaid.z", kCtaidZ},
        {"%nctaid.x", kNctaidX}, {"%nctaid.y", kNctaidY}, {"%nctaid.z", kNctaidZ}, {"%laneid", kLaneid},
        {"%warpid", kWarpid}, {"%nwarpid", kNwarpid}, {"%clock", kClock}, {"%clock64", kClock64},
        {"%lanemask_eq", kLanemaskEq}, {"%lanemask_lt", kLanemaskLt}, {"%lanemask_le", kLanemaskLe},
        {"%lanemask_gt", kLanemaskGt}, {"%lanemask_ge", kLanemaskGe}, {"%globaltimer", kGlobaltimer}};
    auto sp = specials.find(t);
    if (sp == specials.end()) {
      // PTX's other special registers (%smid, %dynamic_smem_size, %cluster_...) or an undeclared one.
      static const std::set<std::string> others = {"%smid", "%nsmid", "%gridid", "%dynamic_smem_size",
                                                   "%total_smem_size", "%clock_hi", "%is_explicit_cluster"};
      if (others.count(t) || t.rfind("%cluster", 0) == 0 || t.rfind("%pm", 0) == 0 || t.rfind("%envreg", 0) == 0) {
        unsupported(s, "the special register " + t);
      }
      invalid(s, "undeclared register " + t);
    }
    o.kind = Operand::Special;
    o.index = sp->second;
    return o;
  }
  uint64_t literal;
  if (parseLiteral(t, type, &literal)) {
    o.kind = Operand::Imm;
    o.imm = literal;
    return o;
  }
  if (scope.locals.count(t)) {
    o.kind = Operand::Local;
    o.imm = scope.locals[t];
    return o;
  }
  if (scope.params.count(t)) {
    o.kind = Operand::Imm;
    o.imm = scope.params[t];
    return o;
  }
  auto v = variableIndex.find(t);
  if (v != variableIndex.end()) {
    o.kind = Operand::Imm;
    o.imm = prog.variables[v->second].address;
    return o;
  }
  if (prog.functionIndex.count(t)) unsupported(s, "the address of a function");
  invalid(s, "unknown operand " + t);
}

// [base], [base+offset], [offset]: into in.addr and in.addrOffset.
void Parser::memory(Scope &scope, const Statement &s, const std::string &token, Instr &in) {
  if (token.size() < 2 || token.front() != '[' || token.back() != ']') invalid(s, "expected an address, got " + token);
  std::string inner = trim(token.substr(1, token.size() - 2));
  size_t plus = inner.find('+', 1);
  std::string base = inner, offset;
  if (plus != std::string::npos) {
    base = trim(inner.substr(0, plus));
    offset = trim(inner.substr(plus + 1));
  }
  in.addr = value(scope, s, base, Type::U64);
  if (in.addr.kind == Operand::Special || in.addr.kind == Operand::Sink || in.addr.negate) invalid(s, "bad address");
  if (!offset.empty()) {
    bool ok;
    in.addrOffset = static_cast<int64_t>(parseInteger(offset, &ok));
    if (!ok) invalid(s, "bad address offset " + offset);
  }
}

}  // namespace parse

std::shared_ptr<Program> load(const char *text, LoadError *error) {
  auto program = std::make_shared<Program>();
  try {
    parse::Parser(*program).parse(parse::stripComments(text));
  } catch (const parse::Failure &f) {
    error->code = f.code;
    error->message = f.message;
    return nullptr;
  }
  // Each global, constant or generic access gets its own slot in a launch's cache of allocations.
  for (Function &fn : program->functions) {
    for (Instr &in : fn.code) {
      bool memory = in.op == Op::Ld || in.op == Op::St || in.op == Op::Atom || in.op == Op::Red;
      if (memory && (in.space == Space::Generic || in.space == Space::Global || in.space == Space::Const)) {
        in.window = program->windows++;
      }
    }
  }
  error->code = 0;
  return program;
}

}  // namespace ptx
