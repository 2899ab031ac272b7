package dev.kernelweave.it.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.kernelweave.kernels.Ptx;
import dev.kernelweave.ptx.KernelMerging;
import dev.kernelweave.ptx.MergedKernel;
import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Proof by execution that merged variants compute what separate launches compute: every kernel
 * {@link KernelMerging} calls mergeable, in the workloads' PTX, the test PTX corpora and the
 * merge test kernels, runs on the stand-in's PTX interpreter ({@code KW_CPU_DEVICE_PTX=interpret})
 * as k = 1, 2 and 3 separate launches (each instance with its own grid, scalars and buffers) and
 * as one merged launch from the same initial memory ({@link MergedKernelsProgram}); every buffer
 * must come out byte-identical, and the separate launches must have written something.
 */
class MergedKernelsOnCpuDeviceTest {

  /** Arguments the default (pointer: buffer, int: count, float: value) does not fit. */
  static final Map<String, String> SPECS = specs();

  /**
   * Mergeable kernels the stand-in's interpreter cannot run, left to {@code MergedKernelsGpuTest}:
   * the sm_90 build of async_stage uses cp.async.
   */
  static final List<String> NOT_INTERPRETED = List.of("async_stage");

  /**
   * Mergeable kernels the interpreter runs but not reliably, left to {@code MergedKernelsGpuTest}
   * (where they pass): {@code shuffled_pointer} shuffles a pointer's halves across the warp, and a
   * clean-clone build once crashed the interpreter storing through the shuffled pointer (its -G
   * builds, k = 3), which no run here showed again.
   */
  static final List<String> UNRELIABLE_ON_INTERPRETER = List.of("shuffled_pointer");

  /** Kernels whose writes leave no trace on the buffers compared (they write module variables or nothing). */
  static final List<String> NOTHING_VISIBLE = List.of("no_params");

  @TempDir Path dir;

  @ParameterizedTest
  @ValueSource(strings = {"rlsim", "branches", "chain", "dynamic", "heads", "pipeline"})
  void workloadKernels(String module) throws Exception {
    Path file = dir.resolve(module + ".ptx");
    Files.writeString(file, Ptx.text(module), StandardCharsets.US_ASCII);
    assertMergedEqualsSeparate(file, SPECS, List.of());
  }

  @ParameterizedTest
  @ValueSource(strings = {"../it-tests/src/test/resources/ptx/smoke.ptx", "../it-tests/src/test/resources/ptx/pointers.ptx",
      "../it-tests/src/test/resources/ptx/semantics.ptx", "../scheduler/src/test/resources/ptx/merge-kernels.ptx",
      "../scheduler/src/test/resources/ptx/merge-refusals.ptx",
      "../scheduler/src/test/resources/ptx/forward-indexing.ptx", "../scheduler/src/test/resources/ptx/corpus-sm75.ptx",
      "../scheduler/src/test/resources/ptx/corpus-sm90.ptx", "../scheduler/src/test/resources/ptx/corpus-sm90-lineinfo.ptx",
      "../scheduler/src/test/resources/ptx/corpus-sm75-debug.ptx", "../scheduler/src/test/resources/ptx/corpus-sm90-debug.ptx"})
  void testCorpora(String path) throws Exception {
    // forward-indexing.ptx's kernels index below their pointers: give them the middle of a buffer.
    boolean below = path.contains("forward-indexing");
    String text = onlyMergeable(Files.readString(Path.of(path), StandardCharsets.US_ASCII));
    Path file = dir.resolve(Path.of(path).getFileName());
    Files.writeString(file, text, StandardCharsets.US_ASCII);
    assertMergedEqualsSeparate(file, below ? FORWARD_SPECS : SPECS, below ? List.of("--middle") : List.of());
  }

  static final Map<String, String> FORWARD_SPECS = Map.of("loaded", "buf+32768,idx,n", "idx64", "buf+32768,l=5",
      "twod", "buf,i=64,i=3|grid=2d");

