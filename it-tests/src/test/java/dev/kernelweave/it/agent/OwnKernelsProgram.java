package dev.kernelweave.it.agent;

import static jcuda.driver.JCudaDriver.cuCtxSynchronize;
import static jcuda.driver.JCudaDriver.cuLaunchKernel;
import static jcuda.driver.JCudaDriver.cuMemAlloc;
import static jcuda.driver.JCudaDriver.cuMemcpyDtoH;
import static jcuda.driver.JCudaDriver.cuMemcpyHtoD;
import static jcuda.driver.JCudaDriver.cuModuleLoad;
import static jcuda.driver.JCudaDriver.cuModuleLoadData;
import static jcuda.driver.JCudaDriver.cuStreamCreate;
import static jcuda.driver.JCudaDriver.cuStreamSynchronize;

import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.SplittableRandom;
import jcuda.CudaException;
import jcuda.Pointer;
import jcuda.Sizeof;
import jcuda.driver.CUdeviceptr;
import jcuda.driver.CUfunction;
import jcuda.driver.CUmodule;
import jcuda.driver.CUstream;

/**
 * A JCuda program with kernels of its own, not KernelWeave's (own-kernels/own_kernels.cu, loaded as
 * the PTX nvcc made of it): a reduction with shared memory, shuffles and a ballot, a histogram with
 * shared and global atomics, a 2-D stencil with a device-function call and local memory, and the
 * fast-math intrinsics. Each result is checked against a Java reference: {@code result NAME ok}, or
 * {@code result NAME WRONG ...}; then a checksum of everything read back. With {@code unsupported},
 * it loads PTX with an instruction the stand-in's interpreter does not run and prints the error;
 * with {@code --from-file}, it loads its PTX from a file ({@code cuModuleLoad}) instead of a string;
 * with {@code stuck}, it runs a kernel whose threads wait at a barrier and a shuffle that the
 * others never reach, which must stop the process rather than finish.
 */
public final class OwnKernelsProgram {

  /** The tolerance of the approximate intrinsics (relative, or absolute near zero). */
  static final double APPROX_TOLERANCE = 2e-6;

  private OwnKernelsProgram() {}

  public static void main(String[] args) throws Exception {
    SmokePrograms.contextOrExit();
    if (args.length > 0 && args[0].equals("unsupported")) {
      unsupported();
      return;
    }
    if (args.length > 0 && args[0].equals("stuck")) {
      stuck();
      return;
    }
    CUmodule module = new CUmodule();
    if (args.length > 0 && args[0].equals("--from-file")) {
      // cuModuleLoad of a .ptx file, as programs that ship their PTX beside the jar do.
      Path file = Files.createTempFile("own_kernels", ".ptx");
      byte[] text = ptx();
      Files.write(file, Arrays.copyOf(text, text.length - 1));
      cuModuleLoad(module, file.toString());
      Files.delete(file);
    } else {
      cuModuleLoadData(module, ptx());
    }
    CUstream histogramStream = new CUstream();
    cuStreamCreate(histogramStream, 0);
    MessageDigest sha = MessageDigest.getInstance("SHA-256");
    reduce(module, sha);
    histogram(module, histogramStream, sha);
    stencil(module, sha);
    approxMath(module, sha);
    integerOps(module, sha);
    System.out.println("checksum " + HexFormat.of().formatHex(sha.digest()));
  }

  static byte[] ptx() throws IOException {
    try (InputStream in = OwnKernelsProgram.class.getResourceAsStream("/own-kernels/own_kernels.ptx")) {
      byte[] text = in.readAllBytes();
      return Arrays.copyOf(text, text.length + 1);  // NUL-terminated
    }
  }

  static void report(String name, String wrong) {
    System.out.println("result " + name + (wrong == null ? " ok" : " WRONG " + wrong));
  }

  static CUdeviceptr upload(ByteBuffer bytes) {
    CUdeviceptr d = new CUdeviceptr();
    cuMemAlloc(d, bytes.capacity());
    cuMemcpyHtoD(d, Pointer.to(bytes), bytes.capacity());
    return d;
  }

  static ByteBuffer buffer(int bytes) {
    return ByteBuffer.allocateDirect(bytes).order(ByteOrder.LITTLE_ENDIAN);
  }

