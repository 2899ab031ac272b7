package dev.kernelweave.interceptor.runtime;

import dev.kernelweave.call.AccessMode;
import dev.kernelweave.call.CallKind;
import dev.kernelweave.call.CallRecord;
import dev.kernelweave.calltable.HostBlocking;
import dev.kernelweave.interceptor.CallAccesses;
import dev.kernelweave.interceptor.Calls;
import jcuda.Pointer;

/**
 * The runtime API's copies, whose direction is an argument rather than part of the name: the
 * operands their rows mark {@code K} (by {@code cudaMemcpyKind}) take their side from it here.
 */
public final class RuntimeCalls {

  private RuntimeCalls() {}

  /** The journal's kind for a {@code cudaMemcpyKind}. */
  public static CallKind copyKind(int cudaMemcpyKind) {
    return switch (cudaMemcpyKind) {
      case 1 -> CallKind.COPY_HOST_TO_DEVICE;
      case 2 -> CallKind.COPY_DEVICE_TO_HOST;
      default -> CallKind.COPY_DEVICE_TO_DEVICE;
    };
  }

  /** Adds what a copy reads and writes, by its {@code cudaMemcpyKind}. */
  public static void copy(CallRecord r, Pointer dst, Pointer src, long bytes, int cudaMemcpyKind) {
    if (r == null) {
      return;
    }
    r.kind = copyKind(cudaMemcpyKind);
    r.bytes = bytes;
    switch (cudaMemcpyKind) {
      case 0 -> { }
      case 1 -> {
        CallAccesses.device(r, dst, bytes, AccessMode.WRITE);
        CallAccesses.host(r, src, bytes, AccessMode.READ);
      }
      case 2 -> {
        CallAccesses.device(r, src, bytes, AccessMode.READ);
        CallAccesses.host(r, dst, bytes, AccessMode.WRITE);
        // Where its row says so (an asynchronous copy), CUDA returns only once done into pageable memory.
        r.returnsWhenDone = Calls.rowOf(r).blocksHost() == HostBlocking.WHEN_PAGEABLE && CallAccesses.pageable(r, dst);
      }
      case 3 -> {
        CallAccesses.device(r, src, bytes, AccessMode.READ);
        CallAccesses.device(r, dst, bytes, AccessMode.WRITE);
      }
      default -> {
        CallAccesses.anyPointer(r, src, bytes, AccessMode.READ);
        CallAccesses.anyPointer(r, dst, bytes, AccessMode.WRITE);
      }
    }
  }
}
