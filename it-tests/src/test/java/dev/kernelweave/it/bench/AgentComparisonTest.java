package dev.kernelweave.it.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Two agents side by side, in real JVMs, on the fake workloads and the fake agent. */
class AgentComparisonTest {

  @TempDir static Path shared;
  static Path agentJar;

  private String output;

  @BeforeAll
  static void buildFakeAgent() throws Exception {
    agentJar = Fakes.agentJar(shared);
  }

  private int compare(String a, String b, String... extra) {
    List<String> args = new ArrayList<>(List.of("--a", a, "--b", b, "--classpath", Fakes.testClassPath(),
        "--main", FakeWorkloadMain.class.getName(), "--rounds", "2", "--warmup", "1", "--warmup-ms", "0",
        "--reps", "3", "--timeout", "60"));
    args.addAll(List.of(extra));
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    int status = AgentComparison.run(args.toArray(String[]::new), new PrintStream(bytes, true, StandardCharsets.UTF_8));
    output = bytes.toString(StandardCharsets.UTF_8);
    return status;
  }

  @Test
  void printsTheRatioOfTheTwoAgentsMediansPerWorkload() {
    assertEquals(0, compare(agentJar.toString(), agentJar + "=fake.faster", "--workloads", "branches,chain"), output);
    // The fake's B runs branches twice as fast (its repetitions add 0.01 ms each) and chain alike.
    assertEquals(1.996, ratio("branches"), 0.0015, output);
    assertEquals(1.0, ratio("chain"), 1e-9, output);
    assertTrue(output.contains("over 2 rounds"), output);
    assertTrue(output.contains("geometric mean of the medians of A/B: 1.413x"), output);
  }

  private double ratio(String workload) {
    String line = output.lines().filter(l -> l.startsWith(workload + " ")).findFirst().orElseThrow();
    String after = line.substring(line.indexOf("A/B ") + 4);
    return Double.parseDouble(after.substring(0, after.indexOf('x')));
  }

  @Test
  void theSameAgentBothWaysIsEven() {
    assertEquals(0, compare(agentJar.toString(), agentJar.toString(), "--workloads", "rl-sim"), output);
    assertTrue(output.contains("A/B 1.000x"), output);
  }

  @Test
  void noAgentAtAllIsASide() {
    assertEquals(0, compare("none", agentJar.toString(), "--workloads", "branches"), output);
    assertTrue(output.contains("A no agent"), output);
    // The fake agent halves the fake workloads' times (11.01 ms to 5.51: each repetition adds 0.01 ms).
    assertEquals(11.01 / 5.51, ratio("branches"), 0.0015, output);
  }

  @Test
  void outputsThatDifferFailTheComparison() {
    assertEquals(1, compare(agentJar.toString(), agentJar + "=fake.other", "--workloads", "rl-sim"), output);
    assertTrue(output.contains("rl-sim") && output.contains("OUTPUTS DIFFER"), output);
    assertTrue(!output.contains("geometric mean"), "no mean of a comparison that failed: " + output);
  }

  @Test
  void badArgumentsNameTheOption() {
    assertEquals(2, compare(agentJar.toString(), shared.resolve("missing.jar").toString()), output);
    assertTrue(output.contains("--b: no agent jar at"), output);
    assertEquals(2, compare(agentJar.toString(), agentJar.toString(), "--rounds", "x"), output);
    assertTrue(output.contains("--rounds needs a whole number, not 'x'"), output);
    assertEquals(2, AgentComparison.run(new String[] {"--a", agentJar.toString()}, new PrintStream(new ByteArrayOutputStream())));
  }
}
