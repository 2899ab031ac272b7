package dev.kernelweave.corpus;

import static jcuda.driver.JCudaDriver.cuModuleGetFunction;
import static jcuda.driver.JCudaDriver.cuModuleLoadData;
import static jcuda.driver.JCudaDriver.cuModuleUnload;

import dev.kernelweave.kernels.Cuda;
import dev.kernelweave.kernels.CudaScope;
import dev.kernelweave.kernels.Kernel;
import dev.kernelweave.kernels.Problem;
import dev.kernelweave.kernels.Ptx;
import dev.kernelweave.kernels.Size;
import dev.kernelweave.kernels.Workload;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import jcuda.driver.CUdeviceptr;
import jcuda.driver.CUfunction;
import jcuda.driver.CUmodule;

/**
 * One program of the corpus: ordinary serial JCuda code, as users write it (the default stream,
 * synchronous copies from and to Java arrays every repetition, JCublas2 on its default handle),
 * wrapped in the {@link Workload} life cycle so that the benchmark runs it like a workload's
 * {@code serial} variant. There is no hand-tuned twin.
 *
 * <p>Life cycle as {@link Workload}: the constructor makes the inputs and touches no CUDA;
 * {@link #setUp} makes the primary context current, loads {@code ptx/corpus.ptx} and calls {@link
 * #allocate}; {@link #run} does one repetition from its first copy to its last read-back; {@link
 * #close} frees everything (a program frees in {@link #release} what it allocated itself). Not
 * thread-safe: one thread drives a program (which may start threads of its own inside {@link
 * #run}).
 */
public abstract class CorpusProgram implements Workload {

  /** Threads per block of every launch: users pick 256. */
  static final int THREADS = 256;

  private final String name;
  private final Size size;
  private final List<String> kernels;
  private String sizes;
  private CUmodule module;
  private Map<String, List<Ptx.Param>> entries;

  /** Owns the device memory of {@link #allocate}; null outside {@link #setUp}..{@link #close}. */
  protected CudaScope cuda;

  /** Program {@code name} at {@code size}, launching the entry points {@code kernels} of the module. */
  protected CorpusProgram(String name, Size size, String... kernels) {
    this.name = name;
    this.size = size;
    this.kernels = List.of(kernels);
  }

  /** The size this program was made for. */
  protected final Size size() {
    return size;
  }

  /** Says the program's dimensions in words; its constructor calls it once the inputs are made. */
  protected final void describe(String sizes) {
    this.sizes = sizes;
  }

  /** The output every correct run produces, computed on the CPU as the kernels compute it. */
  protected abstract byte[] reference();

  /** Looks up kernels with {@link #kernel} and allocates what every repetition reuses. */
  protected abstract void allocate();

  /** Frees what the program allocated itself (not through {@link #cuda}); nothing by default. */
  protected void release() {}

  @Override
  public Problem problem() {
    CorpusProgram program = this;
    return new Problem() {
      @Override
      public String name() {
        return name;
      }

      @Override
      public String sizes() {
        return Objects.requireNonNull(program.sizes, "the program's constructor did not describe its sizes");
      }

      @Override
      public ModuleKernels moduleKernels() {
        return new ModuleKernels(Corpus.PTX, kernels);
      }

      @Override
      public byte[] reference() {
        return program.reference();
      }
    };
  }

  @Override
  public final void setUp() {
    cuda = new CudaScope();
    String text = Ptx.text(Corpus.PTX);
    module = new CUmodule();
    cuModuleLoadData(module, Ptx.image(text));
    entries = Ptx.entries(text);
    allocate();
  }

  /** The kernel {@code name} of the loaded module, launched with its arguments checked. */
  protected final Kernel kernel(String name) {
    return Kernel.find(module, entries, name);
  }

  /**
   * Device memory holding a copy of {@code values}: {@code cuMemAlloc}, then a synchronous {@code
   * cuMemcpyHtoD} of all of it; freed when the program closes.
   */
  protected final CUdeviceptr upload(float[] values) {
    CUdeviceptr device = cuda.floats(values.length);
    Cuda.upload(device, values);
    return device;
  }

  /**
   * The sum of squares through {@code partialBlocks} partial sums, by the kernels {@link
   * TwoPassSum#KERNELS} of the loaded module.
   */
  protected final TwoPassSum twoPassSum(int partialBlocks) {
    return new TwoPassSum(kernel(TwoPassSum.KERNELS.get(0)), kernel(TwoPassSum.KERNELS.get(1)), partialBlocks);
  }

  /**
   * The kernel {@code name} of the loaded module as a bare {@link CUfunction}, for a program that
   * calls {@code cuLaunchKernel} itself.
   */
  protected final CUfunction function(String name) {
    CUfunction function = new CUfunction();
    cuModuleGetFunction(function, module, name);
    return function;
  }

  /** Nothing to put in place: a corpus program copies its inputs inside {@link #run}. */
  @Override
  public void reset() {}

  /** Blocks of {@link #THREADS} threads for {@code n} elements, at most {@code cap}. */
  static int blocks(int n, int cap) {
    return Math.max(1, Math.min(cap, (n + THREADS - 1) / THREADS));
  }

  @Override
  public void close() {
    if (cuda == null) {
      return;
    }
    CudaScope scope = cuda;
    cuda = null;
    try {
      release();
      if (module != null) {
        cuModuleUnload(module);
        module = null;
      }
    } finally {
      scope.close();
    }
  }
}
