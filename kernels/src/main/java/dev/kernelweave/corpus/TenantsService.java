package dev.kernelweave.corpus;

import static jcuda.driver.JCudaDriver.cuCtxSynchronize;

import dev.kernelweave.kernels.Size;
import dev.kernelweave.kernels.Outputs;

/**
 * The {@code tenants} corpus program as a service to measure: {@code workers} threads of one pool,
 * each serving {@code requests} requests a round through the same small model, with each request's
 * time (its copy in to its last read-back) and each round's wall time kept, for the throughput and
 * the latency percentiles a service is judged by. The model and request shapes are the benchmark
 * size's. Not thread-safe: one thread drives it; the pool's threads are its own.
 */
public final class TenantsService implements AutoCloseable {

  private final Tenants program;
  /** The CPU reference's bytes, computed once: every round's labels and scores must be these. */
  private final byte[] reference;

  private TenantsService(Tenants program) {
    this.program = program;
    this.reference = program.problem().reference();
  }

  /** Sets the service up on the current thread's device; its context is the primary one. */
  public static TenantsService open(int workers, int requests) {
    if (workers < 1 || requests < 1) {
      throw new IllegalArgumentException("workers and requests must be at least 1: " + workers + ", " + requests);
    }
    Tenants t = new Tenants(Size.BENCH, workers, requests);
    t.setUp();
    return new TenantsService(t);
  }

  /** One round's wall time and its requests' times, in nanoseconds. */
  public record Round(long wallNanos, long[] requestNanos) {}

  /** Serves one round: every worker its requests, all at once; the device is idle before it starts. */
  public Round serveRound() {
    program.reset();
    cuCtxSynchronize();
    long start = System.nanoTime();
    program.run();
    long wall = System.nanoTime() - start;
    return new Round(wall, program.requestNanos());
  }

  /** Null when the last round's labels and scores are the CPU reference's, bit for bit; else where they differ. */
  public String lastRoundDifference() {
    return Outputs.difference(program.output(), reference);
  }

  /** The program's dimensions in words. */
  public String sizes() {
    return program.problem().sizes();
  }

  @Override
  public void close() {
    program.close();
  }
}
