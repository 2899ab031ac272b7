package dev.kernelweave.it.semantics;

import static dev.kernelweave.it.semantics.Sequence.BYTES;
import static dev.kernelweave.it.semantics.Sequence.N;
import static dev.kernelweave.it.semantics.Sequence.alloc;
import static dev.kernelweave.it.semantics.Sequence.stream;
import static jcuda.driver.JCudaDriver.cuLaunchKernel;
import static jcuda.driver.JCudaDriver.cuMemFree;
import static jcuda.driver.JCudaDriver.cuMemcpyDtoH;
import static jcuda.driver.JCudaDriver.cuMemcpyHtoD;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.FloatBuffer;
import java.util.Map;
import jcuda.Pointer;
import jcuda.Sizeof;
import jcuda.driver.CUdeviceptr;
import jcuda.driver.CUfunction;
import jcuda.driver.CUstream;

/**
 * Runs of launches that repeat from one repetition to the next, all but for one thing: what an agent
 * that holds launches and replays a repeated run as a CUDA graph must notice. Each repetition uploads
 * its inputs, makes the run on one blocking stream (the same stream in every repetition), and reads
 * back on the legacy stream, which waits for it. After a run of 16 launches (so that
 * {@code engage=auto} schedules the rest):
 *
 * <ul>
 *   <li>{@code scalar-change}: a fill and ten scales of {@code x}; the sixth scale's {@code b} is
 *       {@code rep % 3}, every other argument the same in every repetition.
 *   <li>{@code new-buffer}: a new buffer in each repetition (the earlier ones kept, so each has an
 *       address of its own), uploaded with the same values and scaled ten times the same way.
 *   <li>{@code same-address}: the buffer is freed after each repetition and allocated again (mostly
 *       at the same address), uploaded with values of the repetition, then scaled ten times.
 *   <li>{@code same-address-other-size}: the same with the size alternating between 4096 and 4092
 *       bytes, and kernels over 1023 floats.
 *   <li>{@code two-shapes}: runs of eight scales of {@code x} on 4 blocks of 256 threads and of
 *       {@code y} on 8 blocks of 128 threads alternate, each read back after it.
 *   <li>{@code indirect}: a run of {@code indirect_fill} through a table, then a scale of each of
 *       two targets; the table points to the first target in even repetitions and to the second in
 *       odd ones (an upload between the runs), so the same run writes the other buffer.
 *   <li>{@code moving-offset}: a fill and six scales of a third of a buffer of three, at an offset that
 *       moves from one repetition to the next; the whole buffer read back.
 *   <li>{@code scalar-in-a-buffer}: as {@code scalar-change}, with each scale's {@code b} put into a
 *       {@code FloatBuffer} kept from launch to launch ({@code clear(); put(b)}, so its position is 1),
 *       a heap one and a direct one in turn: {@code Pointer.to(buffer)} hands the driver the buffer
 *       from its start, whatever its position.
 *   <li>{@code parameters-at-offsets}: as {@code scalar-change}, with the scales' parameters passed
 *       at byte offsets in turn: the whole {@code kernelParams} array past a first entry naming
 *       {@code y}; {@code b} in the upper half of a {@code long} ({@code withByteOffset(4)}); and
 *       {@code x} from a table {@code {y, x}} at byte offset 8. The driver reads from each offset, so
 *       only {@code x} changes; {@code x} and {@code y} read back.
 * </ul>
 */
public final class WindowReplayProgram {

  private static CUstream stream;
  private static CUdeviceptr x;
  private static CUdeviceptr y;
  private static CUfunction indirectFill;
  private static float[] model;

