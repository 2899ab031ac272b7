package dev.kernelweave.kernels.workloads;

import static jcuda.driver.JCudaDriver.cuEventRecord;
import static jcuda.driver.JCudaDriver.cuStreamWaitEvent;
import static jcuda.jcublas.JCublas2.cublasSetWorkspace;
import static jcuda.jcublas.JCublas2.cublasSgemm;
import static jcuda.jcublas.cublasOperation.CUBLAS_OP_N;

import dev.kernelweave.kernels.Cuda;
import dev.kernelweave.kernels.CudaScope;
import dev.kernelweave.kernels.DeviceWorkload;
import dev.kernelweave.kernels.HostResult;
import dev.kernelweave.kernels.Kernel;
import dev.kernelweave.kernels.Variant;
import dev.kernelweave.kernels.Workload;
import jcuda.Pointer;
import jcuda.driver.CUdeviceptr;
import jcuda.driver.CUevent;
import jcuda.driver.CUstream;
import jcuda.jcublas.cublasHandle;

/** {@code heads} on the GPU; see {@link HeadsProblem}. */
public abstract class Heads extends DeviceWorkload<HeadsProblem> {

  public static Workload create(HeadsProblem problem, Variant variant) {
    return variant.create(problem, Serial::new, Tuned::new, Graph::new);
  }

  private static final Pointer ONE = Pointer.to(new float[] {1.0f});
  private static final Pointer ZERO = Pointer.to(new float[] {0.0f});

  private final HeadsProblem.Inputs inputs;
  private Kernel mix;

  /** Activations, heads x dim x dim: each layer's input and, after the mix, its output. */
  CUdeviceptr x;

  /** Products, heads x dim x dim. */
  private CUdeviceptr y;

  /** Weights, layers x heads x dim x dim. */
  private CUdeviceptr weights;

  Heads(HeadsProblem problem) {
    super(problem);
    this.inputs = problem.inputs();
  }

  @Override
  protected void allocate(CudaScope.Module module) {
    mix = module.kernel(HeadsProblem.MIX);
    x = cuda.floats((long) p.heads() * p.headSize());
    y = cuda.floats((long) p.heads() * p.headSize());
    weights = cuda.floats((long) p.layers() * p.heads() * p.headSize());
  }

  @Override
  public void reset() {
    Cuda.upload(x, inputs.x());
    Cuda.upload(weights, inputs.weights());
  }

  /** y[h] = x[h] W[l][h] through {@code handle}. */
  void gemm(cublasHandle handle, int l, int h) {
    int d = p.dim();
    CUdeviceptr a = Cuda.offset(x, (long) h * p.headSize());
    CUdeviceptr b = Cuda.offset(weights, ((long) l * p.heads() + h) * p.headSize());
    CUdeviceptr c = Cuda.offset(y, (long) h * p.headSize());
    cublasSgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, d, d, d, ONE, a, d, b, d, ZERO, c, d);
  }

  void launchMix(CUstream stream) {
    mix.launch(p.mixBlocks(), p.threads(), stream, y, x, p.headSize(), p.heads());
  }

  /** One cuBLAS handle on the default stream; a synchronous copy at the end. */
  static final class Serial extends Heads {
    private cublasHandle handle;

    Serial(HeadsProblem problem) {
      super(problem);
      result = HostResult.array(problem.heads() * problem.headSize());
    }

    @Override
    protected void setUpVariant() {
      handle = cuda.cublas(null);
    }

    @Override
    public void run() {
      for (int l = 0; l < p.layers(); l++) {
        for (int h = 0; h < p.heads(); h++) {
          gemm(handle, l, h);
        }
        launchMix(null);
      }
      result.copyFrom(x);
    }
  }

  /**
   * A stream and a cuBLAS handle per head (a handle's workspace is not shared across streams); the
   * mix runs on its own stream after every head's product, and every head's next product waits for
   * the mix.
   */
  static class Tuned extends Heads {
    /** cuBLAS's default workspace size. */
    private static final int WORKSPACE_BYTES = 4 << 20;

    private CUstream[] streams;
    private cublasHandle[] handles;
    private CUevent[] headDone;
    private CUstream main;
    private CUevent mixed;

    /** Issues every layer. */
    private Runnable issue;

    Tuned(HeadsProblem problem) {
      super(problem);
    }

    @Override
    protected void setUpVariant() {
      streams = cuda.streams(p.heads());
      handles = new cublasHandle[p.heads()];
      for (int h = 0; h < p.heads(); h++) {
        handles[h] = cuda.cublas(streams[h]);
      }
      headDone = cuda.events(p.heads());
      main = cuda.stream();
      mixed = cuda.event();
      result = HostResult.pinned(cuda.pinnedFloats(p.heads() * p.headSize()), main);
      if (replaysGraphs()) {
        // Capture asks for a workspace per handle; see Graph.
        for (cublasHandle handle : handles) {
          cublasSetWorkspace(handle, cuda.floats(WORKSPACE_BYTES / Float.BYTES), WORKSPACE_BYTES);
        }
      }
      issue = issuing(main, streams, this::queueLayers);
    }

    /** Every layer: each head's product on its stream, then the mix on {@code main}. */
    private void queueLayers() {
      for (int l = 0; l < p.layers(); l++) {
        for (int h = 0; h < p.heads(); h++) {
          if (l > 0) {
            cuStreamWaitEvent(streams[h], mixed, 0);
          }
          gemm(handles[h], l, h);
          cuEventRecord(headDone[h], streams[h]);
          cuStreamWaitEvent(main, headDone[h], 0);
        }
        launchMix(main);
        cuEventRecord(mixed, main);
      }
    }

    @Override
    public void run() {
      issue.run();
      result.copyFrom(x);
    }
  }

  /**
   * The tuned twin's layers captured once into one graph (the heads' streams forked from {@code
   * main}, joined back by every head's event) and launched on {@code main}. cuBLAS calls are
   * captured like kernels, with the host-pointer scalars read at capture; each handle is given a
   * workspace of its own first ({@code cublasSetWorkspace}), as cuBLAS asks of graph capture, so
   * that the graph's products do not share, or allocate, one.
   */
  static final class Graph extends Tuned implements GraphTwin {
    Graph(HeadsProblem problem) {
      super(problem);
    }
  }
}
