package dev.kernelweave.kernels;

import static jcuda.driver.JCudaDriver.cuCtxSynchronize;
import static jcuda.driver.JCudaDriver.cuEventCreate;
import static jcuda.driver.JCudaDriver.cuEventDestroy;
import static jcuda.driver.JCudaDriver.cuEventRecord;
import static jcuda.driver.JCudaDriver.cuGraphDestroy;
import static jcuda.driver.JCudaDriver.cuGraphExecDestroy;
import static jcuda.driver.JCudaDriver.cuGraphInstantiate;
import static jcuda.driver.JCudaDriver.cuMemAlloc;
import static jcuda.driver.JCudaDriver.cuMemAllocHost;
import static jcuda.driver.JCudaDriver.cuMemFree;
import static jcuda.driver.JCudaDriver.cuMemFreeHost;
import static jcuda.driver.JCudaDriver.cuModuleLoadData;
import static jcuda.driver.JCudaDriver.cuModuleUnload;
import static jcuda.driver.JCudaDriver.cuStreamBeginCapture;
import static jcuda.driver.JCudaDriver.cuStreamCreate;
import static jcuda.driver.JCudaDriver.cuStreamDestroy;
import static jcuda.driver.JCudaDriver.cuStreamEndCapture;
import static jcuda.driver.JCudaDriver.cuStreamWaitEvent;
import static jcuda.jcublas.JCublas2.cublasCreate;
import static jcuda.jcublas.JCublas2.cublasDestroy;
import static jcuda.jcublas.JCublas2.cublasSetStream;

import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.function.ObjIntConsumer;
import java.util.function.Supplier;
import jcuda.Pointer;
import jcuda.driver.CUdeviceptr;
import jcuda.driver.CUevent;
import jcuda.driver.CUevent_flags;
import jcuda.driver.CUgraph;
import jcuda.driver.CUgraphExec;
import jcuda.driver.CUmodule;
import jcuda.driver.CUstream;
import jcuda.driver.CUstreamCaptureMode;
import jcuda.driver.CUstream_flags;
import jcuda.jcublas.cublasHandle;
import jcuda.runtime.cudaStream_t;

/**
 * The CUDA objects of one workload: everything is created through a scope and released, in reverse
 * order, when it closes. Creating a scope makes the primary context current on this thread.
 */
public final class CudaScope implements AutoCloseable {

  /** A loaded PTX module. */
  public final class Module {
    private final CUmodule module;
    private final Map<String, List<Ptx.Param>> entries;

    private Module(CUmodule module, Map<String, List<Ptx.Param>> entries) {
      this.module = module;
      this.entries = entries;
    }

    /** The kernel {@code name}, which the PTX must declare. */
    public Kernel kernel(String name) {
      return Kernel.find(module, entries, name);
    }
  }

  private final Deque<Runnable> releases = new ArrayDeque<>();

  public CudaScope() {
    Cuda.makeContextCurrent();
  }

  /** Loads {@code ptx/NAME.ptx} from the class path. */
  public Module module(String name) {
    String text = Ptx.text(name);
    CUmodule module = new CUmodule();
    cuModuleLoadData(module, Ptx.image(text));
    releases.push(() -> cuModuleUnload(module));
    return new Module(module, Ptx.entries(text));
  }

  /** Device memory for {@code count} floats ({@code cuMemAlloc}), contents undefined. */
  public CUdeviceptr floats(long count) {
    CUdeviceptr pointer = new CUdeviceptr();
    cuMemAlloc(pointer, count * Float.BYTES);
    releases.push(() -> cuMemFree(pointer));
    return pointer;
  }

  /** Page-locked host memory for {@code count} floats ({@code cuMemAllocHost}). */
  public PinnedFloats pinnedFloats(int count) {
    Pointer pointer = new Pointer();
    cuMemAllocHost(pointer, (long) count * Float.BYTES);
    releases.push(() -> cuMemFreeHost(pointer));
    return new PinnedFloats(pointer, count);
  }

  /** A stream that does not synchronize with the legacy default stream. */
  public CUstream stream() {
    return stream(CUstream_flags.CU_STREAM_NON_BLOCKING);
  }

  /**
   * A stream as {@code cuStreamCreate(stream, 0)} makes it, the way most programs create one: it
   * synchronizes with the legacy default stream.
   */
  public CUstream blockingStream() {
    return stream(CUstream_flags.CU_STREAM_DEFAULT);
  }

