package dev.kernelweave.kernels;

import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class TimedRepetitionsTest {

  @Test
  void aRepetitionEqualToTheFirstIsStable() {
    byte[] first = Outputs.floats(new float[] {1, 2, 3});
    assertNull(TimedRepetitions.differenceFromFirst(Outputs.floats(new float[] {1, 2, 3}), first, 7));
  }

  @Test
  void aRepetitionThatDiffersInOneBitSaysWhichAndWhere() {
    byte[] first = Outputs.floats(new float[] {1, 2, 3});
    byte[] output = first.clone();
    output[8] ^= 1; // the lowest bit of word 2
    String difference = TimedRepetitions.differenceFromFirst(output, first, 7);
    assertTrue(difference.startsWith("repetition 7 (warm-ups included) gave other bytes than the first: "
        + Outputs.sha256(output) + " vs " + Outputs.sha256(first)), difference);
    assertTrue(difference.endsWith("1 of 3 words differ; first at word 2: 0x40400001 (3.0000002 as float)"
        + " expected 0x40400000 (3.0)"), difference);
  }

  @Test
  void aRepetitionOfAnotherLengthDiffers() {
    String difference = TimedRepetitions.differenceFromFirst(new byte[4], new byte[8], 2);
    assertTrue(difference.endsWith("length 4 bytes, expected 8"), difference);
  }
}
