package dev.kernelweave.agent.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import dev.kernelweave.call.AccessMode;
import dev.kernelweave.call.CallKind;
import dev.kernelweave.call.CallRecord;
import dev.kernelweave.agent.cli.inspect.DependencyGraphs;
import dev.kernelweave.agent.cli.inspect.Journal;
import dev.kernelweave.journal.ChronicleLaunchJournal;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class InspectCommandTest {

  @TempDir Path temp;
  private Path sample;

  /** What one run of the command printed and returned. */
  record Run(int code, String out, String err) {
    List<String> lines() {
      return out.lines().toList();
    }

    /** The output with runs of spaces collapsed, so that column widths do not matter. */
    String squeezed() {
      return out.replaceAll(" +", " ");
    }
  }

  static Run inspect(String... args) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int code = InspectCommand.run(args, new PrintStream(out, true, StandardCharsets.UTF_8),
        new PrintStream(err, true, StandardCharsets.UTF_8), ZoneOffset.UTC);
    return new Run(code, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
  }

  @BeforeEach
  void writeTheSample() throws Exception {
    sample = temp.resolve("sample");
    SampleJournal.write(sample);
  }

  @Test
  void statsAddsUpKindsKernelsThreadsBytesAndSchedulingOfAKnownJournal() {
    Run run = inspect("stats", sample.toString());
    assertEquals(0, run.code(), run.err());
    String s = run.squeezed();
    assertTrue(s.contains("41 calls from 2026-01-15 10:00:00.000000 to 2026-01-15 10:00:00."), s);
    for (String expected : List.of(
        " launch 8\n", " copy host to device 3\n", " copy device to host 3\n",
        " copy device to device 1\n", " memset 1\n", " blas 1\n", " alloc 7\n", " free 7\n",
        " sync 2\n", " opaque 1\n", " failed (result != 0) 0\n",
        " relu 2 8.56\n", " scale 2 8.60\n", " reduce_sum 1 8.80\n", " histogram 1 8.20\n",
        " main (1) 35 ", " worker-1 (23) 6 ",
        " host to device 3.0 MiB (3145728 bytes)\n", " device to host 1.1 MiB (1114368 bytes)\n",
        " device to device 1.0 MiB (1048576 bytes)\n",
        "synchronizations 2\n",
        " streams used 4\n", " cross-stream waits 9\n", " events recorded 7\n", " host waits 4\n",
        " host waits narrowed 2\n", " barriers 1\n")) {
      assertTrue(s.contains(expected), "missing '" + expected.strip() + "' in\n" + run.out());
    }
    assertFalse(run.out().contains("graph") || run.out().contains("replay"), "nothing about graphs without replays");
  }

  @Test
  void statsAsJsonHoldsTheFiguresOfTheText() {
    Run run = inspect("stats", sample.toString(), "--format", "json");
    assertEquals(0, run.code(), run.err());
    JsonObject o = JsonParser.parseString(run.out()).getAsJsonObject();
    assertEquals(41, o.get("calls").getAsLong());
    JsonObject kinds = o.getAsJsonObject("calls_by_kind");
    assertEquals(8, kinds.get("launch").getAsLong());
    assertEquals(3, kinds.get("copy host to device").getAsLong());
    assertEquals(7, kinds.get("alloc").getAsLong());
    assertEquals(3145728, o.getAsJsonObject("bytes_copied").get("host_to_device").getAsLong());
    assertEquals(9, o.getAsJsonObject("scheduling").get("cross_stream_waits").getAsLong());
    JsonElement relu = o.getAsJsonArray("kernels").asList().stream()
        .filter(k -> k.getAsJsonObject().get("name").getAsString().equals("relu")).findFirst().orElseThrow();
    assertEquals(2, relu.getAsJsonObject().get("launches").getAsLong());
    assertEquals(8.56, relu.getAsJsonObject().get("mean_host_us").getAsDouble(), 0.005);
    assertFalse(o.has("graph_replays"), "nothing about graphs without replays");
    long byPriority = o.getAsJsonObject("calls_by_priority").entrySet().stream()
        .mapToLong(e -> e.getValue().getAsLong()).sum();
    assertEquals(41, byPriority, "every call in one class: " + o.getAsJsonObject("calls_by_priority"));
  }

  @Test
  void statsAsCsvHasOneRowPerFigure() {
    Run run = inspect("stats", sample.toString(), "--format", "csv");
    assertEquals(0, run.code(), run.err());
    List<String> rows = run.lines();
    assertEquals("section,name,count,value", rows.get(0));
    assertTrue(rows.contains("kind,launch,8,"), run.out());
    assertTrue(rows.contains("kernel,relu,2,8.560"), run.out());
    assertTrue(rows.contains("bytes,host to device,3145728,"), run.out());
    assertTrue(rows.stream().anyMatch(r -> r.startsWith("thread,main (1),35,")), run.out());
  }

  @Test
  void statsSaysWhichVersionWroteTheJournalWhereItsFirstDocumentSays() throws Exception {
    Path dir = temp.resolve("versioned");
    ChronicleLaunchJournal journal = ChronicleLaunchJournal.builder(dir).warn(w -> { })
        .header(new dev.kernelweave.journal.RunHeader("9.8.7", "25.0.1")).open();
    journal.append(launch(0, 1, AccessMode.WRITE));
    journal.close();
    List<String> text = inspect("stats", dir.toString()).lines();
    assertEquals("written by kernelweave 9.8.7 on Java 25.0.1", text.get(1), String.join("\n", text));
    assertTrue(text.get(2).startsWith("1 calls from "), String.join("\n", text));
    JsonObject json = JsonParser.parseString(inspect("stats", dir.toString(), "--format", "json").out()).getAsJsonObject();
    assertEquals("9.8.7", json.get("agent_version").getAsString());
    assertEquals("25.0.1", json.get("java_version").getAsString());
    assertTrue(inspect("stats", dir.toString(), "--format", "csv").lines().contains("written by,kernelweave,,9.8.7"));

    // A journal written before the header existed: read as before, its writer unknown.
    Run old = inspect("stats", sample.toString(), "--format", "json");
    assertEquals(0, old.code(), old.err());
    assertTrue(JsonParser.parseString(old.out()).getAsJsonObject().get("agent_version").isJsonNull(), old.out());
    assertFalse(inspect("stats", sample.toString()).out().contains("written by"));
  }

  /** A journal of one launch, written by "9.8.7", that ends with {@code end}. */
  private static Path oneLaunchThen(Path dir, dev.kernelweave.journal.RunEnd end) throws Exception {
    ChronicleLaunchJournal journal = ChronicleLaunchJournal.builder(dir).warn(w -> { })
        .header(new dev.kernelweave.journal.RunHeader("9.8.7", "25.0.1")).open();
    journal.append(launch(0, 1, AccessMode.WRITE));
    journal.endOfRun(end);
    journal.close();
    return dir;
  }

  @Test
  void statsSaysWhatTheAgentLeftAsWrittenWhereTheJournalsLastDocumentSays() throws Exception {
    Path dir = oneLaunchThen(temp.resolve("engaged-late"), new dev.kernelweave.journal.RunEnd(37,
        "16 launches in a row", "threads calling at once waited for each other"));
    List<String> text = inspect("stats", dir.toString()).lines();
    assertEquals("the agent engaged after 37 calls made as written, not in the journal (16 launches in a row)",
        text.get(2), String.join("\n", text));
    assertEquals("the agent stopped scheduling for good (threads calling at once waited for each other): later calls"
        + " ran as written and are not in the journal", text.get(3), String.join("\n", text));
    JsonObject engagement = JsonParser.parseString(inspect("stats", dir.toString(), "--format", "json").out())
        .getAsJsonObject().getAsJsonObject("engagement");
    assertEquals(37, engagement.get("calls_as_written").getAsLong());
    assertEquals("16 launches in a row", engagement.get("engaged").getAsString());
    assertTrue(inspect("stats", dir.toString(), "--format", "csv").lines().contains("engagement,calls as written,37,"));

    Path never = oneLaunchThen(temp.resolve("never-engaged"), new dev.kernelweave.journal.RunEnd(468, "", ""));
    assertTrue(inspect("stats", never.toString()).out().contains(
        "\nthe agent never engaged: the program's 468 launches, copies and waits ran as written and are not in the journal\n"));

    // A journal that does not say: nothing said, JSON null.
    assertFalse(inspect("stats", sample.toString()).out().contains("the agent"));
    assertTrue(JsonParser.parseString(inspect("stats", sample.toString(), "--format", "json").out())
        .getAsJsonObject().get("engagement").isJsonNull());
  }

  @Test
  void statsRejectsAnUnknownFormatNamingTheChoices() {
    Run run = inspect("stats", sample.toString(), "--format", "xml");
    assertEquals(2, run.code());
    assertTrue(run.err().contains("--format is text, json or csv, not 'xml'"), run.err());
  }

  @Test
  void eachCommandsHelpShowsThatCommandsOptionsAndTheExitCodes() {
    // An option only that command has, as its help writes it.
    Map<String, String> own = Map.of("stats", "--since=INSTANT", "tail", "--kernel=GLOB", "dag", "--svg",
        "trace", "-o, --output=FILE.json");
    for (String command : own.keySet()) {
      Run run = inspect(command, "--help");
      assertEquals(0, run.code(), run.err());
      assertEquals("", run.err());
      assertTrue(run.out().startsWith("Usage: kernelweave inspect " + command + " "), run.out());
      own.forEach((other, option) ->
          assertEquals(other.equals(command), run.out().contains(option), command + " help:\n" + run.out()));
      assertTrue(run.out().contains("Exit codes:") && run.out().contains("3   damaged journal"), run.out());
    }
    assertTrue(inspect("tail", "-h").out().contains("--kernel=GLOB"));
    Run all = inspect("--help");
    assertTrue(all.out().startsWith("Usage: kernelweave inspect [-h] [COMMAND]"), all.out());
    for (String command : own.keySet()) {
      assertTrue(all.out().contains("\n  " + command + " "), command + " listed:\n" + all.out());
    }
    assertEquals(inspect("stats", "--help").out(), inspect("help", "stats").out(), "help COMMAND is COMMAND --help");
  }

  @Test
  void traceToStandardOutputIsTheTraceAloneWithTheSummaryOnStandardError() throws Exception {
    Run run = inspect("trace", sample.toString(), "-o", "-");
    assertEquals(0, run.code(), run.err());
    JsonObject trace = JsonParser.parseString(run.out()).getAsJsonObject();
    assertTrue(trace.getAsJsonArray("traceEvents").size() > 41, run.out());
    assertTrue(run.err().contains("wrote 41 calls") && run.err().contains("to standard output"), run.err());
    assertFalse(Files.exists(Path.of("-")), "no file named '-'");
    Path file = temp.resolve("t.json");
    inspect("trace", sample.toString(), "-o", file.toString());
    assertEquals(Files.readString(file), run.out(), "the same trace as written to a file");
  }

  @Test
  void tailPrintsOneReadableLinePerCall() {
    Run run = inspect("tail", sample.toString());
    assertEquals(0, run.code(), run.err());
    List<String> lines = run.lines();
    assertEquals(41, lines.size());
    assertEquals("0 10:00:00.000000 main cuInit s- =0", lines.get(0));
    assertEquals("26 10:00:00.099121 main cuLaunchKernel reduce_sum grid(64,1,1) block(256,1,1) shared=1024 s0"
        + " #2+0x0[1048576] R #3+0x0[1048576] R #5+0x40[256] W after 24 +event =0", lines.get(26));
    assertEquals("27 10:00:00.099131 main cuMemcpyDtoH s- 256B #5+0x40[256] R after 26 +event"
        + " host-wait(narrowed) =0", lines.get(27));
    assertTrue(lines.get(33).endsWith("cufftExecC2C s- host-wait barrier =0"), lines.get(33));
  }

  @Test
  void tailLinesPrintsOnlyTheLastCalls() {
    List<String> all = inspect("tail", sample.toString()).lines();
    Run run = inspect("tail", sample.toString(), "-n", "3");
    assertEquals(0, run.code(), run.err());
    assertEquals(all.subList(all.size() - 3, all.size()), run.lines());
    assertEquals(List.of(), inspect("tail", sample.toString(), "--lines", "0").lines());
    assertEquals(all, inspect("tail", sample.toString(), "-n", "1000").lines());
  }

  @Test
  void tailKernelPrintsOnlyLaunchesOfMatchingKernels() {
    Run run = inspect("tail", sample.toString(), "--kernel", "re*");
    assertEquals(0, run.code(), run.err());
    assertEquals(3, run.lines().size(), run.out()); // relu twice, reduce_sum once
    assertTrue(run.lines().stream().allMatch(l -> l.contains(" relu ") || l.contains(" reduce_sum ")), run.out());
    Run last = inspect("tail", sample.toString(), "--kernel", "relu", "-n", "1");
    assertEquals(1, last.lines().size(), last.out());
    assertTrue(last.lines().get(0).contains(" relu "), last.out());
  }

  @Test
  void tailRejectsABadCountOrGlobNamingIt() {
    Run count = inspect("tail", sample.toString(), "-n", "-2");
    assertEquals(2, count.code());
    assertTrue(count.err().contains("-n needs a number of calls (0 or more), not '-2'"), count.err());
    Run glob = inspect("tail", sample.toString(), "--kernel", "[a");
    assertEquals(2, glob.code());
    assertTrue(glob.err().contains("--kernel needs a glob"), glob.err());
  }

  @Test
  void tailFollowPrintsCallsAppendedLaterUntilInterrupted() throws Exception {
    Path live = temp.resolve("live");
    ChronicleLaunchJournal journal = ChronicleLaunchJournal.builder(live).warn(w -> { }).open();
    CallRecord call = new CallRecord();
    call.name = "cuLaunchKernel";
    call.kind = CallKind.LAUNCH;
    call.kernel = "first";
    journal.append(call);
    journal.awaitWritten(10, TimeUnit.SECONDS);

    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    PrintStream out = new PrintStream(bytes, true, StandardCharsets.UTF_8);
    int[] code = {-1};
    Thread follower = new Thread(() -> code[0] = InspectCommand.run(
        new String[] {"tail", live.toString(), "-f"}, out, out, ZoneOffset.UTC));
    follower.start();
    awaitOutput(bytes, "first");
    call.seq = 1;
    call.kernel = "second";
    journal.append(call);
    awaitOutput(bytes, "second");
    follower.interrupt();
    follower.join(10_000);
    assertFalse(follower.isAlive());
    assertEquals(0, code[0]);
    journal.close();
    assertEquals(2, bytes.toString(StandardCharsets.UTF_8).lines().count());
  }

  @Test
  void tailFollowEndsOnceTheRunsProcessHasEnded() throws Exception {
    Process writer = new ProcessBuilder("true").start();
    writer.waitFor();
    String now = java.time.format.DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss")
        .format(java.time.LocalDateTime.now(ZoneOffset.UTC));
    Path run = temp.resolve("run-" + now + "-" + writer.pid());
    SampleJournal.write(run);
    Run follow = inspect("tail", run.toString(), "-f");
    assertEquals(0, follow.code(), follow.err());
    assertEquals(41, follow.lines().size(), "every call the ended run wrote");
    Run last = inspect("tail", run.toString(), "-f", "-n", "2");
    assertEquals(0, last.code(), last.err());
    assertEquals(2, last.lines().size(), last.out());
  }

  private static void awaitOutput(ByteArrayOutputStream bytes, String text) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (!bytes.toString(StandardCharsets.UTF_8).contains(text)) {
      assertTrue(System.nanoTime() < deadline, "no '" + text + "' in " + bytes);
      Thread.sleep(10);
    }
  }

  /** A DOT edge: from, to, label, dashed. */
  record DotEdge(long from, long to, String label, boolean dashed) {}

  private static final Pattern EDGE =
      Pattern.compile("^  n(\\d+) -> n(\\d+) \\[label=\"([^\"]*)\"(, style=dashed)?.*\\];$");
  private static final Pattern NODE = Pattern.compile("^  n(\\d+) \\[label=.*");

  static Map<String, DotEdge> edges(String dot) {
    Map<String, DotEdge> edges = new HashMap<>();
    for (String line : dot.lines().toList()) {
      Matcher m = EDGE.matcher(line);
      if (m.matches()) {
        DotEdge e = new DotEdge(Long.parseLong(m.group(1)), Long.parseLong(m.group(2)), m.group(3),
            m.group(4) != null);
        edges.put(e.from() + "->" + e.to(), e);
      }
    }
    return edges;
  }

  static Set<Long> nodes(String dot) {
    Set<Long> nodes = new HashSet<>();
    for (String line : dot.lines().toList()) {
      Matcher m = NODE.matcher(line);
      if (m.matches()) {
        nodes.add(Long.parseLong(m.group(1)));
      }
    }
    return nodes;
  }

  /** A journal of the calls in the queue's own files (the damage tests cut them). */
  private Path journalOf(List<CallRecord> calls) throws Exception {
    Path dir = Files.createTempDirectory(temp, "journal");
    ChronicleLaunchJournal journal = ChronicleLaunchJournal.builder(dir).queueAtOnce().warn(w -> { }).open();
    calls.forEach(journal::append);
    journal.close();
    return dir;
  }

  private static CallRecord launch(long seq, Object... accesses) {
    CallRecord r = new CallRecord();
    r.seq = seq;
    r.kind = CallKind.LAUNCH;
    r.name = "cuLaunchKernel";
    r.kernel = "k" + seq;
    for (int i = 0; i < accesses.length; i += 2) {
      r.addAccess((Integer) accesses[i], 0, 0x1000, 0, 256, (AccessMode) accesses[i + 1]);
    }
    return r;
  }

  @Test
  void dagDrawsReadAfterWriteWriteAfterReadAndWriteAfterWrite() throws Exception {
    List<CallRecord> calls = new ArrayList<>();
    calls.add(launch(0, 1, AccessMode.WRITE));                 // writes #1
    calls.add(launch(1, 1, AccessMode.READ));                  // RAW 0 -> 1
    calls.add(launch(2, 1, AccessMode.WRITE));                 // WAR 1 -> 2 (WAW 0 -> 2 implied by it)
    calls.add(launch(3, 1, AccessMode.WRITE));                 // WAW 2 -> 3
    calls.add(launch(4, 1, AccessMode.READ, 2, AccessMode.WRITE));  // RAW 3 -> 4
    calls.add(launch(5, 1, AccessMode.READ, 2, AccessMode.READ));   // RAW 3 -> 5 (dashed: via 4), RAW 4 -> 5
    CallRecord host = new CallRecord();
    host.seq = 6;
    host.kind = CallKind.SYNC;
    host.name = "cuCtxSynchronize";
    calls.add(host);
    calls.add(launch(7, 1, AccessMode.READ_WRITE));            // RAW 3 -> 7; WAR 4 -> 7, 5 -> 7

    Run run = inspect("dag", journalOf(calls).toString(), "--dot");
    assertEquals(0, run.code(), run.err());
    assertTrue(run.out().startsWith("digraph kernelweave {"), run.out());
    Map<String, DotEdge> edges = edges(run.out());
    assertEquals(Map.of(
        "0->1", new DotEdge(0, 1, "RAW #1", false),
        "1->2", new DotEdge(1, 2, "WAR #1", false),
        "2->3", new DotEdge(2, 3, "WAW #1", false),
        "3->4", new DotEdge(3, 4, "RAW #1", false),
        "3->5", new DotEdge(3, 5, "RAW #1", true),
        "4->5", new DotEdge(4, 5, "RAW #2", false),
        "3->7", new DotEdge(3, 7, "RAW #1", true),
        "4->7", new DotEdge(4, 7, "WAR #1", true),
        "5->7", new DotEdge(5, 7, "WAR #1", false)), edges, run.out());
    assertEquals(Set.of(0L, 1L, 2L, 3L, 4L, 5L, 7L), nodes(run.out()), "device work only");

    Run range = inspect("dag", journalOf(calls).toString(), "--from", "2", "--to", "4");
    assertEquals(Set.of(2L, 3L, 4L), nodes(range.out()));
    assertEquals(Set.of("2->3", "3->4"), edges(range.out()).keySet());
  }

  /** A launch touching bytes {@code [offset, offset + size)} of allocation {@code id}. */
  private static CallRecord launchOn(long seq, int id, long offset, long size, AccessMode mode) {
    CallRecord r = launch(seq);
    r.addAccess(id, 0, 0x1000, offset, size, mode);
    return r;
  }

  @Test
  void dagSvgRunsDotOnTheFirstCallsAndWritesItsDrawing() throws Exception {
    Path dot = temp.resolve("fake-dot");
    Files.writeString(dot, """
        #!/bin/sh
        if [ "$1" = "-V" ]; then echo "dot - graphviz version 0 (fake)" >&2; exit 0; fi
        edges=$(grep -c -- '->')
        echo "<svg format='$1' edges='$edges'/>"
        """);
    dot.toFile().setExecutable(true);
    Path svg = temp.resolve("d.svg");
    System.setProperty("kernelweave.dot", dot.toString());
    try {
      Run run = inspect("dag", sample.toString(), "--svg", "-o", svg.toString());
      assertEquals(0, run.code(), run.err());
      String dotWrote = inspect("dag", sample.toString(), "-o", temp.resolve("d.dot").toString()).out();
      assertEquals(dotWrote.replace("d.dot", "d.svg"), run.out(), "the same calls as the DOT text");
      assertTrue(run.err().contains("dag: drew calls 0 to 199; --from SEQ --to SEQ draws others"), run.err());
      String drawing = Files.readString(svg);
      assertTrue(drawing.startsWith("<svg format='-Tsvg' edges='"), drawing);
      assertFalse(drawing.contains("edges='0'"), "the graph's edges reached dot: " + drawing);
    } finally {
      System.clearProperty("kernelweave.dot");
    }
  }

  @Test
  void dagPngWithoutDotSaysWhatToInstallAndWritesNothing() {
    Path png = temp.resolve("d.png");
    System.setProperty("kernelweave.dot", temp.resolve("no-such-dot").toString());
    try {
      Run run = inspect("dag", sample.toString(), "--png", "-o", png.toString());
      assertEquals(2, run.code());
      assertEquals(1, run.err().lines().count(), run.err());
      assertTrue(run.err().contains("Graphviz") && run.err().contains("KERNELWEAVE_DOT"), run.err());
      assertFalse(Files.exists(png));
    } finally {
      System.clearProperty("kernelweave.dot");
    }
    Run noOutput = inspect("dag", sample.toString(), "--svg");
    assertEquals(2, noOutput.code());
    assertTrue(noOutput.err().contains("dag --svg needs -o FILE.svg"), noOutput.err());
  }

  @Test
  void dagOrdersOnlyOverlappingBytesOfOneAllocation() throws Exception {
    List<CallRecord> calls = new ArrayList<>();
    calls.add(launchOn(0, 1, 0, 64, AccessMode.WRITE));      // slice 0
    calls.add(launchOn(1, 1, 64, 64, AccessMode.WRITE));     // slice 1: no edge from 0
    calls.add(launchOn(2, 1, 64, 4, AccessMode.READ));       // RAW 1 -> 2 only
    calls.add(launchOn(3, 1, 32, 64, AccessMode.WRITE));     // straddles: WAW 0 -> 3, WAR 2 -> 3 (and 1 -> 3 implied)
    calls.add(launchOn(4, 1, 0, 128, AccessMode.WRITE));     // covers everything before it
    calls.add(launchOn(5, 1, 100, 4, AccessMode.READ));      // RAW 4 -> 5 alone: 4 covered the others

    Run run = inspect("dag", journalOf(calls).toString(), "--dot");
    assertEquals(0, run.code(), run.err());
    Map<String, DotEdge> edges = edges(run.out());
    assertFalse(edges.containsKey("0->1"), run.out());
    assertEquals("RAW #1", edges.get("1->2").label(), run.out());
    assertFalse(edges.containsKey("0->2"), run.out());
    assertEquals("WAW #1", edges.get("0->3").label(), run.out());
    assertEquals("WAR #1", edges.get("2->3").label(), run.out());
    assertEquals(List.of("4->5"), edges.keySet().stream().filter(e -> e.endsWith("->5")).toList(), run.out());
  }

  @Test
  void dagDrawsTheSchedulersOwnOrderingSolidAndTheRestDashed() {
    Run run = inspect("dag", sample.toString(), "--dot");
    assertEquals(0, run.code(), run.err());
    Map<String, DotEdge> edges = edges(run.out());
    assertEquals(new DotEdge(14, 18, "RAW #1", false), edges.get("14->18"), "a recorded wait");
    assertEquals(new DotEdge(22, 23, "RAW #4", false), edges.get("22->23"), "one stream");
    assertEquals(new DotEdge(24, 26, "RAW #3", false), edges.get("24->26"), "the join's wait");
    assertEquals(new DotEdge(26, 29, "WAR #2", false), edges.get("26->29"));
    assertEquals(new DotEdge(29, 32, "RAW #2", true), edges.get("29->32"),
        "ordered by the context synchronization, not by a wait of its own");
    assertEquals(17, edges.size(), run.out());
    Set<Long> nodes = nodes(run.out());
    assertTrue(nodes.contains(28L) && !nodes.contains(30L) && !nodes.contains(7L), nodes.toString());
  }

  @Test
  void traceWritesAChromeTraceWithAThreadAndAStreamTrackPerCall() throws Exception {
    Path file = temp.resolve("trace.json");
    Run run = inspect("trace", sample.toString(), "-o", file.toString());
    assertEquals(0, run.code(), run.err());
    JsonObject trace = JsonParser.parseString(Files.readString(file)).getAsJsonObject();
    List<JsonObject> events = new ArrayList<>();
    for (JsonElement e : trace.getAsJsonArray("traceEvents")) {
      events.add(e.getAsJsonObject());
    }
    Map<String, String> trackNames = new HashMap<>();
    List<JsonObject> onThreads = new ArrayList<>();
    List<JsonObject> onStreams = new ArrayList<>();
    int flowStarts = 0;
    for (JsonObject e : events) {
      String ph = e.get("ph").getAsString();
      String track = e.get("pid").getAsInt() + "/" + e.get("tid").getAsLong();
      switch (ph) {
        case "M" -> {
          if (e.get("name").getAsString().equals("thread_name")) {
            trackNames.put(track, e.getAsJsonObject("args").get("name").getAsString());
          }
        }
        case "X" -> (e.get("pid").getAsInt() == 1 ? onThreads : onStreams).add(e);
        case "s" -> flowStarts++;
        default -> { }
      }
    }
    assertEquals(41, onThreads.size(), "every call on its thread's track");
    assertEquals(11, onStreams.size(), "every call placed on a stream, on that stream's track");
    assertEquals(Map.of("1/1", "main (1)", "1/23", "worker-1 (23)", "2/0", "host: stream 0",
        "2/1", "host: stream 1", "2/2", "host: stream 2", "2/3", "host: stream 3"), trackNames);
    JsonObject reduce = onStreams.stream()
        .filter(e -> e.get("name").getAsString().equals("reduce_sum")).findFirst().orElseThrow();
    assertEquals(0, reduce.get("tid").getAsInt());
    assertEquals(8.8, reduce.get("dur").getAsDouble(), 1e-9, "microseconds");
    assertEquals(99_121.0, reduce.get("ts").getAsDouble(), 1.0, "microseconds since the first call");
    assertEquals(26, reduce.getAsJsonObject("args").get("seq").getAsLong());
    assertEquals(4, flowStarts, "waits between stream calls: 24->26, 18->28, 22->28, 26->29");
    assertTrue(run.out().contains(file.toString()), run.out());
    assertFalse(run.out().contains("graph"), run.out());
    assertTrue(events.stream().noneMatch(e -> e.has("cat") && e.get("cat").getAsString().equals("graph")));
  }

  @Test
  void traceSaysItsStreamSlicesAreHostTimeNotGpuTime() throws Exception {
    Run run = inspect("trace", replayJournal().toString(), "-o", "-");
    assertEquals(0, run.code(), run.err());
    JsonObject trace = JsonParser.parseString(run.out()).getAsJsonObject();
    assertTrue(trace.getAsJsonObject("otherData").get("timing").getAsString()
        .startsWith("every slice of the application threads and the agent streams is host time"),
        trace.get("otherData").toString());
    Map<Integer, String> processes = new HashMap<>();
    int streamSlices = 0;
    for (JsonElement element : trace.getAsJsonArray("traceEvents")) {
      JsonObject e = element.getAsJsonObject();
      int pid = e.get("pid").getAsInt();
      if (e.get("name").getAsString().equals("process_name")) {
        processes.put(pid, e.getAsJsonObject("args").get("name").getAsString());
      } else if (e.get("name").getAsString().equals("thread_name") && pid == 2) {
        assertTrue(e.getAsJsonObject("args").get("name").getAsString().startsWith("host: stream "), e.toString());
      } else if (e.get("ph").getAsString().equals("X") && pid == 2) {
        // Replays' slices too: they span their launches' host times.
        assertEquals("host", e.getAsJsonObject("args").get("clock").getAsString(), e.toString());
        streamSlices++;
      }
    }
    assertEquals(Map.of(1, "application threads (host time)", 2, "agent streams (host time, not GPU time)"),
        processes);
    assertEquals(11 + 3, streamSlices, "the calls placed on a stream (all but the synchronization), three replays");
  }

  @Test
  void aMissingDirectoryIsNamedAndExitsWithTheUsageCode() {
    Path missing = temp.resolve("nowhere");
    for (String command : List.of("stats", "tail", "dag")) {
      Run run = inspect(command, missing.toString());
      assertEquals(Main.USAGE, run.code());
      assertEquals("kernelweave inspect: " + missing + ": no such directory\n", run.err());
    }
  }

  @Test
  void aDirectoryWithoutAJournalIsNamed() throws Exception {
    Path empty = Files.createDirectory(temp.resolve("empty"));
    Run run = inspect("stats", empty.toString());
    assertEquals(Main.USAGE, run.code());
    assertTrue(run.err().contains(empty + " holds no journal"), run.err());
    Path file = Files.writeString(temp.resolve("file"), "x");
    Run notDir = inspect("tail", file.toString());
    assertEquals(Main.USAGE, notDir.code());
    assertTrue(notDir.err().contains(file + ": not a directory"), notDir.err());
  }

  @Test
  void unknownCommandsAndOptionsPrintTheErrorAndUsage() {
    Run unknown = inspect("graph", sample.toString());
    assertEquals(Main.USAGE, unknown.code());
    assertTrue(unknown.err().startsWith("kernelweave inspect: unknown command 'graph'"), unknown.err());
    assertTrue(unknown.err().contains("expected stats, tail, dag, trace or help"), unknown.err());
    assertTrue(unknown.err().contains("Usage: kernelweave inspect"), unknown.err());

    Run option = inspect("stats", sample.toString(), "--fast");
    assertEquals(Main.USAGE, option.code());
    assertTrue(option.err().startsWith("kernelweave inspect: unknown option '--fast' for stats; accepted: --since,"
        + " --format, -h/--help\n"), option.err());

    Run noOutput = inspect("trace", sample.toString());
    assertEquals(Main.USAGE, noOutput.code());
    assertTrue(noOutput.err().contains("trace needs -o FILE.json"), noOutput.err());

    Run badSeq = inspect("dag", sample.toString(), "--from", "x");
    assertEquals(Main.USAGE, badSeq.code());
    assertTrue(badSeq.err().contains("--from needs a sequence number, not 'x'"), badSeq.err());

    Run badInstant = inspect("stats", sample.toString(), "--since", "yesterday");
    assertEquals(Main.USAGE, badInstant.code());
    assertTrue(badInstant.err().contains("--since needs an instant (ISO-8601"), badInstant.err());
    assertTrue(badInstant.err().contains("not 'yesterday'"), badInstant.err());

    Run noDir = inspect("stats");
    assertEquals(Main.USAGE, noDir.code());
    assertTrue(noDir.err().contains("stats needs a journal directory"), noDir.err());
  }

  @Test
  void helpPrintsUsage() {
    Run help = inspect("--help");
    assertEquals(0, help.code());
    assertTrue(help.out().startsWith("Usage: kernelweave inspect [-h] [COMMAND]"), help.out());
    for (String[] args : new String[][] {{"stats", "--help"}, {"trace", "some-dir", "-h"}}) {
      Run after = inspect(args);
      assertEquals(0, after.code(), String.join(" ", args) + ": " + after.err());
      assertTrue(after.out().startsWith("Usage: kernelweave inspect " + args[0] + " "), after.out());
      assertEquals("", after.err());
    }
    Run bare = inspect();
    assertEquals(Main.USAGE, bare.code());
    assertTrue(bare.err().startsWith("Usage: kernelweave inspect"), bare.err());
    assertEquals("", bare.out());
  }

  @Test
  void aMissingValueOrASecondDirectoryIsAUsageErrorNamingTheOption() {
    Run noValue = inspect("tail", sample.toString(), "-n");
    assertEquals(Main.USAGE, noValue.code());
    assertTrue(noValue.err().startsWith("kernelweave inspect: -n/--lines needs a value (N)\n"), noValue.err());
    Run two = inspect("stats", sample.toString(), sample.toString());
    assertEquals(Main.USAGE, two.code());
    assertTrue(two.err().startsWith("kernelweave inspect: stats takes one journal directory, not ["), two.err());
    Run both = inspect("dag", sample.toString(), "--svg", "--png", "-o", temp.resolve("d").toString());
    assertEquals(Main.USAGE, both.code());
    assertTrue(both.err().startsWith("kernelweave inspect: choose one of --svg and --png\n"), both.err());
    Run equals = inspect("stats", sample.toString(), "--format=csv");
    assertEquals(0, equals.code(), equals.err());
    assertEquals("section,name,count,value", equals.lines().get(0), "--format=csv is --format csv");
  }

  @Test
  void theCommandLineRoutesInspect() {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    int code = Main.run(new String[] {"inspect", "stats", SampleJournalTest.SHIPPED.toString()},
        new PrintStream(out, true, StandardCharsets.UTF_8), System.err);
    assertEquals(0, code);
    assertTrue(out.toString(StandardCharsets.UTF_8).contains("41 calls"), out.toString());
  }

  /** Each subcommand, with the arguments it needs besides the directory. */
  private List<String[]> everySubcommand(Path dir) {
    return List.of(
        new String[] {"stats", dir.toString()},
        new String[] {"tail", dir.toString()},
        new String[] {"dag", dir.toString(), "--dot"},
        new String[] {"trace", dir.toString(), "-o", temp.resolve("out-" + dir.getFileName() + ".json").toString()});
  }

  private static Path dataFile(Path dir) throws Exception {
    try (var files = Files.list(dir)) {
      return files.filter(p -> p.toString().endsWith(".cq4")).findFirst().orElseThrow();
    }
  }

  /** Where the last document of a queue file ends: the first zero header. */
  private static long writtenEnd(Path file) throws Exception {
    java.nio.ByteBuffer b = java.nio.ByteBuffer.wrap(Files.readAllBytes(file)).order(java.nio.ByteOrder.LITTLE_ENDIAN);
    int pos = 0;
    while (b.getInt(pos) != 0) {
      pos = (pos + 4 + (b.getInt(pos) & 0x3FFF_FFFF) + 3) & ~3;
    }
    return pos;
  }

  private void assertDamagedForEverySubcommand(Path dir, Path damagedFile, String what) {
    for (String[] args : everySubcommand(dir)) {
      Run run = inspect(args);
      String command = args[0];
      assertEquals(Journal.DAMAGED, run.code(), what + ", " + command + ": " + run.err());
      assertEquals(1, run.err().lines().count(), what + ", " + command + ": one line: " + run.err());
      assertTrue(run.err().startsWith("kernelweave inspect: " + damagedFile + " is damaged: readable up to byte "),
          what + ", " + command + ": " + run.err());
      assertFalse(run.out().contains("no calls"), what + ", " + command + ": " + run.out());
    }
  }

  @Test
  void aTruncatedJournalIsReadUpToTheDamageByEverySubcommand() throws Exception {
    List<CallRecord> calls = new ArrayList<>();
    for (int i = 1; i <= 2000; i++) {
      calls.add(launch(i, 1 + i % 7, AccessMode.READ_WRITE));
    }
    Path dir = journalOf(calls);
    Path file = dataFile(dir);
    try (var ch = java.nio.channels.FileChannel.open(file, java.nio.file.StandardOpenOption.WRITE)) {
      ch.truncate(writtenEnd(file) / 2);
    }
    assertDamagedForEverySubcommand(dir, file, "truncated");
    Run stats = inspect("stats", dir.toString());
    Matcher m = Pattern.compile("(\\d+) calls from").matcher(stats.out());
    assertTrue(m.find(), stats.out());
    long read = Long.parseLong(m.group(1));
    assertTrue(read > 500 && read < 2000, "the calls before the damage are counted: " + read);
    assertEquals(read, inspect("tail", dir.toString()).lines().size());
  }

  @Test
  void overwrittenBytesInAJournalAreDamageForEverySubcommand() throws Exception {
    List<CallRecord> calls = new ArrayList<>();
    for (int i = 1; i <= 2000; i++) {
      calls.add(launch(i, 1 + i % 7, AccessMode.READ));
    }
    Path dir = journalOf(calls);
    Path file = dataFile(dir);
    byte[] noise = new byte[8192];
    new java.util.Random(5).nextBytes(noise);
    try (var ch = java.nio.channels.FileChannel.open(file, java.nio.file.StandardOpenOption.WRITE)) {
      ch.write(java.nio.ByteBuffer.wrap(noise), writtenEnd(file) / 2);
    }
    assertDamagedForEverySubcommand(dir, file, "overwritten");
  }

  @Test
  void aJournalFileOfRandomBytesIsDamagedNotEmpty() throws Exception {
    Path dir = journalOf(List.of(launch(1, 1, AccessMode.READ)));
    Path file = dataFile(dir);
    byte[] noise = new byte[(int) Files.size(file)];
    new java.util.Random(9).nextBytes(noise);
    Files.write(file, noise);
    assertDamagedForEverySubcommand(dir, file, "random");
  }

  @Test
  void aBadMetadataTableIsNamedAfterTheCallsAreShown() throws Exception {
    Path dir = journalOf(List.of(launch(1, 1, AccessMode.READ), launch(2, 1, AccessMode.WRITE)));
    Path metadata = dir.resolve("metadata.cq4t");
    byte[] noise = new byte[4096];
    new java.util.Random(1).nextBytes(noise);
    Files.write(metadata, noise);
    assertDamagedForEverySubcommand(dir, metadata, "bad metadata");
    assertEquals(2, inspect("tail", dir.toString()).lines().size(), "the calls are still shown");
  }

  @Test
  void traceRefusesToWriteInsideTheJournalItReads() throws Exception {
    Path dir = journalOf(List.of(launch(1, 1, AccessMode.READ)));
    Path file = dataFile(dir);
    byte[] before = Files.readAllBytes(file);
    for (Path output : List.of(file, dir.resolve("trace.json"), dir.resolve("sub/../x.json"))) {
      Run run = inspect("trace", dir.toString(), "-o", output.toString());
      assertEquals(Main.USAGE, run.code(), run.err());
      assertEquals(1, run.err().lines().count(), run.err());
      assertTrue(run.err().contains("will not write " + output + ": it is inside the journal directory"), run.err());
    }
    Path parent = dir.getParent();
    Run viaParent = inspect("trace", parent.toString(), "-o", dir.resolve("t.json").toString());
    assertEquals(Main.USAGE, viaParent.code(), viaParent.err());
    assertTrue(java.util.Arrays.equals(before, Files.readAllBytes(file)), "the journal is untouched");
    assertFalse(Files.exists(dir.resolve("trace.json")));
  }

  @Test
  void aDirectoryOfRunsReadsTheNewestAndNamesThemAllInOneLine() throws Exception {
    Path parent = Files.createDirectory(temp.resolve("runs"));
    Path older = Files.createDirectory(parent.resolve("run-20260101-100000-11"));
    Path newer = Files.createDirectory(parent.resolve("run-20260101-100005-7"));
    for (Path run : List.of(older, newer)) {
      ChronicleLaunchJournal j = ChronicleLaunchJournal.builder(run).warn(w -> { }).open();
      j.append(launch(run == older ? 1 : 2, 1, AccessMode.READ));
      j.close();
    }
    Run run = inspect("tail", parent.toString());
    assertEquals(0, run.code(), run.err());
    assertEquals(1, run.lines().size(), run.out());
    assertTrue(run.out().startsWith("2 "), "the newest run's call: " + run.out());
    assertEquals(1, run.err().lines().count(), run.err());
    assertTrue(run.err().contains("holds 2 runs (run-20260101-100000-11, run-20260101-100005-7); reading the newest,"
        + " run-20260101-100005-7"), run.err());
    Run named = inspect("tail", older.toString());
    assertTrue(named.out().startsWith("1 ") && named.err().isEmpty(), named.out() + named.err());
  }

  @Test
  void dagAsksForARangeInOneLineInsteadOfHoldingEveryCall() throws Exception {
    List<CallRecord> calls = new ArrayList<>();
    for (int i = 1; i <= 300; i++) {
      calls.add(launch(i, 1 + i % 5, AccessMode.READ_WRITE));
    }
    Path dir = journalOf(calls);
    dev.kernelweave.agent.cli.inspect.DependencyGraph graph = DependencyGraphs.bounded(100);
    try (Journal journal = Journal.open(dir, System.err)) {
      journal.forEach(graph::add);
    }
    assertTrue(graph.tooLarge());
    assertEquals("dag: 300 device calls (seq 1 to 300) are more than the 100 one graph holds; "
        + "draw a part with --from SEQ --to SEQ", graph.tooLargeMessage());
    assertEquals(0, DependencyGraphs.held(graph), "past the bound, what was held is dropped: it is never drawn");
    dev.kernelweave.agent.cli.inspect.DependencyGraph narrow = DependencyGraphs.bounded(100, 101, 200);
    try (Journal journal = Journal.open(dir, System.err)) {
      journal.forEach(narrow::add);
    }
    assertFalse(narrow.tooLarge(), "a range of 100 calls fits");
  }

  static final long CONTEXT_A = 0xA0;
  static final long CONTEXT_B = 0xB0;

  /**
   * Context A: two launches on their own (streams 0 and 1), window 1 replayed on stream 2 (captured;
   * its first launch carries the replay's waits for both), a synchronization, window 2 replayed on
   * stream 2 (reused), and a launch on its own on stream 0 reading what the second replay's first
   * launch wrote (it waits for the replay's last). Context B: its own window 1, captured, on stream 3.
   * Host times in microseconds: alone 10, 6, 5; replayed 1, 2, 3, 1, 1, 1 in A and 3, 4 in B.
   */
  private Path replayJournal() throws Exception {
    List<CallRecord> calls = new ArrayList<>();
    long[] clock = {SampleJournal.EPOCH_NANOS};
    java.util.function.BiFunction<CallRecord, Long, CallRecord> timed = (r, micros) -> {
      r.startNanos = clock[0];
      r.durationNanos = micros * 1000;
      clock[0] += r.durationNanos + 500;
      r.threadId = 1;
      r.threadName = "main";
      if (r.context == 0) {
        r.context = CONTEXT_A;
      }
      calls.add(r);
      return r;
    };
    timed.apply(placed(launch(0, 1, AccessMode.WRITE), 0), 10L);
    timed.apply(placed(launch(1, 2, AccessMode.WRITE), 1), 6L);
    timed.apply(replayed(launch(2, 1, AccessMode.READ, 3, AccessMode.WRITE), 2, 1, true, 0, 1), 1L);
    timed.apply(replayed(launch(3, 2, AccessMode.READ, 4, AccessMode.WRITE), 2, 1, true), 2L);
    timed.apply(replayed(launch(4, 3, AccessMode.READ, 4, AccessMode.READ, 5, AccessMode.WRITE), 2, 1, true), 3L);
    CallRecord sync = new CallRecord();
    sync.seq = 5;
    sync.kind = CallKind.SYNC;
    sync.name = "cuCtxSynchronize";
    sync.hostWaited = true;
    timed.apply(sync, 4L);
    timed.apply(replayed(launch(6, 1, AccessMode.READ, 3, AccessMode.WRITE), 2, 2, false), 1L);
    timed.apply(replayed(launch(7, 2, AccessMode.READ, 4, AccessMode.WRITE), 2, 2, false), 1L);
    timed.apply(replayed(launch(8, 3, AccessMode.READ, 4, AccessMode.READ, 5, AccessMode.WRITE), 2, 2, false), 1L);
    timed.apply(placed(launch(9, 3, AccessMode.READ), 0, 8), 5L);
    CallRecord b1 = replayed(launch(10, 10, AccessMode.WRITE), 3, 1, true);
    b1.context = CONTEXT_B;
    timed.apply(b1, 3L);
    CallRecord b2 = replayed(launch(11, 11, AccessMode.WRITE), 3, 1, true);
    b2.context = CONTEXT_B;
    timed.apply(b2, 4L);
    return journalOf(calls);
  }

  private static CallRecord placed(CallRecord r, int stream, long... predecessors) {
    r.stream = stream;
    for (long p : predecessors) {
      r.addPredecessor(p);
    }
    r.eventRecorded = predecessors.length > 0;
    return r;
  }

  private static CallRecord replayed(CallRecord r, int stream, long window, boolean captured, long... predecessors) {
    placed(r, stream, predecessors);
    r.graphWindow = window;
    r.graphCaptured = captured;
    return r;
  }

  /** The line where a successful {@code inspect stats}'s section on graph replays begins. */
  private static int graphReplaysAt(Run run) {
    assertEquals(0, run.code(), run.err());
    int at = run.lines().indexOf("graph replays");
    assertTrue(at > 0, run.out());
    return at;
  }

  @Test
  void statsCountsReplayedWindowsTheLaunchesTheySavedAndTheirHostTimeApartFromCaptures() throws Exception {
    Run run = inspect("stats", replayJournal().toString());
    List<String> lines = run.lines();
    int at = graphReplaysAt(run);
    assertEquals(List.of(
        "graph replays",
        "  windows replayed                  3",
        "  windows captured                  2",
        "  launches in replays               8",
        "  share of launches             72.7%",
        "  launches saved                    5",
        "  mean host us, in replay        1.00",
        "  mean host us, capturing        2.60",
        "  mean host us, on its own       7.00"), lines.subList(at, lines.size()), run.out());
    assertEquals("", lines.get(at - 1));
    assertTrue(lines.get(at - 2).startsWith("  barriers"), "after the scheduling section: " + run.out());
    assertTrue(run.squeezed().contains(" launch 11\n"), run.out());
  }

  /** The replay journal, and after it the device times of three sampled windows of one shape. */
  private Path judgedJournal() throws Exception {
    Path replays = replayJournal();
    List<CallRecord> calls = new ArrayList<>();
    try (dev.kernelweave.agent.cli.inspect.Journal j = dev.kernelweave.agent.cli.inspect.Journal.open(replays,
        new java.io.PrintStream(java.io.OutputStream.nullOutputStream()))) {
      j.forEach(r -> {
        CallRecord copy = new CallRecord();
        copy.copyFrom(r);
        calls.add(copy);
      });
    }
    long seq = calls.get(calls.size() - 1).seq;
    String[][] samples = {{"graph", "40", "3", ""}, {"in order", "10", "5", ""}, {"in order", "12", "5", "in order"}};
    for (String[] sample : samples) {
      CallRecord t = new CallRecord();
      t.seq = ++seq;
      t.kind = CallKind.WINDOW_TIME;
      t.context = CONTEXT_A;
      t.threadId = 1;
      t.threadName = "main";
      t.startNanos = SampleJournal.EPOCH_NANOS + seq * 1000;
      t.name = sample[0];
      t.durationNanos = Long.parseLong(sample[1]) * 1000;
      t.bytes = Long.parseLong(sample[2]) * 1000;
      t.graphWindow = seq;
      t.stream = 2;
      t.appStream = 0xabcL;
      t.kernel = sample[3];
      calls.add(t);
    }
    return journalOf(calls);
  }

  @Test
  void statsListTheWindowsDeviceTimesPerShapeApartFromTheCalls() throws Exception {
    Run run = inspect("stats", judgedJournal().toString());
    assertEquals(0, run.code(), run.err());
    assertTrue(run.out().contains("12 calls from"), "the samples are not calls: " + run.out());
    int at = run.lines().indexOf("windows timed on the device: 3 samples of 1 window shape, 1 issued in order");
    assertTrue(at > 0, run.out());
    assertEquals("  0xabc                      1            40.0/3.0           2            12.0/5.0  in order",
        run.lines().get(at + 2), run.out());
    Run json = inspect("stats", judgedJournal().toString(), "--format", "json");
    JsonObject times = JsonParser.parseString(json.out()).getAsJsonObject().getAsJsonObject("window_times");
    assertEquals(3, times.get("samples").getAsInt(), json.out());
    JsonObject shape = times.getAsJsonArray("shapes").get(0).getAsJsonObject();
    assertEquals(40.0, shape.get("graph_device_us").getAsDouble(), 1e-9);
    assertEquals(2, shape.get("in_order_samples").getAsInt());
    assertEquals("in order", shape.get("verdict").getAsString());
  }

  @Test
  void traceDrawsTheSampledDeviceTimesOnGpuTracksOfTheirOwn() throws Exception {
    Run run = inspect("trace", judgedJournal().toString(), "-o", "-");
    assertEquals(0, run.code(), run.err());
    JsonObject trace = JsonParser.parseString(run.out()).getAsJsonObject();
    List<JsonObject> device = new ArrayList<>();
    String processName = null;
    for (JsonElement element : trace.getAsJsonArray("traceEvents")) {
      JsonObject e = element.getAsJsonObject();
      if (e.get("pid").getAsInt() != 3) {
        continue;
      }
      if (e.get("name").getAsString().equals("process_name")) {
        processName = e.getAsJsonObject("args").get("name").getAsString();
      } else if (e.get("ph").getAsString().equals("X")) {
        device.add(e);
      }
    }
    assertEquals("device, sampled windows (GPU time)", processName);
    assertEquals(3, device.size(), device.toString());
    assertEquals(40.0, device.get(0).get("dur").getAsDouble(), 1e-9);
    assertEquals("device", device.get(0).getAsJsonObject("args").get("clock").getAsString());
    assertTrue(device.get(1).get("name").getAsString().endsWith("in order"), device.toString());
  }

  @Test
  void statsSinceAnInstantCountsOnlyTheCallsBegunThenOrLater() throws Exception {
    Path journal = replayJournal();
    long window2 = SampleJournal.EPOCH_NANOS + 29_000; // where launch 6, window 2's first, begins
    for (String since : List.of(Long.toString(window2), java.time.Instant.ofEpochSecond(0, window2).toString())) {
      Run run = inspect("stats", journal.toString(), "--since", since);
      List<String> lines = run.lines();
      int at = graphReplaysAt(run);
      assertTrue(lines.get(0).endsWith(", calls since " + since), lines.get(0));
      assertTrue(lines.get(1).startsWith("6 calls from "), run.out());
      assertEquals(List.of(
          "graph replays",
          "  windows replayed                  2",
          "  windows captured                  1",
          "  launches in replays               5",
          "  share of launches             83.3%",
          "  launches saved                    3",
          "  mean host us, in replay        1.00",
          "  mean host us, capturing        3.50",
          "  mean host us, on its own       5.00"), lines.subList(at, lines.size()), run.out());
    }
  }

  @Test
  void statsCountsTheCublasCallsReplayedWithTheLaunchesAsSaved() throws Exception {
    CallRecord gemm = replayed(launch(0, 1, AccessMode.READ, 2, AccessMode.WRITE), 1, 1, true);
    gemm.kind = CallKind.BLAS;
    gemm.name = "cublasSgemm";
    gemm.kernel = "";
    CallRecord mix = replayed(launch(1, 2, AccessMode.READ, 1, AccessMode.WRITE), 1, 1, true);
    for (CallRecord r : List.of(gemm, mix)) {
      r.context = CONTEXT_A;
      r.startNanos = SampleJournal.EPOCH_NANOS + 1000 * r.seq;
      r.durationNanos = 1000;
    }
    Run run = inspect("stats", journalOf(List.of(gemm, mix)).toString());
    List<String> lines = run.lines();
    int at = graphReplaysAt(run);
    assertEquals(List.of(
        "graph replays",
        "  windows replayed                  1",
        "  windows captured                  1",
        "  launches in replays               1",
        "  share of launches            100.0%",
        "  cuBLAS calls in replays           1",
        "  launches saved                    1"), lines.subList(at, at + 7), run.out());
  }

  @Test
  void tailMarksLaunchesIssuedInsideAReplay() throws Exception {
    List<String> lines = inspect("tail", replayJournal().toString()).lines();
    assertTrue(lines.get(2).endsWith(" s2 #1+0x0[256] R #3+0x0[256] W after 0,1 +event graph#1(captured) =0"),
        lines.get(2));
    assertTrue(lines.get(6).endsWith(" s2 #1+0x0[256] R #3+0x0[256] W graph#2 =0"), lines.get(6));
    assertFalse(lines.get(9).contains("graph"), lines.get(9));
  }

  @Test
  void traceDrawsEachReplayAsOneSliceOnItsStreamWithItsLaunchesNestedInside() throws Exception {
    Path file = temp.resolve("replays.json");
    Run run = inspect("trace", replayJournal().toString(), "-o", file.toString());
    assertEquals(0, run.code(), run.err());
    assertTrue(run.out().startsWith("wrote 12 calls, 3 graph replays and "), run.out());
    List<JsonObject> events = new ArrayList<>();
    JsonObject trace = JsonParser.parseString(Files.readString(file)).getAsJsonObject();
    for (JsonElement e : trace.getAsJsonArray("traceEvents")) {
      events.add(e.getAsJsonObject());
    }
    List<JsonObject> slices = events.stream()
        .filter(e -> e.has("cat") && e.get("cat").getAsString().equals("graph")).toList();
    assertEquals(
        List.of("graph replay #1 (3 launches)", "graph replay #2 (3 launches)", "graph replay #1 (2 launches)"),
        slices.stream().map(e -> e.get("name").getAsString()).toList());
    long[] firstSeq = {2, 6, 10};
    long[] lastSeq = {4, 8, 11};
    boolean[] captured = {true, false, true};
    int[] stream = {2, 2, 3};
    for (int i = 0; i < slices.size(); i++) {
      JsonObject slice = slices.get(i);
      JsonObject args = slice.getAsJsonObject("args");
      assertEquals("X", slice.get("ph").getAsString());
      assertEquals(2, slice.get("pid").getAsInt(), "on the agent streams");
      assertEquals(stream[i], slice.get("tid").getAsInt());
      assertEquals(firstSeq[i], args.get("firstSeq").getAsLong());
      assertEquals(lastSeq[i], args.get("lastSeq").getAsLong());
      assertEquals(captured[i], args.get("captured").getAsBoolean());
      double start = slice.get("ts").getAsDouble();
      double end = start + slice.get("dur").getAsDouble();
      int sliceAt = events.indexOf(slice);
      List<JsonObject> inside = new ArrayList<>();
      for (int k = 0; k < events.size(); k++) {
        JsonObject e = events.get(k);
        if (!e.get("ph").getAsString().equals("X") || e.get("pid").getAsInt() != 2 || e == slice) {
          continue;
        }
        long seq = e.getAsJsonObject("args").has("seq") ? e.getAsJsonObject("args").get("seq").getAsLong() : -1;
        if (seq >= firstSeq[i] && seq <= lastSeq[i]) {
          inside.add(e);
          assertEquals(stream[i], e.get("tid").getAsInt());
          assertTrue(k > sliceAt, "a launch follows its replay's slice, so viewers nest it");
          double ts = e.get("ts").getAsDouble();
          assertTrue(ts >= start && ts + e.get("dur").getAsDouble() <= end + 1e-9, e + " inside " + slice);
          assertEquals(i == 2 ? 1 : i + 1, e.getAsJsonObject("args").get("graphWindow").getAsLong());
        }
      }
      assertEquals(lastSeq[i] - firstSeq[i] + 1, inside.size(), "every launch of the replay, on its stream");
      JsonObject first = inside.stream().min(java.util.Comparator.comparingDouble(e -> e.get("ts").getAsDouble()))
          .orElseThrow();
      JsonObject last = inside.stream().max(java.util.Comparator.comparingDouble(e -> e.get("ts").getAsDouble()))
          .orElseThrow();
      assertEquals(first.get("ts").getAsDouble(), start, 1e-9, "from its first launch");
      assertEquals(last.get("ts").getAsDouble() + last.get("dur").getAsDouble(), end, 1e-9, "to its last");
    }
    assertEquals(12, events.stream().filter(e -> e.get("ph").getAsString().equals("X") && e.get("pid").getAsInt() == 1)
        .count(), "every call still on its thread's track");
  }

  @Test
  void dagKeepsTheDataEdgesOfReplayedLaunchesAndTheReplaysWaits() throws Exception {
    Run run = inspect("dag", replayJournal().toString(), "--dot");
    assertEquals(0, run.code(), run.err());
    Map<String, DotEdge> edges = edges(run.out());
    assertEquals(new DotEdge(0, 2, "RAW #1", false), edges.get("0->2"), "the replay's wait, on its first launch");
    assertEquals(new DotEdge(1, 3, "RAW #2", false), edges.get("1->3"), "the replay's wait counts for every launch");
    assertEquals(new DotEdge(2, 4, "RAW #3", false), edges.get("2->4"), "inside the graph");
    assertEquals(new DotEdge(3, 4, "RAW #4", false), edges.get("3->4"), "inside the graph");
    assertEquals(new DotEdge(6, 9, "RAW #3", false), edges.get("6->9"), "a wait for the replay's last is one for all");
    assertEquals(Set.of(0L, 1L, 2L, 3L, 4L, 6L, 7L, 8L, 9L, 10L, 11L), nodes(run.out()));
    assertTrue(run.out().contains("  n2 [label=\"2 k2\\ns2\\ngraph #1 captured\""), run.out());
    assertTrue(run.out().contains("  n7 [label=\"7 k7\\ns2\\ngraph #2\""), run.out());
    assertTrue(run.out().contains("  n9 [label=\"9 k9\\ns0\""), run.out());
    List<String> clusters = run.lines().stream().filter(l -> l.startsWith("  subgraph cluster_")).toList();
    assertEquals(3, clusters.size(), run.out());
    assertTrue(clusters.get(0).contains("label=\"graph replay #1 (captured)\"")
        && clusters.get(0).endsWith(" n2; n3; n4; }"), clusters.get(0));
    assertTrue(clusters.get(1).contains("label=\"graph replay #2\"") && clusters.get(1).endsWith(" n6; n7; n8; }"),
        clusters.get(1));
    assertTrue(clusters.get(2).endsWith(" n10; n11; }"), clusters.get(2));
  }
}
