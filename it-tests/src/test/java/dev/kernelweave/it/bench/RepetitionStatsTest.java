package dev.kernelweave.it.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

class RepetitionStatsTest {

  @Test
  void medianOfOddAndEvenSamples() {
    assertEquals(3.0, RepetitionStats.median(List.of(5.0, 1.0, 3.0)));
    assertEquals(2.5, RepetitionStats.median(List.of(4.0, 1.0, 3.0, 2.0)));
    assertEquals(7.0, RepetitionStats.median(List.of(7.0)));
  }

  @Test
  void percentilesInterpolateBetweenRanksLikeNumpy() {
    List<Double> sorted = List.of(1.0, 2.0, 3.0, 4.0);
    assertEquals(1.3, RepetitionStats.percentile(sorted, 10), 1e-12);
    assertEquals(3.7, RepetitionStats.percentile(sorted, 90), 1e-12);
    assertEquals(1.0, RepetitionStats.percentile(sorted, 0));
    assertEquals(4.0, RepetitionStats.percentile(sorted, 100));
  }

  @Test
  void summaryHasMedianExtremesSpreadAndMad() {
    RepetitionStats.Summary s = RepetitionStats.summarize(List.of(10.0, 12.0, 11.0, 30.0, 9.0));
    assertEquals(11.0, s.median());
    assertEquals(9.0, s.min());
    assertEquals(30.0, s.max());
    assertEquals(9.4, s.p10(), 1e-12);
    assertEquals(22.8, s.p90(), 1e-12);
    // deviations 1, 1, 0, 19, 2: their median is 1, whatever the outlier
    assertEquals(1.0, s.mad());
    assertEquals(5, s.n());
  }

  @Test
  void geometricMean() {
    assertEquals(2.0, RepetitionStats.geometricMean(List.of(1.0, 4.0)), 1e-12);
    assertEquals(4.0, RepetitionStats.geometricMean(List.of(2.0, 8.0, 4.0)), 1e-12);
    assertEquals(1.5, RepetitionStats.geometricMean(List.of(1.5)), 1e-12);
    assertTrue(Double.isNaN(RepetitionStats.geometricMean(List.of())));
    assertThrows(IllegalArgumentException.class, () -> RepetitionStats.geometricMean(List.of(2.0, 0.0)));
    assertThrows(IllegalArgumentException.class, () -> RepetitionStats.geometricMean(List.of(Double.NaN)));
  }

  @Test
  void emptySamplesHaveNoStatistics() {
    assertThrows(IllegalArgumentException.class, () -> RepetitionStats.median(List.of()));
    assertThrows(IllegalArgumentException.class, () -> RepetitionStats.summarize(List.of()));
  }
}
