package dev.kernelweave.it.bench;

import dev.kernelweave.corpus.Corpus;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every corpus program (dev.kernelweave.corpus, {@code runtime-api} included) on a real GPU, at
 * {@code --size check}, in a JVM without and one with the packaged agent: both must match the
 * CPU reference and give the same bytes. Skips itself where there is no GPU or the kernels are not
 * built.
 */
class CorpusGpuTest {

  @TempDir Path journals;

  static List<String> programs() {
    return Corpus.names();
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("programs")
  void agentKeepsTheOutputOf(String program) {
    AgentWorkloadsGpuTest.assertAgentKeepsTheOutput(program, 2, journals);
  }
}
