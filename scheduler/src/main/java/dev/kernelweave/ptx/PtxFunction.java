package dev.kernelweave.ptx;

import java.util.ArrayList;
import java.util.List;

/** A {@code .entry} or {@code .func} of a parsed module. Mutable only while the parser builds it. */
final class PtxFunction {

  /** A parameter or return value as declared in the header. */
  static final class Param {
    final String name;
    /** Bytes, from the declaration; 0 when the type is not understood. */
    final int size;
    /** For a {@code .func}: the variable that holds it; for an {@code .entry}: -1. */
    final int var;
    /** Declared {@code .reg} rather than {@code .param}: its name denotes a value. */
    final boolean register;

    Param(String name, int size, int var, boolean register) {
      this.name = name;
      this.size = size;
      this.var = var;
      this.register = register;
    }
  }

  final String name;
  final boolean entry;
  final List<Param> params = new ArrayList<>();
  final List<Param> returns = new ArrayList<>();
  final List<Insn> insns = new ArrayList<>();
  boolean defined;
  int varCount;

  PtxFunction(String name, boolean entry) {
    this.name = name;
    this.entry = entry;
  }
}