  static ByteBuffer download(CUdeviceptr d, int bytes, MessageDigest sha) {
    ByteBuffer b = buffer(bytes);
    cuMemcpyDtoH(Pointer.to(b), d, bytes);
    ByteBuffer copy = b.duplicate();
    byte[] raw = new byte[bytes];
    copy.get(raw);
    sha.update(raw);
    return b;
  }

  static void reduce(CUmodule module, MessageDigest sha) {
    int blocks = 5, threads = 192, n = 32 * 301;  // n a multiple of 32: every lane of a warp loops alike
    SplittableRandom random = new SplittableRandom(26);
    float[] in = new float[n];
    ByteBuffer input = buffer(4 * n);
    for (int i = 0; i < n; i++) {
      in[i] = (float) (random.nextDouble() * 2 - 1);
      input.putFloat(4 * i, in[i]);
    }
    CUdeviceptr dIn = upload(input);
    CUdeviceptr sums = upload(buffer(4 * blocks));
    CUdeviceptr positives = upload(buffer(4));
    cuLaunchKernel(SmokePrograms.function(module, "reduce_squares"), blocks, 1, 1, threads, 1, 1,
        threads / 32 * Sizeof.FLOAT, null,
        Pointer.to(Pointer.to(dIn), Pointer.to(new int[] {n}), Pointer.to(sums), Pointer.to(positives)), null);
    ByteBuffer gotSums = download(sums, 4 * blocks, sha);
    int gotPositives = download(positives, 4, sha).getInt(0);

    // The kernel's order of additions, in float: each thread's grid-stride sum, a shuffle-down tree
    // per warp, the warp sums in a butterfly tree.
    float[] expected = new float[blocks];
    int wantPositives = 0;
    for (float v : in) {
      wantPositives += v > 0 ? 1 : 0;
    }
    for (int b = 0; b < blocks; b++) {
      float[] perThread = new float[threads];
      for (int t = 0; t < threads; t++) {
        for (int i = b * threads + t; i < n; i += threads * blocks) {
          perThread[t] += in[i] * in[i];
        }
      }
      int warps = threads / 32;
      float[] warpSums = new float[32];
      for (int w = 0; w < warps; w++) {
        float[] lanes = Arrays.copyOfRange(perThread, 32 * w, 32 * w + 32);
        for (int offset = 16; offset > 0; offset >>= 1) {
          float[] next = new float[32];
          for (int l = 0; l < 32; l++) {
            next[l] = lanes[l] + (l + offset < 32 ? lanes[l + offset] : lanes[l]);
          }
          lanes = next;
        }
        warpSums[w] = lanes[0];
      }
      float[] lanes = new float[32];
      for (int l = 0; l < 32; l++) {
        lanes[l] = l < warps ? warpSums[l] : 0f;
      }
      for (int offset = 16; offset > 0; offset >>= 1) {
        float[] next = new float[32];
        for (int l = 0; l < 32; l++) {
          next[l] = lanes[l] + lanes[l ^ offset];
        }
        lanes = next;
      }
      expected[b] = lanes[0];
    }
    String wrong = null;
    for (int b = 0; b < blocks; b++) {
      if (Float.floatToRawIntBits(gotSums.getFloat(4 * b)) != Float.floatToRawIntBits(expected[b])) {
        wrong = "block " + b + ": " + gotSums.getFloat(4 * b) + " != " + expected[b];
      }
    }
    if (gotPositives != wantPositives) {
      wrong = "positives " + gotPositives + " != " + wantPositives;
    }
    report("reduce", wrong);
  }

