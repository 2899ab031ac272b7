package dev.kernelweave.selftest;

import dev.kernelweave.call.AccessMode;
import dev.kernelweave.call.CallRecord;
import dev.kernelweave.calltable.CudaCall;
import dev.kernelweave.calltable.CudaCallTable;
import dev.kernelweave.memory.AllocationTable;
import dev.kernelweave.memory.MemoryKind;
import dev.kernelweave.scheduler.Dispatch;
import dev.kernelweave.scheduler.GraphDevice;
import dev.kernelweave.scheduler.Scheduler;
import dev.kernelweave.scheduler.WindowJudging;
import java.util.List;
import java.util.Map;
import java.util.function.IntConsumer;

/**
 * Runs a program on a {@link ProgramTarget} in one of two ways: {@linkplain #runSerial serially}, as
 * the reference, or {@linkplain #runScheduled through the agent's dispatch}: each call becomes a
 * {@link CallRecord} whose accesses come from an {@link AllocationTable}, and goes through {@link
 * Dispatch#enter} and {@link Dispatch#exit} exactly as the interceptor takes it, the real call made
 * in between on the lane the dispatch chose or, when it chose none, as the application wrote it.
 * Each call's kind, placement and whether it may be held come from its row of the {@link
 * CudaCallTable}, as the interceptor's do (a mutant may break a row: {@link Mutant#rules}).
 *
 * <p>With graphs on (where the target has a {@link GraphDevice}), launches go through {@link
 * Dispatch#enterLaunch} as the interceptor's do: each launch's record carries the function handle,
 * grid, block and parameter bytes of the target's kernel, a held launch is not made (the windows
 * issue it from its record later, alone or in a graph), and its record is counted once issued.
 */
public final class ProgramRunner {

  private ProgramRunner() {}

  /**
   * The reference: every call on the legacy lane, in program order, so that each call sees the
   * effects of all calls before it; a free first waits for the device, as {@code cuMemFree} does.
   */
  public static RunResult runSerial(Program program, ProgramTarget target) {
    return new Run(program, target, false, null, Mutant.NONE, target.streams(), 0, WindowJudging.ON).execute();
  }

  /** Every call placed by a new dispatch on {@code target}'s lanes, graphs on where the target has them. */
  public static RunResult runScheduled(Program program, ProgramTarget target, Mutant mutant) {
    return runScheduled(program, target, mutant, true);
  }

  /**
   * Every call placed by a new dispatch on {@code target}'s lanes; with {@code graphs}, launches may
   * be held and replayed as graphs on the target's {@link ProgramTarget#graphs}.
   */
  public static RunResult runScheduled(Program program, ProgramTarget target, Mutant mutant, boolean graphs) {
    return new Run(program, target, true, graphs ? target.graphs() : null, mutant, target.streams(), 0,
        WindowJudging.ON).execute();
  }

  /**
   * {@link #runScheduled(Program, ProgramTarget, Mutant, boolean)} with priority lanes: each
   * thread's calls carry its class ({@link Program#priorityOf}) and go to lanes of that class.
   *
   * @param normalStreams the normal lanes; {@code target} has {@link Scheduler#poolLanes} pool lanes
   * @param classLanes the high lanes, and the low lanes, at least 1
   */
  public static RunResult runScheduledWithPriorities(Program program, ProgramTarget target, Mutant mutant,
      boolean graphs, int normalStreams, int classLanes) {
    return runScheduledWithPriorities(program, target, mutant, graphs, normalStreams, classLanes, WindowJudging.ON);
  }

  /** The same, known windows issued as {@code judging} says ({@code judge=}). */
  public static RunResult runScheduledWithPriorities(Program program, ProgramTarget target, Mutant mutant,
      boolean graphs, int normalStreams, int classLanes, WindowJudging judging) {
    return runScheduledWithPriorities(program, target, mutant, graphs, normalStreams, classLanes, judging, -1);
  }

