package dev.kernelweave.it.agent;

import static jcuda.driver.JCudaDriver.cuCtxSynchronize;
import static jcuda.driver.JCudaDriver.cuLaunchKernel;
import static jcuda.driver.JCudaDriver.cuMemAlloc;
import static jcuda.driver.JCudaDriver.cuMemFree;
import static jcuda.driver.JCudaDriver.cuMemcpyDtoH;
import static jcuda.driver.JCudaDriver.cuMemcpyHtoD;
import static jcuda.driver.JCudaDriver.cuModuleGetFunction;
import static jcuda.driver.JCudaDriver.cuModuleGetGlobal;
import static jcuda.driver.JCudaDriver.cuModuleLoadData;
import static jcuda.driver.JCudaDriver.cuModuleUnload;

import dev.kernelweave.ptx.KernelMerging;
import dev.kernelweave.ptx.MergedKernel;
import dev.kernelweave.ptx.MergedLaunchTable;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import jcuda.Pointer;
import jcuda.driver.CUdeviceptr;
import jcuda.driver.CUfunction;
import jcuda.driver.CUmodule;

/**
 * Runs kernels of a PTX file both ways: k separate launches of the kernel (k = 1, 2, 3; each
 * instance with its own grid, scalars and buffers) and one launch of its merged variant
 * ({@link KernelMerging}) over the same instances, from the same initial device memory, and
 * prints per kernel and k whether every buffer came out byte-identical:
 * {@code merged NAME k=K identical changed=BOOL} or {@code merged NAME k=K DIFFERENT ...};
 * {@code refused NAME: REASON} for a kernel without a merged variant.
 *
 * <p>Arguments: the PTX file, {@code --middle} (derived pointers point to the middle of their
 * buffers, for kernels that index below the pointer), then one spec per kernel, {@code NAME[|PARAMS[|OPTIONS]]}. PARAMS,
 * comma-separated, one per parameter (derived from the declared types where omitted):
 * {@code buf} (a buffer of random floats; {@code buf+16}: 16 bytes into one), {@code idx} and
 * {@code idx64} (int and long indices below 64), {@code rows} (8 pointers to float buffers),
 * {@code nodes} (8 {pointer, int count} records), {@code packed} (8 packed {byte, pointer}),
 * {@code n}/{@code n64} (the instance's element count), {@code f}/{@code d} (a float/double that
 * differs per instance), {@code i=V}, {@code l=V}, {@code s=V}, {@code b=V} (int, long, short,
 * byte literals), and {@code {A;B;...}} for a struct of such fields at their natural alignment
 * ({@code packed{A;B}}: without padding).
 * OPTIONS, comma-separated: {@code grid=2d} or {@code grid=3d} (instances with y and z blocks),
 * {@code block=N}, {@code shared=BYTES} (dynamic), {@code ptrvar=NAME} (sets a module variable
 * to a buffer's address), {@code var=NAME} (fills it with random floats).
 */
public final class MergedKernelsProgram {

  static final int BUFFER_BYTES = 64 * 1024;
  static final int[] COUNTS = {150, 187, 224};
  static final int[][] GRIDS_1D = {{2, 1, 1}, {1, 1, 1}, {3, 1, 1}};
  static final int[][] GRIDS_2D = {{2, 2, 1}, {1, 3, 1}, {3, 1, 1}};
  static final int[][] GRIDS_3D = {{2, 2, 1}, {1, 2, 2}, {3, 1, 2}};
  private static final Pattern STRUCT = Pattern.compile("(?:packed)?\\{(.*)}");

  private MergedKernelsProgram() {}

