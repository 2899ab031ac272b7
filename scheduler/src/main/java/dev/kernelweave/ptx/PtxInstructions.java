package dev.kernelweave.ptx;

import static dev.kernelweave.ptx.PtxOperands.isAddress;
import static dev.kernelweave.ptx.PtxSyntax.integer;
import static dev.kernelweave.ptx.PtxSyntax.isImmediate;
import static dev.kernelweave.ptx.PtxSyntax.splitTopLevel;
import static dev.kernelweave.ptx.PtxSyntax.typeBytes;

import java.util.ArrayList;
import java.util.List;

/**
 * Reduces one PTX instruction statement to an {@link Insn}: its opcode and modifiers decide the
 * kind, its operands are read by {@link PtxOperands}. Not thread-safe; belongs to one parser.
 */
final class PtxInstructions {

  private final PtxParser parser;
  private final PtxOperands operands;
  /** The statement being read, for {@link #fallback(String)}. */
  private String statementText = "";

  PtxInstructions(PtxParser parser, PtxOperands operands) {
    this.parser = parser;
    this.operands = operands;
  }

  private static byte space(String[] mods) {
    for (int m = 1; m < mods.length; m++) {
      String t = mods[m];
      if (t.equals("global")) return Insn.GLOBAL;
      if (t.startsWith("shared")) return Insn.SHARED;
      if (t.equals("local")) return Insn.LOCAL;
      if (t.startsWith("const")) return Insn.CONST;
      if (t.equals("param") || t.startsWith("param::")) return Insn.PARAM;
    }
    return Insn.GENERIC;
  }

  private static List<Byte> spaces(String[] mods) {
    List<Byte> out = new ArrayList<>(2);
    for (int m = 1; m < mods.length; m++) {
      String t = mods[m];
      if (t.equals("global")) out.add(Insn.GLOBAL);
      else if (t.startsWith("shared")) out.add(Insn.SHARED);
      else if (t.equals("local")) out.add(Insn.LOCAL);
    }
    return out;
  }

  /** Bits of the last type modifier: {@code u32} gives 32; 0 if there is none. */
  private static int typeBits(String[] mods) {
    for (int m = mods.length - 1; m >= 1; m--) {
      int bytes = typeBytes("." + mods[m]);
      if (bytes > 0 && !mods[m].equals("pred")) return bytes * 8;
    }
    return 0;
  }

  private static boolean has(String[] mods, String mod) {
    for (int m = 1; m < mods.length; m++) if (mods[m].equals(mod)) return true;
    return false;
  }

