package dev.kernelweave.ptx;

import static dev.kernelweave.ptx.ParameterUse.R;
import static dev.kernelweave.ptx.ParameterUse.RW;
import static dev.kernelweave.ptx.ParameterUse.V;
import static dev.kernelweave.ptx.ParameterUse.W;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.kernelweave.call.AccessMode;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class KernelSummaryFormatTest {

  private static final KernelAccessSummary COPY =
      new KernelAccessSummary("copy", List.of(R, W, V), new int[] {8, 8, 4}, false);
  private static final KernelAccessSummary GATHER =
      new KernelAccessSummary("gather", List.of(R, RW), new int[] {8, 16}, true);
  private static final KernelAccessSummary BARE = new KernelAccessSummary("bare", List.of(), new int[0], false);
  private static final KernelAccessSummary BARE_OTHER = new KernelAccessSummary("g", List.of(), new int[0], true);
  private static final KernelAccessSummary TWO_VARIABLES;

  static {
    Map<String, ParameterUse> variables = new LinkedHashMap<>();
    variables.put("c_table", R);
    variables.put("g_count", RW);
    TWO_VARIABLES = new KernelAccessSummary("k", List.of(R), new int[] {8}, true, variables, R);
  }

  @Test
  void lineIsNameTabThenOneTokenPerParameterSeparatedBySingleSpaces() {
    assertEquals("copy\tR W V", KernelSummaryFormat.line(COPY));
    assertEquals("gather\tR RW OTHER", KernelSummaryFormat.line(GATHER));
    assertEquals("bare\t", KernelSummaryFormat.line(BARE));
    assertEquals("g\tOTHER", KernelSummaryFormat.line(BARE_OTHER));
    assertEquals(KernelSummaryFormat.line(COPY), COPY.toString());
  }

  @Test
  void lineNamesModuleVariablesAfterTheParametersAndBeforeOther() {
    assertEquals("k\tR c_table:R g_count:RW *:R OTHER", KernelSummaryFormat.line(TWO_VARIABLES));
    assertEquals("v\tg:W", KernelSummaryFormat.line(
        new KernelAccessSummary("v", List.of(), new int[0], false, Map.of("g", W), V)));
  }

  private static final KernelAccessSummary BOUNDED = new KernelAccessSummary("reward", List.of(R, W, V),
      new int[] {8, 8, 4}, false, Map.of(), V,
      List.of(ParameterExtent.UNBOUNDED, ParameterExtent.of(-4, 12), ParameterExtent.UNBOUNDED));

  @Test
  void boundedExtentFollowsItsUseAndUnboundedPrintsNothing() {
    assertEquals("reward\tR W[-4,12) V", KernelSummaryFormat.line(BOUNDED));
    assertEquals("[\n  {\"name\":\"reward\",\"parameters\":[{\"use\":\"R\",\"bytes\":8},"
        + "{\"use\":\"W\",\"bytes\":8,\"extent\":{\"start\":-4,\"end\":12}},{\"use\":\"V\",\"bytes\":4}],"
        + "\"moduleVariables\":[],\"anyModuleVariable\":\"V\",\"otherMemory\":false,\"prints\":false}\n]",
        KernelSummaryFormat.json(List.of(BOUNDED)));
  }

  @Test
  void extentsAreOnePerParameterAndNeverBoundForAValue() {
    assertEquals(ParameterExtent.UNBOUNDED, COPY.extent(1));
    assertThrows(IllegalArgumentException.class, () -> new KernelAccessSummary("k", List.of(V), new int[] {8},
        false, Map.of(), V, List.of(ParameterExtent.of(0, 4))));
    assertThrows(IllegalArgumentException.class, () -> new KernelAccessSummary("k", List.of(W), new int[] {8},
        false, Map.of(), V, List.of()));
    assertThrows(IllegalArgumentException.class, () -> ParameterExtent.of(4, 4));
    assertThrows(IllegalStateException.class, () -> ParameterExtent.UNBOUNDED.start());
    assertEquals(ParameterExtent.of(0, 4), ParameterExtent.of(0, 4));
    assertFalse(BOUNDED.equals(new KernelAccessSummary("reward", List.of(R, W, V), new int[] {8, 8, 4},
        false)));
  }

  @Test
  void jsonHoldsUsesSizesVariablesAndOtherMemory() {
    assertEquals("[\n"
        + "  {\"name\":\"copy\",\"parameters\":[{\"use\":\"R\",\"bytes\":8},{\"use\":\"W\",\"bytes\":8},"
        + "{\"use\":\"V\",\"bytes\":4}],\"moduleVariables\":[],\"anyModuleVariable\":\"V\",\"otherMemory\":false,\"prints\":false},\n"
        + "  {\"name\":\"gather\",\"parameters\":[{\"use\":\"R\",\"bytes\":8},{\"use\":\"RW\",\"bytes\":16}],"
        + "\"moduleVariables\":[],\"anyModuleVariable\":\"V\",\"otherMemory\":true,\"prints\":false},\n"
        + "  {\"name\":\"k\",\"parameters\":[{\"use\":\"R\",\"bytes\":8}],\"moduleVariables\":"
        + "[{\"name\":\"c_table\",\"use\":\"R\"},{\"name\":\"g_count\",\"use\":\"RW\"}],\"anyModuleVariable\":\"R\","
        + "\"otherMemory\":true,\"prints\":false}\n"
        + "]", KernelSummaryFormat.json(List.of(COPY, GATHER, TWO_VARIABLES)));
    assertEquals("[]", KernelSummaryFormat.json(List.of()));
    assertEquals("[\n  {\"name\":\"a\\\"b\\\\c\\u0001\\n\",\"parameters\":[],\"moduleVariables\":[],"
        + "\"anyModuleVariable\":\"V\",\"otherMemory\":false,\"prints\":false}\n]",
        KernelSummaryFormat.json(List.of(new KernelAccessSummary("a\"b\\c\u0001\n", List.of(), new int[0], false))));
  }

  @Test
  void usesMapToAccessModesAndVToNone() {
    assertEquals(Optional.of(AccessMode.READ), R.accessMode());
    assertEquals(Optional.of(AccessMode.WRITE), W.accessMode());
    assertEquals(Optional.of(AccessMode.READ_WRITE), RW.accessMode());
    assertEquals(Optional.empty(), V.accessMode());
    for (ParameterUse u : ParameterUse.values()) {
      assertEquals(u, ParameterUse.of(u.reads(), u.writes()));
      assertEquals(u.name(), u.symbol());
    }
  }

  @Test
  void summaryChecksItsArgumentsAndCopiesThem() {
    int[] sizes = {8};
    KernelAccessSummary s = new KernelAccessSummary("k", List.of(W), sizes, false);
    sizes[0] = 1;
    assertEquals(8, s.parameterSize(0));
    assertThrows(IllegalArgumentException.class, () -> new KernelAccessSummary("k", List.of(W), new int[2], false));
    assertThrows(IndexOutOfBoundsException.class, () -> s.use(1));
    assertThrows(IndexOutOfBoundsException.class, () -> s.parameterSize(-1));
    assertEquals(KernelAccessSummary.unknown("k", new int[] {8, 4}),
        new KernelAccessSummary("k", List.of(RW, RW), new int[] {8, 4}, true, Map.of(), RW,
            List.of(ParameterExtent.UNBOUNDED, ParameterExtent.UNBOUNDED), true));
    assertEquals("k\tRW RW *:RW OTHER PRINTF", KernelAccessSummary.unknown("k", new int[] {8, 4}).toString());
    Map<String, ParameterUse> variables = new LinkedHashMap<>();
    variables.put("g", R);
    variables.put("unused", V);
    KernelAccessSummary withVariables = new KernelAccessSummary("k", List.of(W), new int[] {8}, false, variables, V);
    variables.put("late", W);
    assertEquals(Map.of("g", R), withVariables.moduleVariables());
    assertThrows(UnsupportedOperationException.class, () -> withVariables.moduleVariables().put("x", R));
  }
}
