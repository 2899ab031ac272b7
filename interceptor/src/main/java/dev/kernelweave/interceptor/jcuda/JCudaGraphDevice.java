package dev.kernelweave.interceptor.jcuda;

import static dev.kernelweave.interceptor.jcuda.JCudaStreamDevice.check;

import dev.kernelweave.call.CallKind;
import dev.kernelweave.call.CallRecord;
import dev.kernelweave.scheduler.GraphDevice;
import dev.kernelweave.ptx.MergedKernel;
import java.util.Arrays;
import java.util.Map;
import jcuda.Pointer;
import jcuda.driver.CUdeviceptr;
import jcuda.driver.CUevent;
import jcuda.driver.CUfunction;
import jcuda.driver.CUgraph;
import jcuda.driver.CUgraphExec;
import jcuda.driver.CUstream;

/**
 * Held launches (and cuBLAS routines, through {@link HeldCallIssuer}) issued over JCuda: one at a
 * time on a lane's stream, or captured into a graph on
 * streams of the agent's own, which no lane uses, so that capturing never disturbs work in flight.
 * A launch's edges inside the window become the capture's stream order and event waits, so the
 * instantiated graph runs independent launches as parallel branches.
 *
 * <p>Merged launches ({@code scheduler/LaunchMerging}), where a source of merged kernels is given:
 * their functions from {@link MergedModules}, their tables in device memory of the agent's own.
 *
 * <p>Not thread-safe: used under the context's scheduling lock, on a thread where the context is
 * current.
 */
public final class JCudaGraphDevice implements GraphDevice {

  /** Where a launched kernel's code and merged variants come from. Thread-safe. */
  public interface MergeSource {
    /** The PTX text of the module {@code function} was found in; null when not known. */
    String ptx(long function);

    /** The merged variants of the kernels of {@code ptx}, by kernel name. */
    Map<String, MergedKernel> variants(String ptx);
  }

  /** Streams a capture spreads over; launches beyond that many parallel branches share them. */
  static final int CAPTURE_STREAMS = 16;

  private final JCudaStreamDevice lanes;
  /** Issues held calls other than kernel launches, for the libraries that make them. */
  private final HeldCallIssuer routines;
  private final CUstream[] captureStreams = new CUstream[CAPTURE_STREAMS];
  private CUevent[] events = new CUevent[64];
  private final CUfunction function = new CUfunction();
  private final CUgraphExec exec = new CUgraphExec();
  /** The context's merged kernels; null when launches are not merged. */
  private final MergedModules merged;
  /**
   * Page-locked memory tables are copied to the device from, allocated at the first table and
   * replaced by a larger one when a table does not fit (the old one stays with the context, as the
   * agent's page-locked memory does: tables are small and a window has at most 128 launches).
   */
  private Pointer staging;
  private long stagingBytes;

  /** The smallest staging buffer: the table of 128 instances of a kernel with 112 parameter bytes. */
  static final long MIN_STAGING_BYTES = 16 << 10;

  /**
   * @param routines issues the held calls that are not kernel launches (cuBLAS routines)
   * @param merging where merged kernels come from; null for a device that merges nothing
   */
  public JCudaGraphDevice(JCudaStreamDevice lanes, HeldCallIssuer routines, MergeSource merging) {
    this.lanes = lanes;
    this.routines = routines;
    this.merged = merging == null ? null : new MergedModules(merging);
  }

  @Override
  public MergedFunction mergedFunction(CallRecord launch) {
    if (merged == null) {
      return null;
    }
    try {
      return merged.function(launch);
    } catch (RuntimeException e) {
      return null; // a kernel that cannot be merged is launched as written
    }
  }

  @Override
  public long uploadTable(byte[] bytes) {
    CUdeviceptr address = new CUdeviceptr();
    check("cuMemAlloc (a merged launch's table)", JCudaNatives.allocate(address, bytes.length));
    if (stagingBytes < bytes.length) {
      Pointer p = new Pointer();
      long size = Math.max(MIN_STAGING_BYTES, bytes.length);
      int allocated = JCudaNatives.allocateHost(p, size);
      if (allocated != 0) {
        JCudaNatives.free(address);
        check("cuMemAllocHost (a merged launch's table)", allocated);
      }
      staging = p;
      stagingBytes = size;
    }
    staging.getByteBuffer(0, bytes.length).put(bytes);
    // On a capture stream, idle and non-blocking: no work of the program's is waited for.
    CUstream s = captureStream(0);
    int result = JCudaNatives.copyToDeviceAsync(address, staging, bytes.length, s);
    if (result == 0) {
      result = JCudaNatives.synchronizeStream(s);
    }
    if (result != 0) {
      JCudaNatives.free(address);
      check("cuMemcpyHtoDAsync (a merged launch's table)", result);
    }
    return JCudaPointers.address(address);
  }

  @Override
  public void freeTable(long address) {
    // The graph that read it was destroyed, but a replay may still run: freed once none can.
    lanes.freeAfterNextSynchronize(address);
  }

  @Override
  public int launch(CallRecord call, int lane) {
    return launchOn(call, lanes.stream(lane));
  }

  private int launchOn(CallRecord call, CUstream stream) {
    if (call.kind != CallKind.LAUNCH) {
      return routines.issue(call, stream);
    }
    JCudaPointers.setNativePointer(function, call.function);
    return JCudaNatives.launchKernel(function, call.gridX, call.gridY, call.gridZ, call.blockX, call.blockY,
        call.blockZ, call.sharedMemBytes, stream, parameters(call));
  }

