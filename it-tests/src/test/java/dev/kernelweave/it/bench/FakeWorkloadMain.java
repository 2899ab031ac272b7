package dev.kernelweave.it.bench;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;

/**
 * A stand-in for {@code dev.kernelweave.kernels.WorkloadMain} that speaks the same protocol without
 * a GPU. Its times are made up: the agent halves serial's (chain: 5% slower), tuned divides it by
 * 2.5, graph by 4. Some names misbehave on purpose: {@code nogpu} exits 3, {@code broken} reports a reference
 * mismatch, {@code differs} gives the tuned twin another checksum, {@code hang} never ends.
 */
public final class FakeWorkloadMain {

  /** When every fake run says its timed repetitions began. */
  static final String TIMED_FROM = "2026-11-25T14:30:00.25Z";
  private FakeWorkloadMain() {}

  public static void main(String[] args) throws Exception {
    if (args.length == 0) {
      usage("no workload named");
    }
    String name = args[0];
    String variant = "serial";
    String size = "bench";
    int warmup = 3;
    int warmupMillis = 0;
    int reps = 5;
    for (int i = 1; i < args.length; i += 2) {
      if (i + 1 >= args.length) {
        usage(args[i] + " needs a value");
      }
      switch (args[i]) {
        case "--variant" -> variant = args[i + 1];
        case "--size" -> size = args[i + 1];
        case "--warmup" -> warmup = Integer.parseInt(args[i + 1]);
        case "--warmup-ms" -> warmupMillis = Integer.parseInt(args[i + 1]);
        case "--reps" -> reps = Integer.parseInt(args[i + 1]);
        default -> usage("unknown option " + args[i]);
      }
    }
    if (name.equals("nogpu")) {
      System.out.println("no GPU: the fake found no CUDA device");
      System.exit(3);
    }
    if (name.equals("hang")) {
      Thread.sleep(120_000);
    }
    String sizes = "sizes: " + name + " n=" + (size.equals("bench") ? 4096 : 64) + " warmup=" + warmup + " warmup-ms=" + warmupMillis;
    System.out.println(sizes);
    String agentOptions = System.getProperty(FakeAgent.OPTIONS_PROPERTY);
    boolean agent = agentOptions != null;
    // fake.faster and fake.other: a second agent build that is twice as fast, or changes the output.
    double faster = agent && agentOptions.contains("fake.faster") ? 2 : 1;
    double base = 10 + Math.floorMod(name.hashCode(), 5);
    double each =
        variant.equals("tuned") ? base / 2.5
            : variant.equals("graph") ? base / 4
            : !agent ? base
            : name.equals("chain") ? base * 1.05
            : base / 2 / faster;
    List<String> ms = new ArrayList<>();
    for (int r = 0; r < reps; r++) {
      ms.add(String.format(Locale.ROOT, "%.4f", each + 0.01 * r));
    }
    String output = name + "/" + size + (name.equals("differs") && variant.equals("tuned") ? "/other" : "")
        + (agent && agentOptions.contains("fake.other") ? "/other" : "");
    String reference = name.equals("broken") ? "mismatch: element 7 is 1.5, expected 2.5" : "ok";
    if (name.equals("broken")) {
      for (int i = 0; i < 40; i++) {
        System.out.println("step " + i);
      }
    }
    System.out.println(
        "KW-RESULT {\"name\":\"" + name + "\",\"variant\":\"" + variant + "\",\"size\":\"" + size
            + "\",\"sizes\":\"" + sizes + "\",\"ms\":[" + String.join(",", ms) + "],\"checksum\":\""
            + sha256(output) + "\",\"reference\":\"" + reference + "\",\"warmups\":" + (warmup + 2)
            + ",\"timedFrom\":\"" + TIMED_FROM + "\"}");
    System.exit(name.equals("broken") ? 1 : 0);
  }

  private static void usage(String why) {
    System.out.println("usage: FakeWorkloadMain NAME [--variant V] [--size S] [--warmup W] [--warmup-ms MS] [--reps R]: " + why);
    System.exit(2);
  }

  static String sha256(String text) throws NoSuchAlgorithmException {
    return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8)));
  }
}
