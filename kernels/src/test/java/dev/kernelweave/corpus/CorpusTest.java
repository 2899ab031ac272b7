package dev.kernelweave.corpus;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kernelweave.kernels.Ptx;
import dev.kernelweave.kernels.Size;
import dev.kernelweave.kernels.Variant;
import dev.kernelweave.kernels.Workloads;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;

/** The corpus on the CPU: names, kernels and references, without a device. */
class CorpusTest {

  static Iterable<String> names() {
    return Corpus.names();
  }

  @Test
  void theCorpusHasAtLeastTenProgramsWhoseNamesAreNotWorkloads() {
    assertTrue(Corpus.names().size() >= 10, Corpus.names().toString());
    for (String name : Corpus.names()) {
      assertFalse(Workloads.names().contains(name), name);
    }
  }

  @ParameterizedTest
  @MethodSource("names")
  void everyKernelAProgramNamesIsInTheCorpusModule(String name) {
    Set<String> entries = Ptx.entries(Ptx.text(Corpus.PTX)).keySet();
    for (Size size : Size.values()) {
      var problem = Workloads.problem(name, size);
      assertEquals(name, problem.name());
      assertEquals(Corpus.PTX, problem.ptx());
      assertTrue(entries.containsAll(problem.kernels()), problem.kernels() + " not all in " + entries);
    }
  }

  /**
   * A reference of a few distinct values would let a program that computes garbage pass as long as
   * the garbage is the same with the agent and without.
   */
  @ParameterizedTest
  @MethodSource("names")
  void theReferenceIsNotDegenerate(String name) {
    byte[] reference = Workloads.problem(name, Size.CHECK).reference();
    ByteBuffer words = ByteBuffer.wrap(reference).order(ByteOrder.LITTLE_ENDIAN);
    Set<Integer> distinct = new HashSet<>();
    while (words.remaining() >= 4) {
      distinct.add(words.getInt());
    }
    assertTrue(distinct.size() >= 8, name + ": only " + distinct.size() + " distinct words");
  }

  @ParameterizedTest
  @EnumSource(value = Variant.class, names = {"TUNED", "GRAPH"})
  void aCorpusProgramHasNoTunedOrGraphVariant(Variant variant) {
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> Workloads.create("mlp", variant, Size.CHECK));
    assertEquals("corpus program 'mlp' has only the serial variant", e.getMessage());
  }

  @Test
  void onlyTheRuntimeApiProgramNeedsTheRuntimeLibrary() {
    assertTrue(Corpus.usesRuntimeApi("runtime-api"));
    assertEquals(1, Corpus.names().stream().filter(Corpus::usesRuntimeApi).count());
  }
}
