package dev.kernelweave.kernels;

import dev.kernelweave.corpus.Corpus;
import dev.kernelweave.kernels.workloads.Branches;
import dev.kernelweave.kernels.workloads.BranchesProblem;
import dev.kernelweave.kernels.workloads.Chain;
import dev.kernelweave.kernels.workloads.ChainProblem;
import dev.kernelweave.kernels.workloads.Dynamic;
import dev.kernelweave.kernels.workloads.DynamicProblem;
import dev.kernelweave.kernels.workloads.Heads;
import dev.kernelweave.kernels.workloads.HeadsProblem;
import dev.kernelweave.kernels.workloads.Pipeline;
import dev.kernelweave.kernels.workloads.PipelineProblem;
import dev.kernelweave.kernels.workloads.RlSim;
import dev.kernelweave.kernels.workloads.RlSimProblem;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.BiFunction;
import java.util.function.Function;

/**
 * The workloads by name; the programs of the {@link Corpus} too, which have only the serial
 * variant.
 */
public final class Workloads {

  private interface Entry {
    Problem problem(Size size);

    Workload workload(Size size, Variant variant);
  }

  private static final Map<String, Entry> ENTRIES = new LinkedHashMap<>();

  static {
    register(BranchesProblem.NAME, BranchesProblem::of, Branches::create);
    register(RlSimProblem.NAME, RlSimProblem::of, RlSim::create);
    register(DynamicProblem.NAME, DynamicProblem::of, Dynamic::create);
    register(HeadsProblem.NAME, HeadsProblem::of, Heads::create);
    register(PipelineProblem.NAME, PipelineProblem::of, Pipeline::create);
    register(PipelineProblem.ASYNC_NAME, PipelineProblem::async, Pipeline::create);
    register(ChainProblem.NAME, ChainProblem::of, Chain::create);
  }

  private Workloads() {}

  private static <P extends Problem> void register(
      String name, Function<Size, P> problem, BiFunction<P, Variant, Workload> workload) {
    ENTRIES.put(
        name,
        new Entry() {
          @Override
          public Problem problem(Size size) {
            return problem.apply(size);
          }

          @Override
          public Workload workload(Size size, Variant variant) {
            return workload.apply(problem.apply(size), variant);
          }
        });
  }

  /** The workloads' names (not the corpus's), in a fixed order. */
  public static List<String> names() {
    return List.copyOf(ENTRIES.keySet());
  }

  /** The CPU side of workload {@code name} at {@code size}. */
  public static Problem problem(String name, Size size) {
    if (Corpus.contains(name)) {
      return Corpus.create(name, size).problem();
    }
    return entry(name).problem(size);
  }

  /** Workload {@code name} as {@code variant} at {@code size}, not yet set up. */
  public static Workload create(String name, Variant variant, Size size) {
    requireVariant(name, variant);
    if (Corpus.contains(name)) {
      return Corpus.create(name, size);
    }
    return entry(name).workload(size, variant);
  }

  /** Refuses {@code variant} for a corpus program, which has only the serial variant. */
  static void requireVariant(String name, Variant variant) {
    if (Corpus.contains(name) && variant != Variant.SERIAL) {
      throw new IllegalArgumentException("corpus program '" + name + "' has only the serial variant");
    }
  }

  private static Entry entry(String name) {
    Entry entry = ENTRIES.get(name);
    if (entry == null) {
      throw new IllegalArgumentException(
          "unknown workload '" + name + "' (" + String.join(", ", names()) + "; corpus: "
              + String.join(", ", Corpus.names()) + ")");
    }
    return entry;
  }
}
