package dev.kernelweave.kernels;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class OutputsTest {

  @Test
  void sha256MatchesTheStandardTestVector() {
    assertEquals(
        "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad",
        Outputs.sha256("abc".getBytes(StandardCharsets.US_ASCII)));
  }

  @Test
  void wordsAreLittleEndian() {
    byte[] bytes =
        Outputs.builder(2).ints(new int[] {0x01020304}).floats(new float[] {1.0f}).toBytes();
    assertArrayEquals(new byte[] {4, 3, 2, 1, 0, 0, (byte) 0x80, 0x3f}, bytes);
  }

  @Test
  void rowsThenATailAreTheRowsInOrderFollowedByTheTail() {
    float[][] rows = {{1.0f, 2.0f}, {3.0f}};
    float[] tail = {4.0f, 5.0f};
    assertArrayEquals(
        Outputs.floats(new float[] {1.0f, 2.0f, 3.0f, 4.0f, 5.0f}), Outputs.floats(rows, tail));
    assertArrayEquals(Outputs.floats(rows), Outputs.floats(rows, new float[0]));
  }

  @Test
  void intsAreLittleEndianWords() {
    assertArrayEquals(
        new byte[] {4, 3, 2, 1, (byte) 0xff, (byte) 0xff, (byte) 0xff, (byte) 0xff},
        Outputs.ints(new int[] {0x01020304, -1}));
  }

  @Test
  void aBuilderRefusesToHandOverMissingWords() {
    assertThrows(
        IllegalStateException.class, () -> Outputs.builder(3).floats(new float[2]).toBytes());
  }

  @Test
  void differenceNamesTheFirstDifferingWordAndCountsThem() {
    float[] expected = {1, 2, 3, 4};
    float[] actual = {1, 2, 3.5f, 5};
    String difference = Outputs.difference(Outputs.floats(actual), Outputs.floats(expected));
    assertTrue(difference.startsWith("2 of 4 words differ; first at word 2"), difference);
    assertTrue(difference.contains("3.5") && difference.contains("3.0"), difference);
    assertNull(Outputs.difference(Outputs.floats(expected), Outputs.floats(expected.clone())));
    assertTrue(Outputs.difference(new byte[4], new byte[8]).startsWith("length"));
  }
}