  /**
   * The same, with the program handed back before its call {@code handOverAt} (none where -1), as
   * the agent hands it back where it stops scheduling: the dispatch makes the streams follow the
   * work it moved ({@link dev.kernelweave.scheduler.Dispatch#handOverToTheProgram}), then every
   * later call the interceptor makes as written runs on its own stream, untracked, each thread's
   * first one after its per-thread default stream joined.
   */
  public static RunResult runScheduledWithPriorities(Program program, ProgramTarget target, Mutant mutant,
      boolean graphs, int normalStreams, int classLanes, WindowJudging judging, int handOverAt) {
    if (classLanes < 1 || target.streams() != Scheduler.poolLanes(normalStreams, classLanes)) {
      throw new IllegalArgumentException("target has " + target.streams() + " pool lanes, not "
          + normalStreams + " normal and " + classLanes + " of each other class");
    }
    return new Run(program, target, true, graphs ? target.graphs() : null, mutant, normalStreams, classLanes, judging,
        handOverAt).execute();
  }

  /** Shared memory no block may have: a launch asking for it fails, as {@link Op.LaunchMode#FAILS} does. */
  private static final int FAILING_SHARED_MEMORY = 1 << 20;

  private static final class Run extends CallRecording {
    /** The largest read staged ({@link #readStaged}). */
    static final int STAGING_BYTES = 64 << 10;

    /** The index of the call before which the dispatch hands the program back; -1 for none. */
    private final int handOverAt;

    Run(Program program, ProgramTarget target, boolean scheduled, GraphDevice graphs, Mutant mutant,
        int normalStreams, int classLanes, WindowJudging judging) {
      this(program, target, scheduled, graphs, mutant, normalStreams, classLanes, judging, -1);
    }

    Run(Program program, ProgramTarget target, boolean scheduled, GraphDevice graphs, Mutant mutant,
        int normalStreams, int classLanes, WindowJudging judging, int handOverAt) {
      super(program, target, scheduled, graphs, mutant, normalStreams, classLanes, judging);
      this.handOverAt = handOverAt;
    }

    RunResult execute() {
      RuntimeException error = null;
      try {
        for (index = 0; index < program.size(); index++) {
          handOverAt(index);
          execute(program.ops().get(index));
        }
        handOverAt(program.size());
        syncContext(-1);
        for (Map.Entry<Integer, Long> b : devices.entrySet()) {
          byte[] bytes = new byte[elements.get(b.getKey()) * 4];
          target.copyDeviceToHost(bytes, b.getValue());
          observations.add(new Observation(-1, "final b" + b.getKey(), bytes));
        }
        for (Map.Entry<Integer, Long> h : hosts.entrySet()) {
          observations.add(
              new Observation(-1, "final h" + h.getKey(), target.readHost(h.getValue(), hostElements.get(h.getKey()) * 4)));
        }
      } catch (RuntimeException e) {
        error = e;
      }
      finishCall();
      if (scheduler != null && scheduler.windows() != null) {
        stats.noteWindows(scheduler.windows().counters());
      }
      return new RunResult(List.copyOf(observations), List.copyOf(target.faults()), error, stats);
    }

    /** Hands the program back before call {@code i}, where that is {@link #handOverAt}. */
    private void handOverAt(int i) {
      if (i == handOverAt && scheduler != null) {
        scheduler.handOverToTheProgram();
        asWritten = true;
      }
    }

