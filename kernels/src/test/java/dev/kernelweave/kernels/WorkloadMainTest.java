package dev.kernelweave.kernels;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeFalse;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class WorkloadMainTest {

  private final ByteArrayOutputStream out = new ByteArrayOutputStream();
  private final ByteArrayOutputStream err = new ByteArrayOutputStream();

  private int run(String... args) {
    return WorkloadMain.run(
        args,
        new PrintStream(out, true, StandardCharsets.UTF_8),
        new PrintStream(err, true, StandardCharsets.UTF_8));
  }

  @Test
  void helpPrintsTheUsageAndSucceeds() {
    assertEquals(0, run("--help"));
    String text = out.toString(StandardCharsets.UTF_8);
    assertTrue(text.startsWith("usage: WorkloadMain NAME"), text);
    assertEquals("", err.toString(StandardCharsets.UTF_8));
  }

  @Test
  void defaultsAreSerialBenchThreeWarmupsTenReps() {
    assertEquals(
        new WorkloadMain.Options("chain", Variant.SERIAL, Size.BENCH, 3, 0, 10),
        WorkloadMain.Options.parse("chain"));
  }

  @Test
  void optionsMayComeBeforeOrAfterTheName() {
    assertEquals(
        new WorkloadMain.Options("rl-sim", Variant.TUNED, Size.CHECK, 0, 1500, 2),
        WorkloadMain.Options.parse(
            "--variant", "tuned", "rl-sim", "--size", "check", "--warmup", "0", "--reps", "2", "--warmup-ms", "1500"));
  }

  @Test
  void theGraphVariantIsAVariantOfTheWorkloadsButNotOfTheCorpus() {
    assertEquals(Variant.GRAPH, WorkloadMain.Options.parse("dynamic", "--variant", "graph").variant());
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class, () -> WorkloadMain.Options.parse("mlp", "--variant", "graph"));
    assertEquals("corpus program 'mlp' has only the serial variant", e.getMessage());
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "",
        "nope",
        "chain heads",
        "chain --size",
        "chain --size huge",
        "chain --variant fast",
        "chain --reps 0",
        "chain --warmup -1",
        "chain --warmup-ms -5",
        "chain --warmup-ms soon",
        "chain --reps x",
        "chain --colour red"
      })
  void badArgumentsExitWithTwoAndSayWhy(String line) {
    String[] args = line.isEmpty() ? new String[0] : line.split(" ");
    assertEquals(2, run(args));
    String message = err.toString(StandardCharsets.UTF_8);
    assertTrue(message.startsWith("error: ") && message.contains("usage:"), message);
    assertEquals("", out.toString(StandardCharsets.UTF_8));
  }

  @Test
  void withoutAGpuSaysSoOnOneLineAndExitsWithThree() {
    assumeFalse(Gpu.available(), "this machine has a GPU");
    assertEquals(3, run("chain", "--size", "check"));
    String printed = out.toString(StandardCharsets.UTF_8);
    assertTrue(printed.startsWith("no GPU: "), printed);
    assertEquals(1, printed.lines().count(), printed);
  }

  @Test
  void cuInitProgramWithoutAGpuSaysSoOnOneLineAndExitsWithThree() {
    assumeFalse(Gpu.available(), "this machine has a GPU");
    assertEquals(3, CuInitMain.run(new PrintStream(out, true, StandardCharsets.UTF_8)));
    String printed = out.toString(StandardCharsets.UTF_8);
    assertTrue(printed.startsWith("no GPU: "), printed);
    assertEquals(1, printed.lines().count(), printed);
  }

  @Test
  void gpuAvailabilityIsAnsweredWithoutThrowing() {
    boolean available = Gpu.available();
    assertEquals(available, Gpu.problem() == null);
  }

  @Test
  void theResultLineIsOneJsonObjectWithEveryField() {
    WorkloadMain.Options options =
        new WorkloadMain.Options("heads", Variant.TUNED, Size.CHECK, 1, 0, 2);
    TimedRepetitions.Result result =
        new TimedRepetitions.Result(List.of(1.5, 0.25), new byte[0], "ab12", null, 7, Instant.parse("2026-11-25T14:30:00.123456789Z"));
    assertEquals(
        "{\"name\":\"heads\",\"variant\":\"tuned\",\"size\":\"check\",\"sizes\":\"a \\\"b\\\"\","
            + "\"ms\":[1.500,0.250],\"checksum\":\"ab12\",\"reference\":\"ok\","
            + "\"warmups\":7,\"timedFrom\":\"2026-11-25T14:30:00.123456789Z\"}",
        WorkloadMain.json(options, "a \"b\"", result, "ok"));
  }

  @Test
  void verdictIsSkippedAtBenchOkOrMismatchAtCheckAndMismatchWhenRepetitionsDiffer() {
    Problem chain = Workloads.problem("chain", Size.CHECK);
    byte[] reference = chain.reference();
    TimedRepetitions.Result good = new TimedRepetitions.Result(List.of(1.0), reference, "x", null, 0, Instant.EPOCH);
    assertEquals("ok", WorkloadMain.verdict(chain, Size.CHECK, good));
    assertEquals("skipped", WorkloadMain.verdict(chain, Size.BENCH, good));
    byte[] wrong = reference.clone();
    wrong[5] ^= 1;
    String mismatch =
        WorkloadMain.verdict(
            chain, Size.CHECK, new TimedRepetitions.Result(List.of(1.0), wrong, "x", null, 0, Instant.EPOCH));
    assertTrue(mismatch.startsWith("mismatch: 1 of 1024 words differ; first at word 1"), mismatch);
    TimedRepetitions.Result unstable =
        new TimedRepetitions.Result(List.of(1.0), reference, "x", "repetition 2 ...", 0, Instant.EPOCH);
    assertTrue(
        WorkloadMain.verdict(chain, Size.BENCH, unstable).startsWith("mismatch: repetition 2"));
  }

  @Test
  void workloadNamesAreThoseOfTheProtocol() {
    assertEquals(
        List.of("branches", "rl-sim", "dynamic", "heads", "pipeline", "pipeline-async", "chain"),
        Workloads.names());
    assertThrows(IllegalArgumentException.class, () -> Workloads.problem("chains", Size.CHECK));
  }
}
