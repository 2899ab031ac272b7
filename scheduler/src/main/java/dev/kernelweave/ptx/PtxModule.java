package dev.kernelweave.ptx;

import java.util.List;
import java.util.Map;

/** A parsed PTX module: its functions and how wide a pointer is. Immutable once parsed. */
final class PtxModule {
  final int pointerBytes;
  /** Defined entries, in the order of the text. */
  final List<PtxFunction> entries;
  /** Every function by name (a definition wins over a declaration), aliases included. */
  final Map<String, PtxFunction> functions;
  /** Module-scope {@code .global} and {@code .const} variables, each once, in the order of the text. */
  final List<ModuleVariable> variables;

  PtxModule(int pointerBytes, List<PtxFunction> entries, Map<String, PtxFunction> functions,
      List<ModuleVariable> variables) {
    this.pointerBytes = pointerBytes;
    this.entries = entries;
    this.functions = functions;
    this.variables = variables;
  }
}