  /** The launch's parameter bytes as JCuda passes kernel parameters: a pointer to one pointer per parameter. */
  private static Pointer parameters(CallRecord call) {
    Pointer[] each = new Pointer[call.paramCount];
    for (int i = 0; i < call.paramCount; i++) {
      int from = call.paramOffsets[i];
      each[i] = Pointer.to(Arrays.copyOfRange(call.paramBytes, from, from + call.paramSize(i)));
    }
    return Pointer.to(each);
  }

  @Override
  public long capture(CallRecord[] calls, int count, int[] predecessorStart, int[] predecessors) {
    CUstream origin = captureStream(0);
    ensureEvents(count + CAPTURE_STREAMS + 1);
    boolean[] hasSuccessor = new boolean[count];
    for (int e = 0; e < predecessorStart[count]; e++) {
      hasSuccessor[predecessors[e]] = true;
    }
    int[] streamOf = new int[count];
    int used = assignStreams(count, predecessorStart, predecessors, streamOf);
    for (int i = 0; i < count; i++) {
      if (calls[i].kind != CallKind.LAUNCH) {
        check(calls[i].name + " (made ready for a capture)", routines.prepare(calls[i], captureStream(streamOf[i])));
      }
    }
    CUevent fork = events[count];
    check("cuStreamBeginCapture", JCudaNatives.beginCapture(origin));
    CUgraph graph = new CUgraph();
    boolean ended = false;
    try {
      check("cuEventRecord", JCudaNatives.recordEvent(fork, origin));
      boolean[] joined = new boolean[CAPTURE_STREAMS];
      joined[0] = true;
      for (int i = 0; i < count; i++) {
        int chosen = streamOf[i];
        CUstream s = captureStream(chosen);
        if (!joined[chosen]) {
          check("cuStreamWaitEvent", JCudaNatives.waitEvent(s, fork));
          joined[chosen] = true;
        }
        for (int e = predecessorStart[i]; e < predecessorStart[i + 1]; e++) {
          int p = predecessors[e];
          if (streamOf[p] != chosen) {
            check("cuStreamWaitEvent", JCudaNatives.waitEvent(s, events[p]));
          }
        }
        check(calls[i].name, launchOn(calls[i], s));
        if (hasSuccessor[i]) {
          check("cuEventRecord", JCudaNatives.recordEvent(events[i], s));
        }
      }
      for (int k = 1; k < used; k++) {
        CUevent join = events[count + k];
        check("cuEventRecord", JCudaNatives.recordEvent(join, captureStream(k)));
        check("cuStreamWaitEvent", JCudaNatives.waitEvent(origin, join));
      }
      ended = true;
      check("cuStreamEndCapture", JCudaNatives.endCapture(origin, graph));
      CUgraphExec instantiated = new CUgraphExec();
      check("cuGraphInstantiate", JCudaNatives.instantiateGraph(instantiated, graph));
      return JCudaPointers.nativePointer(instantiated);
    } finally {
      if (!ended) {
        JCudaNatives.endCapture(origin, graph);
      }
      if (JCudaPointers.nativePointer(graph) != 0) {
        JCudaNatives.destroyGraph(graph);
      }
    }
  }

  /**
   * Puts each launch on a capture stream: after the predecessor whose stream it ends, if any (the
   * chain goes on), else on a stream of its own while there are some left.
   *
   * @return how many capture streams are used
   */
  private static int assignStreams(int count, int[] predecessorStart, int[] predecessors, int[] streamOf) {
    int[] tail = new int[CAPTURE_STREAMS];
    Arrays.fill(tail, -1);
    int used = 1;
    for (int i = 0; i < count; i++) {
      int from = predecessorStart[i];
      int to = predecessorStart[i + 1];
      int chosen = -1;
      for (int e = from; e < to && chosen < 0; e++) {
        int p = predecessors[e];
        if (tail[streamOf[p]] == p) {
          chosen = streamOf[p];
        }
      }
      if (chosen < 0) {
        if (from == to && tail[0] < 0) {
          chosen = 0;
        } else if (used < CAPTURE_STREAMS) {
          chosen = used++;
        } else {
          chosen = 1 + i % (CAPTURE_STREAMS - 1); // more branches than streams: some share one
        }
      }
      streamOf[i] = chosen;
      tail[chosen] = i;
    }
    return used;
  }

  @Override
  public int launchGraph(long graph, int lane) {
    JCudaPointers.setNativePointer(exec, graph);
    return JCudaNatives.launchGraph(exec, lanes.stream(lane));
  }

  @Override
  public void destroyGraph(long graph) {
    JCudaPointers.setNativePointer(exec, graph);
    JCudaNatives.destroyGraphExec(exec);
  }

  /**
   * Destroys the streams and events captures used; for an owner done with this device, whose graphs
   * it destroyed and whose work completed.
   */
  public void close() {
    if (merged != null) {
      merged.close();
    }
    JCudaStreamDevice.destroyStreams(captureStreams, captureStreams.length);
    JCudaStreamDevice.destroyEvents(events);
  }

  private CUstream captureStream(int i) {
    CUstream s = captureStreams[i];
    if (s == null) {
      s = new CUstream();
      check("cuStreamCreate", JCudaNatives.createNonBlockingStream(s));
      captureStreams[i] = s;
    }
    return s;
  }

  private void ensureEvents(int count) {
    if (count > events.length) {
      events = Arrays.copyOf(events, Math.max(count, events.length * 2));
    }
    for (int i = 0; i < count; i++) {
      if (events[i] == null) {
        CUevent e = new CUevent();
        check("cuEventCreate", JCudaNatives.createEvent(e));
        events[i] = e;
      }
    }
  }
}
