package dev.kernelweave.it.bench;

import static jcuda.driver.JCudaDriver.cuCtxSynchronize;
import static jcuda.driver.JCudaDriver.cuEventCreate;
import static jcuda.driver.JCudaDriver.cuEventRecord;
import static jcuda.driver.JCudaDriver.cuGraphDestroy;
import static jcuda.driver.JCudaDriver.cuGraphInstantiate;
import static jcuda.driver.JCudaDriver.cuGraphLaunch;
import static jcuda.driver.JCudaDriver.cuGraphUpload;
import static jcuda.driver.JCudaDriver.cuMemcpyDtoH;
import static jcuda.driver.JCudaDriver.cuMemcpyHtoD;
import static jcuda.driver.JCudaDriver.cuStreamBeginCapture;
import static jcuda.driver.JCudaDriver.cuStreamCreate;
import static jcuda.driver.JCudaDriver.cuStreamEndCapture;
import static jcuda.driver.JCudaDriver.cuStreamSynchronize;
import static jcuda.driver.JCudaDriver.cuStreamWaitEvent;
import static jcuda.driver.JCudaDriver.setExceptionsEnabled;

import dev.kernelweave.kernels.CudaScope;
import dev.kernelweave.kernels.Kernel;
import dev.kernelweave.kernels.PinnedFloats;
import dev.kernelweave.kernels.Size;
import dev.kernelweave.kernels.workloads.PipelineProblem;
import java.util.Arrays;
import java.util.function.IntConsumer;
import jcuda.Pointer;
import jcuda.driver.CUdeviceptr;
import jcuda.driver.CUevent;
import jcuda.driver.CUevent_flags;
import jcuda.driver.CUgraph;
import jcuda.driver.CUgraphExec;
import jcuda.driver.CUstream;
import jcuda.driver.CUstreamCaptureMode;
import jcuda.driver.CUstream_flags;

/**
 * What CUDA itself charges the host for a replayed window of {@code pipeline} and {@code
 * pipeline-async}, without the agent: the host time of {@code cuGraphLaunch} of their three kernels
 * where the agent launches it, beside the same three kernels launched at once. For {@code pipeline},
 * the legacy stream right after a synchronous copy in, and variations (the graph uploaded first, a
 * non-blocking stream with and without the event a copy back on the legacy stream would need, no
 * copies at all); for {@code pipeline-async}, a stream of the program's own right after the batch
 * was put into page-locked memory and its copy in queued, and the same spread over non-blocking
 * streams as the agent spreads it. Sizes, kernels and inputs are {@code pipeline}'s at bench size
 * ({@link PipelineProblem}). Each line is over every batch times the given repetitions, after 200
 * repetitions of warm-up; two rounds.
 *
 * <p>Usage, on the GPU machine: {@code java -cp 'it-tests/target/classes:it-tests/target/lib/*'
 * dev.kernelweave.it.bench.GraphLaunchCost [REPS]} (default 300).
 */
public final class GraphLaunchCost {

  private static final int WARM_UP = 200;

  /** What surrounds each timed step of a batch. */
  private enum Surroundings {
    /** {@code pipeline}: a synchronous copy in before, a synchronous copy out after. */
    SYNC_COPIES,
    /**
     * {@code pipeline-async}: the batch put into page-locked memory and its copy in queued before,
     * its copy out queued after, on the same stream; the stream synchronized after the last batch.
     */
    ASYNC_COPIES,
    /**
     * {@code pipeline-async} as the agent spreads it: the same, but each batch on one of {@link
     * #LANES} non-blocking streams in turn, as the agent's lanes are; every lane synchronized after
     * the last batch.
     */
    ASYNC_COPIES_ON_LANES,
    /** Nothing; the context synchronized after each batch. */
    NONE
  }

  /** The agent's lanes per context by default. */
  private static final int LANES = 8;