  Insn instruction(String s) {
    statementText = s;
    if (s.charAt(0) == '@') {
      int sp = s.indexOf(' ');
      if (sp < 0) return null;
      s = s.substring(sp + 1).trim();
    }
    int sp = s.indexOf(' ');
    String opcode = sp < 0 ? s : s.substring(0, sp);
    String rest = sp < 0 ? "" : s.substring(sp + 1).trim();
    String[] mods = opcode.split("\\.");
    String base = mods[0];
    List<String> ops = rest.isEmpty() ? List.of() : splitTopLevel(rest, ',');
    int pointerBits = parser.pointerBytes() * 8;

    switch (base) {
      case "ld":
      case "ldu":
        return sized(load(mods, ops, 0, 1), mods);
      case "ldmatrix":
        return load(mods, ops, 0, 1);
      case "st":
        return sized(store(mods, ops), mods);
      case "stmatrix":
        return store(mods, ops);
      case "atom":
        return sized(atomic(mods, ops, true), mods);
      case "red":
        return sized(atomic(mods, ops, false), mods);
      case "discard": {
        Insn insn = new Insn(Insn.STORE);
        insn.space = space(mods);
        if (ops.isEmpty() || !isAddress(ops.get(0))) return fallback(s);
        insn.addr = operands.address(ops.get(0), insn.space, 0, insn);
        return insn;
      }
      case "wmma":
        if (mods.length > 1 && mods[1].equals("load")) return load(mods, ops, 0, 1);
        if (mods.length > 1 && mods[1].equals("store")) return store(mods, ops);
        break;
      case "cp":
        return copy(s, mods, ops);
      case "call":
        return call(ops, s);
      case "tex":
      case "tld4":
      case "txq":
      case "suld":
      case "sust":
      case "sured":
      case "suq":
      case "istypep": {
        Insn insn = new Insn(Insn.OPAQUE);
        if (!ops.isEmpty() && !isAddress(ops.get(0))) insn.dsts = operands.registers(ops.get(0));
        return insn;
      }
      case "prefetch":
      case "prefetchu":
      case "applypriority":
      case "createpolicy":
      case "mbarrier":
      case "bar":
      case "barrier":
      case "membar":
      case "fence":
      case "bra":
      case "brx":
      case "ret":
      case "exit":
      case "trap":
      case "brkpt":
      case "nanosleep":
      case "pmevent":
      case "griddepcontrol":
      case "setmaxnreg":
      case "stackrestore":
      case "setp":
      case "set":
      case "testp":
      case "isspacep":
      case "vote":
      case "match":
      case "activemask":
        return null;
      case "alloca":
      case "stacksave": {
        Insn insn = new Insn(Insn.MOVE);
        insn.dsts = ops.isEmpty() ? Insn.NONE : operands.registers(ops.get(0));
        insn.srcs = new int[] {Ref.LOCAL};
        return insn;
      }
      case "add":
      case "sub":
      case "addc":
      case "subc": {
        if (ops.size() < 3) break;
        Insn insn = sum(ops.get(0), new String[] {ops.get(1), ops.get(2)}, new byte[2]);
        if (mods.length == 2 && typeBits(mods) == pointerBits && insn.dsts.length == 1) {
          // p + c, c + p and p - c keep p's value up to a constant; c - p does not.
          Long second = integer(ops.get(2));
          Long first = base.equals("add") ? integer(ops.get(1)) : null;
          if (second != null && operands.plainRegister(ops.get(1)) >= 0) {
            displace(insn, base.equals("add") ? second : -second);
          } else if (first != null && operands.plainRegister(ops.get(2)) >= 0) {
            displace(insn, first);
          }
        }
        return insn;
      }
      case "mul":
      case "mul24": {
        if (ops.size() < 3 || has(mods, "hi")) break;
        int bits = typeBits(mods) * (has(mods, "wide") ? 2 : 1);
        return product(ops.get(0), ops.get(1), ops.get(2), null, bits >= pointerBits);
      }
      case "mad":
      case "mad24":
      case "fma": {
        if (ops.size() < 4 || has(mods, "hi")) break;
        int bits = typeBits(mods) * (has(mods, "wide") ? 2 : 1);
        return product(ops.get(0), ops.get(1), ops.get(2), ops.get(3), bits >= pointerBits);
      }
      case "shl": {
        if (ops.size() < 3) break;
        boolean wide = typeBits(mods) >= pointerBits;
        Long amount = integer(ops.get(2));
        byte flags;
        if (amount == null) flags = wide ? Insn.PROMOTE : 0;
        else flags = (byte) ((amount >= 1 ? Insn.SCALED : 0) | (wide && amount >= 8 ? Insn.PROMOTE : 0));
        return sum(ops.get(0), new String[] {ops.get(1)}, new byte[] {flags});
      }
      case "mov": {
        if (ops.size() < 2) break;
        Insn insn = new Insn(Insn.MOVE);
        insn.dsts = operands.registers(ops.get(0));
        insn.srcs = operands.values(ops.get(1));
        if (ops.get(1).startsWith("{") && typeBits(mods) >= pointerBits) insn.flags = Insn.PROMOTE;
        if (mods.length == 2 && typeBits(mods) == pointerBits && insn.dsts.length == 1
            && operands.plainRegister(ops.get(1)) >= 0) {
          displace(insn, 0);
        }
        return insn;
      }
      case "selp":
      case "slct": {
        if (ops.size() < 3) break;
        return move(ops.get(0), List.of(ops.get(1), ops.get(2)), (byte) 0);
      }
      case "shfl": {
        if (ops.size() < 2) break;
        return move(ops.get(0), List.of(ops.get(1)), (byte) 0);
      }
      case "cvta": {
        if (ops.isEmpty()) return null;
        Insn insn = move(ops.get(0), ops.subList(1, ops.size()), (byte) 0);
        // A global address and its generic form differ by a constant, if at all.
        if (has(mods, "global") && typeBits(mods) == pointerBits && ops.size() == 2 && insn.dsts.length == 1
            && operands.plainRegister(ops.get(1)) >= 0) {
          displace(insn, 0);
        }
        return insn;
      }
      case "cvt":
      case "and":
      case "or":
      case "xor":
      case "not":
      case "cnot":
      case "neg":
      case "abs":
      case "min":
      case "max":
      case "copysign":
      case "mapa":
      case "redux":
        if (ops.isEmpty()) return null;
        return move(ops.get(0), ops.subList(1, ops.size()), (byte) 0);
      case "shr":
      case "div":
      case "rem":
      case "bfe":
      case "popc":
      case "clz":
      case "bfind":
      case "brev":
        if (ops.isEmpty()) return null;
        return move(ops.get(0), ops.subList(1, ops.size()), Insn.RESTORE);
      default:
        break;
    }
    for (String op : ops) if (isAddress(op)) return fallback(s);
    if (ops.isEmpty()) return null;
    // Anything else: the first operand is the result, which may undo a scaling or rebuild a value.
    byte flags = Insn.RESTORE;
    if (typeBits(mods) >= pointerBits) flags |= Insn.PROMOTE;
    return move(ops.get(0), ops.subList(1, ops.size()), flags);
  }

