package dev.kernelweave.kernels;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.EnumSet;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

class VariantTest {

  static Set<String> workloads() {
    return Set.copyOf(Workloads.names());
  }

  @Test
  void labelsRoundTripAndAnUnknownOneNamesTheKnownOnes() {
    for (Variant variant : Variant.values()) {
      assertEquals(variant, Variant.of(variant.label()));
    }
    assertEquals("graph", Variant.GRAPH.label());
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Variant.of("fast"));
    assertEquals("unknown variant 'fast' (serial, tuned or graph)", e.getMessage());
  }

  /** A variant falling back on another's class would be measured under the wrong name. */
  @ParameterizedTest
  @MethodSource("workloads")
  void everyVariantOfEveryWorkloadIsAClassOfItsOwn(String name) {
    Set<Class<?>> classes =
        EnumSet.allOf(Variant.class).stream()
            .map(variant -> Workloads.create(name, variant, Size.CHECK).getClass())
            .collect(Collectors.toSet());
    assertEquals(Variant.values().length, classes.size(), name + ": " + classes);
    assertEquals(
        "Graph", Workloads.create(name, Variant.GRAPH, Size.CHECK).getClass().getSimpleName());
  }
}
