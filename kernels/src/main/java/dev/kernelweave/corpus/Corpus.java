package dev.kernelweave.corpus;

import dev.kernelweave.kernels.Size;
import dev.kernelweave.kernels.Workload;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;

/**
 * The corpus: ordinary serial JCuda programs, written as users write them, which the benchmark
 * runs beside the workloads (only their serial variant: they have no hand-tuned twin). {@code
 * WorkloadMain NAME} runs one, as it runs a workload.
 */
public final class Corpus {

  /** The PTX module of every corpus program, built from {@code src/main/cuda/corpus.cu}. */
  public static final String PTX = "corpus";

  private static final Map<String, Function<Size, CorpusProgram>> PROGRAMS = new LinkedHashMap<>();

  static {
    PROGRAMS.put(CopyLoop.NAME, CopyLoop::new);
    PROGRAMS.put(Mlp.NAME, Mlp::new);
    PROGRAMS.put(Ensemble.NAME, Ensemble::new);
    PROGRAMS.put(BatchedInference.NAME, BatchedInference::new);
    PROGRAMS.put(ImageFilters.NAME, ImageFilters::new);
    PROGRAMS.put(PowerIteration.NAME, PowerIteration::new);
    PROGRAMS.put(Jacobi.NAME, Jacobi::new);
    PROGRAMS.put(HostSteps.NAME, HostSteps::new);
    PROGRAMS.put(TwoThreads.NAME, TwoThreads::new);
    PROGRAMS.put(AllocPerStep.NAME, AllocPerStep::new);
    PROGRAMS.put(RuntimeApi.NAME, RuntimeApi::new);
    PROGRAMS.put(Tenants.NAME, Tenants::new);
  }

  /** The programs that need the CUDA runtime library (libcudart through JCuda's runtime API). */
  private static final Set<String> RUNTIME_API = Set.of(RuntimeApi.NAME);

  private Corpus() {}

  /** The programs' names, in a fixed order. */
  public static List<String> names() {
    return List.copyOf(PROGRAMS.keySet());
  }

  /** Whether {@code name} is a corpus program. */
  public static boolean contains(String name) {
    return PROGRAMS.containsKey(name);
  }

  /**
   * Whether program {@code name} calls JCuda's runtime API, which needs the CUDA runtime library:
   * the CPU stand-in driver cannot run it.
   */
  public static boolean usesRuntimeApi(String name) {
    return RUNTIME_API.contains(name);
  }

  /** Program {@code name} at {@code size}, not yet set up. */
  public static Workload create(String name, Size size) {
    Function<Size, CorpusProgram> program = PROGRAMS.get(name);
    if (program == null) {
      throw new IllegalArgumentException("unknown corpus program '" + name + "' (" + String.join(", ", names()) + ")");
    }
    return program.apply(size);
  }
}
