package dev.kernelweave.ptx;

import java.util.Optional;

/**
 * What {@link KernelMerging} made of one kernel: its merged variant, or why there is none.
 * Immutable and thread-safe.
 */
public final class MergedKernel {

  /** The suffix of a merged variant's name: {@code axpy} merges as {@code axpy__kw_merged}. */
  public static final String SUFFIX = "__kw_merged";

  private final String kernel;
  private final String refusal;
  private final String entryText;
  private final String moduleText;
  private final MergedLaunchTable table;

  private MergedKernel(String kernel, String refusal, String entryText, String moduleText, MergedLaunchTable table) {
    this.kernel = kernel;
    this.refusal = refusal;
    this.entryText = entryText;
    this.moduleText = moduleText;
    this.table = table;
  }

  static MergedKernel refused(String kernel, String reason) {
    return new MergedKernel(kernel, reason, null, null, null);
  }

  static MergedKernel merged(String kernel, String entryText, String moduleText, MergedLaunchTable table) {
    return new MergedKernel(kernel, null, entryText, moduleText, table);
  }

  /** The original kernel's name. */
  public String kernel() {
    return kernel;
  }

  /** The merged variant's entry name. */
  public String mergedName() {
    return kernel + SUFFIX;
  }

  public boolean mergeable() {
    return refusal == null;
  }

  /** Why the kernel is not merged, one short phrase ({@code "reads %clock64"}); empty when it is. */
  public Optional<String> refusal() {
    return Optional.ofNullable(refusal);
  }

  /**
   * The merged {@code .entry} alone, to append to the kernel's module text. Its parameters: a
   * {@code .u64} pointer to the table ({@link #table()}) and the {@code .u32} number of rows.
   */
  public String entryText() {
    return require(entryText);
  }

  /**
   * The kernel's module with the merged entry appended: load it in place of the original, so
   * that the merged entry shares the module's variables with the original kernels.
   */
  public String moduleText() {
    return require(moduleText);
  }

  /** The layout of the table the merged entry reads. */
  public MergedLaunchTable table() {
    return require(table);
  }

  /** {@code part} of the merged variant, which only a mergeable kernel has. */
  private <T> T require(T part) {
    if (part == null) throw new IllegalStateException(kernel + " is not mergeable: " + refusal);
    return part;
  }

  /** The {@code ptx} command's column: {@code mergeable}, or {@code not mergeable: REASON}. */
  public String verdict() {
    return mergeable() ? "mergeable" : "not mergeable: " + refusal;
  }

  @Override
  public String toString() {
    return kernel + ": " + verdict();
  }
}