  static void histogram(CUmodule module, CUstream stream, MessageDigest sha) {
    int n = 5000, bins = 37, threads = 128;
    SplittableRandom random = new SplittableRandom(8);
    int[] values = new int[n];
    ByteBuffer input = buffer(4 * n);
    for (int i = 0; i < n; i++) {
      values[i] = random.nextInt(-1000, 100_000) & 0x7fffffff;
      input.putInt(4 * i, values[i]);
    }
    CUdeviceptr dValues = upload(input);
    CUdeviceptr histogram = upload(buffer(4 * bins));
    ByteBuffer minMax = buffer(8).putInt(0, Integer.MAX_VALUE).putInt(4, Integer.MIN_VALUE);
    CUdeviceptr dMinMax = upload(minMax);
    CUdeviceptr firstOf = upload(buffer(8).putInt(0, Integer.MAX_VALUE));
    int blocks = (n + threads - 1) / threads;
    cuLaunchKernel(SmokePrograms.function(module, "histogram"), blocks, 1, 1, threads, 1, 1, 0, stream,
        Pointer.to(Pointer.to(dValues), Pointer.to(new int[] {n}), Pointer.to(new int[] {bins}),
            Pointer.to(histogram), Pointer.to(dMinMax), Pointer.to(firstOf)), null);
    cuStreamSynchronize(stream);
    ByteBuffer got = download(histogram, 4 * bins, sha);
    ByteBuffer gotMinMax = download(dMinMax, 8, sha);
    ByteBuffer gotFirst = buffer(8);
    cuMemcpyDtoH(Pointer.to(gotFirst), firstOf, 8);
    sha.update(ByteBuffer.allocate(4).putInt(gotFirst.getInt(0)).array());  // not [1]: any block may be last

    int[] want = new int[bins];
    int min = Integer.MAX_VALUE, max = Integer.MIN_VALUE, first = Integer.MAX_VALUE;
    for (int i = 0; i < n; i++) {
      want[values[i] % bins]++;
      min = Math.min(min, values[i]);
      max = Math.max(max, values[i]);
      if (values[i] % bins == bins - 1 && first == Integer.MAX_VALUE) {
        first = i;
      }
    }
    String wrong = null;
    for (int b = 0; b < bins; b++) {
      if (got.getInt(4 * b) != want[b]) {
        wrong = "bin " + b + ": " + got.getInt(4 * b) + " != " + want[b];
      }
    }
    if (gotMinMax.getInt(0) != min || gotMinMax.getInt(4) != max) {
      wrong = "min/max " + gotMinMax.getInt(0) + "/" + gotMinMax.getInt(4) + " != " + min + "/" + max;
    }
    if (gotFirst.getInt(0) != first) {
      wrong = "first index " + gotFirst.getInt(0) + " != " + first;
    }
    int lastBlock = gotFirst.getInt(4);  // whichever block exchanged last: any block of the grid
    if (lastBlock < 1 || lastBlock > blocks) {
      wrong = "exchanged block " + lastBlock;
    }
    report("histogram", wrong);
  }

  static void stencil(CUmodule module, MessageDigest sha) {
    int width = 45, height = 29;
    double falloff = 0.37;
    int[] order = {2, 0, 3, 1};
    SplittableRandom random = new SplittableRandom(3);
    double[] in = new double[width * height];
    ByteBuffer input = buffer(8 * in.length);
    for (int i = 0; i < in.length; i++) {
      in[i] = random.nextDouble() * 4 - 2;
      input.putDouble(8 * i, in[i]);
    }
    ByteBuffer orderBytes = buffer(16);
    for (int k = 0; k < 4; k++) {
      orderBytes.putInt(4 * k, order[k]);
    }
    CUdeviceptr dIn = upload(input);
    CUdeviceptr out = upload(buffer(8 * in.length));
    CUdeviceptr dOrder = upload(orderBytes);
    cuLaunchKernel(SmokePrograms.function(module, "stencil"), (width + 15) / 16, (height + 15) / 16, 1, 16, 16, 1, 0,
        null, Pointer.to(Pointer.to(dIn), Pointer.to(out), Pointer.to(new int[] {width}),
            Pointer.to(new int[] {height}), Pointer.to(new double[] {falloff}), Pointer.to(dOrder)), null);
    ByteBuffer got = download(out, 8 * in.length, sha);
    String wrong = null;
    double weight = 1.0 / (1.0 + falloff);
    for (int y = 0; y < height; y++) {
      for (int x = 0; x < width; x++) {
        double[] neighbours = {at(in, width, height, x - 1, y), at(in, width, height, x + 1, y),
            at(in, width, height, x, y - 1), at(in, width, height, x, y + 1)};
        double acc = at(in, width, height, x, y);
        for (int k = 0; k < 4; k++) {
          acc = Math.fma(weight, neighbours[order[k]], acc);
        }
        double want = Math.sqrt(Math.abs(acc) / (1.0 + 4.0 * weight));
        double have = got.getDouble(8 * (y * width + x));
        if (Double.doubleToRawLongBits(have) != Double.doubleToRawLongBits(want)) {
          wrong = "(" + x + "," + y + "): " + have + " != " + want;
        }
      }
    }
    report("stencil", wrong);
  }

