// A PTX module as the interpreter holds it: functions of decoded instructions (operands resolved to
// register numbers, immediates and addresses), and the module's variables. ptx_parser.cpp builds
// it and rejects anything ptx_executor.cpp and ptx_semantics.cpp cannot run.
#pragma once

#include <cstdint>
#include <cstring>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace ptx {

enum class Type : uint8_t { None, B8, B16, B32, B64, U8, U16, U32, U64, S8, S16, S32, S64, F32, F64, Pred };

inline int bits(Type t) {
  switch (t) {
    case Type::B8: case Type::U8: case Type::S8: return 8;
    case Type::B16: case Type::U16: case Type::S16: return 16;
    case Type::B32: case Type::U32: case Type::S32: case Type::F32: return 32;
    case Type::B64: case Type::U64: case Type::S64: case Type::F64: return 64;
    case Type::Pred: return 1;
    default: return 0;
  }
}
inline bool isSigned(Type t) { return t == Type::S8 || t == Type::S16 || t == Type::S32 || t == Type::S64; }
inline bool isFloat(Type t) { return t == Type::F32 || t == Type::F64; }

enum class Op : uint8_t {
  Mov, Pack, Unpack, Ld, St, Cvta, CvtaTo, Cvt,
  Add, Sub, Mul, Mad, Fma, Div, Rem, Abs, Neg, Min, Max,
  And, Or, Xor, Not, Cnot, Shl, Shr, Popc, Clz, Brev, Bfe, Bfi, Prmt, Lop3, Copysign, Shf, Bfind,
  Setp, Selp, Sqrt, Rcp, Rsqrt, Ex2, Lg2, Sin, Cos, Tanh,
  Bra, Call, Ret, Exit, Trap, Bar, WarpSync, Nop, Atom, Red, Shfl, Vote,
};

// Sub-operations, in Instr::mode.
enum : uint8_t { kLo, kHi, kWide };                                        // mul, mad
enum : uint8_t { kRn, kApprox, kFull };                                    // div, sqrt, rcp
enum : uint8_t { kRoundNone, kRni, kRzi, kRmi, kRpi };                     // cvt
enum : uint8_t { kEq, kNe, kLt, kLe, kGt, kGe, kLo_, kLs, kHi_, kHs,       // setp
                 kEqu, kNeu, kLtu, kLeu, kGtu, kGeu, kNum, kNan };
enum : uint8_t { kCombineNone, kCombineAnd, kCombineOr, kCombineXor };     // setp's .and/.or/.xor
enum : uint8_t { kAtomAdd, kAtomMin, kAtomMax, kAtomExch, kAtomCas,        // atom, red
                 kAtomAnd, kAtomOr, kAtomXor, kAtomInc, kAtomDec };
enum : uint8_t { kShflUp, kShflDown, kShflBfly, kShflIdx };                // shfl
enum : uint8_t { kVoteAll, kVoteAny, kVoteUni, kVoteBallot };              // vote
enum : uint8_t { kShfRight = 1, kShfWrap = 2 };                            // shf (bits)
enum : uint8_t { kBfindShiftAmount = 1 };                                  // bfind

enum class Space : uint8_t { Generic, Global, Const, Shared, Local, Param };

// Special registers, read by Operand::Special.
enum Special : uint32_t {
  kTidX, kTidY, kTidZ, kNtidX, kNtidY, kNtidZ, kCtaidX, kCtaidY, kCtaidZ, kNctaidX, kNctaidY, kNctaidZ,
  kLaneid, kWarpid, kNwarpid, kClock, kClock64, kLanemaskEq, kLanemaskLt, kLanemaskLe, kLanemaskGt,
  kLanemaskGe, kGlobaltimer,
};

struct Operand {
  // Reg: a register (regs[index]); Imm: a value; Special: a special register (index);
  // Local: the frame's local depot address plus imm; Sink: `_`, or an absent output.
  enum Kind : uint8_t { Reg, Imm, Special, Local, Sink } kind = Sink;
  bool negate = false;  // `!p`, a predicate read inverted
  uint32_t index = 0;
  uint64_t imm = 0;
};

struct Instr {
  Op op;
  Type type = Type::None;
  Type type2 = Type::None;  // cvt's source type
  uint8_t mode = 0;         // one of the sub-operation enums above
  uint8_t combine = 0;      // setp
  bool ftz = false;
  uint8_t vec = 1;          // ld/st .v2/.v4: operands ops[0..vec-1]
  Space space = Space::Generic;
  int32_t guard = -1;       // predicate register, or -1
  bool guardNegated = false;
  uint8_t nops = 0;
  Operand ops[6];
  Operand addr;             // memory operand's base, for ld, st, atom, red
  int64_t addrOffset = 0;
  uint32_t target = 0;      // bra: instruction index; call: function index
  uint32_t window = 0;      // ld, st, atom, red of global, const or generic memory: its slot in a launch's
                            // cache of the allocation it last touched (Program::windows of them)
  std::vector<uint64_t> callParams;  // call: caller's param-area offsets of the return value, then the arguments
  uint32_t line = 0;
};

struct Param {
  std::string name;
  size_t offset, size;
};

// A function outside the module that the interpreter provides itself.
enum class Builtin : uint8_t { None, Vprintf };

struct Function {
  std::string name;
  bool entry = false;
  Builtin builtin = Builtin::None;   // an .extern .func the interpreter implements
  std::vector<Param> params;         // an entry's kernel parameters, a function's arguments
  std::vector<Param> returns;        // a function's return value, if any
  size_t paramBytes = 0;             // params, returns, then the callseq .param variables
  size_t localBytes = 0;             // the frame's local depot(s)
  uint32_t registers = 0;
  std::vector<Instr> code;
  bool meets = false;  // it, or a function it may call, waits for other threads (bar, shfl, vote)
};

struct Variable {
  std::string name;
  Space space;
  size_t size, align;
  uint64_t address = 0;  // Global/Const: host address; Shared: offset in the block's shared memory
};

struct Program {
  std::vector<Function> functions;
  std::map<std::string, uint32_t> functionIndex;
  std::vector<Variable> variables;
  std::vector<std::unique_ptr<char[]>> storage;  // the global and constant variables' bytes
  size_t staticSharedBytes = 0;  // then dynamic shared memory (.extern .shared) begins
  bool usesLocal = false;
  uint32_t windows = 0;  // memory instructions whose addresses a launch checks (Instr::window)
};

}  // namespace ptx
