package dev.kernelweave.interceptor.selftest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kernelweave.selftest.Program;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The fuzz's comparison of device printf lines, and the script's printing kernels. */
class ScriptedProgramsTest {

  private static final Map<String, Program> PROGRAMS = Map.of("p1", new Program(1, List.of()));
  private static final Map<Integer, String> CHANNELS = Map.of(0, "program p1, thread 0, stream 3",
      1, "program p1, thread 0, stream 4");
  private static final List<String> SERIAL = List.of("device-print 0 0", "device-print 0 1", "device-print 1 0",
      "device-print 1 1", "p1 3 read b1+0 00ff");

  @Test
  void channelsMayInterleaveOtherwise() {
    List<String> interleaved = List.of("device-print 1 0", "device-print 0 0", "p1 3 read b1+0 00ff",
        "device-print 1 1", "device-print 0 1");
    assertEquals(Optional.empty(), ScriptedPrograms.firstDifference(SERIAL, interleaved, PROGRAMS, CHANNELS));
  }

  @Test
  void aChannelsCountsOutOfOrderOrMissingAreADifference() {
    List<String> swapped = List.of("device-print 0 1", "device-print 0 0", "device-print 1 0", "device-print 1 1",
        "p1 3 read b1+0 00ff");
    Optional<String> d = ScriptedPrograms.firstDifference(SERIAL, swapped, PROGRAMS, CHANNELS);
    assertTrue(d.isPresent() && d.get().contains("channel 0 (program p1, thread 0, stream 3)")
        && d.get().contains("expected: [0, 1]") && d.get().contains("printed:  [1, 0]"), d.toString());
    List<String> missing = List.of("device-print 0 0", "device-print 0 1", "device-print 1 0", "p1 3 read b1+0 00ff");
    assertTrue(ScriptedPrograms.firstDifference(SERIAL, missing, PROGRAMS, CHANNELS).isPresent());
  }

  @Test
  void generatedScriptsPrintOnEveryChannelTheyNameInCountOrder(@TempDir Path dir) throws Exception {
    ScriptedPrograms.Programs programs = ScriptedPrograms.programs(dir, 12, 20261127L);
    List<String> prints = Files.readAllLines(programs.script()).stream().filter(l -> l.contains(" print ")).toList();
    assertTrue(prints.size() >= 10, "printing kernels in the script: " + prints.size());
    assertEquals(programs.printChannels().size(),
        prints.stream().map(l -> l.split(" ")[3]).distinct().count(), "every channel printed");
    for (int c : programs.printChannels().keySet()) {
      List<Integer> counts = prints.stream().map(l -> l.split(" ")).filter(t -> Integer.parseInt(t[3]) == c)
          .map(t -> Integer.parseInt(t[4])).toList();
      for (int i = 0; i < counts.size(); i++) {
        assertEquals(i, counts.get(i), "channel " + c + ": " + counts);
      }
    }
  }
}