  public static void main(String[] args) throws Exception {
    SmokePrograms.contextOrExit();
    String text = Files.readString(Path.of(args[0]), StandardCharsets.US_ASCII);
    int first = 1;
    String pointer = "buf";
    if (args.length > 1 && args[1].equals("--middle")) {
      pointer = "buf+" + BUFFER_BYTES / 2;
      first = 2;
    }
    for (int a = first; a < args.length; a++) {
      String[] spec = args[a].split("\\|", -1);
      String name = spec[0];
      MergedKernel merged = KernelMerging.merge(text, name);
      if (!merged.mergeable()) {
        System.out.println("refused " + name + ": " + merged.refusal().orElseThrow());
        continue;
      }
      String params = spec.length > 1 && !spec[1].isEmpty() ? spec[1] : derivedParams(text, name, pointer);
      String options = spec.length > 2 ? spec[2] : "";
      for (int k = 1; k <= 3; k++) System.out.println(compare(merged, params, options, k));
    }
  }

  /** One line: whether k separate launches and the merged launch leave the same bytes. */
  static String compare(MergedKernel merged, String params, String options, int k) {
    CUmodule module = new CUmodule();
    byte[] image = (merged.moduleText() + "\0").getBytes(StandardCharsets.US_ASCII);
    cuModuleLoadData(module, image);
    Device device = new Device(new SplittableRandom(merged.kernel().hashCode() * 31L + k));
    try {
      int block = intOption(options, "block", 64);
      int shared = intOption(options, "shared", 0);
      int[][] grids = options.contains("grid=3d") ? GRIDS_3D : options.contains("grid=2d") ? GRIDS_2D : GRIDS_1D;
      setVariables(module, options, device);
      MergedLaunchTable table = merged.table();
      List<MergedLaunchTable.Instance> instances = new ArrayList<>();
      for (int i = 0; i < k; i++) {
        byte[] bytes = new byte[table.parameterBytes()];
        String[] tokens = splitTop(params, ',');
        if (tokens.length != table.parameterCount()) {
          throw new IllegalArgumentException(merged.kernel() + ": " + tokens.length + " parameter specs for "
              + table.parameterCount() + " parameters");
        }
        for (int p = 0; p < tokens.length; p++) {
          ByteBuffer at = ByteBuffer.wrap(bytes, table.parameterOffset(p), table.parameterSize(p)).slice()
              .order(ByteOrder.LITTLE_ENDIAN);
          device.encode(tokens[p], at, i);
        }
        instances.add(new MergedLaunchTable.Instance(bytes, grids[i][0], grids[i][1], grids[i][2]));
      }

      CUfunction original = new CUfunction();
      cuModuleGetFunction(original, module, merged.kernel());
      device.reset();
      for (MergedLaunchTable.Instance instance : instances) {
        launch(original, instance.gridX(), instance.gridY(), instance.gridZ(), block, shared,
            kernelParams(instance.parameters(), table));
      }
      cuCtxSynchronize();
      List<byte[]> separate = device.readAll();

      CUfunction mergedFunction = new CUfunction();
      cuModuleGetFunction(mergedFunction, module, merged.mergedName());
      byte[] rows = table.build(instances);
      CUdeviceptr tablePointer = new CUdeviceptr();
      cuMemAlloc(tablePointer, rows.length);
      cuMemcpyHtoD(tablePointer, Pointer.to(rows), rows.length);
      device.reset();
      launch(mergedFunction, (int) MergedLaunchTable.totalBlocks(instances), 1, 1, block, shared,
          Pointer.to(Pointer.to(tablePointer), Pointer.to(new int[] {k})));
      cuCtxSynchronize();
      List<byte[]> once = device.readAll();
      cuMemFree(tablePointer);

      boolean changed = false;
      for (int b = 0; b < once.size(); b++) {
        changed |= !Arrays.equals(separate.get(b), device.initial.get(b));
        if (!Arrays.equals(separate.get(b), once.get(b))) {
          int at = Arrays.mismatch(separate.get(b), once.get(b));
          return "merged " + merged.kernel() + " k=" + k + " DIFFERENT buffer " + b + " at byte " + at;
        }
      }
      return "merged " + merged.kernel() + " k=" + k + " identical changed=" + changed;
    } finally {
      device.free();
      cuModuleUnload(module);
    }
  }

