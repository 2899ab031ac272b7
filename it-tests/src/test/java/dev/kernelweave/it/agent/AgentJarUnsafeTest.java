package dev.kernelweave.it.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Enumeration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The agent jar's {@code sun.misc.Unsafe}: no class of the jar names it any more, and every member
 * the bundled libraries reach on its replacement, {@code ChronicleUnsafe}, is there with the
 * descriptor they call it by. A library upgrade that calls one more {@code Unsafe} method fails here,
 * not with a {@code NoSuchMethodError} in someone's program.
 */
class AgentJarUnsafeTest {

  private static final String SHIM = "dev/kernelweave/agent/chronicle/ChronicleUnsafe";
  private static final Pattern REFERENCE = Pattern.compile("(?:Method|Field) " + SHIM + "\\.(\\w+):(\\S+)");
  private static final Pattern DECLARATION = Pattern.compile("^  (?:[\\w.$<>?\\[\\], ]+ )?(\\w+)(?:\\(.*\\))?(?: throws [\\w.]+)?;$");

  @Test
  void bundledLibrariesReachOnlyWhatChronicleUnsafeDeclares() throws Exception {
    Path javap = Path.of(System.getProperty("java.home"), "bin", "javap");
    assumeTrue(Files.isExecutable(javap), "no javap in " + System.getProperty("java.home") + ": skipped");
    Path jar = ChildJvm.agentJar();
    List<String> referrers = new ArrayList<>();
    List<String> naming = new ArrayList<>();
    try (JarFile file = new JarFile(jar.toFile())) {
      for (Enumeration<JarEntry> entries = file.entries(); entries.hasMoreElements(); ) {
        JarEntry entry = entries.nextElement();
        if (!entry.getName().endsWith(".class")) {
          continue;
        }
        String bytes = new String(file.getInputStream(entry).readAllBytes(), StandardCharsets.ISO_8859_1);
        String name = entry.getName().substring(0, entry.getName().length() - ".class".length());
        if (bytes.contains("sun/misc/Unsafe") || bytes.contains("sun.misc.Unsafe")) {
          naming.add(name);
        }
        if (bytes.contains(SHIM) && !name.startsWith(SHIM)) {
          referrers.add(name.replace('/', '.'));
        }
      }
    }
    assertEquals(List.of(), naming, "classes of the jar that still name sun.misc.Unsafe");
    assertTrue(referrers.stream().anyMatch(c -> c.endsWith(".chronicle.core.UnsafeMemory")), referrers.toString());

    Set<String> reached = new TreeSet<>();
    Matcher m = REFERENCE.matcher(javap(javap, jar, "-c", "-p", referrers));
    while (m.find()) {
      reached.add(m.group(1) + ":" + m.group(2));
    }
    Set<String> declared = new TreeSet<>();
    String previous = null;
    for (String line : javap(javap, jar, "-s", "-p", List.of(SHIM.replace('/', '.'))).split("\n")) {
      Matcher d = DECLARATION.matcher(line);
      if (d.matches()) {
        previous = d.group(1);
      } else if (line.strip().startsWith("descriptor: ") && previous != null) {
        declared.add(previous + ":" + line.strip().substring("descriptor: ".length()));
        previous = null;
      }
    }
    assertTrue(reached.size() > 50, "members reached: " + reached);
    Set<String> missing = new TreeSet<>(reached);
    missing.removeAll(declared);
    assertEquals(Set.of(), missing, "reached but not declared (declared: " + declared + ")");
  }

  private static String javap(Path javap, Path jar, String a, String b, List<String> classes) throws Exception {
    List<String> command = new ArrayList<>(List.of(javap.toString(), a, b, "-cp", jar.toString()));
    command.addAll(classes);
    ChildJvm.Result r = ChildJvm.start(command, Map.of());
    assertEquals(0, r.exitCode(), r.stderr());
    return r.stdout();
  }
}
