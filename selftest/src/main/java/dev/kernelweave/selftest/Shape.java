package dev.kernelweave.selftest;

/**
 * The shapes of CUDA usage the generator makes on purpose, each one an ordering that CUDA's own
 * semantics promise and a scheduler can get wrong; {@code selftest} counts how many of each it
 * generated.
 */
public enum Shape {
  PINNED_READBACK_THEN_SYNCHRONOUS_COPY("async copy into pinned memory, a synchronous copy of another buffer, a host read"),
  BLOCKING_STREAM("stream created with flags 0 (blocking)"),
  NON_BLOCKING_STREAM("stream created with CU_STREAM_NON_BLOCKING"),
  LEGACY_HANDLE("call on handle 0x1 (legacy stream)"),
  PER_THREAD_HANDLE("call on handle 0x2 (per-thread stream)"),
  LEGACY_STREAM_SYNCHRONIZE("cuStreamSynchronize of the legacy stream"),
  LEGACY_WAITS_FOR_EVENT("legacy stream waits for an event of a non-blocking stream, then a host wait or work on it"),
  CONSTANT_BETWEEN_LAUNCHES("__constant__ written by copyHtoD between launches that read it"),
  KERNEL_WITHOUT_PTX("kernel without PTX writing through a pointer stored in device memory"),
  REGISTERED_HOST_COPIES("cuMemHostRegister'd memory used by HtoDAsync and DtoHAsync on a stream"),
  MAPPED_HOST_WRITE("kernel writing mapped pinned memory, read by the host"),
  HOST_FUNCTION("cuLaunchHostFunc between copies through host memory"),
  HOST_FUNCTION_WAITING_FOR_HOST("host function that waits for a later host action"),
  SEVERAL_THREADS("calls from several application threads on one context"),
  SLICED_ALLOCATION("calls on disjoint and straddling slices of one allocation, then one covering them"),
  REPEATED_WINDOW("the same launches repeated between host synchronizations: new scalars, rotated buffers, a divergence"),
  MERGEABLE_WINDOW("a repeated window of independent launches of one kernel, or almost: overlapping or dependent ones");

  private final String description;

  Shape(String description) {
    this.description = description;
  }

  public String description() {
    return description;
  }
}