  static double at(double[] in, int width, int height, int x, int y) {
    return in[Math.min(Math.max(y, 0), height - 1) * width + Math.min(Math.max(x, 0), width - 1)];
  }

  static void approxMath(CUmodule module, MessageDigest sha) {
    int n = 1000;
    float[] in = new float[n];
    ByteBuffer input = buffer(4 * n);
    for (int i = 0; i < n; i++) {
      in[i] = -4f + 8f * i / n;
      input.putFloat(4 * i, in[i]);
    }
    CUdeviceptr dIn = upload(input);
    CUdeviceptr out = upload(buffer(6 * 4 * n));
    cuLaunchKernel(SmokePrograms.function(module, "approx_math"), (n + 255) / 256, 1, 1, 256, 1, 1, 0, null,
        Pointer.to(Pointer.to(dIn), Pointer.to(out), Pointer.to(new int[] {n})), null);
    cuCtxSynchronize();
    ByteBuffer got = download(out, 6 * 4 * n, sha);
    String wrong = null;
    double worst = 0;
    for (int i = 0; i < n; i++) {
      double x = in[i];
      double[] want = {Math.exp(x), Math.log(1 + x * x), Math.sin(x), Math.cos(x), 1 / Math.sqrt(1 + x * x),
          x / (3 + x * x)};
      for (int k = 0; k < 6; k++) {
        double have = got.getFloat(4 * (6 * i + k));
        double error = Math.abs(have - want[k]) / Math.max(1.0, Math.abs(want[k]));
        worst = Math.max(worst, error);
        if (!(error <= APPROX_TOLERANCE)) {
          wrong = "function " + k + " of " + x + ": " + have + " != " + want[k];
        }
      }
    }
    System.out.println("approx worst error " + worst);
    report("approx", wrong);
  }

  static void integerOps(CUmodule module, MessageDigest sha) {
    int n = 600;
    int[] special = {0, 1, -1, Integer.MAX_VALUE, Integer.MIN_VALUE, 7, -7, 0x00ff00ff, 31, 32};
    SplittableRandom random = new SplittableRandom(75);
    int[] a = new int[n];
    int[] b = new int[n];
    ByteBuffer aBytes = buffer(4 * n);
    ByteBuffer bBytes = buffer(4 * n);
    for (int i = 0; i < n; i++) {
      a[i] = i < 100 ? special[i % special.length] : random.nextInt();
      b[i] = i < 100 ? special[i / special.length] : random.nextInt() >> random.nextInt(32);
      aBytes.putInt(4 * i, a[i]);
      bBytes.putInt(4 * i, b[i]);
    }
    CUdeviceptr dA = upload(aBytes);
    CUdeviceptr dB = upload(bBytes);
    CUdeviceptr out = upload(buffer(16 * 4 * n));
    cuLaunchKernel(SmokePrograms.function(module, "integer_ops"), (n + 127) / 128, 1, 1, 128, 1, 1, 0, null,
        Pointer.to(Pointer.to(dA), Pointer.to(dB), Pointer.to(out), Pointer.to(new int[] {n})), null);
    ByteBuffer got = download(out, 16 * 4 * n, sha);
    String wrong = null;
    for (int i = 0; i < n; i++) {
      int[] want = integerOps(a[i], b[i]);
      for (int k = 0; k < 16; k++) {
        if (got.getInt(4 * (16 * i + k)) != want[k]) {
          wrong = "result " + k + " of " + a[i] + ", " + b[i] + ": " + got.getInt(4 * (16 * i + k)) + " != " + want[k];
        }
      }
    }
    report("integer", wrong);
  }

