package dev.kernelweave.agent.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class SelfTestCommandTest {

  private final ByteArrayOutputStream out = new ByteArrayOutputStream();
  private final ByteArrayOutputStream err = new ByteArrayOutputStream();

  private int run(String... args) {
    return Main.run(args, new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true,
        StandardCharsets.UTF_8));
  }

  private String out() {
    return out.toString(StandardCharsets.UTF_8);
  }

  private String err() {
    return err.toString(StandardCharsets.UTF_8);
  }

  private String lastLine() {
    String[] lines = out().strip().split("\n");
    return lines[lines.length - 1];
  }

  @Test
  void simulatedRunEndsWithTheSummary() {
    assertEquals(0, run("selftest", "--sim", "--seed", "1", "--programs", "60", "--streams", "4"));
    assertEquals("60 passed, 0 failed", lastLine());
    assertTrue(out().contains("seed 1, 60 programs, 4 streams"), out());
  }

  @Test
  void mutantIsCaughtAndItsProgramShrunk() {
    assertEquals(1, run("selftest", "--sim", "--seed", "1", "--programs", "40", "--mutant", "drop-raw"));
    assertTrue(lastLine().matches("\\d+ passed, [1-9]\\d* failed"), lastLine());
    assertTrue(out().contains("first failing program, shrunk:"), out());
    assertTrue(out().contains("shrunk from"), out());
  }

  @Test
  void unknownMutantNamesTheFlagAndTheAcceptedValues() {
    assertEquals(Main.USAGE, run("selftest", "--sim", "--mutant", "drop-all"));
    assertTrue(err().contains("--mutant"), err());
    assertTrue(err().contains("drop-raw, drop-war, no-free-wait"), err());
  }

  @Test
  void badNumbersAreUsageErrors() {
    assertEquals(Main.USAGE, run("selftest", "--sim", "--streams", "65"));
    assertTrue(err().contains("--streams: expected 1..64"), err());
    assertEquals(Main.USAGE, run("selftest", "--sim", "--programs", "many"));
    assertTrue(err().contains("--programs: expected a whole number, got 'many'"), err());
    assertEquals(Main.USAGE, run("selftest", "--sim", "--seed"));
    assertTrue(err().contains("--seed needs a value"), err());
  }

  @Test
  void unknownOptionAndMissingModeAreUsageErrors() {
    assertEquals(Main.USAGE, run("selftest", "--sim", "--fast"));
    assertTrue(err().contains("unknown option '--fast'"), err());
    assertEquals(Main.USAGE, run("selftest", "--programs", "3"));
    assertTrue(err().contains("choose --sim"), err());
    assertEquals(Main.USAGE, run("selftest", "--gpu", "--mutant", "drop-raw"));
    assertTrue(err().contains("--sim only"), err());
  }

  @Test
  void gpuWithoutTheGpuSelfTestSaysSo() {
    assertEquals(SelfTestCommand.UNAVAILABLE, run("selftest", "--gpu", "--programs", "1"));
    assertTrue(err().contains(SelfTestCommand.GPU_SELF_TEST), err());
  }
}
