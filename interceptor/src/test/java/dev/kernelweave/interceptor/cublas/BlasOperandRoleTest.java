package dev.kernelweave.interceptor.cublas;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kernelweave.call.AccessMode;
import org.junit.jupiter.api.Test;

class BlasOperandRoleTest {

  @Test
  void codesRoundTrip() {
    for (BlasOperandRole role : BlasOperandRole.values()) {
      assertSame(role, BlasOperandRole.ofCode(role.code()));
      assertSame(role, BlasOperandRole.ofOrdinal(role.ordinal()));
    }
    assertThrows(IllegalArgumentException.class, () -> BlasOperandRole.ofCode("X"));
  }

  @Test
  void outputsThatMayBeReadAreReadWrite() {
    assertEquals(AccessMode.READ, BlasOperandRole.READ.access());
    assertEquals(AccessMode.WRITE, BlasOperandRole.WRITE.access());
    assertEquals(AccessMode.READ_WRITE, BlasOperandRole.READ_WRITE.access());
    assertEquals(AccessMode.WRITE, BlasOperandRole.INFO_OUT.access());
    assertEquals(AccessMode.READ, BlasOperandRole.SCALAR_IN.access());
    assertEquals(AccessMode.WRITE, BlasOperandRole.SCALAR_OUT.access());
    assertEquals(AccessMode.READ_WRITE, BlasOperandRole.SCALAR_IN_OUT.access());
    assertNull(BlasOperandRole.NONE.access());
  }

  @Test
  void pointerArraysAreReadThemselvesAndCarryTheAccessOfTheirMatrices() {
    for (BlasOperandRole role : BlasOperandRole.values()) {
      assertEquals(role.isPointerArray(), role.pointeeAccess() != null, role.name());
      if (role.isPointerArray()) {
        assertEquals(AccessMode.READ, role.access(), role.name());
        assertTrue(role.isDeviceMemory(), role.name());
      }
    }
    assertEquals(AccessMode.READ, BlasOperandRole.POINTER_ARRAY_READ.pointeeAccess());
    assertEquals(AccessMode.WRITE, BlasOperandRole.POINTER_ARRAY_WRITE.pointeeAccess());
    assertEquals(AccessMode.READ_WRITE, BlasOperandRole.POINTER_ARRAY_READ_WRITE.pointeeAccess());
  }

  @Test
  void everyRoleButNoneIsExactlyOneOfDeviceHostOrPointerModeMemory() {
    for (BlasOperandRole role : BlasOperandRole.values()) {
      int places = (role.isDeviceMemory() ? 1 : 0) + (role.isHostMemory() ? 1 : 0) + (role.followsPointerMode() ? 1 : 0);
      assertEquals(role == BlasOperandRole.NONE ? 0 : 1, places, role.name());
    }
    assertFalse(BlasOperandRole.SCALAR_IN.isDeviceMemory());
    assertTrue(BlasOperandRole.HOST_WRITE.isHostMemory());
  }
}
