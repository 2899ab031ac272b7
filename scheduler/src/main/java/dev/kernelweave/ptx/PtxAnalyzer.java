package dev.kernelweave.ptx;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * Reads a PTX module and says, for every {@code .entry}, what the kernel does with the memory
 * each parameter points to. Stateless and thread-safe.
 *
 * <p>The answer is never optimistic: see {@link KernelAccessSummary}. Text the analyzer does not
 * understand inside a kernel makes that kernel's answer more conservative (RW, other memory), never
 * an exception. A module that cannot be read at all gives an empty list: a caller treats a kernel
 * it finds no summary for as unknown.
 *
 * <p>Cost: linear in the text for parsing, then a fixpoint per kernel over the kernel and the
 * functions it calls; a module of a few hundred kilobytes takes milliseconds.
 */
public final class PtxAnalyzer {
  private PtxAnalyzer() {}

  /** One summary per {@code .entry} defined in {@code ptx}, in the order of the text. */
  public static List<KernelAccessSummary> analyze(CharSequence ptx) {
    Objects.requireNonNull(ptx, "ptx");
    PtxModule module;
    try {
      module = PtxParser.parse(ptx);
    } catch (RuntimeException e) {
      return List.of();
    }
    List<KernelAccessSummary> out = new ArrayList<>(module.entries.size());
    for (PtxFunction entry : module.entries) out.add(ProvenanceAnalysis.analyze(module, entry));
    return List.copyOf(out);
  }
}
