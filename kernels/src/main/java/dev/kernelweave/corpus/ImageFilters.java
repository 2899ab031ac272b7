package dev.kernelweave.corpus;

import static jcuda.driver.JCudaDriver.cuLaunchKernel;
import static jcuda.driver.JCudaDriver.cuMemcpyDtoH;
import static jcuda.driver.JCudaDriver.cuMemcpyHtoD;

import dev.kernelweave.kernels.Outputs;
import dev.kernelweave.kernels.Size;
import java.util.List;
import java.util.SplittableRandom;
import jcuda.Pointer;
import jcuda.driver.CUdeviceptr;
import jcuda.driver.CUfunction;

/**
 * {@code image-filters}: a per-frame image pipeline. Each frame is copied in, smoothed and
 * edge-filtered (two filters of the same input, independent of each other), the two blended, and
 * the result copied back, frame after frame.
 */
final class ImageFilters extends CorpusProgram {

  static final String NAME = "image-filters";
  private static final float SMOOTH_WEIGHT = 0.75f;
  private static final float EDGE_WEIGHT = 0.25f;

  private final int frames;
  private final int width;
  private final int height;
  private final float[][] video;
  private final float[][] results;
  private CUfunction blur;
  private CUfunction sobel;
  private CUfunction blend;
  private CUdeviceptr dFrame;
  private CUdeviceptr dSmooth;
  private CUdeviceptr dEdges;
  private CUdeviceptr dOut;

  ImageFilters(Size size) {
    super(NAME, size);
    frames = size == Size.CHECK ? 3 : 12;
    width = size == Size.CHECK ? 40 : 1024;
    height = size == Size.CHECK ? 30 : 768;
    SplittableRandom random = new SplittableRandom(0x696d67L);
    video = new float[frames][];
    results = new float[frames][width * height];
    for (int f = 0; f < frames; f++) {
      video[f] = CorpusMath.unit(random, width * height);
    }
  }

  @Override
  protected String sizes() {
    return frames + " frames of " + width + " x " + height + " floats: blur and Sobel, blended";
  }

  @Override
  protected List<String> kernels() {
    return List.of("corpus_blur", "corpus_sobel", "corpus_blend");
  }

  @Override
  protected void allocate() {
    blur = function("corpus_blur");
    sobel = function("corpus_sobel");
    blend = function("corpus_blend");
    int n = width * height;
    dFrame = cuda.floats(n);
    dSmooth = cuda.floats(n);
    dEdges = cuda.floats(n);
    dOut = cuda.floats(n);
  }

  @Override
  public void run() {
    int n = width * height;
    int grid = blocks(n, 2048);
    for (int f = 0; f < frames; f++) {
      cuMemcpyHtoD(dFrame, Pointer.to(video[f]), n * 4L);
      cuLaunchKernel(blur, grid, 1, 1, THREADS, 1, 1, 0, null, Pointer.to(Pointer.to(dFrame), Pointer.to(dSmooth),
          Pointer.to(new int[] {width}), Pointer.to(new int[] {height})), null);
      cuLaunchKernel(sobel, grid, 1, 1, THREADS, 1, 1, 0, null, Pointer.to(Pointer.to(dFrame), Pointer.to(dEdges),
          Pointer.to(new int[] {width}), Pointer.to(new int[] {height})), null);
      cuLaunchKernel(blend, grid, 1, 1, THREADS, 1, 1, 0, null, Pointer.to(Pointer.to(dSmooth), Pointer.to(dEdges),
          Pointer.to(dOut), Pointer.to(new float[] {SMOOTH_WEIGHT}), Pointer.to(new float[] {EDGE_WEIGHT}),
          Pointer.to(new int[] {n})), null);
      cuMemcpyDtoH(Pointer.to(results[f]), dOut, n * 4L);
    }
  }

  @Override
  public byte[] output() {
    Outputs.Builder out = Outputs.builder(frames * width * height);
    for (float[] r : results) {
      out.floats(r);
    }
    return out.toBytes();
  }

  @Override
  protected byte[] reference() {
    Outputs.Builder out = Outputs.builder(frames * width * height);
    for (float[] frame : video) {
      out.floats(CorpusMath.blend(CorpusMath.blur(frame, width, height), CorpusMath.sobel(frame, width, height),
          SMOOTH_WEIGHT, EDGE_WEIGHT));
    }
    return out.toBytes();
  }
}
