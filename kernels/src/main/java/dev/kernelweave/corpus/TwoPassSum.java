package dev.kernelweave.corpus;

import dev.kernelweave.kernels.Kernel;
import java.util.List;
import jcuda.driver.CUdeviceptr;

/**
 * The sum of squares of a vector as the corpus reduces it, in two launches on the default stream:
 * {@code corpus_square_partials} into one partial sum a block, then {@code corpus_sum} of the
 * partials into one float. {@link CorpusMath#sumOfSquares} computes the same on the CPU. Reading
 * the result back is the program's own step. Immutable.
 *
 * @param partialBlocks how many partial sums: blocks of the first launch
 */
record TwoPassSum(Kernel squares, Kernel sum, int partialBlocks) {

  /** The square-partials kernel, then the sum kernel. */
  static final List<String> KERNELS = List.of("corpus_square_partials", "corpus_sum");

  /** Launches the reduction of the {@code n} floats of {@code v} into {@code result}. */
  void launch(CUdeviceptr v, int n, CUdeviceptr partials, CUdeviceptr result) {
    squares.launch(partialBlocks, CorpusProgram.THREADS, null, v, partials, n);
    sum.launch(1, CorpusProgram.THREADS, null, partials, result, partialBlocks);
  }
}