  private CUstream stream(int flags) {
    CUstream stream = new CUstream();
    cuStreamCreate(stream, flags);
    releases.push(() -> cuStreamDestroy(stream));
    return stream;
  }

  /** {@code count} streams, see {@link #stream()}. */
  public CUstream[] streams(int count) {
    return fill(new CUstream[count], this::stream);
  }

  /** An event for ordering only (no timing). */
  public CUevent event() {
    CUevent event = new CUevent();
    cuEventCreate(event, CUevent_flags.CU_EVENT_DISABLE_TIMING);
    releases.push(() -> cuEventDestroy(event));
    return event;
  }

  /** {@code count} events, see {@link #event()}. */
  public CUevent[] events(int count) {
    return fill(new CUevent[count], this::event);
  }

  /** {@code into} filled in order, each element made by {@code make}. */
  private static <T> T[] fill(T[] into, Supplier<T> make) {
    for (int i = 0; i < into.length; i++) {
      into[i] = make.get();
    }
    return into;
  }

  /** A cuBLAS handle that issues on {@code stream} (null: the default stream). */
  public cublasHandle cublas(CUstream stream) {
    cublasHandle handle = new cublasHandle();
    cublasCreate(handle);
    releases.push(() -> cublasDestroy(handle));
    if (stream != null) {
      cublasSetStream(handle, new cudaStream_t(stream));
    }
    return handle;
  }

  /** A CUDA graph of the work that {@code queue} issues on {@code stream} alone; see below. */
  public CUgraphExec graph(CUstream stream, Runnable queue) {
    return graph(stream, new CUstream[0], queue);
  }

  /**
   * One graph per stream of {@code streams}, captured in order: graph {@code i} holds the work
   * that {@code queue} issues for unit {@code i} on {@code streams[i]} alone (see {@link
   * #graph(CUstream, Runnable)}), to be launched on that stream.
   */
  public CUgraphExec[] graphPerStream(CUstream[] streams, ObjIntConsumer<CUstream> queue) {
    CUgraphExec[] graphs = new CUgraphExec[streams.length];
    for (int i = 0; i < streams.length; i++) {
      int unit = i;
      graphs[i] = graph(streams[i], () -> queue.accept(streams[unit], unit));
    }
    return graphs;
  }

  /**
   * A CUDA graph of the work that {@code queue} issues, captured once from {@code origin} and
   * instantiated; nothing runs until it is launched ({@code cuGraphLaunch}). Each stream of {@code
   * forked} joins the capture by waiting on an event recorded on {@code origin} when it begins (the
   * fork); {@code queue} must make {@code origin} wait on the last work of every stream it uses
   * besides {@code origin} (the join), and issue nothing that synchronizes with the host. The graph
   * and its executable graph are destroyed when the scope closes. Kernel arguments are captured by
   * value: every launch replays the same pointers and numbers.
   */
  public CUgraphExec graph(CUstream origin, CUstream[] forked, Runnable queue) {
    CUevent fork = forked.length == 0 ? null : event();
    cuStreamBeginCapture(origin, CUstreamCaptureMode.CU_STREAM_CAPTURE_MODE_GLOBAL);
    if (fork != null) {
      cuEventRecord(fork, origin);
      for (CUstream stream : forked) {
        if (stream != origin) {
          cuStreamWaitEvent(stream, fork, 0);
        }
      }
    }
    CUgraph graph = new CUgraph();
    try {
      queue.run();
    } catch (RuntimeException e) {
      // Leaves the capture so that the streams can be used, and destroyed, afterwards.
      try {
        cuStreamEndCapture(origin, graph);
      } catch (RuntimeException ended) {
        e.addSuppressed(ended);
      }
      throw e;
    }
    cuStreamEndCapture(origin, graph);
    releases.push(() -> cuGraphDestroy(graph));
    CUgraphExec exec = new CUgraphExec();
    cuGraphInstantiate(exec, graph, 0);
    releases.push(() -> cuGraphExecDestroy(exec));
    return exec;
  }

  /**
   * Waits for the context's work, then releases everything in reverse order of creation. Every
   * release is attempted; the first failure is thrown at the end.
   */
  @Override
  public void close() {
    RuntimeException failure = null;
    try {
      cuCtxSynchronize();
    } catch (RuntimeException e) {
      failure = e;
    }
    while (!releases.isEmpty()) {
      try {
        releases.pop().run();
      } catch (RuntimeException e) {
        if (failure == null) {
          failure = e;
        } else {
          failure.addSuppressed(e);
        }
      }
    }
    if (failure != null) {
      throw failure;
    }
  }
}