  public static void main(String[] args) throws Exception {
    Sequence.repeatEngaged(args, "scalar-change", 19f, Map.of(
        "scalar-change", (q, k, rep, v) -> scalarChange(q, k, rep, v),
        "new-buffer", (q, k, rep, v) -> newBuffer(q, k, rep),
        "same-address", (q, k, rep, v) -> sameAddress(q, k, rep, v, false),
        "same-address-other-size", (q, k, rep, v) -> sameAddress(q, k, rep, v, true),
        "two-shapes", (q, k, rep, v) -> twoShapes(q, k, rep, v),
        "indirect", (q, k, rep, v) -> indirect(q, k, rep),
        "moving-offset", (q, k, rep, v) -> movingOffset(q, k, rep, v),
        "scalar-in-a-buffer", (q, k, rep, v) -> scalarInABuffer(q, k, rep),
        "parameters-at-offsets", (q, k, rep, v) -> parametersAtOffsets(q, k, rep)));
  }

  private static CUstream shared() {
    if (stream == null) {
      stream = stream(0);
      x = alloc(BYTES);
      y = alloc(BYTES);
    }
    return stream;
  }

  /** slow_axpb over {@code n} floats of {@code p}, on {@code blocks} of {@code threads}. */
  private static int axpb(CUfunction f, int blocks, int threads, CUstream s, CUdeviceptr p, float a, float b, int n,
      long cycles) {
    Pointer params = Pointer.to(Pointer.to(p), Pointer.to(new float[] {a}), Pointer.to(new float[] {b}),
        Pointer.to(new int[] {n}), Pointer.to(new long[] {cycles}));
    return cuLaunchKernel(f, blocks, 1, 1, threads, 1, 1, 0, s, params, null);
  }

  private static void scalarChange(Sequence seq, Sequence.Kernels k, int rep, float v) {
    CUstream s = shared();
    seq.rc(rep, "slow_fill", 0, Sequence.launch(k.slowFill(), s, x, 1f, N, seq.cycles / 10));
    float[] expected = Sequence.ramp(1f);
    for (int j = 0; j < 10; j++) {
      float b = j == 5 ? rep % 3 : 1f;
      seq.rc(rep, "slow_axpb " + j, 0, Sequence.launch(k.slowAxpb(), s, x, 1f, b, N, seq.cycles / 10));
      expected = Sequence.axpb(expected, 1f, b);
    }
    seq.check(rep, "x", Sequence.describe(expected), Sequence.describe(Sequence.read(x)));
  }

  private static final FloatBuffer HEAP_B = FloatBuffer.wrap(new float[] {0f, 99f});
  private static final FloatBuffer DIRECT_B =
      ByteBuffer.allocateDirect(8).order(ByteOrder.nativeOrder()).asFloatBuffer().put(1, 99f);

  private static void scalarInABuffer(Sequence seq, Sequence.Kernels k, int rep) {
    CUstream s = shared();
    seq.rc(rep, "slow_fill", 0, Sequence.launch(k.slowFill(), s, x, 1f, N, seq.cycles / 10));
    float[] expected = Sequence.ramp(1f);
    for (int j = 0; j < 10; j++) {
      float b = j == 5 ? rep % 3 : 1f + (j % 2);
      FloatBuffer bBuffer = j % 2 == 0 ? HEAP_B : DIRECT_B;
      bBuffer.clear();
      bBuffer.put(b);
      Pointer params = Pointer.to(Pointer.to(x), Pointer.to(new float[] {1f}), Pointer.to(bBuffer),
          Pointer.to(new int[] {N}), Pointer.to(new long[] {seq.cycles / 10}));
      int code = cuLaunchKernel(k.slowAxpb(), Sequence.BLOCKS, 1, 1, Sequence.THREADS, 1, 1, 0, s, params, null);
      seq.rc(rep, "slow_axpb " + j, 0, code);
      expected = Sequence.axpb(expected, 1f, b);
    }
    seq.check(rep, "x", Sequence.describe(expected), Sequence.describe(Sequence.read(x)));
  }

