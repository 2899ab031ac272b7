package dev.kernelweave.interceptor;

import dev.kernelweave.call.AccessMode;
import dev.kernelweave.call.CallRecord;
import dev.kernelweave.calltable.CudaCall;
import dev.kernelweave.interceptor.cublas.BlasCalls;
import dev.kernelweave.interceptor.cublas.BlasRoutineKind;
import dev.kernelweave.interceptor.jcuda.JCudaPointers;
import dev.kernelweave.interceptor.observe.SchedulingCounters;
import dev.kernelweave.memory.MemoryKind;
import jcuda.Pointer;
import jcuda.driver.CUdeviceptr;
import jcuda.driver.CUfunction;
import jcuda.jcublas.cublasHandle;

/**
 * The part of a call's interception that neither calls the driver nor reads the agent's state,
 * run on the JIT warm-up's thread beside the scheduler's self-test programs: a launch's parameters
 * read out of JCuda's pointers and turned into accesses ({@link CallAccesses#launch}), a copy's
 * pointers ({@link CallAccesses#touches}), a GEMM's operands ({@link BlasCalls#describeForWarmup}),
 * a record's start and its copy into the journal's ring, the MBean's count. On the application's
 * thread these run interpreted for its first few hundred calls, where each launch then costs tens
 * of microseconds; run here first, they are compiled by the time the application's loop needs them.
 *
 * <p>Reaches nothing an application's call reaches: its own {@link AgentState}, never activated
 * and never {@link AgentState#current}, with allocations of made-up addresses that no driver call
 * ever sees; its own records and counters (not the MBean's). JCuda's objects it makes are plain
 * Java objects; no JCuda method that enters native code is called.
 *
 * <p>Not thread-safe: one instance, used by the warm-up's thread alone (its record is made there,
 * on the first {@link #run}).
 */
public final class InterceptionWarmup implements Runnable {

  /** Launches per {@link #run}; then as many copies, alternately to and from the device, and as many GEMMs. */
  static final int LAUNCHES = 128;

  /** Made at the first round, on the warm-up's thread: JCuda's classes are linked there, not at the agent's start. */
  private Rounds rounds;
  private boolean stopped;
  /** The last round's wall time per call, in nanoseconds; {@link Long#MAX_VALUE} before a round ran. */
  private volatile long nanosPerCall = Long.MAX_VALUE;

  /** One round: {@link #LAUNCHES} launches, copies and GEMMs. Never throws. */
  @Override
  public void run() {
    if (stopped) {
      return;
    }
    try {
      if (rounds == null) {
        rounds = new Rounds();
      }
      long start = System.nanoTime();
      for (int i = 0; i < LAUNCHES; i++) {
        rounds.launch(i);
      }
      for (int i = 0; i < LAUNCHES; i++) {
        rounds.copy(i);
      }
      for (int i = 0; i < LAUNCHES; i++) {
        rounds.gemm(i);
      }
      nanosPerCall = (System.nanoTime() - start) / (3 * LAUNCHES);
    } catch (Throwable e) {
      // JCuda not linkable from the agent's loader, say: only the JIT's head start is lost.
      stopped = true;
      AgentLog.debug("interception warm-up stopped: " + e);
    }
  }

  /**
   * The last round's wall time per call (launch, copy or GEMM through the interception's code, no
   * driver), in nanoseconds: tens of microseconds while interpreted, about one once compiled.
   * {@link Long#MAX_VALUE} before a round ran or once stopped by a failure. Any thread.
   */
  public long nanosPerCall() {
    return stopped ? Long.MAX_VALUE : nanosPerCall;
  }

  /** Makes launch {@code i} of a round (after a first {@link #run}); returns its record. */
  CallRecord launch(int i) {
    return rounds.launch(i);
  }

  /** Makes copy {@code i} of a round (after a first {@link #run}): to the device for even ones; returns its record. */
  CallRecord copy(int i) {
    return rounds.copy(i);
  }

  /** Makes GEMM {@code i} of a round (after a first {@link #run}); returns its record. */
  CallRecord gemm(int i) {
    return rounds.gemm(i);
  }

  /** The state, JCuda objects and records the rounds use. */
  private static final class Rounds {
    private static final int BUFFERS = 8;
    private static final long BUFFER_BYTES = 1L << 20;
    /** Well away from where a driver places memory; never given to the driver. */
    private static final long FIRST_ADDRESS = 0x7e00_0000_0000L;
    private static final String SGEMM = "cublasSgemm";
    private static final String SGEMM_DESCRIPTOR = "(Ljcuda/jcublas/cublasHandle;IIIIILjcuda/Pointer;Ljcuda/Pointer;I"
        + "Ljcuda/Pointer;ILjcuda/Pointer;Ljcuda/Pointer;I)I";

