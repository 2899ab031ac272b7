package dev.kernelweave.interceptor.selftest;

import dev.kernelweave.selftest.Program;
import dev.kernelweave.selftest.ProgramGenerator;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * The intercepted fuzz's programs: generated, written as one script for the player, and what two
 * plays of that script observed compared program by program. {@code selftest --gpu} and the
 * it-tests fuzz both use these, so that the same seed gives the same script in either.
 */
public final class ScriptedPrograms {

  private ScriptedPrograms() {}

  /**
   * Generated programs by name (as the player prints them), the script that plays them, and its
   * print channels ({@link ProgramScript#printChannels}).
   */
  public record Programs(Map<String, Program> byName, Path script, Map<Integer, String> printChannels) {}

  /**
   * {@code count} generated programs from {@code seed}, written as one script in {@code dir}: mostly
   * short, every fourth long, a group of {@link #TOGETHER} played at the same time per ten, the
   * module reloaded and the primary context retained anew between some, the last exiting with its
   * work pending. The same {@code count} and {@code seed} always give the same script.
   */
  public static Programs programs(Path dir, int count, long seed) throws IOException {
    return programs(dir, count, count / 10, seed);
  }

  /**
   * {@link #programs(Path, int, long)} with {@code togetherGroups} groups of {@link #TOGETHER}
   * programs played at the same time: real threads racing in one context.
   */
  public static Programs programs(Path dir, int count, int togetherGroups, long seed) throws IOException {
    // Mostly short programs, every fourth a long one (windows split at 128 launches, graphs evicted).
    ProgramGenerator shorter = new ProgramGenerator(60);
    ProgramGenerator longer = new ProgramGenerator(400);
    ProgramScript script = new ProgramScript(seed, 0.04);
    Map<String, Program> byName = new LinkedHashMap<>();
    for (int i = 0; i < count; i++) {
      Program p = (i % 4 == 3 ? longer : shorter).generate(seed + i);
      String name = "p" + Long.toHexString(seed + i);
      byName.put(name, p);
      if (i == count - 1) {
        addTogether(script, byName, togetherGroups, seed);
        script.addExiting(name, p);
      } else {
        script.add(name, p);
      }
      if (i % 8 == 5) {
        script.recreateContext();
      } else if (i % 8 == 2) {
        script.reloadModule();
      }
    }
    Path file = Files.createTempFile(dir, "programs", ".txt");
    Files.writeString(file, script.text(), StandardCharsets.UTF_8);
    return new Programs(byName, file, script.printChannels());
  }

  /** Programs played at the same time in a group, each from threads of its own. */
  public static final int TOGETHER = 6;

  /** Groups of {@link #TOGETHER} programs played at the same time, each from threads of its own. */
  private static void addTogether(ProgramScript script, Map<String, Program> byName, int groups, long seed) {
    ProgramGenerator generator = new ProgramGenerator(60);
    long next = seed + 1_000_000;
    for (int g = 0; g < groups; g++) {
      Map<String, Program> group = new LinkedHashMap<>();
      while (group.size() < TOGETHER) {
        Program p = generator.generate(next);
        if (ProgramScript.mayRunBesideOthers(p)) {
          group.put("c" + Long.toHexString(next), p);
        }
        next++;
      }
      byName.putAll(group);
      script.addTogether(group);
    }
  }

  /**
   * The first program (in the script's order) whose observations differ between {@code expected}
   * and {@code actual}, the player's output lines: what only one of them observed, and the
   * program's calls. Empty where every program observed the same lines in the same order.
   */
  public static Optional<String> firstDifference(List<String> expected, List<String> actual,
      Map<String, Program> programs) {
    return firstDifference(expected, actual, programs, Map.of());
  }

  /**
   * The same, then the lines printed by the device ({@code device-print CHANNEL COUNT}): each
   * channel's counts must come in the same order. Channels are compared apart, never their
   * interleaving: CUDA orders a stream's printing kernels, not those of independent streams.
   */
  public static Optional<String> firstDifference(List<String> expected, List<String> actual,
      Map<String, Program> programs, Map<Integer, String> printChannels) {
    Optional<String> program = firstProgramDifference(expected, actual, programs);
    if (program.isPresent()) {
      return program;
    }
    Map<Integer, List<Integer>> want = deviceLines(expected);
    Map<Integer, List<Integer>> got = deviceLines(actual);
    java.util.SortedSet<Integer> channels = new java.util.TreeSet<>(want.keySet());
    channels.addAll(got.keySet());
    for (int c : channels) {
      List<Integer> w = want.getOrDefault(c, List.of());
      List<Integer> g = got.getOrDefault(c, List.of());
      if (!w.equals(g)) {
        return Optional.of("device printf, channel " + c + " (" + printChannels.getOrDefault(c, "unknown")
            + ") printed its counts otherwise:\n  expected: " + w + "\n  printed:  " + g);
      }
    }
    return Optional.empty();
  }

  /** What kw_print printed: each channel's counts in the order they came. */
  private static Map<Integer, List<Integer>> deviceLines(List<String> lines) {
    Map<Integer, List<Integer>> byChannel = new java.util.HashMap<>();
    for (String l : lines) {
      if (l.startsWith("device-print ")) {
        String[] t = l.trim().split(" ");
        byChannel.computeIfAbsent(Integer.parseInt(t[1]), c -> new ArrayList<>()).add(Integer.parseInt(t[2]));
      }
    }
    return byChannel;
  }

  private static Optional<String> firstProgramDifference(List<String> expected, List<String> actual,
      Map<String, Program> programs) {
    Map<String, List<String>> want = byProgram(expected);
    Map<String, List<String>> got = byProgram(actual);
    for (Map.Entry<String, Program> p : programs.entrySet()) {
      List<String> w = want.getOrDefault(p.getKey(), List.of());
      List<String> g = got.getOrDefault(p.getKey(), List.of());
      if (!w.equals(g)) {
        List<String> missing = new ArrayList<>(w);
        missing.removeAll(g);
        List<String> extra = new ArrayList<>(g);
        extra.removeAll(w);
        return Optional.of("program " + p.getKey() + " observes otherwise:\n  expected only: " + missing
            + "\n  observed only: " + extra + "\n" + p.getValue().describe());
      }
    }
    return Optional.empty();
  }

  /** The player's lines by the program that printed them (each line starts with its name). */
  private static Map<String, List<String>> byProgram(List<String> lines) {
    return lines.stream().filter(l -> !l.isBlank())
        .collect(Collectors.groupingBy(l -> l.split(" ")[0], LinkedHashMap::new, Collectors.toList()));
  }
}
