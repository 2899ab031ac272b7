package dev.kernelweave.ptx;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.List;
import java.util.Objects;

/**
 * The device-side table a merged kernel ({@link KernelMerging}) reads: one row per instance, in
 * launch order. The one definition of its layout, for the generated PTX and for whoever fills it.
 *
 * <p>Row {@code i} starts at {@code i * rowBytes()} and holds, little-endian:
 * <pre>
 *   +0   u32  first block: the instance's first block in the merged launch's linear numbering
 *   +4   u32  grid x  (the instance's gridDim.x)
 *   +8   u32  grid y
 *   +12  u32  grid z
 *   +parametersOffset()  the instance's parameter bytes, in the kernel's own parameter layout
 * </pre>
 * The first blocks are the running sums of the instances' block counts ({@code x*y*z}), so row 0
 * starts at block 0 and the merged launch has {@link #totalBlocks} blocks in x. The table must lie
 * at an address aligned to {@link #alignment()} ({@code cuMemAlloc} gives 256), so that every
 * parameter keeps the alignment it has in the parameter space.
 *
 * <p>Immutable and thread-safe.
 */
public final class MergedLaunchTable {

  static final int FIRST_BLOCK = 0;
  static final int GRID_X = 4;
  static final int GRID_Y = 8;
  static final int GRID_Z = 12;
  private static final int HEADER_BYTES = 16;
  /** The largest grid x a launch may have: the merged launch's block count must fit it. */
  public static final long MAX_BLOCKS = 0x7fff_ffffL;

  /** One instance of the kernel: its parameter buffer (the kernel's layout) and its grid. */
  public record Instance(byte[] parameters, int gridX, int gridY, int gridZ) {
    public Instance {
      Objects.requireNonNull(parameters, "parameters");
    }

    long blocks() {
      return Integer.toUnsignedLong(gridX) * Integer.toUnsignedLong(gridY) * Integer.toUnsignedLong(gridZ);
    }
  }

  private final int[] parameterOffsets;
  private final int[] parameterSizes;
  private final int parameterBytes;
  private final int alignment;
  private final int parametersOffset;
  private final int rowBytes;

  /**
   * @param parameterOffsets each parameter's offset in the kernel's parameter buffer
   * @param parameterSizes each parameter's bytes
   * @param parameterAlignment the largest alignment among its parameters (1 without parameters)
   */
  MergedLaunchTable(int[] parameterOffsets, int[] parameterSizes, int parameterAlignment) {
    if (parameterOffsets.length != parameterSizes.length) throw new IllegalArgumentException("offsets and sizes differ");
    int parameterBytes = 0;
    for (int i = 0; i < parameterOffsets.length; i++) {
      parameterBytes = Math.max(parameterBytes, parameterOffsets[i] + parameterSizes[i]);
    }
    this.parameterOffsets = parameterOffsets.clone();
    this.parameterSizes = parameterSizes.clone();
    if (parameterAlignment < 1 || Integer.bitCount(parameterAlignment) != 1 || parameterAlignment > 256) {
      throw new IllegalArgumentException("parameter alignment not a power of two up to 256: " + parameterAlignment);
    }
    this.parameterBytes = parameterBytes;
    this.alignment = Math.max(HEADER_BYTES, parameterAlignment);
    this.parametersOffset = alignment;
    this.rowBytes = roundUp(parametersOffset + parameterBytes, alignment);
  }

  /** Bytes of one row; a multiple of {@link #alignment()}. */
  public int rowBytes() {
    return rowBytes;
  }

  /** Where a row's parameter bytes start. */
  public int parametersOffset() {
    return parametersOffset;
  }

  public int parameterCount() {
    return parameterOffsets.length;
  }

  /** Where parameter {@code i} lies in the kernel's parameter buffer (its declared alignment kept). */
  public int parameterOffset(int i) {
    return parameterOffsets[i];
  }

  public int parameterSize(int i) {
    return parameterSizes[i];
  }

  /** The kernel's parameter buffer size each instance gives. */
  public int parameterBytes() {
    return parameterBytes;
  }