  private static void launch(CUfunction f, int gx, int gy, int gz, int block, int shared, Pointer params) {
    cuLaunchKernel(f, gx, gy, gz, block, 1, 1, shared, null, params, null);
  }

  /** The driver's kernelParams: a pointer to each parameter's bytes. */
  private static Pointer kernelParams(byte[] bytes, MergedLaunchTable table) {
    Pointer[] each = new Pointer[table.parameterCount()];
    for (int p = 0; p < each.length; p++) {
      int at = table.parameterOffset(p);
      each[p] = Pointer.to(Arrays.copyOfRange(bytes, at, at + table.parameterSize(p)));
    }
    return Pointer.to(each);
  }

  private static void setVariables(CUmodule module, String options, Device device) {
    for (String option : options.split(",")) {
      if (!option.startsWith("ptrvar=") && !option.startsWith("var=")) continue;
      String name = option.substring(option.indexOf('=') + 1);
      CUdeviceptr address = new CUdeviceptr();
      long[] bytes = {0};
      cuModuleGetGlobal(address, bytes, module, name);
      ByteBuffer value = ByteBuffer.allocate((int) bytes[0]).order(ByteOrder.LITTLE_ENDIAN);
      if (option.startsWith("ptrvar=")) value.putLong(device.buffer(Fill.FLOATS));
      else while (value.remaining() >= 4) value.putFloat((float) device.random.nextDouble(-1, 1));
      cuMemcpyHtoD(address, Pointer.to(value.array()), bytes[0]);
    }
  }

  private static int intOption(String options, String name, int otherwise) {
    Matcher m = Pattern.compile("(?:^|,)" + name + "=(\\d+)").matcher(options);
    return m.find() ? Integer.parseInt(m.group(1)) : otherwise;
  }

  /** One token per declared parameter: pointers are buffers, 32-bit integers counts, floats values. */
  static String derivedParams(String text, String kernel, String pointer) {
    Matcher header = Pattern.compile("\\.entry\\s+" + Pattern.quote(kernel) + "\\s*\\(([^)]*)\\)").matcher(text);
    if (!header.find()) return "";
    List<String> tokens = new ArrayList<>();
    for (String decl : header.group(1).split(",")) {
      String d = decl.trim();
      if (d.isEmpty()) continue;
      if (d.contains("[")) throw new IllegalArgumentException(kernel + ": a struct parameter needs a spec");
      if (d.contains(".u64") || d.contains(".b64") || d.contains(".s64")) tokens.add(pointer);
      else if (d.contains(".f32")) tokens.add("f");
      else if (d.contains(".f64")) tokens.add("d");
      else if (d.contains("32")) tokens.add("n");
      else throw new IllegalArgumentException(kernel + ": no default for parameter " + d);
    }
    return String.join(",", tokens);
  }

