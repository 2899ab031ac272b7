package dev.kernelweave.kernels;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class CommandLineTest {

  @Test
  void wordsAndOptionValuesComeInOrder() {
    CommandLine line = new CommandLine(new String[] {"chain", "--reps", "2"});
    assertEquals("chain", line.next());
    String option = line.next();
    assertEquals("2", line.valueOf(option));
    assertFalse(line.hasNext());
  }

  @Test
  void anOptionThatEndsTheLineNeedsAValue() {
    CommandLine line = new CommandLine(new String[] {"--reps"});
    String option = line.next();
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> line.valueOf(option));
    assertEquals("--reps needs a value", e.getMessage());
  }

  @Test
  void aWholeNumberMustParseAndReachItsLeast() {
    assertEquals(0, CommandLine.wholeNumber("--warmup", "0", 0));
    assertEquals(
        "--reps must be at least 1, got 0",
        assertThrows(IllegalArgumentException.class, () -> CommandLine.wholeNumber("--reps", "0", 1))
            .getMessage());
    assertEquals(
        "--reps needs a whole number, got '2.5'",
        assertThrows(
                IllegalArgumentException.class, () -> CommandLine.wholeNumber("--reps", "2.5", 1))
            .getMessage());
  }

  @Test
  void theTenantsMainReadsItsFlagAndItsNumbersThroughIt() {
    TenantsPriorityMain.Options options =
        TenantsPriorityMain.Options.parse("--requests", "7", "--by-hand", "--mode", "alone");
    assertEquals(7, options.requests());
    assertTrue(options.byHand());
    assertEquals("alone", options.mode());
    assertFalse(options.latencies());
    assertTrue(TenantsPriorityMain.Options.parse("--latencies").latencies());
    assertThrows(
        IllegalArgumentException.class, () -> TenantsPriorityMain.Options.parse("--rate-hz", "0"));
    assertThrows(
        IllegalArgumentException.class, () -> TenantsPriorityMain.Options.parse("--requests"));
  }
}
