package dev.kernelweave.ptx;

import dev.kernelweave.text.JsonStrings;
import java.util.List;

/** The printed forms of {@link KernelAccessSummary}. Stateless. */
public final class KernelSummaryFormat {
  private KernelSummaryFormat() {}

  /** The token that follows the parameters' when the kernel touches memory no parameter names. */
  public static final String OTHER = "OTHER";

  /** The last token when the kernel may print (device printf, a failed assert). */
  public static final String PRINTF = "PRINTF";

  /** The name a module-variable token gives to every variable of the module. */
  public static final String ANY_VARIABLE = "*";

  /**
   * The version of what a summary says, for anything that keeps summaries outside this process: a
   * summary kept by another version must be analysed again, not read. 1: uses, module variables,
   * OTHER; 2: each parameter's {@link ParameterExtent} as well; 3: whether the kernel prints; 4:
   * each parameter's forward-only proof ({@link KernelAccessSummary#forwardLimit(int)}); 5: proofs
   * conditional on a parameter's value.
   */
  public static final int VERSION = 5;

  /**
   * {@code name<TAB>tokens}: one token per parameter in order (R, W, RW or V, followed by its extent
   * {@code [start,end)} when bounded: {@code W[0,4)}; else {@code +} when the kernel never touches
   * memory below the pointer ({@link KernelAccessSummary#forwardLimit(int)}), {@code +x<=L} when that
   * holds for launches with {@code gridDim.x * blockDim.x <= L}: {@code RW+x<=2147483648}, {@code
   * +2x+p1<=2147483647} when it holds for launches whose parameter 1 and {@code x = gridDim.x *
   * blockDim.x} meet that ({@link ForwardIndexing#isConditional}); then one
   * {@code variable:USE} per module variable the kernel uses, in the order of the module
   * ({@code *:USE} for any variable of the module); then OTHER when
   * {@link KernelAccessSummary#touchesOtherMemory()}; then PRINTF when {@link KernelAccessSummary#prints()};
   * separated by single spaces. A kernel without
   * parameters, variables or other memory prints its name and the tab alone.
   */
  public static String line(KernelAccessSummary s) {
    StringBuilder b = new StringBuilder(s.name().length() + 4 * s.parameterCount() + 8);
    b.append(s.name()).append('\t');
    int tokens = 0;
    for (int i = 0; i < s.parameterCount(); i++) {
      if (tokens++ > 0) b.append(' ');
      b.append(s.use(i).symbol());
      if (s.extent(i).isBounded()) b.append(s.extent(i));
      long forward = s.extent(i).isBounded() ? ForwardIndexing.NOT_PROVEN : s.forwardLimit(i); // [0,n) says it
      if (forward == ForwardIndexing.ALWAYS) b.append('+');
      else if (ForwardIndexing.isConditional(forward)) b.append('+').append(ForwardIndexing.describe(forward));
      else if (forward != ForwardIndexing.NOT_PROVEN) b.append("+x<=").append(forward);
    }
    for (var v : s.moduleVariables().entrySet()) {
      if (tokens++ > 0) b.append(' ');
      b.append(v.getKey()).append(':').append(v.getValue().symbol());
    }
    if (s.anyModuleVariable() != ParameterUse.V) {
      if (tokens++ > 0) b.append(' ');
      b.append(ANY_VARIABLE).append(':').append(s.anyModuleVariable().symbol());
    }
    if (s.touchesOtherMemory()) {
      if (tokens++ > 0) b.append(' ');
      b.append(OTHER);
    }
    if (s.prints()) {
      if (tokens > 0) b.append(' ');
      b.append(PRINTF);
    }
    return b.toString();
  }

  /**
   * A JSON array with one object per kernel, one per line:
   * {@code {"name":"k","parameters":[{"use":"R","bytes":8}],"moduleVariables":[{"name":"table","use":"R"}],
   * "anyModuleVariable":"V","otherMemory":false,"prints":false}}; a parameter with a bounded extent has it too:
   * {@code {"use":"W","bytes":8,"extent":{"start":0,"end":4}}} (end exclusive); a parameter without
   * one that is proven forward-only has {@code "forward":true}, with {@code "forwardThreadsX":L} when that holds only for
   * launches with {@code gridDim.x * blockDim.x <= L}.
   */
  public static String json(List<KernelAccessSummary> kernels) {
    return json(kernels, null);
  }

  /**
   * {@link #json(List)}, each kernel's object ending with its merge verdict ({@link KernelMerging}):
   * {@code "mergeable":true}, or {@code "mergeable":false,"notMergeable":"REASON"}.
   *
   * @param merged one per kernel, in the same order; null for none
   */
  public static String json(List<KernelAccessSummary> kernels, List<MergedKernel> merged) {
    StringBuilder b = new StringBuilder("[");
    for (int k = 0; k < kernels.size(); k++) {
      KernelAccessSummary s = kernels.get(k);
      b.append(k == 0 ? "\n  " : ",\n  ");
      b.append("{\"name\":");
      JsonStrings.appendQuoted(b, s.name());
      b.append(",\"parameters\":[");
      for (int i = 0; i < s.parameterCount(); i++) {
        if (i > 0) b.append(',');
        b.append("{\"use\":\"").append(s.use(i).symbol()).append("\",\"bytes\":").append(s.parameterSize(i));
        if (s.extent(i).isBounded()) {
          b.append(",\"extent\":{\"start\":").append(s.extent(i).start()).append(",\"end\":")
              .append(s.extent(i).end()).append('}');
        }
        long forward = s.extent(i).isBounded() ? ForwardIndexing.NOT_PROVEN : s.forwardLimit(i); // as in line()
        if (forward != ForwardIndexing.NOT_PROVEN) b.append(",\"forward\":true");
        if (ForwardIndexing.isConditional(forward)) {
          b.append(",\"forwardCondition\":\"").append(ForwardIndexing.describe(forward)).append('"');
        } else if (forward != ForwardIndexing.NOT_PROVEN && forward != ForwardIndexing.ALWAYS) {
          b.append(",\"forwardThreadsX\":").append(forward);
        }
        b.append('}');
      }
      b.append("],\"moduleVariables\":[");
      int j = 0;
      for (var v : s.moduleVariables().entrySet()) {
        if (j++ > 0) b.append(',');
        b.append("{\"name\":");
        JsonStrings.appendQuoted(b, v.getKey());
        b.append(",\"use\":\"").append(v.getValue().symbol()).append("\"}");
      }
      b.append("],\"anyModuleVariable\":\"").append(s.anyModuleVariable().symbol()).append('"');
      b.append(",\"otherMemory\":").append(s.touchesOtherMemory());
      b.append(",\"prints\":").append(s.prints());
      if (merged != null) {
        MergedKernel m = merged.get(k);
        b.append(",\"mergeable\":").append(m.mergeable());
        if (!m.mergeable()) {
          b.append(",\"notMergeable\":");
          JsonStrings.appendQuoted(b, m.refusal().orElseThrow());
        }
      }
      b.append('}');
    }
    b.append(kernels.isEmpty() ? "]" : "\n]");
    return b.toString();
  }
}