  /** Marks {@code insn}, whose one source is a plain register, as that register plus {@code constant}. */
  private static void displace(Insn insn, long constant) {
    if (insn.srcs.length != 1 || insn.srcs[0] < 0) return;
    insn.displaced = true;
    insn.displacement = constant;
  }

  /**
   * Gives a plain load, store or atomic its size: the element's bytes times the lanes of a vector.
   * Bulk forms, whose size is an operand, keep 0.
   */
  private static Insn sized(Insn insn, String[] mods) {
    if (insn.kind != Insn.LOAD && insn.kind != Insn.STORE && insn.kind != Insn.ATOMIC) return insn;
    for (int m = 1; m < mods.length; m++) if (mods[m].contains("bulk")) return insn;
    insn.bytes = width(mods) * lanes(mods);
    return insn;
  }

  private Insn move(String dst, List<String> srcs, byte flags) {
    Insn insn = new Insn(Insn.MOVE);
    insn.dsts = operands.registers(dst);
    List<Integer> refs = new ArrayList<>();
    for (String op : srcs) for (int r : operands.values(op)) refs.add(r);
    insn.srcs = refs.stream().mapToInt(Integer::intValue).toArray();
    insn.flags = flags;
    return insn;
  }

  private Insn sum(String dst, String[] terms, byte[] flags) {
    Insn insn = new Insn(Insn.SUM);
    insn.dsts = operands.registers(dst);
    List<Integer> refs = new ArrayList<>();
    List<Byte> fl = new ArrayList<>();
    for (int t = 0; t < terms.length; t++) {
      for (int r : operands.values(terms[t])) {
        refs.add(r);
        fl.add(flags[t]);
      }
    }
    insn.srcs = refs.stream().mapToInt(Integer::intValue).toArray();
    insn.termFlags = new byte[fl.size()];
    for (int j = 0; j < fl.size(); j++) insn.termFlags[j] = fl.get(j);
    return insn;
  }

  /**
   * {@code a * b [+ c]}: a factor multiplied by an even integer constant is scaled; by an odd one it
   * keeps its provenance, since a second odd constant can undo the first (modulo 2^64 every odd
   * number has an inverse), which no count of an index times a stride can tell from a pointer.
   */
  private Insn product(String dst, String a, String b, String addend, boolean wide) {
    Long ca = integer(a);
    Long cb = integer(b);
    List<String> terms = new ArrayList<>(3);
    List<Byte> flags = new ArrayList<>(3);
    if (ca != null || cb != null) {
      long c = ca != null ? ca : cb;
      String factor = ca != null ? b : a;
      if (c != 0) {
        long m = Math.abs(c);
        byte f = (byte) ((m >= 2 && (m & 1) == 0 ? Insn.SCALED : 0) | (wide && m >= 256 ? Insn.PROMOTE : 0));
        terms.add(factor);
        flags.add(f);
      }
    } else {
      terms.add(a);
      flags.add((byte) 0);
      terms.add(b);
      flags.add((byte) 0);
    }
    if (addend != null) {
      terms.add(addend);
      flags.add((byte) 0);
    }
    byte[] fl = new byte[flags.size()];
    for (int j = 0; j < fl.length; j++) fl[j] = flags.get(j);
    return sum(dst, terms.toArray(new String[0]), fl);
  }

  /** Elements of a vector access ({@code .v4}: 4), 1 for a scalar one. */
  private static int lanes(String[] mods) {
    for (int m = 1; m < mods.length; m++) {
      String t = mods[m];
      if (t.length() == 2 && t.charAt(0) == 'v' && Character.isDigit(t.charAt(1))) return t.charAt(1) - '0';
    }
    return 1;
  }

  private static int width(String[] mods) {
    return typeBits(mods) / 8;
  }

