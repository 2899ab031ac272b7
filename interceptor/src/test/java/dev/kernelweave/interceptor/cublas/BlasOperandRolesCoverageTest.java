package dev.kernelweave.interceptor.cublas;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The table against the JCublas2 class itself, enumerated by reflection. */
class BlasOperandRolesCoverageTest {

  @Test
  void everyPublicStaticMethodOfJCublas2IsClassified() {
    List<String> missing = new ArrayList<>();
    for (Method m : JCublas2Reflection.publicStaticMethods()) {
      BlasSignature s = BlasOperandRoles.lookup(m.getName(), JCublas2Reflection.descriptor(m));
      if (s.kind() == BlasRoutineKind.UNKNOWN && !s.name().equals(m.getName())) {
        missing.add(m.getName() + JCublas2Reflection.descriptor(m));
      }
    }
    assertEquals(List.of(), missing, "methods of JCublas2 without an entry");
  }

  @Test
  void theTableHoldsExactlyTheMethodsOfJCublas2() {
    Set<String> reflected = new HashSet<>();
    for (Method m : JCublas2Reflection.publicStaticMethods()) {
      reflected.add(m.getName() + JCublas2Reflection.descriptor(m));
    }
    Set<String> table = new HashSet<>();
    for (BlasSignature s : BlasOperandRoles.signatures()) {
      table.add(s.name() + s.descriptor());
    }
    assertEquals(reflected, table);
    assertEquals(504, table.size(), "JCublas 12.6.0 has 504 public static methods");
  }

  @Test
  void lookupByParameterCountFindsTheSameSignatureAsByDescriptor() {
    for (Method m : JCublas2Reflection.publicStaticMethods()) {
      BlasSignature byDescriptor = BlasOperandRoles.lookup(m.getName(), JCublas2Reflection.descriptor(m));
      assertSame(byDescriptor, BlasOperandRoles.lookup(m.getName(), m.getParameterCount()), m.getName());
      assertEquals(m.getParameterCount(), byDescriptor.parameterCount(), m.getName());
    }
  }

  @Test
  void nothingIsLeftUnknown() {
    List<String> unknown = new ArrayList<>();
    for (BlasSignature s : BlasOperandRoles.signatures()) {
      if (s.kind() == BlasRoutineKind.UNKNOWN) {
        unknown.add(s.name());
      }
    }
    assertEquals(List.of(), unknown);
  }

  @Test
  void pointerParametersOfDeviceWorkHaveARoleAndPlainParametersHaveNone() {
    for (Method m : JCublas2Reflection.publicStaticMethods()) {
      BlasSignature s = BlasOperandRoles.lookup(m.getName(), m.getParameterCount());
      Class<?>[] types = m.getParameterTypes();
      for (int i = 0; i < types.length; i++) {
        BlasOperandRole role = s.role(i);
        String where = m.getName() + " parameter " + i + " " + s.parameterName(i);
        String type = types[i].getName();
        if (types[i].isPrimitive() || type.equals("jcuda.jcublas.cublasHandle") || type.equals("jcuda.runtime.cudaStream_t")
            || type.equals("java.lang.String")) {
          assertEquals(BlasOperandRole.NONE, role, where);
        }
        if (type.equals("jcuda.Pointer") || (types[i].isArray() && types[i].getComponentType().isPrimitive())) {
          assertNotEquals(BlasOperandRole.NONE, role, where);
        }
        if (types[i].isArray()) {
          // Java arrays are host memory.
          assertTrue(role.isHostMemory() || role == BlasOperandRole.SCALAR_OUT || role == BlasOperandRole.NONE, where);
        }
      }
    }
  }

  @Test
  void everyDeviceRoutineTakesItsHandleFirstAndTouchesDeviceMemory() {
    int routines = 0;
    for (BlasSignature s : BlasOperandRoles.signatures()) {
      if (s.kind() != BlasRoutineKind.DEVICE_ROUTINE) {
        continue;
      }
      routines++;
      assertEquals(0, s.handleIndex(), s.name());
      assertEquals(BlasOperandRole.NONE, s.role(0), s.name());
      assertEquals(-1, s.streamIndex(), s.name());
      boolean touches = false;
      for (int k = 0; k < s.operandCount(); k++) {
        BlasOperandRole role = s.role(s.operandIndex(k));
        touches |= role.isDeviceMemory() || role.followsPointerMode();
        assertTrue(!role.isHostMemory() || role == BlasOperandRole.HOST_WRITE && s.parameterName(s.operandIndex(k)).equals("info"),
            s.name() + ": host memory other than a host info");
      }
      assertTrue(touches, s.name());
    }
    assertEquals(463, routines);
  }

  @Test
  void handleAndStreamIndicesFollowTheParameterTypes() {
    for (Method m : JCublas2Reflection.publicStaticMethods()) {
      BlasSignature s = BlasOperandRoles.lookup(m.getName(), m.getParameterCount());
      Class<?>[] types = m.getParameterTypes();
      int handle = -1;
      int stream = -1;
      for (int i = 0; i < types.length; i++) {
        if (types[i].getName().equals("jcuda.jcublas.cublasHandle")) {
          handle = i;
        }
        if (types[i].getName().equals("jcuda.runtime.cudaStream_t")) {
          stream = i;
        }
      }
      assertEquals(handle, s.handleIndex(), m.getName());
      assertEquals(stream, s.streamIndex(), m.getName());
      assertTrue(handle <= 0, m.getName());
    }
  }

  @Test
  void everyKindButUnknownIsUsed() {
    Map<BlasRoutineKind, Integer> counts = new EnumMap<>(BlasRoutineKind.class);
    for (BlasSignature s : BlasOperandRoles.signatures()) {
      counts.merge(s.kind(), 1, Integer::sum);
    }
    for (BlasRoutineKind kind : BlasRoutineKind.values()) {
      if (kind != BlasRoutineKind.UNKNOWN && !counts.containsKey(kind)) {
        fail("no method of kind " + kind);
      }
    }
    assertEquals(16, counts.get(BlasRoutineKind.COPY_TO_DEVICE) + counts.get(BlasRoutineKind.COPY_TO_HOST));
  }

  @Test
  void javaWrappersHaveTheRolesOfTheMethodTheyDelegateTo() {
    int wrappers = 0;
    for (BlasSignature s : BlasOperandRoles.signatures()) {
      if (s.delegatesTo() == null) {
        continue;
      }
      wrappers++;
      BlasSignature target = BlasOperandRoles.lookup(s.delegatesTo(), s.parameterCount());
      assertEquals(s.kind(), target.kind(), s.name());
      for (int i = 0; i < s.parameterCount(); i++) {
        assertEquals(s.parameterName(i), target.parameterName(i), s.name());
        assertEquals(s.role(i), target.role(i), s.name() + " " + s.parameterName(i));
      }
    }
    assertEquals(3, wrappers, "cublasGemmEx, cublasGemmBatchedEx, cublasGemmStridedBatchedEx");
  }
}
