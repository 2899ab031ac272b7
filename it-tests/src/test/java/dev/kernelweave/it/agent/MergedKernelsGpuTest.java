package dev.kernelweave.it.agent;

import dev.kernelweave.it.bench.ProjectLayout;
import dev.kernelweave.kernels.Ptx;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@link MergedKernelsOnCpuDeviceTest} on a GPU: every mergeable kernel of the workloads, the test
 * corpora (their PTX as nvcc made it, textures, printf and cp.async included) and the merge test
 * kernels, as k = 1, 2, 3 separate launches and as one merged launch; every buffer byte-identical.
 * Skips itself without a GPU.
 */
class MergedKernelsGpuTest {

  /**
   * Kernels whose result depends on the order of their blocks even without merging (a ticket
   * counter, float atomics, blocks of different y writing one element): compared on the stand-in
   * alone, where blocks run in order.
   */
  static final List<String> ORDER_DEPENDENT = List.of("atomic_ticket", "atomic_sum", "block_sum", "gather_rows");

  @TempDir Path dir;

  @ParameterizedTest
  @ValueSource(strings = {"rlsim", "branches", "chain", "dynamic", "heads", "pipeline"})
  void workloadKernels(String module) throws Exception {
    Path file = dir.resolve(module + ".ptx");
    Files.writeString(file, Ptx.text(module), StandardCharsets.US_ASCII);
    MergedKernelsOnCpuDeviceTest.assertMergedEqualsSeparate(file, MergedKernelsOnCpuDeviceTest.SPECS, List.of(),
        Map.of(), List.of());
  }

  @ParameterizedTest
  @ValueSource(strings = {"it-tests/src/test/resources/ptx/smoke.ptx", "it-tests/src/test/resources/ptx/pointers.ptx",
      "scheduler/src/test/resources/ptx/merge-kernels.ptx", "scheduler/src/test/resources/ptx/forward-indexing.ptx",
      "scheduler/src/test/resources/ptx/corpus-sm75.ptx", "scheduler/src/test/resources/ptx/corpus-sm90.ptx",
      "scheduler/src/test/resources/ptx/corpus-sm90-lineinfo.ptx",
      "scheduler/src/test/resources/ptx/corpus-sm75-debug.ptx", "scheduler/src/test/resources/ptx/corpus-sm90-debug.ptx"})
  void testCorpora(String path) throws Exception {
    boolean below = path.contains("forward-indexing");
    // Relative to the project's root, so that the test runs from any folder (the module's, or the root on a GPU machine).
    MergedKernelsOnCpuDeviceTest.assertMergedEqualsSeparate(ProjectLayout.discover().root().resolve(path),
        below ? MergedKernelsOnCpuDeviceTest.FORWARD_SPECS : MergedKernelsOnCpuDeviceTest.SPECS,
        below ? List.of("--middle") : List.of(), Map.of(), ORDER_DEPENDENT);
  }
}
