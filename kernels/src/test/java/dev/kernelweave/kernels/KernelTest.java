package dev.kernelweave.kernels;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import jcuda.driver.CUdeviceptr;
import org.junit.jupiter.api.Test;

class KernelTest {

  private static final List<Ptx.Param> PARAMS =
      List.of(Ptx.Param.POINTER, Ptx.Param.INT, Ptx.Param.FLOAT);

  @Test
  void argumentsOfTheDeclaredKindsPass() {
    assertDoesNotThrow(() -> Kernel.check("k", PARAMS, new Object[] {new CUdeviceptr(), 3, 0.5f}));
  }

  @Test
  void aWrongCountOrKindIsRefusedBeforeTheLaunch() {
    IllegalArgumentException count =
        assertThrows(
            IllegalArgumentException.class,
            () -> Kernel.check("k", PARAMS, new Object[] {new CUdeviceptr(), 3}));
    assertTrue(count.getMessage().contains("takes 3 arguments, 2 given"));
    IllegalArgumentException kind =
        assertThrows(
            IllegalArgumentException.class,
            () -> Kernel.check("k", PARAMS, new Object[] {new CUdeviceptr(), 3.0f, 0.5f}));
    assertTrue(kind.getMessage().contains("argument 1 must be INT, got Float"));
    assertThrows(
        IllegalArgumentException.class,
        () -> Kernel.check("k", PARAMS, new Object[] {null, 3, 0.5f}));
  }
}