    private final AgentState state = new AgentState();
    private final CallThread thread = new CallThread(state);
    private final SchedulingCounters counters = new SchedulingCounters();
    private final CallRecord journaled = new CallRecord();
    private final CudaCall launchRow = row("cuLaunchKernel");
    private final CudaCall toDevice = row("cuMemcpyHtoD");
    private final CudaCall toHost = row("cuMemcpyDtoH");
    private final CudaCall routine = Interception.rules().table().row(BlasRoutineKind.DEVICE_ROUTINE.row(false));
    private final cublasHandle handle = new cublasHandle();
    private final Pointer one = Pointer.to(new float[] {1.0f});
    private final Pointer zero = Pointer.to(new float[] {0.0f});
    private final CUdeviceptr[] buffers = new CUdeviceptr[BUFFERS];
    private final CUfunction function = new CUfunction();
    private final KernelInfo[] kernels;
    private final float[] host = new float[256];

    Rounds() {
      for (int i = 0; i < BUFFERS; i++) {
        long base = FIRST_ADDRESS + i * 2 * BUFFER_BYTES;
        state.allocations.add(base, BUFFER_BYTES, MemoryKind.DEVICE);
        buffers[i] = new CUdeviceptr();
        JCudaPointers.setNativePointer(buffers[i], base);
      }
      JCudaPointers.setNativePointer(function, FIRST_ADDRESS - 0x1000);
      byte read = (byte) AccessMode.READ.ordinal();
      byte write = (byte) AccessMode.WRITE.ordinal();
      byte readWrite = (byte) AccessMode.READ_WRITE.ordinal();
      byte value = KernelInfo.VALUE;
      long[] none = new long[0];
      byte[] noModes = new byte[0];
      kernels = new KernelInfo[] {
        // As the PTX analysis describes most kernels: uses per parameter, forward-only pointers.
        new KernelInfo("warmup_forward", new byte[] {read, write, value, value}, false, none, noModes, null,
            new long[] {Long.MAX_VALUE, Long.MAX_VALUE, 0, 0}),
        new KernelInfo("warmup_update", new byte[] {readWrite, read, value}, false, none, noModes),
        // A kernel whose PTX was not read: every pointer read-write.
        new KernelInfo("warmup_unknown", null, false, none, noModes),
      };
    }

    CallRecord launch(int i) {
      CallScope r = thread.record;
      begin(r, launchRow);
      r.gridX = 1 + (i & 63);
      r.blockX = 256;
      r.gridY = r.gridZ = r.blockY = r.blockZ = 1;
      int shape = i % kernels.length;
      KernelInfo kernel = kernels[shape];
      CUdeviceptr a = buffers[i % BUFFERS];
      CUdeviceptr b = buffers[(i + 3) % BUFFERS];
      // Made anew per launch, as applications make them.
      Pointer params = switch (shape) {
        case 0 -> Pointer.to(Pointer.to(a), Pointer.to(b), Pointer.to(new int[] {4096}), Pointer.to(new float[] {0.5f}));
        case 1 -> Pointer.to(Pointer.to(a), Pointer.to(b), Pointer.to(new long[] {i}));
        default -> Pointer.to(Pointer.to(a), Pointer.to(new double[] {i}));
      };
      CallAccesses.launch(r, kernel, params, null);
      r.function = JCudaPointers.nativePointer(function);
      end(r);
      return r;
    }

    CallRecord copy(int i) {
      CallScope r = thread.record;
      boolean in = (i & 1) == 0;
      begin(r, in ? toDevice : toHost);
      CUdeviceptr device = buffers[i % BUFFERS];
      Pointer java = Pointer.to(host);
      long bytes = in ? (long) host.length * Float.BYTES : Float.BYTES;
      if (in) {
        CallAccesses.touches(r, device, java, bytes);
      } else {
        CallAccesses.touches(r, java, device, bytes);
      }
      end(r);
      return r;
    }

    /** A {@code cublasSgemm} of 64 x 64 matrices in three of the warm-up's allocations, as a model's layer makes it. */
    CallRecord gemm(int i) {
      CallScope r = thread.record;
      begin(r, routine);
      r.name = SGEMM;
      int n = 64;
      Object[] args = {handle, 0, 0, n, n, n, one, buffers[i % BUFFERS], n, buffers[(i + 1) % BUFFERS], n, zero,
          buffers[(i + 2) % BUFFERS], n};
      BlasCalls.describeForWarmup(r, SGEMM, SGEMM_DESCRIPTOR, args);
      end(r);
      return r;
    }

    private static CudaCall row(String function) {
      return Interception.rules().table().rowOf(function);
    }

    private void begin(CallScope r, CudaCall row) {
      r.start(row);
      row.describe(r);
    }

    private void end(CallScope r) {
      r.durationNanos = System.nanoTime() - r.startNano;
      counters.add(r);
      journaled.copyFrom(r);
    }
  }
}