  private static void parametersAtOffsets(Sequence seq, Sequence.Kernels k, int rep) {
    CUstream s = shared();
    cuMemcpyHtoD(y, Pointer.to(Sequence.ramp(5f)), BYTES);
    seq.rc(rep, "slow_fill", 0, Sequence.launch(k.slowFill(), s, x, 1f, N, seq.cycles / 10));
    float[] expected = Sequence.ramp(1f);
    for (int j = 0; j < 10; j++) {
      float b = j == 5 ? rep % 3 : 1f + (j % 2);
      Pointer one = Pointer.to(new float[] {1f});
      Pointer n = Pointer.to(new int[] {N});
      Pointer cycles = Pointer.to(new long[] {seq.cycles / 10});
      Pointer params = switch (j % 3) {
        case 0 -> Pointer.to(Pointer.to(y), Pointer.to(x), one, Pointer.to(new float[] {b}), n, cycles).withByteOffset(8);
        case 1 -> Pointer.to(Pointer.to(x), one,
            Pointer.to(new long[] {(long) Float.floatToRawIntBits(b) << 32}).withByteOffset(4), n, cycles);
        default -> Pointer.to(Pointer.to(y, x).withByteOffset(8), one, Pointer.to(new float[] {b}), n, cycles);
      };
      int code = cuLaunchKernel(k.slowAxpb(), Sequence.BLOCKS, 1, 1, Sequence.THREADS, 1, 1, 0, s, params, null);
      seq.rc(rep, "slow_axpb " + j, 0, code);
      expected = Sequence.axpb(expected, 1f, b);
    }
    seq.check(rep, "x", Sequence.describe(expected), Sequence.describe(Sequence.read(x)));
    seq.check(rep, "y", Sequence.describe(Sequence.ramp(5f)), Sequence.describe(Sequence.read(y)));
  }

  private static void newBuffer(Sequence seq, Sequence.Kernels k, int rep) {
    CUstream s = shared();
    CUdeviceptr fresh = alloc(BYTES);
    cuMemcpyHtoD(fresh, Pointer.to(Sequence.ramp(2f)), BYTES);
    float[] expected = Sequence.ramp(2f);
    for (int j = 0; j < 10; j++) {
      seq.rc(rep, "slow_axpb " + j, 0, Sequence.launch(k.slowAxpb(), s, fresh, 0.5f, 1f, N, seq.cycles / 10));
      expected = Sequence.axpb(expected, 0.5f, 1f);
    }
    seq.check(rep, "the new buffer", Sequence.describe(expected), Sequence.describe(Sequence.read(fresh)));
  }

  private static void sameAddress(Sequence seq, Sequence.Kernels k, int rep, float v, boolean otherSize) {
    CUstream s = shared();
    int n = otherSize ? N - 1 : N;
    long bytes = otherSize && rep % 2 == 1 ? BYTES - 4 : BYTES;
    CUdeviceptr p = alloc(bytes);
    float[] in = Sequence.ramp(v);
    cuMemcpyHtoD(p, Pointer.to(in), 4L * n);
    float[] expected = Sequence.axpb(in, 1f, 0f);
    for (int j = 0; j < 10; j++) {
      seq.rc(rep, "slow_axpb " + j, 0, Sequence.launch(k.slowAxpb(), s, p, 1f, -2f, n, seq.cycles / 10));
      expected = Sequence.axpb(expected, 1f, -2f);
    }
    float[] back = new float[N];
    cuMemcpyDtoH(Pointer.to(back), p, 4L * n);
    back[N - 1] = otherSize ? 0f : back[N - 1];
    expected[N - 1] = otherSize ? 0f : expected[N - 1];
    seq.check(rep, "the buffer", Sequence.describe(expected), Sequence.describe(back));
    cuMemFree(p);
  }

