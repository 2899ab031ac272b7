package dev.kernelweave.corpus;

import static jcuda.driver.JCudaDriver.cuLaunchKernel;
import static jcuda.runtime.JCuda.cudaFree;
import static jcuda.runtime.JCuda.cudaMalloc;
import static jcuda.runtime.JCuda.cudaMemcpy;
import static jcuda.runtime.JCuda.cudaMemset;
import static jcuda.runtime.cudaMemcpyKind.cudaMemcpyDeviceToHost;
import static jcuda.runtime.cudaMemcpyKind.cudaMemcpyHostToDevice;

import dev.kernelweave.kernels.Seeded;
import dev.kernelweave.kernels.Size;
import jcuda.Pointer;
import jcuda.driver.CUfunction;
import jcuda.runtime.JCuda;

/**
 * {@code runtime-api}: memory through the runtime API ({@code cudaMalloc}, {@code cudaMemset},
 * {@code cudaMemcpy}), launches through the driver API, as JCuda users mix them: JCuda's runtime API
 * has no {@code cudaLaunchKernel}, so a kernel of a PTX module is launched with {@code
 * cuLaunchKernel} on the runtime's pointers. Each repetition, for each channel: clear the output,
 * copy the input in, a blend of input and a squashed copy, copy the result back. The channels are
 * independent. Needs the CUDA runtime library, which the CPU stand-in does not provide.
 */
final class RuntimeApi extends CorpusProgram {

  static final String NAME = "runtime-api";
  private static final int ROUNDS = 5;

  private final int channels = 3;
  private final int n;
  private final HostArrays arrays;
  private CUfunction logistic;
  private CUfunction blend;
  private Pointer[] dIn;
  private Pointer[] dMapped;
  private Pointer[] dOut;

  RuntimeApi(Size size) {
    super(NAME, size, "corpus_logistic", "corpus_blend");
    n = size == Size.CHECK ? 3000 : 1 << 21;
    arrays = HostArrays.of(new Seeded(0x72756eL).unit(channels, n), n);
    describe(channels + " channels of " + n + " floats through cudaMemcpy");
  }

  @Override
  protected void allocate() {
    JCuda.setExceptionsEnabled(true);
    logistic = function("corpus_logistic");
    blend = function("corpus_blend");
    dIn = new Pointer[channels];
    dMapped = new Pointer[channels];
    dOut = new Pointer[channels];
    for (int c = 0; c < channels; c++) {
      dIn[c] = new Pointer();
      dMapped[c] = new Pointer();
      dOut[c] = new Pointer();
      cudaMalloc(dIn[c], n * 4L);
      cudaMalloc(dMapped[c], n * 4L);
      cudaMalloc(dOut[c], n * 4L);
    }
  }

  @Override
  protected void release() {
    for (Pointer[] buffers : new Pointer[][] {dIn, dMapped, dOut}) {
      for (Pointer p : buffers == null ? new Pointer[0] : buffers) {
        if (p != null) {
          cudaFree(p);
        }
      }
    }
  }

  @Override
  public void run() {
    long bytes = n * 4L;
    Pointer size = Pointer.to(new int[] {n});
    for (int c = 0; c < channels; c++) {
      cudaMemset(dOut[c], 0, bytes);
      cudaMemcpy(dIn[c], Pointer.to(arrays.in()[c]), bytes, cudaMemcpyHostToDevice);
      cuLaunchKernel(logistic, blocks(n, 1024), 1, 1, THREADS, 1, 1, 0, null,
          Pointer.to(Pointer.to(dIn[c]), Pointer.to(dMapped[c]), Pointer.to(new int[] {ROUNDS}), size), null);
      cuLaunchKernel(blend, blocks(n, 1024), 1, 1, THREADS, 1, 1, 0, null,
          Pointer.to(Pointer.to(dIn[c]), Pointer.to(dMapped[c]), Pointer.to(dOut[c]),
              Pointer.to(new float[] {0.5f}), Pointer.to(new float[] {0.5f}), size), null);
      cudaMemcpy(Pointer.to(arrays.out()[c]), dOut[c], bytes, cudaMemcpyDeviceToHost);
    }
  }

  @Override
  public byte[] output() {
    return arrays.output();
  }

  @Override
  protected byte[] reference() {
    return arrays.reference(x -> CorpusMath.blend(x, CorpusMath.logistic(x, ROUNDS), 0.5f, 0.5f));
  }
}