  static String[] splitTop(String s, char sep) {
    if (s.isEmpty()) return new String[0];
    List<String> parts = new ArrayList<>();
    int depth = 0;
    int start = 0;
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (c == '{') depth++;
      else if (c == '}') depth--;
      else if (c == sep && depth == 0) {
        parts.add(s.substring(start, i));
        start = i + 1;
      }
    }
    parts.add(s.substring(start));
    return parts.toArray(new String[0]);
  }

  enum Fill { FLOATS, INDICES, LONG_INDICES }

  /** The buffers of one comparison, their initial bytes, and how to put them back. */
  static final class Device {
    final SplittableRandom random;
    final List<CUdeviceptr> buffers = new ArrayList<>();
    final List<byte[]> initial = new ArrayList<>();

    Device(SplittableRandom random) {
      this.random = random;
    }

    long buffer(Fill fill) {
      ByteBuffer b = ByteBuffer.allocate(BUFFER_BYTES).order(ByteOrder.LITTLE_ENDIAN);
      while (b.hasRemaining()) {
        switch (fill) {
          case FLOATS -> b.putFloat((float) random.nextDouble(-4, 4));
          case INDICES -> b.putInt(random.nextInt(64));
          case LONG_INDICES -> b.putLong(random.nextInt(64));
        }
      }
      return add(b.array());
    }

    /** A buffer holding {@code records} records of {@code pointer, then bytes} at {@code stride}. */
    long records(int records, int stride, int pointerAt, boolean withCount) {
      ByteBuffer b = ByteBuffer.allocate(BUFFER_BYTES).order(ByteOrder.LITTLE_ENDIAN);
      for (int r = 0; r < records; r++) {
        b.put(r * stride, (byte) r);
        b.putLong(r * stride + pointerAt, buffer(Fill.FLOATS));
        if (withCount) b.putInt(r * stride + 8, 1 + random.nextInt(64));
      }
      return add(b.array());
    }

    private long add(byte[] bytes) {
      CUdeviceptr p = new CUdeviceptr();
      cuMemAlloc(p, bytes.length);
      buffers.add(p);
      initial.add(bytes);
      return address(p);
    }

    void encode(String token, ByteBuffer at, int instance) {
      Matcher struct = STRUCT.matcher(token);
      if (struct.matches()) {
        boolean packed = token.startsWith("packed{");
        for (String field : splitTop(struct.group(1), ';')) {
          int size = field.matches("n|f|i=.*") ? 4 : field.matches("s=.*") ? 2 : field.matches("b=.*") ? 1 : 8;
          if (!packed) at.position((at.position() + size - 1) / size * size);
          encode(field, at, instance);
        }
        return;
      }
      String value = token.contains("=") ? token.substring(token.indexOf('=') + 1) : "";
      switch (token.replaceAll("[=+].*", "")) {
        case "buf" -> at.putLong(buffer(Fill.FLOATS) + (token.contains("+") ? Long.parseLong(token.split("\\+")[1]) : 0));
        case "idx" -> at.putLong(buffer(Fill.INDICES));
        case "idx64" -> at.putLong(buffer(Fill.LONG_INDICES));
        case "rows" -> at.putLong(records(8, 8, 0, false));
        case "nodes" -> at.putLong(records(8, 16, 0, true));
        case "packed" -> at.putLong(records(8, 9, 1, false));
        case "n" -> at.putInt(COUNTS[instance]);
        case "n64" -> at.putLong(COUNTS[instance]);
        case "f" -> at.putFloat(1.5f + instance);
        case "d" -> at.putDouble(0.25 + instance);
        case "i" -> at.putInt(Integer.parseInt(value));
        case "l" -> at.putLong(Long.parseLong(value));
        case "s" -> at.putShort(Short.parseShort(value));
        case "b" -> at.put(Byte.parseByte(value));
        default -> throw new IllegalArgumentException("unknown parameter spec '" + token + "'");
      }
    }

    /** Every buffer back to its initial bytes. */
    void reset() {
      for (int b = 0; b < buffers.size(); b++) {
        cuMemcpyHtoD(buffers.get(b), Pointer.to(initial.get(b)), initial.get(b).length);
      }
    }

    List<byte[]> readAll() {
      List<byte[]> all = new ArrayList<>();
      for (int b = 0; b < buffers.size(); b++) {
        byte[] bytes = new byte[initial.get(b).length];
        cuMemcpyDtoH(Pointer.to(bytes), buffers.get(b), bytes.length);
        all.add(bytes);
      }
      return all;
    }

    void free() {
      for (CUdeviceptr p : buffers) cuMemFree(p);
    }

    /** The address a device pointer holds, as a kernel sees it: through device memory, as JCuda passes it. */
    private static long address(CUdeviceptr pointer) {
      CUdeviceptr cell = new CUdeviceptr();
      cuMemAlloc(cell, 8);
      cuMemcpyHtoD(cell, Pointer.to(pointer), 8);
      long[] value = new long[1];
      cuMemcpyDtoH(Pointer.to(value), cell, 8);
      cuMemFree(cell);
      return value[0];
    }
  }
}