  /** The alignment the table's address must have. */
  public int alignment() {
    return alignment;
  }

  /** Bytes of the table for {@code instances} rows. */
  public long tableBytes(int instances) {
    return (long) instances * rowBytes;
  }

  /** The merged launch's grid x for these instances: the sum of their block counts. */
  public static long totalBlocks(List<Instance> instances) {
    long total = 0;
    for (Instance i : instances) total += i.blocks();
    return total;
  }

  /**
   * The table's bytes for {@code instances}, in order.
   *
   * @throws IllegalArgumentException for no instance, a parameter buffer of another size, a grid
   *     dimension of 0, or more blocks in all than one launch may have ({@link #MAX_BLOCKS})
   */
  public byte[] build(List<Instance> instances) {
    if (instances.isEmpty()) throw new IllegalArgumentException("a merged launch needs at least one instance");
    ByteBuffer table = ByteBuffer.allocate(Math.toIntExact(tableBytes(instances.size()))).order(ByteOrder.LITTLE_ENDIAN);
    long first = 0;
    for (int i = 0; i < instances.size(); i++) {
      Instance instance = instances.get(i);
      first = writeRow(table, i, first, instance.parameters(), instance.gridX(), instance.gridY(), instance.gridZ());
    }
    return table.array();
  }

  /**
   * Writes row {@code row} into {@code table} (little-endian, rows from index 0) for an instance
   * whose blocks start at {@code firstBlock}, and returns where the next instance's blocks start.
   * Allocates nothing (but for an exception), for a launch path that reuses one buffer.
   *
   * @throws IllegalArgumentException for a big-endian buffer, a parameter buffer of another size,
   *     a grid dimension of 0, or more blocks in all than one launch may have ({@link #MAX_BLOCKS})
   */
  public long writeRow(ByteBuffer table, int row, long firstBlock, byte[] parameters, int gridX, int gridY, int gridZ) {
    if (table.order() != ByteOrder.LITTLE_ENDIAN) throw new IllegalArgumentException("the table must be little-endian");
    if (parameters.length != parameterBytes) {
      throw new IllegalArgumentException("instance " + row + ": " + parameters.length
          + " parameter bytes, the kernel takes " + parameterBytes);
    }
    if (gridX == 0 || gridY == 0 || gridZ == 0) {
      throw new IllegalArgumentException("instance " + row + ": empty grid " + Integer.toUnsignedString(gridX)
          + "x" + Integer.toUnsignedString(gridY) + "x" + Integer.toUnsignedString(gridZ));
    }
    long next = firstBlock + Integer.toUnsignedLong(gridX) * Integer.toUnsignedLong(gridY) * Integer.toUnsignedLong(gridZ);
    if (next > MAX_BLOCKS) {
      throw new IllegalArgumentException("the instances have " + next + " blocks, more than one launch may have ("
          + MAX_BLOCKS + ")");
    }
    int at = row * rowBytes;
    table.putInt(at + FIRST_BLOCK, (int) firstBlock);
    table.putInt(at + GRID_X, gridX);
    table.putInt(at + GRID_Y, gridY);
    table.putInt(at + GRID_Z, gridZ);
    table.put(at + parametersOffset, parameters);
    return next;
  }

  /**
   * The table of a kernel whose parameters of {@code sizes} bytes lie one after another, each at an
   * offset that is a multiple of its size, as PTX lays out scalar parameters: for a device that
   * knows its kernels' signatures without their PTX (the simulated one).
   */
  public static MergedLaunchTable ofScalarParameters(int... sizes) {
    int[] offsets = new int[sizes.length];
    int offset = 0;
    int alignment = 1;
    for (int i = 0; i < sizes.length; i++) {
      offset = roundUp(offset, sizes[i]);
      offsets[i] = offset;
      offset += sizes[i];
      alignment = Math.max(alignment, sizes[i]);
    }
    return new MergedLaunchTable(offsets, sizes, alignment);
  }

  static int roundUp(int value, int alignment) {
    return (value + alignment - 1) & -alignment;
  }
}
