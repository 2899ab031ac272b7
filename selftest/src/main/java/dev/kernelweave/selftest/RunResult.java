package dev.kernelweave.selftest;

import java.util.List;

/**
 * What one run of a program observed, in order, the faults its device reported, and the exception
 * that ended it early, if any; for a scheduled run, what the scheduler decided.
 */
public record RunResult(
    List<Observation> observations, List<String> faults, RuntimeException error, RunStats stats) {}
