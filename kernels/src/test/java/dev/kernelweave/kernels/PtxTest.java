package dev.kernelweave.kernels;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** The PTX the build made: what the kernels must and must not contain. */
class PtxTest {

  static Stream<Problem> problems() {
    return Workloads.names().stream().map(name -> Workloads.problem(name, Size.CHECK));
  }

  @Test
  void entriesAndParameterKindsAreParsed() {
    String ptx =
        ".visible .entry f(\n\t.param .u64 .ptr .global .align 4 f_param_0,\n"
            + "\t.param .u32 f_param_1,\n\t.param .f32 f_param_2\n)\n{\n}\n"
            + ".visible .entry g(\n\n)\n{\n}\n";
    assertEquals(
        Map.of("f", List.of(Ptx.Param.POINTER, Ptx.Param.INT, Ptx.Param.FLOAT), "g", List.of()),
        Ptx.entries(ptx));
  }

  @Test
  void theImageEndsInNul() {
    byte[] image = Ptx.image("ab");
    assertEquals(3, image.length);
    assertEquals(0, image[2]);
  }

  @ParameterizedTest
  @MethodSource("problems")
  void everyKernelAWorkloadLaunchesIsInItsModule(Problem problem) {
    Map<String, List<Ptx.Param>> entries = Ptx.entries(Ptx.text(problem.ptx()));
    for (String kernel : problem.kernels()) {
      assertTrue(
          entries.containsKey(kernel),
          problem.ptx() + ".ptx lacks " + kernel + ": " + entries.keySet());
    }
  }

  @ParameterizedTest
  @MethodSource("problems")
  void isVirtualArchitecture75ForTheDriverToCompile(Problem problem) {
    String ptx = Ptx.text(problem.ptx());
    assertTrue(ptx.contains(".target sm_75"), "not built for compute_75");
  }

  @ParameterizedTest
  @MethodSource("problems")
  void roundsEveryFloatOperationAsJavaDoes(Problem problem) {
    List<String> bad = new ArrayList<>();
    Pattern instruction = Pattern.compile("^\\s*([a-z][\\w.]*)\\s", Pattern.MULTILINE);
    Matcher m = instruction.matcher(Ptx.text(problem.ptx()));
    while (m.find()) {
      String op = m.group(1);
      boolean floatArithmetic = op.matches("(add|sub|mul|div|sqrt|rcp)\\..*f32.*");
      boolean fused = op.startsWith("fma.") || op.startsWith("mad.") && op.contains("f32");
      boolean approximate =
          op.contains(".approx")
              || op.contains(".ftz")
              || op.startsWith("ex2.")
              || op.startsWith("lg2.")
              || op.startsWith("sin.")
              || op.startsWith("cos.");
      if (fused || approximate || floatArithmetic && !op.contains(".rn")) {
        bad.add(op);
      }
    }
    assertTrue(
        bad.isEmpty(), problem.ptx() + ".ptx has operations Java cannot match bit for bit: " + bad);
  }

  @ParameterizedTest
  @MethodSource("problems")
  void hasNoAtomicsSoResultsDoNotDependOnTiming(Problem problem) {
    Pattern atomic = Pattern.compile("^\\s*(atom|red)\\.", Pattern.MULTILINE);
    assertFalse(
        atomic.matcher(Ptx.text(problem.ptx())).find(), problem.ptx() + ".ptx uses atomics");
  }
}
