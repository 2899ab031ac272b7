package dev.kernelweave.ptx;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
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
    Objects.requireNonNull(ptx, "ptx");
    PtxModule module;
    try {
      module = PtxParser.parse(ptx);
    } catch (RuntimeException e) {
      return new ModuleAccessSummary(List.of());
    }
    List<KernelAccessSummary> out = new ArrayList<>(module.entries.size());
    for (PtxFunction entry : module.entries) out.add(ProvenanceAnalysis.analyze(module, entry));
    return new ModuleAccessSummary(out, module.variables);
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
