package dev.kernelweave.interceptor.install;

import java.util.LinkedHashSet;
import java.util.Set;
import net.bytebuddy.jar.asm.ClassReader;
import net.bytebuddy.jar.asm.ClassVisitor;
import net.bytebuddy.jar.asm.FieldVisitor;
import net.bytebuddy.jar.asm.Handle;
import net.bytebuddy.jar.asm.MethodVisitor;
import net.bytebuddy.jar.asm.Opcodes;
import net.bytebuddy.jar.asm.Type;

/**
 * The classes one class file links against: its supertypes, the types of its members, and every
 * type its code names. Nest and inner-class attributes are left out: they name classes without
 * linking them. Internal names ({@code jcuda/Pointer}); arrays are reduced to their element type.
 */
final class ClassReferences {

  /** What a class file says about itself and what it links. */
  record Of(String name, String superName, String[] interfaces, String nestHost, Set<String> references) {}

  private ClassReferences() {}

  static Of of(byte[] classFile) {
    ClassReader reader = new ClassReader(classFile);
    Collector collector = new Collector();
    reader.accept(collector, ClassReader.SKIP_DEBUG | ClassReader.SKIP_FRAMES);
    collector.references.remove(reader.getClassName());
    return new Of(reader.getClassName(), reader.getSuperName(), reader.getInterfaces(), collector.nestHost,
        collector.references);
  }

  private static final class Collector extends ClassVisitor {
    final Set<String> references = new LinkedHashSet<>();
    String nestHost;

    Collector() {
      super(Opcodes.ASM9);
    }

    void type(Type t) {
      switch (t.getSort()) {
        case Type.ARRAY -> type(t.getElementType());
        case Type.OBJECT -> references.add(t.getInternalName());
        case Type.METHOD -> {
          type(t.getReturnType());
          for (Type a : t.getArgumentTypes()) {
            type(a);
          }
        }
        default -> { }
      }
    }

    void internalName(String name) {
      if (name != null) {
        type(name.startsWith("[") ? Type.getType(name) : Type.getObjectType(name));
      }
    }

    void descriptor(String descriptor) {
      type(Type.getType(descriptor));
    }

    void constant(Object value) {
      if (value instanceof Type t) {
        type(t);
      } else if (value instanceof Handle h) {
        internalName(h.getOwner());
        descriptor(h.getDesc());
      }
    }

    @Override
    public void visit(int version, int access, String name, String signature, String superName, String[] interfaces) {
      internalName(superName);
      for (String i : interfaces) {
        internalName(i);
      }
    }

    @Override
    public void visitNestHost(String host) {
      nestHost = host;
    }

    @Override
    public FieldVisitor visitField(int access, String name, String descriptor, String signature, Object value) {
      descriptor(descriptor);
      return null;
    }

    @Override
    public MethodVisitor visitMethod(int access, String name, String descriptor, String signature,
        String[] exceptions) {
      descriptor(descriptor);
      if (exceptions != null) {
        for (String e : exceptions) {
          internalName(e);
        }
      }
      return new MethodVisitor(Opcodes.ASM9) {
        @Override
        public void visitTypeInsn(int opcode, String type) {
          internalName(type);
        }

        @Override
        public void visitFieldInsn(int opcode, String owner, String fieldName, String fieldDescriptor) {
          internalName(owner);
          descriptor(fieldDescriptor);
        }

        @Override
        public void visitMethodInsn(int opcode, String owner, String methodName, String methodDescriptor,
            boolean isInterface) {
          internalName(owner);
          descriptor(methodDescriptor);
        }

        @Override
        public void visitInvokeDynamicInsn(String indyName, String indyDescriptor, Handle bootstrap,
            Object... arguments) {
          descriptor(indyDescriptor);
          constant(bootstrap);
          for (Object a : arguments) {
            constant(a);
          }
        }

        @Override
        public void visitLdcInsn(Object value) {
          constant(value);
        }

        @Override
        public void visitMultiANewArrayInsn(String arrayDescriptor, int dimensions) {
          descriptor(arrayDescriptor);
        }

        @Override
        public void visitTryCatchBlock(net.bytebuddy.jar.asm.Label start, net.bytebuddy.jar.asm.Label end,
            net.bytebuddy.jar.asm.Label handler, String type) {
          internalName(type);
        }
      };
    }
  }
}