    void execute(Op op) {
      target.callingThread(op.thread());
      if (asWritten) {
        scheduler.joinHandOverOntoThisThread(op.thread()); // as the interceptor does before each call made as written
      }
      if (op instanceof Op.AllocHost a) {
        allocHost(a);
      } else if (op instanceof Op.CreateStream c) {
        target.createAppStream(c.stream(), c.nonBlocking());
        if (scheduler != null) {
          start(c.thread(), CudaCallTable.STREAM_CREATE, 0);
          scheduler.streamCreated(c.stream(), c.nonBlocking());
        }
      } else if (op instanceof Op.Alloc a) {
        long address = target.allocDevice(a.elements() * 4);
        devices.put(a.buf(), address);
        elements.put(a.buf(), a.elements());
        table.add(address, a.elements() * 4L, MemoryKind.DEVICE);
        write(a.thread(), address, Program.data(a.dataSeed(), a.elements()));
      } else if (op instanceof Op.Free f) {
        free(f);
      } else if (op instanceof Op.Launch l) {
        launch(l);
      } else if (op instanceof Op.Memset m) {
        memset(m);
      } else if (op instanceof Op.Write w) {
        write(w.thread(), address(w.dst()), Program.data(w.dataSeed(), w.n()));
      } else if (op instanceof Op.Read r) {
        read(r);
      } else if (op instanceof Op.ReadAsync r) {
        readAsync(r);
      } else if (op instanceof Op.Copy c) {
        copy(c);
      } else if (op instanceof Op.SyncContext c) {
        syncContext(c.thread());
      } else if (op instanceof Op.StreamSync s) {
        streamSync(s);
      } else if (op instanceof Op.EventRecord e) {
        eventRecord(e);
      } else if (op instanceof Op.EventSync e) {
        target.synchronizeAppEvent(e.event());
      } else if (op instanceof Op.StreamWaitEvent w) {
        streamWaitEvent(w);
      } else if (op instanceof Op.HostWrite w) {
        target.writeHost(hostAddress(w.host(), w.offset()), Program.data(w.dataSeed(), w.n()));
      } else if (op instanceof Op.WriteAsync w) {
        writeAsync(w);
      } else if (op instanceof Op.LaunchIntoHost l) {
        launchIntoHost(l);
      } else if (op instanceof Op.WriteConstant c) {
        write(c.thread(), constant(c.thread()), Program.data(c.dataSeed(), 4));
      } else if (op instanceof Op.LaunchReadingConstant l) {
        launchReadingConstant(l);
      } else if (op instanceof Op.LaunchWithoutPtx l) {
        launchWithoutPtx(l);
      } else if (op instanceof Op.HostFunction h) {
        hostFunction(h);
      } else if (op instanceof Op.OpenGate g) {
        target.openGate(g.gate());
      } else if (op instanceof Op.ObserveHost o) {
        observations.add(new Observation(index, "h" + o.host(), target.readHost(hosts.get(o.host()),
            hostElements.get(o.host()) * 4)));
      } else {
        throw new IllegalArgumentException("unknown call " + op);
      }
    }

    void allocHost(Op.AllocHost a) {
      long address;
      if (a.registered()) {
        address = target.registerHost(a.elements() * 4);
        if (scheduler != null) {
          start(a.thread(), CudaCallTable.HOST_REGISTER, 0);
        }
      } else {
        address = target.allocHost(a.elements() * 4);
        if (scheduler != null) {
          start(a.thread(), CudaCallTable.ALLOC_HOST, 0);
        }
      }
      hosts.put(a.host(), address);
      hostElements.put(a.host(), a.elements());
      // Registered memory is tracked as page-locked host memory, as the interceptor tracks it.
      table.add(address, a.elements() * 4L, MemoryKind.PINNED_HOST);
    }

    /** The module's constant, looked up ({@code cuModuleGetGlobal}) and tracked at first use. */
    long constant(int thread) {
      if (constant == 0) {
        constant = target.moduleConstant();
        table.add(constant, 16, MemoryKind.MODULE_GLOBAL);
        if (scheduler != null) {
          start(thread, CudaCallTable.MODULE_GET_GLOBAL, 0);
        }
      }
      return constant;
    }

    void streamWaitEvent(Op.StreamWaitEvent w) {
      if (scheduler == null) {
        return; // the reference runs on one stream, which orders everything already
      }
      if (asWritten) {
        target.waitAppEvent(target.appStreamLane(w.stream()), w.event());
        return;
      }
      CallRecord call = start(w.thread(), CudaCallTable.STREAM_WAIT_EVENT, w.stream());
      call.appEvent = w.event() + 1L;
      place(call);
      target.waitAppEvent(target.appStreamLane(w.stream()), w.event());
      scheduler.exit(call, true, ticket);
    }

    void writeAsync(Op.WriteAsync w) {
      long dst = address(w.dst());
      long src = hostAddress(w.host(), w.hostOffset());
      copyAsync(w.thread(), CudaCallTable.COPY_TO_DEVICE_ASYNC, w.stream(), dst, src, w.n() * 4,
          target::copyHostToDeviceAsync);
    }