  private Insn load(String[] mods, List<String> ops, int dst, int addr) {
    if (ops.size() <= Math.max(dst, addr) || !isAddress(ops.get(addr))) return fallback(statementText);
    Insn insn = new Insn(Insn.LOAD);
    insn.space = space(mods);
    insn.width = width(mods);
    insn.dsts = operands.registers(ops.get(dst));
    insn.addr = operands.address(ops.get(addr), insn.space, insn.width * lanes(mods), insn);
    return insn;
  }

  private Insn store(String[] mods, List<String> ops) {
    if (ops.size() < 2 || !isAddress(ops.get(0))) return fallback(statementText);
    Insn insn = new Insn(Insn.STORE);
    insn.space = space(mods);
    insn.width = width(mods);
    insn.addr = operands.address(ops.get(0), insn.space, insn.width, insn);
    insn.srcs = operands.valuesOf(ops.subList(1, ops.size()));
    return insn;
  }

  private Insn atomic(String[] mods, List<String> ops, boolean hasResult) {
    int a = hasResult ? 1 : 0;
    if (ops.size() <= a || !isAddress(ops.get(a))) return fallback(statementText);
    Insn insn = new Insn(Insn.ATOMIC);
    insn.space = space(mods);
    insn.width = width(mods);
    if (hasResult) insn.dsts = operands.registers(ops.get(0));
    insn.addr = operands.address(ops.get(a), insn.space, insn.width, insn);
    insn.srcs = operands.valuesOf(ops.subList(a + 1, ops.size()));
    return insn;
  }

  private Insn copy(String s, String[] mods, List<String> ops) {
    String opcode = String.join(".", mods);
    if (opcode.contains("tensor")) return new Insn(Insn.OPAQUE);
    boolean anyAddress = false;
    for (String op : ops) anyAddress |= isAddress(op);
    if (!anyAddress || opcode.contains("prefetch") || opcode.startsWith("cp.async.mbarrier")) return null;
    List<Byte> spaces = spaces(mods);
    if (ops.size() < 2 || !isAddress(ops.get(0)) || !isAddress(ops.get(1)) || spaces.size() != 2) {
      return fallback(s);
    }
    Insn insn = new Insn(Insn.COPY);
    insn.space = spaces.get(0);
    insn.space2 = spaces.get(1);
    insn.addr = operands.address(ops.get(0), insn.space, 0, null);
    insn.addr2 = operands.address(ops.get(1), insn.space2, 0, null);
    insn.reduce = mods[1].equals("reduce");
    return insn;
  }

  /** {@code call[.uni] [(rets),] target[, (args)][, prototype|targets]}. */
  private Insn call(List<String> ops, String s) {
    if (ops.isEmpty()) return fallback(s);
    int i = 0;
    Insn insn = new Insn(Insn.CALL);
    if (ops.get(0).startsWith("(")) {
      insn.rets = operands.names(ops.get(0));
      i = 1;
    }
    if (i >= ops.size()) return fallback(s);
    String target = ops.get(i).trim();
    if (i + 1 < ops.size() && ops.get(i + 1).startsWith("(")) insn.args = operands.names(ops.get(i + 1));
    boolean indirect = target.startsWith("%") || parser.lookup(target) >= 0;
    insn.callKind = indirect ? Insn.CALL_UNKNOWN : Insn.CALL_DIRECT;
    insn.callee = indirect ? null : target;
    return insn;
  }

  /**
   * An instruction this parser does not model but that has an address operand: every register
   * it names may be read, written, or used as an address.
   */
  Insn fallback(String s) {
    Insn insn = new Insn(Insn.FALLBACK);
    List<Integer> refs = new ArrayList<>();
    List<Integer> dsts = new ArrayList<>();
    StringBuilder name = new StringBuilder();
    boolean first = true;
    int sp = s.indexOf(' ');
    String ops = sp < 0 ? "" : s.substring(sp + 1);
    for (int i = 0; i <= ops.length(); i++) {
      char c = i < ops.length() ? ops.charAt(i) : ' ';
      if (Character.isLetterOrDigit(c) || c == '_' || c == '$' || c == '%' || c == '.') {
        name.append(c);
        continue;
      }
      if (name.length() > 0) {
        String t = name.toString();
        name.setLength(0);
        if (!isImmediate(t)) {
          int r = parser.lookup(t);
          if (r != Ref.NOTHING) {
            refs.add(r);
            if (first && r >= 0) dsts.add(r);
          }
        }
      }
      if (c == ',') first = false;
    }
    insn.srcs = refs.stream().mapToInt(Integer::intValue).toArray();
    insn.dsts = dsts.stream().mapToInt(Integer::intValue).toArray();
    return insn;
  }
}
