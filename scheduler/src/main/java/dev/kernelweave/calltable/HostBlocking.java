package dev.kernelweave.calltable;

/** Whether CUDA returns from a call only once its device work is done. */
public enum HostBlocking {
  /** Returns once the work is queued. */
  NO,
  /** Returns once the work, and what CUDA completes before it, is done. */
  YES,
  /** An asynchronous copy into host memory that returns only once done where that memory is pageable. */
  WHEN_PAGEABLE
}