  /** integer_ops's sixteen results, as CUDA defines its intrinsics. */
  static int[] integerOps(int x, int y) {
    long ux = Integer.toUnsignedLong(x);
    long uy = Integer.toUnsignedLong(y);
    int[] o = new int[16];
    o[0] = Integer.bitCount(x) + 100 * Integer.numberOfLeadingZeros(x);
    o[1] = Integer.reverse(x);
    o[2] = (int) (((long) x * y) >> 32);
    o[3] = (int) ((ux * uy) >>> 32);
    o[4] = y != 0 ? x / y : 0;
    o[5] = y != 0 ? x % y : 0;
    o[6] = y != 0 ? Integer.divideUnsigned(x, y) : 0;
    o[7] = (x >> (y & 31)) ^ (x >>> (y & 31));
    long bytes = ux | (uy << 32);
    for (int k = 0; k < 4; k++) {
      int selector = (0x7251 >> (4 * k)) & 7;
      o[8] |= (int) ((bytes >>> (8 * selector)) & 0xff) << (8 * k);
    }
    o[9] = Integer.rotateLeft(x, 7) + (int) (bytes >>> (y & 31));
    o[10] = Math.min(x, y) + (Integer.compareUnsigned(x, y) >= 0 ? x : y);
    o[11] = (x >>> 5) & 0x3ff;
    o[12] = (int) Math.rint((float) x / 3.0f) + (int) ((float) y * 0.7f);
    o[13] = (int) (long) Math.floor(Math.abs((float) x) * 0.5f) + (int) Math.rint((double) y / 7.0);
    o[14] = (int) (((long) x * y) >> 17) + (int) Long.remainderUnsigned(ux * uy, 1000003);
    long shifted = (long) y << 20;
    o[15] = (x == 0 ? 0 : Integer.numberOfTrailingZeros(x) + 1)
        + 64 * (shifted == 0 ? 0 : Long.numberOfTrailingZeros(shifted) + 1);
    return o;
  }

  /** Half a warp shuffles while the rest of the block waits at a barrier: neither can finish. */
  static void stuck() {
    String ptx = String.join("\n", ".version 7.0", ".target sm_75", ".address_size 64",
        ".visible .entry stuck(.param .u64 out)", "{",
        "  .reg .pred %p<3>;", "  .reg .b32 %r<3>;", "  .reg .b64 %rd<4>;",
        "  ld.param.u64 %rd1, [out];", "  mov.u32 %r1, %tid.x;", "  setp.lt.u32 %p1, %r1, 16;",
        "  @%p1 bra HALF;", "  bar.sync 0;", "  bra.uni DONE;",
        "HALF:", "  shfl.sync.down.b32 %r2|%p2, %r1, 1, 31, -1;",
        "DONE:", "  cvta.to.global.u64 %rd2, %rd1;", "  mul.wide.u32 %rd3, %r1, 4;", "  add.s64 %rd2, %rd2, %rd3;",
        "  st.global.u32 [%rd2], %r1;", "  ret;", "}", "");
    CUmodule module = new CUmodule();
    cuModuleLoadData(module, Arrays.copyOf(ptx.getBytes(StandardCharsets.US_ASCII), ptx.length() + 1));
    CUdeviceptr out = upload(buffer(4 * 64));
    cuLaunchKernel(SmokePrograms.function(module, "stuck"), 1, 1, 1, 64, 1, 1, 0, null,
        Pointer.to(Pointer.to(out)), null);
    cuCtxSynchronize();
    System.out.println("result stuck WRONG: the kernel finished");
  }

  /** PTX with a texture fetch, which the interpreter does not run: the load must fail, naming it. */
  static void unsupported() {
    String ptx = String.join("\n", ".version 7.0", ".target sm_75", ".address_size 64",
        ".visible .entry fetch(.param .u64 out, .param .u64 texture)", "{",
        "  .reg .f32 %f<5>;", "  .reg .b32 %r<2>;", "  .reg .b64 %rd<3>;",
        "  ld.param.u64 %rd1, [out];", "  ld.param.u64 %rd2, [texture];", "  mov.u32 %r1, 0;",
        "  tex.1d.v4.f32.s32 {%f1, %f2, %f3, %f4}, [%rd2, {%r1}];", "  st.global.f32 [%rd1], %f1;", "  ret;", "}", "");
    byte[] text = Arrays.copyOf(ptx.getBytes(StandardCharsets.US_ASCII), ptx.length() + 1);
    try {
      cuModuleLoadData(new CUmodule(), text);
      System.out.println("result unsupported WRONG: loaded");
    } catch (CudaException e) {
      System.out.println("load failed: " + e.getMessage());
    }
  }
}
