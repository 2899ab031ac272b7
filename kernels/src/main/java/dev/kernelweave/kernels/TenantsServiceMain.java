package dev.kernelweave.kernels;

import dev.kernelweave.corpus.TenantsService;
import java.util.Arrays;

/**
 * A Java inference service on one GPU: {@code --workers} threads of a pool serve requests through
 * the same small model at once (the {@code tenants} corpus program: per request a copy in, two
 * dense layers, an argmax, the labels and scores read back, on the default stream), round after
 * round. The same program runs without and with the agent.
 *
 * <pre>
 * java -cp ... dev.kernelweave.kernels.TenantsServiceMain [--workers N] [--requests M]
 *     [--warmup-rounds W] [--rounds R]
 * </pre>
 *
 * <p>Prints one line: the measured rounds' throughput in requests per second (requests over the
 * rounds' summed wall time) and the requests' latency p50, p99 and max in microseconds (each from
 * its copy in to its last read-back). Exit status: 0 done, 1 an output that is not the CPU
 * reference's, 2 bad arguments, 3 no GPU or no CUDA driver.
 */
public final class TenantsServiceMain {

  record Options(int workers, int requests, int warmupRounds, int rounds) {
    static Options parse(String... args) {
      int workers = 8;
      int requests = 8;
      int warmup = 5;
      int rounds = 20;
      CommandLine line = new CommandLine(args);
      while (line.hasNext()) {
        String a = line.next();
        String v = line.valueOf(a);
        switch (a) {
          case "--workers" -> workers = CommandLine.wholeNumber(a, v, 1);
          case "--requests" -> requests = CommandLine.wholeNumber(a, v, 1);
          case "--warmup-rounds" -> warmup = CommandLine.wholeNumber(a, v, 0);
          case "--rounds" -> rounds = CommandLine.wholeNumber(a, v, 1);
          default -> throw new IllegalArgumentException("unknown option " + a
              + "; accepted: --workers, --requests, --warmup-rounds, --rounds");
        }
      }
      return new Options(workers, requests, warmup, rounds);
    }
  }

  private TenantsServiceMain() {}

  public static void main(String[] args) {
    Options o = CommandLine.parseForGpu("tenants-service", args, Options::parse);
    Cuda.makeContextCurrent();
    try (TenantsService service = TenantsService.open(o.workers(), o.requests())) {
      long wall = 0;
      long[] latencies = new long[o.rounds() * o.workers() * o.requests()];
      int n = 0;
      int differing = 0;
      String firstDifference = null;
      int served = o.warmupRounds() + o.rounds();
      for (int i = 0; i < served; i++) {
        TenantsService.Round round = service.serveRound();
        String difference = service.lastRoundDifference();
        if (difference != null) {
          differing++;
          if (firstDifference == null) {
            firstDifference = "round " + (i + 1) + ": " + difference;
          }
        }
        if (i < o.warmupRounds()) {
          continue;
        }
        wall += round.wallNanos();
        System.arraycopy(round.requestNanos(), 0, latencies, n, round.requestNanos().length);
        n += round.requestNanos().length;
      }
      Arrays.sort(latencies);
      System.out.printf("tenants-service: %d workers x %d requests, %d rounds (%s): %.0f requests/s, request p50 %.1f us,"
          + " p99 %.1f us, max %.1f us; outputs %s%n", o.workers(), o.requests(), o.rounds(), service.sizes(),
          latencies.length / (wall / 1e9), TenantsPriorityMain.percentile(latencies, 0.50) / 1e3,
          TenantsPriorityMain.percentile(latencies, 0.99) / 1e3, latencies[latencies.length - 1] / 1e3,
          differing == 0 ? "equal the CPU reference" : "DIFFER from the CPU reference in " + differing + " of " + served
              + " rounds (warm-ups included), first in " + firstDifference);
      if (differing > 0) {
        System.exit(1);
      }
    }
  }
}
