package dev.kernelweave.ptx;

import dev.kernelweave.scheduler.OrderingRules;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

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
    return analyzeModule(ptx).kernels();
  }

  /** The summaries of {@link #analyze} with the module's {@code .global} and {@code .const} variables. */
  public static ModuleAccessSummary analyzeModule(CharSequence ptx) {
    return analyzeModule(ptx, OrderingRules.CUDA);
  }

  /**
   * {@link #analyzeModule(CharSequence)} under {@code rules}: {@link OrderingRules#CUDA} but in the
   * fuzz's broken analysis ({@link OrderingRules.Rule#POINTER_DIFFERENCES_KEEP_PROVENANCE}).
   */
  public static ModuleAccessSummary analyzeModule(CharSequence ptx, OrderingRules rules) {
    Objects.requireNonNull(ptx, "ptx");
    boolean seesMixedAddresses = rules.keeps(OrderingRules.Rule.POINTER_DIFFERENCES_KEEP_PROVENANCE);
    PtxModule module;
    try {
      module = PtxParser.parse(ptx);
    } catch (RuntimeException e) {
      return new ModuleAccessSummary(List.of());
    }
    List<KernelAccessSummary> out = new ArrayList<>(module.entries.size());
    Map<String, long[]> forward;
    try {
      forward = ForwardIndexing.analyze(ptx);
    } catch (RuntimeException e) {
      forward = Map.of(); // nothing proven
    }
    for (PtxFunction entry : module.entries) {
      out.add(withForward(ProvenanceAnalysis.analyze(module, entry, seesMixedAddresses), forward.get(entry.name)));
    }
    return new ModuleAccessSummary(out, module.variables);
  }

  /**
   * {@code s} with its forward-only limits: {@link ForwardIndexing}'s where it read the entry with
   * as many parameters, and {@link ForwardIndexing#ALWAYS} for a parameter whose extent is bounded
   * and starts at or above the pointer. A parameter that is not a pointer (V) proves nothing.
   */
  private static KernelAccessSummary withForward(KernelAccessSummary s, long[] proven) {
    long[] limits = new long[s.parameterCount()];
    for (int i = 0; i < limits.length; i++) {
      if (s.use(i) == ParameterUse.V) continue;
      if (proven != null && proven.length == limits.length) limits[i] = proven[i];
      if (s.extent(i).isBounded() && s.extent(i).start() >= 0) limits[i] = ForwardIndexing.ALWAYS;
    }
    return s.withForwardLimits(limits);
  }

  /**
   * The text of a module image as given to {@code cuModuleLoadData} or read from a file: PTX,
   * possibly NUL-terminated. Empty when the image is binary (a cubin, a fatbin) or does not look
   * like PTX at all.
   */
  public static Optional<String> text(byte[] image) {
    Objects.requireNonNull(image, "image");
    if (image.length >= 4 && image[0] == 0x7f && image[1] == 'E' && image[2] == 'L' && image[3] == 'F') {
      return Optional.empty();
    }
    int end = 0;
    while (end < image.length && image[end] != 0) end++;
    for (int i = 0; i < end; i++) {
      int b = image[i] & 0xff;
      if (b < 0x09 || (b > 0x0d && b < 0x20)) return Optional.empty(); // a control character
    }
    String text = new String(image, 0, end, StandardCharsets.ISO_8859_1);
    return text.contains(".version") || text.contains(".entry") ? Optional.of(text) : Optional.empty();
  }
}