    void launchIntoHost(Op.LaunchIntoHost l) {
      long out = hostAddress(l.host(), l.hostOffset());
      long in = address(l.in());
      if (untracked()) {
        target.launch(asWrittenLane(l.stream()), SelfTestKernel.SCALE, out, in, 0, l.n(), l.k());
        return;
      }
      CallRecord call = start(l.thread(), CudaCallTable.LAUNCH_KERNEL, l.stream());
      call.kernel = SelfTestKernel.SCALE.name();
      kernelPointer(call, out, AccessMode.WRITE);
      kernelPointer(call, in, AccessMode.READ);
      parameters(call, target.function(SelfTestKernel.SCALE), l.n(), new long[] {out, in, 0}, l.n(), l.k());
      issueLaunch(call, l.stream(), false, lane -> target.launch(lane, SelfTestKernel.SCALE, out, in, 0, l.n(), l.k()));
    }

    void launchReadingConstant(Op.LaunchReadingConstant l) {
      long out = address(l.out());
      long c = constant(l.thread());
      if (untracked()) {
        target.launchReadingConstant(asWrittenLane(l.stream()), out, l.n(), l.k());
        return;
      }
      CallRecord call = start(l.thread(), CudaCallTable.LAUNCH_KERNEL, l.stream());
      call.kernel = "FILL_FROM_CONSTANT";
      // As the interceptor adds them: the module variables the PTX uses first, then the parameters.
      access(call, c, AllocationTable.WHOLE_ALLOCATION, AccessMode.READ);
      call.moduleVariableCount = call.accessCount;
      kernelPointer(call, out, AccessMode.WRITE);
      parameters(call, target.readsConstantFunction(), l.n(), new long[] {out}, l.n(), l.k());
      issueLaunch(call, l.stream(), false, lane -> target.launchReadingConstant(lane, out, l.n(), l.k()));
    }

    void launchWithoutPtx(Op.LaunchWithoutPtx l) {
      long slot = address(l.slot());
      long pointer = address(l.target());
      byte[] bytes = new byte[8];
      for (int b = 0; b < 8; b++) {
        bytes[b] = (byte) (pointer >>> (8 * b));
      }
      write(l.thread(), slot, bytes);
      if (untracked()) {
        target.launchWithoutPtx(asWrittenLane(l.stream()), slot, l.n(), l.k());
        return;
      }
      CallRecord call = start(l.thread(), CudaCallTable.LAUNCH_KERNEL, l.stream());
      call.kernel = "FILL_INDIRECT";
      // Code the agent cannot read: its one pointer read-write, and it may reach memory no parameter names.
      kernelPointer(call, slot, AccessMode.READ_WRITE);
      call.touchesUnknownMemory = true;
      parameters(call, target.withoutPtxFunction(), l.n(), new long[] {slot}, l.n(), l.k());
      issueLaunch(call, l.stream(), false, lane -> target.launchWithoutPtx(lane, slot, l.n(), l.k()));
    }

    void hostFunction(Op.HostFunction h) {
      long src = hostAddress(h.srcHost(), h.srcOffset());
      long dst = hostAddress(h.dstHost(), h.dstOffset());
      if (untracked()) {
        target.launchHostFunction(asWrittenLane(h.stream()), h.gate(), src, dst, h.n() * 4);
        return;
      }
      // Its row: a barrier enqueued on a stream, whose effects the agent cannot see.
      CallRecord call = start(h.thread(), CudaCallTable.LAUNCH_HOST_FUNCTION, h.stream());
      int lane = laneOf(place(call), h.stream());
      target.launchHostFunction(lane, h.gate(), src, dst, h.n() * 4);
      scheduler.exit(call, true, ticket);
    }

    void free(Op.Free f) {
      long address = devices.remove(f.buf());
      elements.remove(f.buf());
      if (untracked()) {
        // cuMemFree: as the reference makes it, the device synchronized first.
        target.synchronizeDevice();
        target.freeDevice(address);
        table.remove(address);
        return;
      }
      CallRecord call = start(f.thread(), CudaCallTable.FREE, 0);
      access(call, address, 1, AccessMode.READ_WRITE);
      place(call);
      target.freeDevice(address);
      table.remove(address);
      scheduler.exit(call, true, ticket);
    }

