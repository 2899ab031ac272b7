package dev.kernelweave.interceptor;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Which placement a call gets is decided by the {@code CudaCallTable} and the pipeline that reads it
 * ({@link Calls}), and carried out by the scheduler: no other main source names a placement.
 */
class PlacementDecisionsTest {

  private static final Pattern PLACEMENT = Pattern.compile("\\bPlacement\\.[A-Z]|import static [\\w.]*\\.Placement\\.");

  /** The table, the pipeline, and the scheduler's side, which carries out the placement it is given. */
  private static final Set<String> ALLOWED = Set.of(
      "scheduler/src/main/java/dev/kernelweave/calltable/CudaCallTable.java",
      "scheduler/src/main/java/dev/kernelweave/calltable/CudaCall.java",
      "interceptor/src/main/java/dev/kernelweave/interceptor/Calls.java",
      "scheduler/src/main/java/dev/kernelweave/scheduler/Placement.java",
      "scheduler/src/main/java/dev/kernelweave/scheduler/Dispatch.java",
      "scheduler/src/main/java/dev/kernelweave/scheduler/Scheduler.java",
      "scheduler/src/main/java/dev/kernelweave/scheduler/StreamJoins.java",
      "scheduler/src/main/java/dev/kernelweave/scheduler/Ticket.java",
      // A row of the table broken on purpose, for the fuzz to catch (mutant sync-copy-marked-async).
      "selftest/src/main/java/dev/kernelweave/selftest/Mutant.java");

  @Test
  void noPlacementIsNamedOutsideTheTableThePipelineAndTheScheduler() throws IOException {
    Path root = Path.of("").toAbsolutePath().getParent();
    List<String> outside = new ArrayList<>();
    List<String> inside = new ArrayList<>();
    int files = 0;
    for (String module : new String[] {"scheduler", "interceptor", "selftest", "agent", "it-tests", "kernels"}) {
      Path sources = root.resolve(module).resolve("src/main/java");
      if (!Files.isDirectory(sources)) {
        continue;
      }
      try (Stream<Path> walk = Files.walk(sources)) {
        for (Path file : walk.filter(p -> p.toString().endsWith(".java")).toList()) {
          files++;
          String relative = root.relativize(file).toString().replace('\\', '/');
          List<String> lines = Files.readAllLines(file);
          for (int i = 0; i < lines.size(); i++) {
            String code = lines.get(i).strip();
            if (code.startsWith("*") || code.startsWith("/*") || code.startsWith("//")
                || !PLACEMENT.matcher(code).find()) {
              continue;
            }
            (ALLOWED.contains(relative) ? inside : outside).add(relative + ":" + (i + 1) + ": " + code);
          }
        }
      }
    }
    assertTrue(files > 200, "read the main sources of every module: " + files + " files under " + root);
    assertTrue(inside.stream().anyMatch(l -> l.startsWith("scheduler/src/main/java/dev/kernelweave/calltable/")),
        "the check sees the table's own placements");
    assertEquals(List.of(), outside, "placements decided outside the call table and its pipeline");
  }
}
