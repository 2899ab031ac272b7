package dev.kernelweave.interceptor.cublas;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.fail;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The committed table is what the generator makes from the JCublas sources jar next to the JCublas
 * jar on the class path. Skipped where python3 or the sources jar is missing.
 */
class BlasOperandTableGeneratorTest {

  private static final Path SCRIPT = Path.of("src/test/tools/gen_blas_operand_table.py");
  private static final Path TABLE = Path.of("src/main/java/dev/kernelweave/interceptor/cublas/BlasOperandTable.java");

  @Test
  void theCommittedTableIsTheGeneratorsOutput() throws IOException, InterruptedException, URISyntaxException {
    assumeTrue(Files.isRegularFile(SCRIPT) && Files.isRegularFile(TABLE), "run from the interceptor module");
    Path jar = Path.of(JCublas2Reflection.jcublas2().getProtectionDomain().getCodeSource().getLocation().toURI());
    String jarName = jar.getFileName().toString();
    assumeTrue(jarName.endsWith(".jar"), "JCublas2 not loaded from a jar");
    Path sources = jar.resolveSibling(jarName.substring(0, jarName.length() - 4) + "-sources.jar");
    assumeTrue(Files.isRegularFile(sources), "no sources jar at " + sources);

    Path out = Files.createTempFile("BlasOperandTable", ".java");
    try {
      Process p;
      try {
        p = new ProcessBuilder("python3", SCRIPT.toString(), sources.toString())
            .redirectOutput(out.toFile())
            .redirectError(ProcessBuilder.Redirect.INHERIT)
            .start();
      } catch (IOException noPython) {
        assumeTrue(false, "python3 not available: " + noPython.getMessage());
        return;
      }
      if (!p.waitFor(120, TimeUnit.SECONDS)) {
        p.destroyForcibly();
        fail("generator timed out");
      }
      assertEquals(0, p.exitValue(), "generator failed");
      assertEquals(Files.readString(TABLE, StandardCharsets.UTF_8), Files.readString(out, StandardCharsets.UTF_8));
    } finally {
      Files.deleteIfExists(out);
    }
  }
}
