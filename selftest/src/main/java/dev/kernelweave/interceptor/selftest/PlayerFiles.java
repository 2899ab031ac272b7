package dev.kernelweave.interceptor.selftest;

import java.io.IOException;
import java.io.InputStream;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.Enumeration;
import java.util.List;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import java.util.stream.Stream;

/**
 * The fuzz player's classes and PTX, copied out of the jar (or class directory) they ship in, so
 * that the player runs in a JVM whose class path holds them and JCuda but nothing else of the
 * agent's. The player's package ({@code selftest.player}) depends on JCuda and the JDK alone.
 */
public final class PlayerFiles {

  /** The player's main class, run as {@code MAIN SCRIPT SELFTEST_PTX serial|as-written FUZZ_PTX}. */
  public static final String PLAYER = "dev.kernelweave.interceptor.selftest.player.ScriptedProgramPlayer";

  /** The player's exit code where there is no CUDA driver or no device (its stdout says why). */
  public static final int NO_GPU = dev.kernelweave.interceptor.selftest.player.ScriptedProgramPlayer.NO_GPU;

  private static final String PACKAGE_DIR = "dev/kernelweave/interceptor/selftest/player/";
  private static final String SELFTEST_PTX = "dev/kernelweave/interceptor/selftest/selftest.ptx";
  private static final String FUZZ_PTX = PACKAGE_DIR + "fuzz_kernels.ptx";

  /**
   * Where the player lies once copied out.
   *
   * @param classes the class path entry holding the player (and nothing else of the agent's)
   * @param selftestPtx the self-test's kernels
   * @param fuzzPtx the fuzz's own kernels ({@code fuzz_kernels.cu})
   */
  public record Extracted(Path classes, Path selftestPtx, Path fuzzPtx) {
    /** The player's arguments after its class name. */
    public List<String> arguments(Path script, boolean serial) {
      return List.of(script.toString(), selftestPtx.toString(), serial ? "serial" : "as-written", fuzzPtx.toString());
    }
  }

  private PlayerFiles() {}

  /** Copies the player's classes and both PTX files into {@code dir} (which must exist). */
  public static Extracted extract(Path dir) throws IOException {
    Path from;
    try {
      from = Path.of(PlayerFiles.class.getProtectionDomain().getCodeSource().getLocation().toURI());
    } catch (URISyntaxException | NullPointerException | SecurityException e) {
      throw new IOException("cannot tell where the fuzz player's classes are", e);
    }
    List<String> names = new ArrayList<>();
    if (Files.isDirectory(from)) {
      try (Stream<Path> files = Files.walk(from.resolve(PACKAGE_DIR))) {
        files.filter(Files::isRegularFile).forEach(f -> names.add(from.relativize(f).toString().replace('\\', '/')));
      }
      names.add(SELFTEST_PTX);
      for (String name : names) {
        copy(Files.newInputStream(from.resolve(name)), dir.resolve(name));
      }
    } else {
      try (JarFile jar = new JarFile(from.toFile())) {
        for (Enumeration<JarEntry> e = jar.entries(); e.hasMoreElements(); ) {
          JarEntry entry = e.nextElement();
          if (!entry.isDirectory() && (entry.getName().startsWith(PACKAGE_DIR) || entry.getName().equals(SELFTEST_PTX))) {
            names.add(entry.getName());
            copy(jar.getInputStream(entry), dir.resolve(entry.getName()));
          }
        }
      }
    }
    if (!names.contains(PACKAGE_DIR + "ScriptedProgramPlayer.class") || !names.contains(FUZZ_PTX)
        || !names.contains(SELFTEST_PTX)) {
      throw new IOException("the fuzz player or its PTX is missing from " + from + " (found " + names + ")");
    }
    return new Extracted(dir, dir.resolve(SELFTEST_PTX), dir.resolve(FUZZ_PTX));
  }

  private static void copy(InputStream in, Path to) throws IOException {
    try (in) {
      Files.createDirectories(to.getParent());
      Files.copy(in, to, StandardCopyOption.REPLACE_EXISTING);
    }
  }
}
