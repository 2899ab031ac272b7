package dev.kernelweave.selftest;

/** Bytes the program observed: what a synchronous read returned, or a host read of page-locked memory. */
public record Observation(int call, String label, byte[] bytes) {}