    void launch(Op.Launch l) {
      long out = address(l.out()) + l.kernel().outPointerOffset(l.n());
      long in1 = l.in1() == null ? 0 : address(l.in1());
      long in2 = l.in2() == null ? 0 : address(l.in2());
      SelfTestKernel kernel = l.kernel();
      if (untracked()) {
        if (l.mode() != Op.LaunchMode.FAILS) {
          // A library call of no stream runs on the legacy stream.
          target.launch(asWrittenLane(l.mode() == Op.LaunchMode.OPAQUE ? 0 : l.stream()), kernel, out, in1, in2, l.n(),
              l.k());
        }
        return;
      }
      boolean opaque = l.mode() == Op.LaunchMode.OPAQUE;
      CallRecord call = opaque ? start(l.thread(), CudaCallTable.OPAQUE_LIBRARY_CALL, 0)
          : start(l.thread(), CudaCallTable.LAUNCH_KERNEL, l.stream());
      call.kernel = kernel.name();
      if (opaque) {
        call.name = "cufftExecC2C"; // a function of a library the agent knows only by name
        place(call);
        target.launch(legacy, kernel, out, in1, in2, l.n(), l.k());
        scheduler.exit(call, true, ticket);
        return;
      }
      boolean conservative = l.mode() == Op.LaunchMode.CONSERVATIVE;
      kernelPointer(call, out, conservative ? AccessMode.READ_WRITE : kernel.outMode());
      if (l.in1() != null) {
        kernelPointer(call, in1, conservative ? AccessMode.READ_WRITE : AccessMode.READ);
      }
      if (l.in2() != null) {
        kernelPointer(call, in2, conservative ? AccessMode.READ_WRITE : AccessMode.READ);
      }
      if (l.mode() == Op.LaunchMode.UNKNOWN_POINTER) {
        call.touchesUnknownMemory = true;
      }
      parameters(call, target.function(kernel), l.n(), new long[] {out, in1, in2}, l.n(), l.k());
      if (l.mode() == Op.LaunchMode.FAILS) {
        call.sharedMemBytes = FAILING_SHARED_MEMORY;
      }
      issueLaunch(call, l.stream(), l.mode() == Op.LaunchMode.FAILS,
          lane -> target.launch(lane, kernel, out, in1, in2, l.n(), l.k()));
    }

    /**
     * Places a launch as its row says and, unless the windows hold it (they issue it later, from its
     * record), makes it by {@code launchOn} on the lane chosen for {@code stream}. A launch that
     * {@code fails} is not made and exits as failed, as the driver's error return does.
     */
    void issueLaunch(CallRecord call, long stream, boolean fails, IntConsumer launchOn) {
      int chosen = placeLaunch(call);
      if (ticket.heldByWindows()) {
        held();
        return;
      }
      int lane = laneOf(chosen, stream);
      if (fails) {
        scheduler.exit(call, false, ticket);
        return;
      }
      launchOn.accept(lane);
      scheduler.exit(call, true, ticket);
    }

    void memset(Op.Memset m) {
      long dst = address(m.dst());
      if (untracked()) {
        target.memset(asWrittenLane(m.sync() ? 0 : m.stream()), dst, m.value(), m.n() * 4);
        return;
      }
      CallRecord call = start(m.thread(), m.sync() ? CudaCallTable.MEMSET : CudaCallTable.MEMSET_ASYNC, m.stream());
      touches(call, dst, 0, m.n() * 4L);
      int lane = laneOf(place(call), m.sync() ? 0 : m.stream());
      target.memset(lane, dst, m.value(), m.n() * 4);
      scheduler.exit(call, true, ticket);
    }