  /**
   * {@code text} without the kernels KernelMerging refuses (they are not run here, and some use
   * what the stand-in's interpreter cannot load: textures, printf), nor module variables
   * initialized to a function's address (the corpus's {@code g_op}, used by a refused kernel).
   */
  static String onlyMergeable(String text) {
    String result = text.replaceAll("(?m)^\\.global[^\\n;=]*\\s[\\w$]+\\s*=\\s*[A-Za-z_$][\\w$]*;\\n", "");
    // Functions with texture instructions and those calling them, called only by kernels refused
    // for them (in -G builds).
    Pattern definition = Pattern.compile("(?m)^(?:\\.visible |\\.weak )?\\.func\\s*(?:\\([^)]*\\)\\s*)?([\\w$]+)[^;{]*\\{(?s:.*?)\\n}\\n");
    List<String> dropped = new ArrayList<>();
    for (boolean more = true; more; ) {
      more = false;
      Matcher function = definition.matcher(result);
      while (function.find()) {
        String body = function.group();
        if (body.contains("tex.") || dropped.stream().anyMatch(name -> body.contains(name + ","))) {
          dropped.add(function.group(1));
          result = result.replace(body, "");
          more = true;
          break;
        }
      }
    }
    for (MergedKernel k : KernelMerging.mergeAll(text)) {
      if (k.mergeable() && !(NOT_INTERPRETED.contains(k.kernel()) && k.entryText().contains("cp.async"))) continue;
      Matcher entry = Pattern.compile("\\.visible \\.entry " + Pattern.quote(k.kernel()) + "\\((?s:.*?)\\n}\\n")
          .matcher(result);
      assertTrue(entry.find(), k.kernel());
      result = result.replace(entry.group(), "");
    }
    return result;
  }

  /** Runs every mergeable kernel of {@code ptx} both ways on the stand-in; fails on any difference. */
  static void assertMergedEqualsSeparate(Path ptx, Map<String, String> specs, List<String> flags) throws Exception {
    StandInDriver.assumeBuilt();
    Map<String, String> env = new HashMap<>(StandInDriver.environment(1));
    env.put("KW_CPU_DEVICE_PTX", "interpret");
    assertMergedEqualsSeparate(ptx, specs, flags, env, UNRELIABLE_ON_INTERPRETER);
  }

  /**
   * Runs every mergeable kernel of {@code ptx} but {@code skipped} both ways in a child JVM with
   * {@code env}; fails on any difference. Skips the test where the child finds no GPU.
   */
  static void assertMergedEqualsSeparate(Path ptx, Map<String, String> specs, List<String> flags,
      Map<String, String> env, List<String> skipped) throws Exception {
    String text = Files.readString(ptx, StandardCharsets.US_ASCII);
    List<String> args = new ArrayList<>();
    args.add(ptx.toAbsolutePath().toString());
    args.addAll(flags);
    List<String> mergeable = new ArrayList<>();
    for (MergedKernel k : KernelMerging.mergeAll(text)) {
      if (!k.mergeable() || skipped.contains(k.kernel())) continue;
      mergeable.add(k.kernel());
      args.add(k.kernel() + "|" + specs.getOrDefault(k.kernel(), ""));
    }
    if (mergeable.isEmpty()) return;
    ChildJvm.Result r = ChildJvm.run(ChildJvm.java(System.getProperty("java.home")), null, List.of(schedulerClasses()),
        env, MergedKernelsProgram.class.getName(), args.toArray(new String[0]));
    assumeTrue(r.exitCode() != SmokePrograms.NO_GPU, "no GPU on this machine: " + r.stdout().strip());
    assertEquals(0, r.exitCode(), () -> "stdout:\n" + r.stdout() + "\nstderr:\n" + r.stderr());
    Map<String, List<String>> results = new TreeMap<>();
    for (String line : r.stdout().split("\n")) {
      if (!line.startsWith("merged ")) continue;
      String name = line.split(" ")[1];
      results.computeIfAbsent(name, n -> new ArrayList<>()).add(line.substring(line.indexOf(" k=") + 1));
    }
    for (String name : mergeable) {
      boolean visible = !NOTHING_VISIBLE.contains(name);
      List<String> expected = List.of("k=1 identical changed=" + visible, "k=2 identical changed=" + visible,
          "k=3 identical changed=" + visible);
      assertEquals(expected, results.get(name), () -> ptx + " " + name + ":\n" + r.stdout() + r.stderr());
    }
    assertTrue(results.keySet().containsAll(mergeable), r.stdout());
  }

