package dev.kernelweave.interceptor.cublas;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The kind and operand roles of every public static method of {@code jcuda.jcublas.JCublas2}
 * (JCublas 12.6.0): which parameters are device memory the routine reads or writes, which are
 * scalars that follow the pointer mode, which are device arrays of device pointers, and which
 * methods are not device routines at all.
 *
 * <p>The table is {@link BlasOperandTable}, generated from the JCublas sources by
 * {@code interceptor/src/test/tools/gen_blas_operand_table.py}; this class parses it once, at class
 * initialization, and checks it (one token per parameter of the descriptor, roles only on
 * reference parameters, the handle first and present in every device routine). A bad table fails
 * class initialization.
 *
 * <p>Lookups never fail and never allocate: a method that is absent from the table, or present
 * under another arity or descriptor (another JCublas release), gets a shared
 * {@link BlasRoutineKind#UNKNOWN} signature of the asked arity, which the agent treats as a
 * barrier. The class holds no mutable state; every method is safe from any thread.
 */
public final class BlasOperandRoles {

  /** The JVM allows at most 255 parameter slots, so no method has more parameters. */
  private static final int MAX_PARAMETERS = 255;

  private static final String HANDLE_TYPE = "Ljcuda/jcublas/cublasHandle;";
  private static final String STREAM_TYPE = "Ljcuda/runtime/cudaStream_t;";

  // Constants: filled once by the static initializer from the generated table, never changed after.
  private static final BlasSignature[] UNKNOWN_BY_ARITY = new BlasSignature[MAX_PARAMETERS + 1];
  private static final Map<String, BlasSignature> BY_NAME;
  private static final List<BlasSignature> ALL;

  static {
    for (int i = 0; i <= MAX_PARAMETERS; i++) {
      UNKNOWN_BY_ARITY[i] = BlasSignature.unknown(i);
    }
    String[] rows = BlasOperandTable.ROWS;
    Map<String, BlasSignature> byName = new HashMap<>(rows.length * 2);
    List<BlasSignature> all = new ArrayList<>(rows.length);
    for (String row : rows) {
      BlasSignature signature = parseRow(row);
      if (byName.put(signature.name(), signature) != null) {
        throw new IllegalStateException("two rows for " + signature.name());
      }
      all.add(signature);
    }
    BY_NAME = byName;
    ALL = List.copyOf(all);
  }

  private BlasOperandRoles() {}

  /**
   * The signature of the {@code JCublas2} method with this name and number of parameters; the
   * shared {@link BlasRoutineKind#UNKNOWN} signature of that arity when the table has no such
   * method.
   *
   * @throws IllegalArgumentException if {@code parameterCount} is negative or above 255
   */
  public static BlasSignature lookup(String methodName, int parameterCount) {
    if (parameterCount < 0 || parameterCount > MAX_PARAMETERS) {
      throw new IllegalArgumentException("parameter count " + parameterCount);
    }
    BlasSignature signature = BY_NAME.get(methodName);
    if (signature == null || signature.parameterCount() != parameterCount) {
      return UNKNOWN_BY_ARITY[parameterCount];
    }
    return signature;
  }

  /**
   * The signature of the {@code JCublas2} method with this name and JVM descriptor (as Byte Buddy's
   * {@code MethodDescription.getDescriptor()} gives it); the shared {@link BlasRoutineKind#UNKNOWN}
   * signature of the descriptor's arity when the table has no method with both.
   *
   * @throws IllegalArgumentException if the descriptor is not a method descriptor
   */
  public static BlasSignature lookup(String methodName, String methodDescriptor) {
    BlasSignature signature = BY_NAME.get(methodName);
    if (signature != null && signature.descriptor().equals(methodDescriptor)) {
      return signature;
    }
    return UNKNOWN_BY_ARITY[parameterCount(methodDescriptor)];
  }

  /** Every signature of the table, in the order of the JCublas sources; unmodifiable. */
  public static List<BlasSignature> signatures() {
    return ALL;
  }

  /**
   * The number of parameters of a JVM method descriptor.
   *
   * @throws IllegalArgumentException if it is not a method descriptor
   */
  static int parameterCount(String descriptor) {
    return parameterTypes(descriptor, null);
  }

  /** Counts the parameters of a method descriptor and, if {@code types} is not null, adds their type descriptors to it. */
  private static int parameterTypes(String descriptor, List<String> types) {
    if (descriptor.isEmpty() || descriptor.charAt(0) != '(') {
      throw new IllegalArgumentException("not a method descriptor: " + descriptor);
    }
    int count = 0;
    int i = 1;
    int n = descriptor.length();
    while (i < n && descriptor.charAt(i) != ')') {
      int start = i;
      while (i < n && descriptor.charAt(i) == '[') {
        i++;
      }
      if (i >= n) {
        break;
      }
      char c = descriptor.charAt(i);
      if (c == 'L') {
        int end = descriptor.indexOf(';', i);
        if (end < 0) {
          throw new IllegalArgumentException("not a method descriptor: " + descriptor);
        }
        i = end + 1;
      } else if ("ZBCSIJFD".indexOf(c) >= 0) {
        i++;
      } else {
        throw new IllegalArgumentException("not a method descriptor: " + descriptor);
      }
      if (types != null) {
        types.add(descriptor.substring(start, i));
      }
      count++;
    }
    if (i >= n || count > MAX_PARAMETERS) {
      throw new IllegalArgumentException("not a method descriptor: " + descriptor);
    }
    return count;
  }

  private static BlasSignature parseRow(String row) {
    String[] fields = row.split(" ");
    if (fields.length < 4) {
      throw new IllegalStateException("short row: " + row);
    }
    // Interned: the advice passes its method's name and descriptor as class-file constants, which
    // are interned, so a lookup's String.equals ends at the identity check.
    String name = fields[0].intern();
    BlasRoutineKind kind = BlasRoutineKind.valueOf(fields[1]);
    String delegatesTo = fields[2].equals("-") ? null : fields[2];
    String descriptor = fields[3].intern();
    List<String> types = new ArrayList<>();
    parameterTypes(descriptor, types);
    int count = fields.length - 4;
    if (types.size() != count) {
      throw new IllegalStateException(name + ": " + types.size() + " parameters in the descriptor, " + count + " in the row");
    }
    String[] names = new String[count];
    BlasOperandRole[] roles = new BlasOperandRole[count];
    int handleIndex = -1;
    int streamIndex = -1;
    for (int i = 0; i < count; i++) {
      String token = fields[4 + i];
      int colon = token.indexOf(':');
      names[i] = colon < 0 ? token : token.substring(0, colon);
      roles[i] = colon < 0 ? BlasOperandRole.NONE : BlasOperandRole.ofCode(token.substring(colon + 1));
      String type = types.get(i);
      if (roles[i] != BlasOperandRole.NONE && (type.length() == 1 || type.equals(HANDLE_TYPE) || type.equals(STREAM_TYPE))) {
        throw new IllegalStateException(name + ": role " + roles[i] + " for parameter " + names[i] + " of type " + type);
      }
      if (roles[i] == BlasOperandRole.NONE && type.equals("Ljcuda/Pointer;") && kind != BlasRoutineKind.UNKNOWN) {
        throw new IllegalStateException(name + ": no role for pointer " + names[i]);
      }
      if (type.equals(HANDLE_TYPE)) {
        if (i != 0) {
          throw new IllegalStateException(name + ": handle at parameter " + i);
        }
        handleIndex = 0;
      }
      if (type.equals(STREAM_TYPE)) {
        if (streamIndex >= 0) {
          throw new IllegalStateException(name + ": two streams");
        }
        streamIndex = i;
      }
    }
    if (kind == BlasRoutineKind.DEVICE_ROUTINE && handleIndex != 0) {
      throw new IllegalStateException(name + ": device routine without a handle");
    }
    return new BlasSignature(name, descriptor, kind, delegatesTo, names, roles, handleIndex, streamIndex);
  }
}
