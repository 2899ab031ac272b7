package dev.kernelweave.it.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The device's judge on a real GPU ({@code judge=on}, the default): a workload run long enough for
 * its window shapes to be judged keeps its bytes, and its journal has the sampled device times of
 * its windows, each a plausible time (more than nothing, less than the whole run's), with a verdict
 * for every shape that executed past its trial; with {@code judge=in-order} every known window is
 * issued in order, and the bytes stay the same. Skips itself where there is no GPU.
 */
class WindowJudgingGpuTest {

  private static final long TIMEOUT_SECONDS = 300;

  @TempDir Path journals;

  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"rl-sim", "branches"})
  void judgedWindowsKeepTheBytesAndJournalTheirDeviceTimes(String workload) throws Exception {
    String classPath = ProjectLayout.workloadClassPath();
    Assumptions.assumeFalse(classPath.isEmpty(), "skipped: the kernels module is not on the test class path");
    Path agentJar = ProjectLayout.discover().agentJar();
    Jvm jvm = new Jvm(Jvm.currentJava(), TIMEOUT_SECONDS);
    WorkloadRunner plain = new WorkloadRunner(jvm, classPath, WorkloadRunner.MAIN_CLASS, agentJar, "", List.of());
    WorkloadRunner.Attempt serial = plain.run(workload, Way.SERIAL, "check", 1, 0, 1, null);
    Assumptions.assumeFalse(serial.noGpu(), () -> "skipped: no GPU (" + serial.lastLine() + ")");
    assertTrue(serial.ok(), () -> serial.problem() + "\n" + serial.run().describeFailure(40));

    // 1500 repetitions at --size check: thousands of executions of each window shape.
    WorkloadRunner judged = new WorkloadRunner(jvm, classPath, WorkloadRunner.MAIN_CLASS, agentJar, "judge=on", List.of());
    Path journal = journals.resolve(workload);
    WorkloadRunner.Attempt on = judged.run(workload, Way.AGENT, "check", 1500, 0, 5, journal);
    assertTrue(on.ok(), () -> on.problem() + "\n" + on.run().describeFailure(40));
    assertEquals(serial.result().checksum(), on.result().checksum(), "judge=on changed the output");

    Jvm.Run stats = jvm.run(List.of("-jar", agentJar.toString(), "inspect", "stats", "--format", "json",
        Files.list(journal).findFirst().orElse(journal).toString()));
    assertEquals(0, stats.exitCode(), String.join("\n", stats.lines()));
    JsonObject json = JsonParser.parseString(String.join("\n", stats.lines())).getAsJsonObject();
    assertTrue(json.has("window_times"), "no window was timed: " + json);
    JsonObject times = json.getAsJsonObject("window_times");
    int judgedShapes = 0;
    for (JsonElement e : times.getAsJsonArray("shapes")) {
      JsonObject shape = e.getAsJsonObject();
      if (shape.get("graph_samples").getAsInt() > 0) {
        double us = shape.get("graph_device_us").getAsDouble();
        assertTrue(us > 0 && us < 1_000_000, "a graph's device time: " + shape);
      }
      if (!shape.get("verdict").getAsString().equals("not yet")) {
        judgedShapes++;
        assertTrue(shape.get("in_order_samples").getAsInt() > 0, "judged without trying the other way: " + shape);
      }
    }
    assertTrue(judgedShapes > 0, "no window shape was judged: " + times);

    WorkloadRunner inOrder =
        new WorkloadRunner(jvm, classPath, WorkloadRunner.MAIN_CLASS, agentJar, "judge=in-order", List.of());
    WorkloadRunner.Attempt ordered = inOrder.run(workload, Way.AGENT, "check", 20, 0, 5, journals.resolve(workload + "-in-order"));
    assertTrue(ordered.ok(), () -> ordered.problem() + "\n" + ordered.run().describeFailure(40));
    assertEquals(serial.result().checksum(), ordered.result().checksum(), "judge=in-order changed the output");
  }
}
