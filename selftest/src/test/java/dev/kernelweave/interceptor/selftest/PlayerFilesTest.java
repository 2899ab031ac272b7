package dev.kernelweave.interceptor.selftest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The player as copied out for its own JVM: complete, and needing nothing else of the agent's. */
class PlayerFilesTest {

  private static final Pattern PROJECT_CLASS = Pattern.compile("dev/kernelweave/[A-Za-z0-9_/$]+");

  @TempDir
  Path temp;

  @Test
  void copiesThePlayerAndBothModules() throws Exception {
    PlayerFiles.Extracted player = PlayerFiles.extract(temp);
    assertTrue(Files.isRegularFile(player.classes().resolve(PlayerFiles.PLAYER.replace('.', '/') + ".class")));
    assertTrue(Files.readString(player.fuzzPtx()).contains(".entry kw_fill_packed"));
    assertTrue(Files.readString(player.selftestPtx()).contains(".entry kw_fill"));
    assertEquals(List.of("s.txt", player.selftestPtx().toString(), "serial", player.fuzzPtx().toString()),
        player.arguments(Path.of("s.txt"), true));
  }

  /** Its JVM's class path holds the player's package and JCuda alone: any other class of ours would be missing there. */
  @Test
  void playerClassesNameNoOtherClassOfTheProject() throws Exception {
    PlayerFiles.Extracted player = PlayerFiles.extract(temp);
    List<Path> classes;
    try (Stream<Path> files = Files.walk(player.classes())) {
      classes = files.filter(p -> p.toString().endsWith(".class")).toList();
    }
    assertTrue(classes.size() >= 2, classes.toString());
    int named = 0;
    for (Path c : classes) {
      Matcher m = PROJECT_CLASS.matcher(new String(Files.readAllBytes(c), StandardCharsets.ISO_8859_1));
      while (m.find()) {
        assertTrue(m.group().startsWith("dev/kernelweave/interceptor/selftest/player/"), c + " names " + m.group());
        named++;
      }
    }
    assertTrue(named > 0, "the scan found not even the player's own names");
  }
}
