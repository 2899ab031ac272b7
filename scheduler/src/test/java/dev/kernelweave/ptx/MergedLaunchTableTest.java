package dev.kernelweave.ptx;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The merged launch's table: its rows' layout, and what it refuses to build. */
class MergedLaunchTableTest {

  /** A pointer at 0 and an int at 8: 12 parameter bytes, alignment 8. */
  private final MergedLaunchTable table = new MergedLaunchTable(new int[] {0, 8}, new int[] {8, 4}, 8);

  private static byte[] params(long pointer, int n) {
    return ByteBuffer.allocate(12).order(ByteOrder.LITTLE_ENDIAN).putLong(pointer).putInt(n).array();
  }

  @Test
  void rowsHoldFirstBlockGridAndTheParameterBytes() {
    List<MergedLaunchTable.Instance> instances = List.of(new MergedLaunchTable.Instance(params(0x1000, 7), 2, 3, 1),
        new MergedLaunchTable.Instance(params(0x2000, 9), 5, 1, 2));
    byte[] bytes = table.build(instances);
    assertEquals(32, table.rowBytes());
    assertEquals(64, bytes.length);
    ByteBuffer b = ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN);
    assertEquals(List.of(0, 2, 3, 1), List.of(b.getInt(0), b.getInt(4), b.getInt(8), b.getInt(12)));
    // The second instance starts after the first's 2*3*1 blocks.
    assertEquals(List.of(6, 5, 1, 2), List.of(b.getInt(32), b.getInt(36), b.getInt(40), b.getInt(44)));
    assertArrayEquals(params(0x2000, 9), Arrays.copyOfRange(bytes, 32 + 16, 32 + 28));
    assertArrayEquals(params(0x1000, 7), Arrays.copyOfRange(bytes, 16, 28));
    assertEquals(16, MergedLaunchTable.totalBlocks(instances));
  }

  @Test
  void parametersAlignedBeyondTheHeaderMoveTheRowsParametersToTheirAlignment() {
    MergedLaunchTable wide = new MergedLaunchTable(new int[] {0}, new int[] {32}, 32);
    assertEquals(32, wide.parametersOffset());
    assertEquals(64, wide.rowBytes());
    assertEquals(32, wide.alignment());
  }

  @Test
  void rowsWrittenOneByOneIntoAReusedBufferEqualTheBuiltTable() {
    ByteBuffer reused = ByteBuffer.allocate(64).order(ByteOrder.LITTLE_ENDIAN);
    long next = table.writeRow(reused, 0, 0, params(0x1000, 7), 2, 3, 1);
    assertEquals(6, next);
    assertEquals(16, table.writeRow(reused, 1, next, params(0x2000, 9), 5, 1, 2));
    assertArrayEquals(table.build(List.of(new MergedLaunchTable.Instance(params(0x1000, 7), 2, 3, 1),
        new MergedLaunchTable.Instance(params(0x2000, 9), 5, 1, 2))), reused.array());
    IllegalArgumentException big = assertThrows(IllegalArgumentException.class,
        () -> table.writeRow(ByteBuffer.allocate(64), 0, 0, params(0, 1), 1, 1, 1));
    assertEquals("the table must be little-endian", big.getMessage());
  }

  @Test
  void badInstancesAreRefusedNamingTheProblem() {
    IllegalArgumentException none = assertThrows(IllegalArgumentException.class, () -> table.build(List.of()));
    assertEquals("a merged launch needs at least one instance", none.getMessage());
    IllegalArgumentException size = assertThrows(IllegalArgumentException.class,
        () -> table.build(List.of(new MergedLaunchTable.Instance(new byte[8], 1, 1, 1))));
    assertEquals("instance 0: 8 parameter bytes, the kernel takes 12", size.getMessage());
    IllegalArgumentException empty = assertThrows(IllegalArgumentException.class,
        () -> table.build(List.of(new MergedLaunchTable.Instance(params(0, 1), 4, 0, 1))));
    assertEquals("instance 0: empty grid 4x0x1", empty.getMessage());
    IllegalArgumentException many = assertThrows(IllegalArgumentException.class,
        () -> table.build(List.of(new MergedLaunchTable.Instance(params(0, 1), 0x40000000, 1, 1),
            new MergedLaunchTable.Instance(params(0, 1), 0x40000000, 1, 1))));
    assertEquals("the instances have 2147483648 blocks, more than one launch may have (2147483647)", many.getMessage());
  }
}
