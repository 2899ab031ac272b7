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
import static jcuda.driver.JCudaDriver.cuStreamWaitEvent;
import static jcuda.driver.JCudaDriver.setExceptionsEnabled;

import dev.kernelweave.kernels.CudaScope;
import dev.kernelweave.kernels.Kernel;
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
 * What CUDA itself charges the host for a replayed window of {@code pipeline}, without the agent:
 * the host time of {@code cuGraphLaunch} of its three kernels where the agent launches it (the
 * legacy stream, right after a synchronous 1 MiB copy in), beside the same three kernels launched
 * at once, and variations (the graph uploaded first, a non-blocking stream with and without the
 * event a copy back on the legacy stream would need, no copies at all). Each line is over 16
 * batches times the given repetitions, after 200 repetitions of warm-up; two rounds.
 *
 * <p>Usage, on the GPU machine: {@code java -cp 'it-tests/target/classes:it-tests/target/lib/*'
 * dev.kernelweave.it.bench.GraphLaunchCost [REPS]} (default 300).
 */
public final class GraphLaunchCost {

  // pipeline's bench size (PipelineProblem): batches, floats per batch, grid, logistic rounds
  private static final int BATCHES = 16;
  private static final int N = 262144;
  private static final int BLOCKS = 64;
  private static final int THREADS = 256;
  private static final int ROUNDS = 8;
  private static final int WARM_UP = 200;

  private final Kernel prepare;
  private final Kernel smooth;
  private final Kernel finish;
  private final CUdeviceptr[] in = new CUdeviceptr[BATCHES];
  private final CUdeviceptr[] tmp = new CUdeviceptr[BATCHES];
  private final CUdeviceptr[] out = new CUdeviceptr[BATCHES];
  private final float[][] inputs = new float[BATCHES][N];
  private final float[][] results = new float[BATCHES][N];

  private GraphLaunchCost(CudaScope cuda) {
    CudaScope.Module module = cuda.module("pipeline");
    prepare = module.kernel("pipe_prepare");
    smooth = module.kernel("pipe_smooth");
    finish = module.kernel("pipe_finish");
    for (int b = 0; b < BATCHES; b++) {
      in[b] = cuda.floats(N);
      tmp[b] = cuda.floats(N);
      out[b] = cuda.floats(N);
      for (int i = 0; i < N; i++) {
        inputs[b][i] = (float) Math.sin(i + b);
      }
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
    for (int round = 1; round <= 2; round++) {
      System.out.println("-- round " + round);
      measure("eager 3 launches, legacy, sync copies", true, b -> compute(b, legacy), reps);
      measure("graph legacy, sync copies", true, b -> cuGraphLaunch(graphs[b], legacy), reps);
      measure("graph legacy uploaded, sync copies", true, b -> cuGraphLaunch(uploaded[b], legacy), reps);
      measure("graph nonblocking + event + legacy wait", true, b -> {
        cuStreamWaitEvent(nonBlocking, event, 0);
        cuGraphLaunch(graphs[b], nonBlocking);
        cuEventRecord(event, nonBlocking);
        cuStreamWaitEvent(legacy, event, 0);
      }, reps);
      measure("graph nonblocking only, sync copies", true, b -> cuGraphLaunch(graphs[b], nonBlocking), reps);
      measure("graph legacy, no copies", false, b -> cuGraphLaunch(graphs[b], legacy), reps);
      measure("eager 3 launches, legacy, no copies", false, b -> compute(b, legacy), reps);
      measure("two graphs back to back, legacy, sync copies", true, b -> {
        cuGraphLaunch(graphs[b], legacy);
        cuGraphLaunch(graphs[(b + 1) % BATCHES], legacy);
      }, reps);
      measure("cuCtxSynchronize alone after copy", true, b -> cuCtxSynchronize(), reps);
      measure("nothing (nanoTime)", true, b -> {}, reps);
    }
  }

  private void compute(int b, CUstream stream) {
    prepare.launch(BLOCKS, THREADS, stream, in[b], tmp[b], N, ROUNDS);
    smooth.launch(BLOCKS, THREADS, stream, tmp[b], out[b], N, ROUNDS);
    finish.launch(BLOCKS, THREADS, stream, out[b], N, ROUNDS);
  }

  /** Times {@code step} for each batch, between a synchronous copy in and one out (or a synchronize). */
  private void measure(String name, boolean copies, IntConsumer step, int reps) {
    long bytes = (long) N * Float.BYTES;
    long[] nanos = new long[reps * BATCHES];
    int k = 0;
    for (int r = 0; r < reps + WARM_UP; r++) {
      for (int b = 0; b < BATCHES; b++) {
        if (copies) {
          cuMemcpyHtoD(in[b], Pointer.to(inputs[b]), bytes);
        }
        long start = System.nanoTime();
        step.accept(b);
        long end = System.nanoTime();
        if (copies) {
          cuMemcpyDtoH(Pointer.to(results[b]), out[b], bytes);
        } else {
          cuCtxSynchronize();
        }
        if (r >= WARM_UP) {
          nanos[k++] = end - start;
        }
      }
    }
    Arrays.sort(nanos);
    double mean = Arrays.stream(nanos).average().orElse(0) / 1000.0;
    System.out.printf("%-48s mean %6.2f us  p10 %6.2f  median %6.2f  p90 %6.2f%n", name, mean,
        nanos[nanos.length / 10] / 1000.0, nanos[nanos.length / 2] / 1000.0,
        nanos[nanos.length * 9 / 10] / 1000.0);
  }

  /** The three kernels of each batch, captured from {@code stream} and instantiated. */
  private CUgraphExec[] capture(CUstream stream) {
    CUgraphExec[] graphs = new CUgraphExec[BATCHES];
    for (int b = 0; b < BATCHES; b++) {
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