  private static void twoShapes(Sequence seq, Sequence.Kernels k, int rep, float v) {
    CUstream s = shared();
    for (int round = 0; round < 3; round++) {
      boolean wide = (rep + round) % 2 == 0;
      CUdeviceptr p = wide ? x : y;
      float[] expected = Sequence.ramp(v + round);
      cuMemcpyHtoD(p, Pointer.to(expected), BYTES);
      for (int j = 0; j < 8; j++) {
        int code = wide ? axpb(k.slowAxpb(), 4, 256, s, p, 2f, -1f, N, seq.cycles / 10)
            : axpb(k.slowAxpb(), 8, 128, s, p, 2f, -1f, N, seq.cycles / 10);
        seq.rc(rep, (wide ? "x" : "y") + " slow_axpb " + j, 0, code);
        expected = Sequence.axpb(expected, 2f, -1f);
      }
      seq.check(rep, (wide ? "x" : "y") + " round " + round, Sequence.describe(expected),
          Sequence.describe(Sequence.read(p)));
    }
  }

  private static void indirect(Sequence seq, Sequence.Kernels k, int rep) throws Exception {
    CUstream s = shared();
    if (indirectFill == null) {
      indirectFill = Sequence.function(Sequence.loadSemantics(), "indirect_fill");
    }
    CUdeviceptr table = alloc(Sizeof.POINTER);
    cuMemcpyHtoD(x, Pointer.to(Sequence.ramp(-1000f)), BYTES);
    cuMemcpyHtoD(y, Pointer.to(Sequence.ramp(-2000f)), BYTES);
    cuMemcpyHtoD(table, Pointer.to(rep % 2 == 0 ? x : y), Sizeof.POINTER);
    for (int j = 0; j < 4; j++) {
      seq.rc(rep, "indirect_fill " + j, 0, Sequence.launch(indirectFill, s, table, 5f + j, N, seq.cycles / 10));
      seq.rc(rep, "slow_axpb x " + j, 0, Sequence.launch(k.slowAxpb(), s, x, 2f, 1f, N, seq.cycles / 10));
      seq.rc(rep, "slow_axpb y " + j, 0, Sequence.launch(k.slowAxpb(), s, y, 3f, 0f, N, seq.cycles / 10));
    }
    float[] ex = Sequence.ramp(-1000f);
    float[] ey = Sequence.ramp(-2000f);
    for (int j = 0; j < 4; j++) {
      if (rep % 2 == 0) {
        ex = Sequence.ramp(5f + j);
      } else {
        ey = Sequence.ramp(5f + j);
      }
      ex = Sequence.axpb(ex, 2f, 1f);
      ey = Sequence.axpb(ey, 3f, 0f);
    }
    seq.check(rep, "x", Sequence.describe(ex), Sequence.describe(Sequence.read(x)));
    seq.check(rep, "y", Sequence.describe(ey), Sequence.describe(Sequence.read(y)));
    cuMemFree(table);
  }

  private static void movingOffset(Sequence seq, Sequence.Kernels k, int rep, float v) {
    CUstream s = shared();
    if (model == null) {
      model = new float[3 * N];
      java.util.Arrays.fill(model, -1f);
      CUdeviceptr big = alloc(4L * 3 * N);
      cuMemcpyHtoD(big, Pointer.to(model), 4L * 3 * N);
      x = big;
    }
    int from = (rep % 5) * N / 2;
    CUdeviceptr at = x.withByteOffset(4L * from);
    seq.rc(rep, "slow_fill at " + from, 0, Sequence.launch(k.slowFill(), s, at, 1f, N, seq.cycles / 10));
    for (int i = 0; i < N; i++) {
      model[from + i] = 1f + i;
    }
    for (int j = 0; j < 6; j++) {
      seq.rc(rep, "slow_axpb " + j, 0, Sequence.launch(k.slowAxpb(), s, at, 1f, 0.5f, N, seq.cycles / 10));
      for (int i = 0; i < N; i++) {
        model[from + i] = 1f * model[from + i] + 0.5f;
      }
    }
    float[] back = new float[3 * N];
    cuMemcpyDtoH(Pointer.to(back), x, 4L * 3 * N);
    seq.check(rep, "the buffer", model[0] + ".." + model[3 * N - 1] + " " + java.util.Arrays.hashCode(model),
        back[0] + ".." + back[3 * N - 1] + " " + java.util.Arrays.hashCode(back));
  }
}