  /** This build's scheduler classes, where KernelMerging lives: the program under test has no agent. */
  static Path schedulerClasses() {
    for (String entry : System.getProperty("java.class.path").split(File.pathSeparator)) {
      if (entry.contains("kernelweave-scheduler") || entry.replace('\\', '/').endsWith("scheduler/target/classes")) {
        return Path.of(entry);
      }
    }
    throw new IllegalStateException("no scheduler classes on " + System.getProperty("java.class.path"));
  }

  private static Map<String, String> specs() {
    Map<String, String> s = new HashMap<>();
    // The workloads: rounds and steps small, so the interpreter is quick; heads_mix covers head_size * heads.
    for (String k : List.of("branch_step")) s.put(k, "buf,buf,buf,n,i=3,i=4");
    for (String k : List.of("chain_step", "pipe_prepare", "pipe_smooth", "rl_policy", "rl_step")) {
      s.put(k, k.equals("chain_step") ? "buf,n,i=3,i=4" : k.startsWith("rl") ? "buf,buf,buf,n,i=4" : "buf,buf,n,i=4");
    }
    s.put("pipe_finish", "buf,n,i=4");
    s.put("moe_expert_step", "buf,buf,buf,buf,n,i=4");
    s.put("heads_mix", "buf,buf,i=16,n");
    // merge-kernels.cu
    s.put("struct_affine", "{f;f;n},buf,{f;f;f;f},d,b=1,buf");
    s.put("block_partial_sums", "buf,buf,n|shared=256");
    s.put("rows_2d", "buf,buf,n|grid=2d");
    s.put("grid_coordinates", "buf|grid=3d");
    // ptx-corpus.cu
    s.put("sum_columns", "buf,buf,i=40,i=30");
    s.put("local_pointer_table", "buf,buf,buf,buf,idx,f");
    s.put("atomic_max_cas", "idx,idx,n");
    s.put("grid_stride_copy", "buf,buf,n64");
    s.put("write_at_offset64", "buf,buf,n64,n");
    s.put("clear_pitched", "buf,l=256,i=40,i=30");
    s.put("gather32", "buf,idx,buf,n");
    s.put("gather64", "buf,idx64,buf,n");
    s.put("gather_bytes64", "buf,idx64,buf,n");
    s.put("struct_copy", "{buf;buf;n}");
    s.put("struct_sum", "{buf;buf},buf,n");
    s.put("grid_constant_span", "{buf;buf;n}");
    s.put("param_pointer_array", "{buf;buf;buf;buf},n,f");
    s.put("gather_rows", "rows,buf,n|grid=2d");
    s.put("scatter_through_table", "rows,f|grid=2d");
    s.put("walk_nodes", "nodes");
    s.put("packed_pointer", "packed");
    s.put("heap_scratch", "buf,i=16");
    s.put("add_global_bias", "buf,buf,n|var=g_bias");
    s.put("apply_constant", "buf,buf,n|var=c_coeffs");
    s.put("through_constant_pointer", "buf,n|ptrvar=c_table");
    s.put("constant_through_generic_pointer", "buf,n|var=c_coeffs");
    s.put("reverse_block", "buf,buf|block=256");
    s.put("block_sum", "buf,buf,n|shared=256");
    s.put("wide_scalars", "buf,n64,d,f,l=12345");
    s.put("small_scalars", "buf,b=7,s=300,b=1");
    s.put("memcpy_bytes", "buf,buf,l=200");
    s.put("memset_bytes", "buf,l=200");
    s.put("before_the_pointer", "buf+16");
    s.put("pointer_walked_in_a_loop", "buf,n");
    // pointers.cu
    s.put("packed_fill", "packed{n;buf},f");
    s.put("fill_before", "buf+32768,f,n");
    return Map.copyOf(s);
  }
}