  private final PipelineProblem p = PipelineProblem.of(Size.BENCH);
  private final Kernel prepare;
  private final Kernel smooth;
  private final Kernel finish;
  private final CUdeviceptr[] in = new CUdeviceptr[p.batches()];
  private final CUdeviceptr[] tmp = new CUdeviceptr[p.batches()];
  private final CUdeviceptr[] out = new CUdeviceptr[p.batches()];
  private final float[][] inputs = p.inputs();
  private final float[][] results = new float[p.batches()][p.n()];
  private final PinnedFloats staged;
  private final PinnedFloats pinnedResults;
  private final CUstream appStream;
  private final CUstream[] lanes = new CUstream[LANES];

  private GraphLaunchCost(CudaScope cuda) {
    CudaScope.Module module = cuda.module(p.ptx());
    prepare = module.kernel(p.kernels().get(0));
    smooth = module.kernel(p.kernels().get(1));
    finish = module.kernel(p.kernels().get(2));
    for (int b = 0; b < p.batches(); b++) {
      in[b] = cuda.floats(p.n());
      tmp[b] = cuda.floats(p.n());
      out[b] = cuda.floats(p.n());
    }
    staged = cuda.pinnedFloats(p.batches() * p.n());
    pinnedResults = cuda.pinnedFloats(p.batches() * p.n());
    appStream = cuda.blockingStream();
    for (int i = 0; i < LANES; i++) {
      lanes[i] = nonBlockingStream();
    }
  }

  public static void main(String[] args) {
    int reps = Integer.parseInt(args.length > 0 ? args[0] : "300");
    setExceptionsEnabled(true);
    try (CudaScope cuda = new CudaScope()) {
      new GraphLaunchCost(cuda).run(reps);
    }
  }

  private void run(int reps) {
    CUstream nonBlocking = nonBlockingStream();
    CUstream capture = nonBlockingStream();
    CUevent event = new CUevent();
    cuEventCreate(event, CUevent_flags.CU_EVENT_DISABLE_TIMING);
    CUgraphExec[] graphs = capture(capture);
    CUgraphExec[] uploaded = capture(capture);
    CUstream legacy = new CUstream();
    for (CUgraphExec g : uploaded) {
      cuGraphUpload(g, legacy);
    }
    CUgraphExec[] onAppStream = capture(appStream);
    CUgraphExec[] onLanes = capture(capture);
    for (int round = 1; round <= 2; round++) {
      System.out.println("-- round " + round);
      measure("eager 3 launches, legacy, sync copies", Surroundings.SYNC_COPIES, b -> compute(b, legacy), reps);
      measure("graph legacy, sync copies", Surroundings.SYNC_COPIES, b -> cuGraphLaunch(graphs[b], legacy), reps);
      measure("graph legacy uploaded, sync copies", Surroundings.SYNC_COPIES,
          b -> cuGraphLaunch(uploaded[b], legacy), reps);
      measure("graph nonblocking + event + legacy wait", Surroundings.SYNC_COPIES, b -> {
        cuStreamWaitEvent(nonBlocking, event, 0);
        cuGraphLaunch(graphs[b], nonBlocking);
        cuEventRecord(event, nonBlocking);
        cuStreamWaitEvent(legacy, event, 0);
      }, reps);
      measure("graph nonblocking only, sync copies", Surroundings.SYNC_COPIES,
          b -> cuGraphLaunch(graphs[b], nonBlocking), reps);
      measure("graph legacy, no copies", Surroundings.NONE, b -> cuGraphLaunch(graphs[b], legacy), reps);
      measure("eager 3 launches, legacy, no copies", Surroundings.NONE, b -> compute(b, legacy), reps);
      measure("two graphs back to back, legacy, sync copies", Surroundings.SYNC_COPIES, b -> {
        cuGraphLaunch(graphs[b], legacy);
        cuGraphLaunch(graphs[(b + 1) % p.batches()], legacy);
      }, reps);
      measure("eager 3 launches, app stream, async copies", Surroundings.ASYNC_COPIES, b -> compute(b, appStream), reps);
      measure("graph app stream, async copies", Surroundings.ASYNC_COPIES,
          b -> cuGraphLaunch(onAppStream[b], appStream), reps);
      measure("eager 3 launches, lanes, async copies", Surroundings.ASYNC_COPIES_ON_LANES,
          b -> compute(b, laneOf(b)), reps);
      measure("graph lanes, async copies", Surroundings.ASYNC_COPIES_ON_LANES,
          b -> cuGraphLaunch(onLanes[b], laneOf(b)), reps);
      measure("cuCtxSynchronize alone after copy", Surroundings.SYNC_COPIES, b -> cuCtxSynchronize(), reps);
      measure("nothing (nanoTime)", Surroundings.SYNC_COPIES, b -> {}, reps);
    }
  }

