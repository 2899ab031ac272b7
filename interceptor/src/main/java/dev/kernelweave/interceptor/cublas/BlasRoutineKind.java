package dev.kernelweave.interceptor.cublas;

import dev.kernelweave.call.CallKind;
import dev.kernelweave.calltable.CudaCallTable;

/**
 * What a public static method of {@code jcuda.jcublas.JCublas2} is, for ordering. Every method has
 * exactly one kind; only {@link #DEVICE_ROUTINE}, {@link #COPY_TO_DEVICE} and {@link #COPY_TO_HOST}
 * put work on the device.
 */
public enum BlasRoutineKind {
  /**
   * Host-only: library set-up and logging, versions, status strings, and the handle's math mode,
   * atomics mode and SM count target and their getters. No device memory; the settings take
   * effect for the routines the handle runs afterwards.
   */
  HOST_SETTING,
  /** {@code cublasCreate}: allocates the handle's host and device resources on the current device. */
  HANDLE_CREATE,
  /**
   * {@code cublasDestroy}: releases the handle; cuBLAS documents that this implicitly synchronizes
   * the device, so it waits for all work, the agent's included.
   */
  HANDLE_DESTROY,
  /**
   * {@code cublasSetStream}: the stream the handle's later routines run on. It also resets a
   * workspace set with {@code cublasSetWorkspace} to the default one.
   */
  STREAM_SET,
  /** {@code cublasGetStream}: reports the handle's stream into the {@code cudaStream_t} it is given. */
  STREAM_GET,
  /** {@code cublasSetPointerMode}: whether later scalar parameters are host or device pointers. */
  POINTER_MODE_SET,
  /** {@code cublasGetPointerMode}: reports the pointer mode into a host array. */
  POINTER_MODE_GET,
  /**
   * {@code cublasSetWorkspace}: hands the handle a device buffer (role {@link BlasOperandRole#READ_WRITE})
   * that every later routine of the handle may use as scratch until it is replaced, the stream is
   * set again or the handle is destroyed. Routines of one handle that share it must not overlap:
   * the agent gives each of its shadow handles a buffer of its own ({@link ShadowHandles}).
   */
  WORKSPACE_SET,
  /**
   * {@code cublasSetVector}, {@code cublasSetMatrix} and their {@code Async} and {@code _64} forms:
   * host to device. The synchronous forms return when the copy is done; the {@code Async} forms run
   * on the stream they are given.
   */
  COPY_TO_DEVICE,
  /** {@code cublasGetVector}, {@code cublasGetMatrix} and their {@code Async} and {@code _64} forms: device to host. */
  COPY_TO_HOST,
  /** A level 1, 2 or 3 routine or a BLAS-like extension, run on the handle's stream: parameter 0 is the handle. */
  DEVICE_ROUTINE,
  /** Not classified: the agent treats the call as a full barrier. */
  UNKNOWN;

  private static final BlasRoutineKind[] BY_ORDINAL = values();
  /**
   * Each kind's row of the {@code CudaCallTable}, and its row for a routine on a stream argument:
   * constants, filled once by the static initializer, never changed after.
   */
  private static final int[] ROWS = new int[BY_ORDINAL.length];
  private static final int[] ROWS_ON_STREAM = new int[BY_ORDINAL.length];

  static {
    CudaCallTable table = CudaCallTable.canonical();
    for (BlasRoutineKind k : BY_ORDINAL) {
      ROWS[k.ordinal()] = table.idOf("cublas:" + k.name());
      String onStream = "cublas:" + k.name() + "_ON_STREAM";
      ROWS_ON_STREAM[k.ordinal()] = table.hasRow(onStream) ? table.idOf(onStream) : ROWS[k.ordinal()];
    }
  }

  /**
   * The id of the row of the {@code CudaCallTable} a routine of this kind is placed by: a copy with
   * a stream argument has one of its own ({@code cublasSetVectorAsync}...).
   */
  public int row(boolean withStreamArgument) {
    return withStreamArgument ? ROWS_ON_STREAM[ordinal()] : ROWS[ordinal()];
  }

  /** Whether calls of this kind put work on the device. */
  public boolean isDeviceWork() {
    return this == DEVICE_ROUTINE || this == COPY_TO_DEVICE || this == COPY_TO_HOST;
  }

  /**
   * The family of {@link CallKind} the scheduler sees for a call of this kind: {@link CallKind#BLAS}
   * for routines, the copy kinds for copies, {@link CallKind#SYNC} for {@link #HANDLE_DESTROY},
   * {@link CallKind#OPAQUE} for {@link #UNKNOWN}, and {@link CallKind#HOST} for the rest.
   */
  public CallKind callKind() {
    return CudaCallTable.canonical().row(ROWS[ordinal()]).kind();
  }

  public static BlasRoutineKind ofOrdinal(int ordinal) {
    return BY_ORDINAL[ordinal];
  }
}
