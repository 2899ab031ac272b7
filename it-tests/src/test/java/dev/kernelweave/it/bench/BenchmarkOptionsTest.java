package dev.kernelweave.it.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kernelweave.corpus.Corpus;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

class BenchmarkOptionsTest {

  @Test
  void defaultsRunEveryWorkloadOnTheBenchSize() {
    BenchmarkOptions o = BenchmarkOptions.parse();
    assertEquals(WorkloadRunner.WORKLOADS, o.workloads());
    assertEquals("bench", o.size());
    assertEquals(30, o.warmup());
    assertEquals(1500, o.warmupMillis());
    assertEquals("mode=schedule", o.agentOptions());
    assertEquals(WorkloadRunner.MAIN_CLASS, o.mainClass());
    assertNull(o.agent());
    assertNull(o.classPath());
    assertEquals(7, o.startupRuns());
    assertEquals(WorkloadRunner.CU_INIT_CLASS, o.startupMain());
    assertTrue(o.workloads().contains("pipeline-async"), o.workloads().toString());
    assertEquals(Corpus.names(), o.corpus());
    assertEquals(List.of(new BenchmarkOptions.Regime("warmed", 30, 1500)), o.regimes());
    assertFalse(o.help());
  }

  @Test
  void readsEveryOptionInBothSpellings() {
    BenchmarkOptions o =
        BenchmarkOptions.parse(
            "--workloads", "rl-sim, chain", "--rounds=2", "--warmup", "0", "--warmup-ms=250", "--reps", "4", "--size", "check",
            "--agent", "a.jar", "--agent-options", "mode=schedule,streams=4", "--classpath", "x:y", "--java", "/j",
            "--jvm-arg", "-Xmx1g", "--jvm-arg", "-Dx=1", "--out", "res", "--journals", "j", "--device", "GPU", "--timeout", "60",
            "--main", "M", "--startup-runs", "0", "--startup-main", "S", "--help");
    assertEquals(List.of("rl-sim", "chain"), o.workloads());
    assertEquals(2, o.rounds());
    assertEquals(0, o.warmup());
    assertEquals(250, o.warmupMillis());
    assertEquals(4, o.reps());
    assertEquals("check", o.size());
    assertEquals(Path.of("a.jar"), o.agent());
    assertEquals("mode=schedule,streams=4", o.agentOptions());
    assertEquals("x:y", o.classPath());
    assertEquals("/j", o.java());
    assertEquals(List.of("-Xmx1g", "-Dx=1"), o.jvmArgs());
    assertEquals(Path.of("res"), o.out());
    assertEquals(Path.of("j"), o.journals());
    assertEquals("GPU", o.device());
    assertEquals(60, o.timeoutSeconds());
    assertEquals("M", o.mainClass());
    assertEquals(0, o.startupRuns());
    assertEquals("S", o.startupMain());
    assertTrue(o.help());
  }

  @Test
  void theRegimesAreTheShortOneAndTheWarmUpAsGiven() {
    BenchmarkOptions o = BenchmarkOptions.parse("--regimes", "short, warmed", "--warmup", "7", "--warmup-ms", "200");
    assertEquals(
        List.of(new BenchmarkOptions.Regime("short", 5, 0), new BenchmarkOptions.Regime("warmed", 7, 200)), o.regimes());
    assertEquals("-short", o.regimes().get(0).fileSuffix());
    assertEquals("", o.regimes().get(1).fileSuffix());
  }

  @Test
  void theCorpusIsNamedAllOrNone() {
    assertEquals(List.of("mlp", "jacobi"), BenchmarkOptions.parse("--corpus", "mlp, jacobi").corpus());
    assertEquals(List.of(), BenchmarkOptions.parse("--corpus", "none").corpus());
    assertEquals(List.of(), BenchmarkOptions.parse("--workloads", "none").workloads());
    assertEquals(Corpus.names(), BenchmarkOptions.parse("--corpus", "none", "--corpus=all").corpus());
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> BenchmarkOptions.parse("--corpus", "mlp,branches"));
    assertTrue(e.getMessage().startsWith("--corpus: no program 'branches' (all, none or of copy-loop,"), e.getMessage());
  }

  @Test
  void startupOnlyRunsNoWorkload() {
    BenchmarkOptions o = BenchmarkOptions.parse("--startup-only", "--startup-runs", "15");
    assertEquals(List.of(), o.workloads());
    assertEquals(List.of(), o.corpus());
    assertEquals(15, o.startupRuns());
  }

  @Test
  void rejectsBadArguments() {
    for (String[] bad :
        List.of(
            new String[] {"--rounds", "0"},
            new String[] {"--reps", "many"},
            new String[] {"--size", "huge"},
            new String[] {"--workloads", " , "},
            new String[] {"--corpus", " , "},
            new String[] {"--regimes", "long"},
            new String[] {"--regimes", ","},
            new String[] {"--frobnicate", "1"},
            new String[] {"--startup-runs", "-1"},
            new String[] {"--warmup-ms", "-1"},
            new String[] {"--startup-only", "--startup-runs", "0"},
            new String[] {"--warmup"})) {
      assertThrows(IllegalArgumentException.class, () -> BenchmarkOptions.parse(bad), String.join(" ", bad));
    }
  }

  @Test
  void eachRoundStartsWithAnotherWay() {
    assertEquals(List.of(Way.SERIAL, Way.AGENT, Way.TUNED, Way.PASSTHROUGH, Way.GRAPH), Benchmark.rotation(0));
    assertEquals(List.of(Way.AGENT, Way.TUNED, Way.PASSTHROUGH, Way.GRAPH, Way.SERIAL), Benchmark.rotation(1));
    assertEquals(List.of(Way.GRAPH, Way.SERIAL, Way.AGENT, Way.TUNED, Way.PASSTHROUGH), Benchmark.rotation(4));
    assertEquals(Benchmark.rotation(0), Benchmark.rotation(5));
  }
}