  private void compute(int b, CUstream stream) {
    prepare.launch(p.blocks(), p.threads(), stream, in[b], tmp[b], p.n(), p.rounds());
    smooth.launch(p.blocks(), p.threads(), stream, tmp[b], out[b], p.n(), p.rounds());
    finish.launch(p.blocks(), p.threads(), stream, out[b], p.n(), p.rounds());
  }

  /** Times {@code step} for each batch, in {@code surroundings}. */
  private void measure(String name, Surroundings surroundings, IntConsumer step, int reps) {
    long bytes = (long) p.n() * Float.BYTES;
    long[] nanos = new long[reps * p.batches()];
    int k = 0;
    for (int r = 0; r < reps + WARM_UP; r++) {
      for (int b = 0; b < p.batches(); b++) {
        if (surroundings == Surroundings.SYNC_COPIES) {
          cuMemcpyHtoD(in[b], Pointer.to(inputs[b]), bytes);
        } else if (surroundings != Surroundings.NONE) {
          staged.put(b * p.n(), inputs[b]);
          staged.copyToDevice(b * p.n(), in[b], p.n(), streamOf(surroundings, b));
        }
        long start = System.nanoTime();
        step.accept(b);
        long end = System.nanoTime();
        if (surroundings == Surroundings.SYNC_COPIES) {
          cuMemcpyDtoH(Pointer.to(results[b]), out[b], bytes);
        } else if (surroundings != Surroundings.NONE) {
          pinnedResults.copyFromDevice(b * p.n(), out[b], p.n(), streamOf(surroundings, b));
        } else {
          cuCtxSynchronize();
        }
        if (r >= WARM_UP) {
          nanos[k++] = end - start;
        }
      }
      if (surroundings == Surroundings.ASYNC_COPIES) {
        cuStreamSynchronize(appStream);
      } else if (surroundings == Surroundings.ASYNC_COPIES_ON_LANES) {
        for (CUstream lane : lanes) {
          cuStreamSynchronize(lane);
        }
      }
    }
    Arrays.sort(nanos);
    double mean = Arrays.stream(nanos).average().orElse(0) / 1000.0;
    System.out.printf("%-48s mean %6.2f us  p10 %6.2f  median %6.2f  p90 %6.2f%n", name, mean,
        nanos[nanos.length / 10] / 1000.0, nanos[nanos.length / 2] / 1000.0,
        nanos[nanos.length * 9 / 10] / 1000.0);
  }

  private CUstream laneOf(int batch) {
    return lanes[batch % LANES];
  }

  private CUstream streamOf(Surroundings surroundings, int batch) {
    return surroundings == Surroundings.ASYNC_COPIES_ON_LANES ? laneOf(batch) : appStream;
  }

  /** The three kernels of each batch, captured from {@code stream} and instantiated. */
  private CUgraphExec[] capture(CUstream stream) {
    CUgraphExec[] graphs = new CUgraphExec[p.batches()];
    for (int b = 0; b < p.batches(); b++) {
      CUgraph graph = new CUgraph();
      cuStreamBeginCapture(stream, CUstreamCaptureMode.CU_STREAM_CAPTURE_MODE_GLOBAL);
      compute(b, stream);
      cuStreamEndCapture(stream, graph);
      graphs[b] = new CUgraphExec();
      cuGraphInstantiate(graphs[b], graph, 0);
      cuGraphDestroy(graph);
    }
    return graphs;
  }

  private static CUstream nonBlockingStream() {
    CUstream s = new CUstream();
    cuStreamCreate(s, CUstream_flags.CU_STREAM_NON_BLOCKING);
    return s;
  }
}
