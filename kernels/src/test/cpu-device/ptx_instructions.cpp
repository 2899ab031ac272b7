// Instructions: an opcode with its modifiers and operands -> Instr. Every modifier must be known
// here, and ptx_semantics.cpp's unsupportedReason must accept the result, or the module fails to load.
#include <set>

#include "ptx_parser.h"
#include "ptx_semantics.h"

namespace ptx {
namespace parse {

namespace {

const std::map<std::string, Op> &opcodes() {
  static const std::map<std::string, Op> all = {
      {"mov", Op::Mov},     {"ld", Op::Ld},       {"ldu", Op::Ld},        {"st", Op::St},      {"cvta", Op::Cvta},
      {"cvt", Op::Cvt},     {"add", Op::Add},     {"sub", Op::Sub},       {"mul", Op::Mul},    {"mad", Op::Mad},
      {"fma", Op::Fma},     {"div", Op::Div},     {"rem", Op::Rem},       {"abs", Op::Abs},    {"neg", Op::Neg},
      {"min", Op::Min},     {"max", Op::Max},     {"and", Op::And},       {"or", Op::Or},      {"xor", Op::Xor},
      {"not", Op::Not},     {"cnot", Op::Cnot},   {"shl", Op::Shl},       {"shr", Op::Shr},    {"popc", Op::Popc},
      {"clz", Op::Clz},     {"brev", Op::Brev},   {"bfe", Op::Bfe},       {"bfi", Op::Bfi},    {"prmt", Op::Prmt},
      {"lop3", Op::Lop3},   {"copysign", Op::Copysign}, {"setp", Op::Setp}, {"selp", Op::Selp}, {"sqrt", Op::Sqrt},
      {"rcp", Op::Rcp},     {"rsqrt", Op::Rsqrt}, {"ex2", Op::Ex2},       {"lg2", Op::Lg2},    {"sin", Op::Sin},
      {"cos", Op::Cos},     {"bra", Op::Bra},     {"call", Op::Call},     {"ret", Op::Ret},    {"exit", Op::Exit},
      {"trap", Op::Trap},
      {"bar", Op::Bar},     {"barrier", Op::Bar}, {"membar", Op::Nop},    {"fence", Op::Nop},  {"atom", Op::Atom},
      {"red", Op::Red},     {"shfl", Op::Shfl},   {"vote", Op::Vote},     {"prefetch", Op::Nop},
      {"nanosleep", Op::Nop}, {"shf", Op::Shf},   {"bfind", Op::Bfind},   {"tanh", Op::Tanh},
  };
  return all;
}

// Modifiers that change nothing on one CPU thread at a time: caching hints, memory orders, scopes.
bool ignorable(const std::string &m) {
  static const std::set<std::string> all = {"nc", "ca", "cg", "cs", "lu", "cv", "wb", "wt", "volatile", "relaxed",
                                            "acquire", "release", "acq_rel", "weak", "gpu", "sys", "cta", "uni",
                                            "aligned", "sync", "sc", "gl", "L1", "L2"};
  return all.count(m) > 0 || m.rfind("L1::", 0) == 0 || m.rfind("L2::", 0) == 0;
}

bool spaceNamed(const std::string &m, Space *space) {
  static const std::map<std::string, Space> all = {{"global", Space::Global}, {"const", Space::Const},
                                                   {"shared", Space::Shared}, {"shared::cta", Space::Shared},
                                                   {"local", Space::Local},   {"param", Space::Param}};
  auto it = all.find(m);
  if (it == all.end()) return false;
  *space = it->second;
  return true;
}

template <typename T>
bool lookup(const std::map<std::string, T> &table, const std::string &key, T *out) {
  auto it = table.find(key);
  if (it == table.end()) return false;
  *out = it->second;
  return true;
}

const std::map<std::string, uint8_t> kCompares = {
    {"eq", kEq},   {"ne", kNe},   {"lt", kLt},   {"le", kLe},   {"gt", kGt},   {"ge", kGe},
    {"lo", kLo_},  {"ls", kLs},   {"hi", kHi_},  {"hs", kHs},   {"equ", kEqu}, {"neu", kNeu},
    {"ltu", kLtu}, {"leu", kLeu}, {"gtu", kGtu}, {"geu", kGeu}, {"num", kNum}, {"nan", kNan}};
const std::map<std::string, uint8_t> kCombines = {{"and", kCombineAnd}, {"or", kCombineOr}, {"xor", kCombineXor}};
const std::map<std::string, uint8_t> kAtomics = {{"add", kAtomAdd}, {"min", kAtomMin}, {"max", kAtomMax},
                                                 {"exch", kAtomExch}, {"cas", kAtomCas}, {"and", kAtomAnd},
                                                 {"or", kAtomOr}, {"xor", kAtomXor}, {"inc", kAtomInc},
                                                 {"dec", kAtomDec}};
const std::map<std::string, uint8_t> kShuffles = {{"up", kShflUp}, {"down", kShflDown}, {"bfly", kShflBfly}, {"idx", kShflIdx}};
const std::map<std::string, uint8_t> kVotes = {{"all", kVoteAll}, {"any", kVoteAny}, {"uni", kVoteUni}, {"ballot", kVoteBallot}};
const std::map<std::string, uint8_t> kIntegerRoundings = {{"rni", kRni}, {"rzi", kRzi}, {"rmi", kRmi}, {"rpi", kRpi}};

std::vector<std::string> splitDots(const std::string &opcode) {
  std::vector<std::string> parts;
  size_t start = 0;
  for (size_t i = 0; i <= opcode.size(); i++) {
    if (i == opcode.size() || opcode[i] == '.') {
      parts.push_back(opcode.substr(start, i - start));
      start = i + 1;
    }
  }
  return parts;
}

// How many operands an instruction of plain values has: destination first.
int valueOperands(Op op) {
  switch (op) {
    case Op::Mov: case Op::Cvt: case Op::Cvta: case Op::CvtaTo: case Op::Abs: case Op::Neg: case Op::Not:
    case Op::Cnot: case Op::Popc: case Op::Clz: case Op::Brev: case Op::Sqrt: case Op::Rcp: case Op::Rsqrt:
    case Op::Ex2: case Op::Lg2: case Op::Sin: case Op::Cos: case Op::Tanh: case Op::Bfind:
      return 2;
    case Op::Add: case Op::Sub: case Op::Mul: case Op::Div: case Op::Rem: case Op::Min: case Op::Max:
    case Op::And: case Op::Or: case Op::Xor: case Op::Shl: case Op::Shr: case Op::Copysign:
      return 3;
    case Op::Mad: case Op::Fma: case Op::Selp: case Op::Bfe: case Op::Prmt: case Op::Shf:
      return 4;
    case Op::Bfi: case Op::Lop3:
      return 5;
    default:
      return -1;
  }
}

}  // namespace

Instr Parser::instruction(Scope &scope, const Statement &s, Branches &branches) {
  Instr in;
  in.line = s.line;
  std::string text = s.text;
  if (text[0] == '@') {
    size_t sp = text.find_first_of(" \t\r\n");
    if (sp == std::string::npos) invalid(s, "a guard without an instruction");
    std::string g = text.substr(1, sp - 1);
    in.guardNegated = g[0] == '!';
    if (in.guardNegated) g = g.substr(1);
    auto r = scope.registers.find(g);
    if (r == scope.registers.end()) invalid(s, "unknown predicate " + g);
    in.guard = static_cast<int32_t>(r->second);
    text = trim(text.substr(sp));
  }
  size_t sp = text.find_first_of(" \t\r\n");
  std::string opcode = text.substr(0, sp);
  std::string rest = sp == std::string::npos ? "" : trim(text.substr(sp));
  std::vector<std::string> parts = splitDots(opcode);
  const std::string &name = parts[0];
  if (!lookup(opcodes(), name, &in.op)) unsupported(s, "the instruction " + name);
  std::vector<Type> types;
  std::string rounding;
  bool modeGiven = false;  // the comparison, atomic operation, shuffle or vote
  for (size_t i = 1; i < parts.size(); i++) {
    const std::string &m = parts[i];
    Type t = typeNamed(m);
    uint8_t code;
    if (t != Type::None) {
      types.push_back(t);
    } else if (isOtherType(m)) {
      unsupported(s, "the type ." + m);
    } else if (in.op == Op::Setp && !modeGiven && lookup(kCompares, m, &code)) {
      in.mode = code;
      modeGiven = true;
    } else if (in.op == Op::Setp && lookup(kCombines, m, &code)) {
      in.combine = code;
    } else if ((in.op == Op::Mul || in.op == Op::Mad) && (m == "lo" || m == "hi" || m == "wide")) {
      in.mode = m == "lo" ? kLo : m == "hi" ? kHi : kWide;
    } else if ((in.op == Op::Atom || in.op == Op::Red) && lookup(kAtomics, m, &code)) {
      in.mode = code;
      modeGiven = true;
    } else if (in.op == Op::Shfl && lookup(kShuffles, m, &code)) {
      in.mode = code;
      modeGiven = true;
    } else if (in.op == Op::Vote && lookup(kVotes, m, &code)) {
      in.mode = code;
      modeGiven = true;
    } else if (in.op == Op::Cvt && lookup(kIntegerRoundings, m, &code)) {
      in.mode = code;
      rounding = m;
    } else if (m == "rn" || m == "rz" || m == "rm" || m == "rp" || m == "approx" || m == "full") {
      if (m == "rz" || m == "rm" || m == "rp") unsupported(s, "the rounding ." + m + " (only .rn)");
      rounding = m;
      in.mode = m == "rn" ? kRn : m == "approx" ? kApprox : kFull;
    } else if (m == "ftz") {
      in.ftz = true;
    } else if ((in.op == Op::Ld || in.op == Op::St) && (m == "v2" || m == "v4")) {
      in.vec = m == "v2" ? 2 : 4;
    } else if (in.op == Op::Shf && (m == "l" || m == "r" || m == "clamp" || m == "wrap")) {
      if (m == "r") in.mode |= kShfRight;
      if (m == "wrap") in.mode |= kShfWrap;
    } else if (in.op == Op::Bfind && m == "shiftamt") {
      in.mode = kBfindShiftAmount;
    } else if (in.op == Op::Cvta && m == "to") {
      in.op = Op::CvtaTo;
    } else if (in.op == Op::Bar && m == "warp") {
      in.op = Op::WarpSync;
    } else if ((in.op == Op::Ld || in.op == Op::St || in.op == Op::Atom || in.op == Op::Red || in.op == Op::Cvta ||
                in.op == Op::CvtaTo || in.op == Op::Nop) && spaceNamed(m, &in.space)) {
    } else if (ignorable(m)) {
    } else {
      unsupported(s, "the modifier ." + m + " of " + name);
    }
  }
  if ((in.op == Op::Setp || in.op == Op::Atom || in.op == Op::Red || in.op == Op::Shfl || in.op == Op::Vote) &&
      !modeGiven) {
    invalid(s, name + " without its operation");
  }
  if (!types.empty() && isFloat(types[0]) && in.op != Op::Cvt) {
    // Which roundings a float instruction takes: .rn (the default of add, sub, mul, fma), .approx, .full.
    bool exact = in.op == Op::Add || in.op == Op::Sub || in.op == Op::Mul || in.op == Op::Fma || in.op == Op::Mad;
    bool approximate = in.op == Op::Rsqrt || in.op == Op::Ex2 || in.op == Op::Lg2 || in.op == Op::Sin || in.op == Op::Cos ||
                       in.op == Op::Tanh;
    bool either = in.op == Op::Div || in.op == Op::Sqrt || in.op == Op::Rcp;
    if (exact && !(rounding.empty() || rounding == "rn")) invalid(s, "." + rounding + " on " + name);
    if (in.op == Op::Mad && rounding.empty()) unsupported(s, "mad.f32 without .rn (unfused, sm_1x)");
    if (approximate && rounding != "approx") invalid(s, name + " needs .approx");
    if (either && rounding.empty()) invalid(s, name + " needs a rounding");
    if (!exact && !approximate && !either && !rounding.empty()) invalid(s, "." + rounding + " on " + name);
  }
  if (in.op == Op::Bar && opcode.find("sync") == std::string::npos) unsupported(s, name + " other than " + name + ".sync");
  if (in.op == Op::Cvt) {
    if (types.size() != 2) invalid(s, "cvt needs two types");
    in.type = types[0];
    in.type2 = types[1];
    bool toFloat = isFloat(in.type), fromFloat = isFloat(in.type2);
    if (toFloat && fromFloat && in.type == in.type2 && rounding.empty()) in.mode = kRoundNone;
    if (fromFloat && !toFloat && in.mode < kRni) unsupported(s, "a float-to-integer cvt without .rni/.rzi/.rmi/.rpi");
    if (toFloat && !fromFloat && in.mode >= kRni) invalid(s, "an integer rounding for an integer-to-float cvt");
    if (toFloat && in.type == Type::F32 && in.type2 == Type::F64 && rounding.empty()) invalid(s, "f64 to f32 needs a rounding");
  } else if (in.op == Op::Bra || in.op == Op::Call || in.op == Op::Ret || in.op == Op::Exit || in.op == Op::Trap || in.op == Op::Bar ||
             in.op == Op::WarpSync || in.op == Op::Nop) {
    if (!types.empty()) unsupported(s, "a typed " + name);
  } else {
    if (types.size() != 1) invalid(s, "expected one type");
    in.type = types[0];
  }
  std::vector<std::string> args = rest.empty() ? std::vector<std::string>{} : splitOperands(rest);
  operands(scope, s, args, in, branches);
  if (const char *why = unsupportedReason(in)) unsupported(s, why);
  return in;
}

void Parser::operands(Scope &scope, const Statement &s, const std::vector<std::string> &args, Instr &in,
                      Branches &branches) {
  auto count = [&](size_t lo, size_t hi) {
    if (args.size() < lo || args.size() > hi) invalid(s, "wrong number of operands");
  };
  auto destination = [&](const std::string &t, Type type) {
    Operand o = value(scope, s, t, type);
    if (o.kind != Operand::Reg && o.kind != Operand::Sink) invalid(s, "the destination " + t + " is no register");
    return o;
  };
  auto vectorElements = [&](const std::string &t) {
    if (t.size() < 2 || t.front() != '{' || t.back() != '}') return std::vector<std::string>{t};
    return splitOperands(t.substr(1, t.size() - 2));
  };
  switch (in.op) {
    case Op::Ld: case Op::St: {
      count(2, 2);
      bool load = in.op == Op::Ld;
      std::vector<std::string> data = vectorElements(args[load ? 0 : 1]);
      if (data.size() != in.vec) invalid(s, "the vector size and the operands differ");
      memory(scope, s, args[load ? 1 : 0], in);
      for (size_t i = 0; i < data.size(); i++) in.ops[i] = load ? destination(data[i], in.type) : value(scope, s, data[i], in.type);
      in.nops = in.vec;
      return;
    }
    case Op::Atom: case Op::Red: {
      bool atom = in.op == Op::Atom;
      bool cas = in.mode == kAtomCas;
      size_t n = (atom ? 3 : 2) + (cas ? 1 : 0);
      count(n, n);
      size_t at = 0;
      in.ops[0] = atom ? destination(args[at++], in.type) : Operand{};
      memory(scope, s, args[at++], in);
      in.ops[1] = value(scope, s, args[at++], in.type);
      if (cas) in.ops[2] = value(scope, s, args[at++], in.type);
      in.nops = 3;
      return;
    }
    case Op::Setp: case Op::Shfl: {
      bool setp = in.op == Op::Setp;
      if (setp) count(3, 4); else count(4, 5);
      std::string d = args[0], p = "_";
      size_t bar = d.find('|');
      if (bar != std::string::npos) {
        p = trim(d.substr(bar + 1));
        d = trim(d.substr(0, bar));
      }
      in.ops[0] = destination(d, in.type);
      in.ops[1] = destination(p, Type::Pred);
      for (size_t i = 1; i < args.size(); i++) in.ops[1 + i] = value(scope, s, args[i], setp || i == 1 ? in.type : Type::B32);
      if (setp && (args.size() == 4) != (in.combine != kCombineNone)) invalid(s, "setp's .and/.or/.xor needs a third source");
      if (!setp && args.size() == 4) in.ops[5] = Operand{Operand::Imm, false, 0, 0xffffffffu};  // no mask: the warp
      in.nops = 6;
      return;
    }
    case Op::Vote: {
      count(2, 3);
      in.ops[0] = destination(args[0], in.type);
      in.ops[1] = value(scope, s, args[1], Type::Pred);
      in.ops[2] = args.size() == 3 ? value(scope, s, args[2], Type::B32) : Operand{Operand::Imm, false, 0, 0xffffffffu};
      in.nops = 3;
      return;
    }
    case Op::Mov:
      count(2, 2);
      if (args[0][0] == '{' || args[1][0] == '{') {
        bool pack = args[1][0] == '{';
        std::vector<std::string> parts = vectorElements(args[pack ? 1 : 0]);
        if (parts.size() != 2) unsupported(s, "a mov of other than two halves");
        Type half = bits(in.type) == 64 ? Type::B32 : bits(in.type) == 32 ? Type::B16 : Type::None;
        if (half == Type::None) unsupported(s, "this mov of halves");
        in.op = pack ? Op::Pack : Op::Unpack;
        if (pack) {
          in.ops[0] = destination(args[0], in.type);
          in.ops[1] = value(scope, s, parts[0], half);
          in.ops[2] = value(scope, s, parts[1], half);
        } else {
          in.ops[0] = destination(parts[0], half);
          in.ops[1] = destination(parts[1], half);
          in.ops[2] = value(scope, s, args[1], in.type);
        }
        in.nops = 3;
        return;
      }
      break;
    case Op::Bra: {
      count(1, 1);
      branches.emplace_back(scope.fn->code.size(), args[0]);
      return;
    }
    case Op::Call: {
      // call (returns), name, (arguments);  -- the lists optional.
      size_t at = 0;
      std::vector<std::string> returns, arguments;
      auto list = [&](const std::string &t) {
        std::string inner = trim(t.substr(1, t.rfind(')') - 1));
        return inner.empty() ? std::vector<std::string>{} : splitOperands(inner);
      };
      if (at < args.size() && args[at][0] == '(') returns = list(args[at++]);
      if (at >= args.size()) invalid(s, "call without a function");
      std::string callee = args[at++];
      if (callee[0] == '%') unsupported(s, "an indirect call");
      if (at < args.size() && args[at][0] == '(') arguments = list(args[at++]);
      if (at != args.size()) unsupported(s, "this form of call");
      auto f = prog.functionIndex.find(callee);
      if (f == prog.functionIndex.end()) invalid(s, "no function " + callee);
      in.target = f->second;
      const Function &fn = prog.functions[f->second];
      if (returns.size() != fn.returns.size() || arguments.size() != fn.params.size()) {
        invalid(s, "the call's operands do not match " + callee + "'s parameters");
      }
      for (const std::vector<std::string> *names : {&returns, &arguments}) {
        for (const std::string &n : *names) {
          auto p = scope.params.find(n);
          if (p == scope.params.end()) invalid(s, n + " is no .param variable");
          in.callParams.push_back(p->second);
        }
      }
      in.mode = static_cast<uint8_t>(returns.size());
      return;
    }
    case Op::Ret: case Op::Exit: case Op::Trap:
      count(0, 0);
      return;
    case Op::Bar: {
      count(1, 2);
      if (args.size() == 2) unsupported(s, "a barrier with a thread count");
      in.ops[0] = value(scope, s, args[0], Type::U32);
      in.nops = 1;
      return;
    }
    case Op::WarpSync:
      count(1, 1);
      in.ops[0] = value(scope, s, args[0], Type::B32);
      in.nops = 1;
      return;
    case Op::Nop:
      return;
    default:
      break;
  }
  int n = valueOperands(in.op);
  if (n < 0) unsupported(s, "this instruction");
  count(static_cast<size_t>(n), static_cast<size_t>(n));
  in.ops[0] = destination(args[0], in.op == Op::Setp ? Type::Pred : in.type);
  for (int i = 1; i < n; i++) {
    Type t = in.type;
    if (in.op == Op::Cvt) t = in.type2;
    if (in.op == Op::Selp && i == 3) t = Type::Pred;
    if ((in.op == Op::Shl || in.op == Op::Shr) && i == 2) t = Type::U32;
    if (in.op == Op::Shf && i == 3) t = Type::U32;
    if (in.op == Op::Bfe && i >= 2) t = Type::U32;
    if (in.op == Op::Bfi && i >= 3) t = Type::U32;
    if (in.op == Op::Lop3 && i == 4) t = Type::B32;
    in.ops[i] = value(scope, s, args[static_cast<size_t>(i)], t);
  }
  in.nops = static_cast<uint8_t>(n);
}

}  // namespace parse
}  // namespace ptx