    void write(int thread, long dst, byte[] data) {
      if (untracked()) {
        target.copyHostToDevice(dst, data);
        return;
      }
      CallRecord call = start(thread, CudaCallTable.COPY_TO_DEVICE, 0);
      touches(call, dst, 0, data.length);
      // The runner does not stage writes: the row's placement when the agent does not either.
      place(call);
      target.copyHostToDevice(dst, data);
      scheduler.exit(call, true, ticket);
    }

    void read(Op.Read r) {
      long src = address(r.src());
      byte[] bytes = new byte[r.n() * 4];
      if (untracked()) {
        target.copyDeviceToHost(bytes, src);
      } else {
        CallRecord call = start(r.thread(), CudaCallTable.COPY_TO_HOST, 0);
        touches(call, 0, src, bytes.length);
        CudaCall row = calls.row(CudaCallTable.COPY_TO_HOST);
        if (row.canBeStaged() && index % 2 == 0 && bytes.length <= STAGING_BYTES) {
          readStaged(call, row, bytes, src);
        } else {
          place(call);
          target.copyDeviceToHost(bytes, src);
        }
        scheduler.exit(call, true, ticket);
      }
      observations.add(new Observation(index, r.src().describe(r.n()), bytes));
    }

    /**
     * Every other synchronous read, as the interceptor makes one into a Java array: queued on its
     * lane into page-locked memory of the runner's own, waited for, then copied out.
     */
    void readStaged(CallRecord call, CudaCall row, byte[] bytes, long src) {
      if (staging == 0) {
        staging = target.allocHost(STAGING_BYTES);
      }
      int lane = laneOf(scheduler.enter(call, row.stagedPlacement(), ticket), 0);
      target.copyDeviceToHostAsync(lane, staging, src, bytes.length);
      scheduler.awaitStagedRead(call, ticket);
      System.arraycopy(target.readHost(staging, bytes.length), 0, bytes, 0, bytes.length);
    }

    void readAsync(Op.ReadAsync r) {
      long src = address(r.src());
      long dst = hostAddress(r.host(), r.hostOffset());
      copyAsync(r.thread(), CudaCallTable.COPY_TO_HOST_ASYNC, r.stream(), dst, src, r.n() * 4,
          target::copyDeviceToHostAsync);
    }

    void copy(Op.Copy c) {
      long dst = address(c.dst());
      long src = address(c.src());
      copyAsync(c.thread(), CudaCallTable.COPY_ON_DEVICE_ASYNC, c.stream(), dst, src, c.n() * 4,
          target::copyDeviceToDevice);
    }

    /** One of the target's asynchronous copies, made on a lane. */
    @FunctionalInterface
    interface AsyncCopy {
      void copy(int lane, long dst, long src, int bytes);
    }

    /**
     * An asynchronous copy on the application's {@code stream}: on the legacy lane in the reference;
     * else started from row {@code rowId} with its operands at {@code dst} and {@code src}, placed as
     * the row says and made on the lane chosen.
     */
    void copyAsync(int thread, int rowId, long stream, long dst, long src, int bytes, AsyncCopy copy) {
      if (untracked()) {
        copy.copy(asWrittenLane(stream), dst, src, bytes);
        return;
      }
      CallRecord call = start(thread, rowId, stream);
      touches(call, dst, src, bytes);
      copy.copy(laneOf(place(call), stream), dst, src, bytes);
      scheduler.exit(call, true, ticket);
    }

    void streamSync(Op.StreamSync s) {
      if (untracked()) {
        target.synchronizeLane(asWrittenLane(s.stream()));
        return;
      }
      CallRecord call = start(s.thread(), CudaCallTable.STREAM_SYNCHRONIZE, s.stream());
      place(call);
      target.synchronizeLane(target.appStreamLane(s.stream()));
      scheduler.exit(call, true, ticket);
    }

    void eventRecord(Op.EventRecord e) {
      if (untracked()) {
        target.recordAppEvent(e.event(), asWrittenLane(e.stream()));
        return;
      }
      CallRecord call = start(e.thread(), CudaCallTable.EVENT_RECORD, e.stream());
      call.appEvent = e.event() + 1L;
      int lane = laneOf(place(call), e.stream());
      target.recordAppEvent(e.event(), lane);
      scheduler.exit(call, true, ticket);
    }
  }
}
