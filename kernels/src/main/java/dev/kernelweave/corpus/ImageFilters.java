package dev.kernelweave.corpus;

import dev.kernelweave.kernels.Cuda;
import dev.kernelweave.kernels.Kernel;
import dev.kernelweave.kernels.Seeded;
import dev.kernelweave.kernels.Size;
import jcuda.driver.CUdeviceptr;

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
  private final HostArrays arrays;
  private Kernel blur;
  private Kernel sobel;
  private Kernel blend;
  private CUdeviceptr dFrame;
  private CUdeviceptr dSmooth;
  private CUdeviceptr dEdges;
  private CUdeviceptr dOut;

  ImageFilters(Size size) {
    super(NAME, size, "corpus_blur", "corpus_sobel", "corpus_blend");
    frames = size == Size.CHECK ? 3 : 12;
    width = size == Size.CHECK ? 40 : 1024;
    height = size == Size.CHECK ? 30 : 768;
    arrays = HostArrays.of(new Seeded(0x696d67L).unit(frames, width * height), width * height);
    describe(frames + " frames of " + width + " x " + height + " floats: blur and Sobel, blended");
  }

  @Override
  protected void allocate() {
    blur = kernel("corpus_blur");
    sobel = kernel("corpus_sobel");
    blend = kernel("corpus_blend");
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
      Cuda.upload(dFrame, arrays.in()[f]);
      blur.launch(grid, THREADS, null, dFrame, dSmooth, width, height);
      sobel.launch(grid, THREADS, null, dFrame, dEdges, width, height);
      blend.launch(grid, THREADS, null, dSmooth, dEdges, dOut, SMOOTH_WEIGHT, EDGE_WEIGHT, n);
      Cuda.download(arrays.out()[f], dOut);
    }
  }

  @Override
  public byte[] output() {
    return arrays.output();
  }

  @Override
  protected byte[] reference() {
    return arrays.reference(frame -> CorpusMath.blend(
        CorpusMath.blur(frame, width, height), CorpusMath.sobel(frame, width, height), SMOOTH_WEIGHT, EDGE_WEIGHT));
  }
}
