package dev.kernelweave.sim;

import dev.kernelweave.selftest.SelfTestKernel;
import java.util.Arrays;
import java.util.Locale;

/**
 * Builds the simulated device's operations that do work: kernels, copies, memsets and host
 * functions, each with the ranges it touches, what it reads when it starts and what it writes when
 * it completes. The caller enqueues them.
 *
 * <p>Not thread-safe: it belongs to one {@link SimDevice}.
 */
final class SimOperations {

  private final SimEngine engine;
  private final SimMemory memory;

  /** A kernel's inputs while it computes: read at its start and used there alone, so reused. */
  private final int[][] inputs = {new int[0], new int[0]};

  SimOperations(SimEngine engine, SimMemory memory) {
    this.engine = engine;
    this.memory = memory;
  }

  /** Input {@code which} of a kernel starting now: {@code n} ints from {@code address}. */
  private int[] input(int which, long address, int n) {
    if (inputs[which].length < n) {
      inputs[which] = new int[n];
    }
    memory.readInts(address, inputs[which], n);
    return inputs[which];
  }

  SimOp readingConstant(int lane, long out, int n, int k) {
    SimOp op = engine.work(lane, new KernelLabel("FILL_FROM_CONSTANT", n, k));
    engine.range(op, memory.moduleConstant(), 4, false);
    engine.range(op, out, n * 4L, true);
    int[] result = new int[n];
    op.work = new SimOp.Work() {
      @Override
      public void begin() {
        SelfTestKernel.FILL.apply(result, null, null, n, k ^ memory.intAt(memory.constant()));
      }

      @Override
      public void end() {
        memory.writeInts(out, result);
      }
    };
    return op;
  }

  SimOp withoutPtx(int lane, long slot, int n, int k) {
    SimOp op = engine.work(lane, new KernelLabel("FILL_INDIRECT", n, k));
    engine.range(op, slot, 8, false);
    int[] result = new int[n];
    long[] target = new long[1];
    op.work = new SimOp.Work() {
      @Override
      public void resolve() {
        target[0] = memory.longAt(slot);
        engine.range(op, target[0], n * 4L, true);
      }

      @Override
      public void begin() {
        SelfTestKernel.FILL.apply(result, null, null, n, k);
      }

      @Override
      public void end() {
        memory.writeInts(target[0], result);
      }
    };
    return op;
  }

  SimOp hostFunction(int lane, int gate, long src, long dst, int bytes) {
    SimOp op = engine.work(lane, "host function" + (gate >= 0 ? " waiting for gate " + gate : ""));
    op.gate = gate;
    readsThenWrites(op, src, dst, bytes);
    op.work = new SimOp.Work() {
      int[] values;

      @Override
      public void begin() {
        values = memory.ints(src, bytes / 4);
        for (int i = 0; i < values.length; i++) {
          values[i] = values[i] * 5 + 1;
        }
      }

      @Override
      public void end() {
        memory.writeInts(dst, values);
      }
    };
    return op;
  }

  SimOp kernel(int lane, SelfTestKernel kernel, long outPointer, long in1, long in2, int n, int k) {
    SimOp op = engine.work(lane, new KernelLabel(kernel.name(), n, k));
    long out = outPointer - kernel.outPointerOffset(n);
    int outBytes = kernel.outElements(n) * 4;
    if (kernel.outMode().reads()) {
      engine.range(op, out, outBytes, false);
    }
    engine.range(op, out, outBytes, true);
    if (kernel.inputs() >= 1) {
      engine.range(op, in1, n * 4L, false);
    }
    if (kernel.inputs() >= 2) {
      engine.range(op, in2, n * 4L, false);
    }
    int[] result = new int[kernel.outElements(n)];
    op.work = new SimOp.Work() {
      @Override
      public void begin() {
        int[] a = kernel.inputs() >= 1 ? input(0, in1, n) : null;
        int[] b = kernel.inputs() >= 2 ? input(1, in2, n) : null;
        if (kernel.outMode().reads()) {
          memory.readInts(out, result, result.length);
        }
        kernel.apply(result, a, b, n, k);
      }

      @Override
      public void end() {
        memory.writeInts(out, result);
      }
    };
    return op;
  }

  /** A copy from host bytes, taken now, to device memory. */
  SimOp copyHostToDevice(int lane, long dst, byte[] data) {
    SimOp op = engine.work(lane, "copyHtoD " + data.length + " B");
    engine.range(op, dst, data.length, true);
    op.work = new SimOp.Work() {
      @Override
      public void begin() {}

      @Override
      public void end() {
        memory.write(dst, data);
      }
    };
    return op;
  }

  /** A copy from device memory into host bytes, filled when it completes. */
  SimOp copyDeviceToHost(int lane, byte[] dst, long src) {
    SimOp op = engine.work(lane, "copyDtoH " + dst.length + " B");
    engine.range(op, src, dst.length, false);
    op.work = new SimOp.Work() {
      byte[] data;

      @Override
      public void begin() {
        data = memory.read(src, dst.length);
      }

      @Override
      public void end() {
        System.arraycopy(data, 0, dst, 0, dst.length);
      }
    };
    return op;
  }

  /** An asynchronous copy between two addresses, device or page-locked host. */
  SimOp copy(int lane, String name, long dst, long src, int bytes) {
    SimOp op = engine.work(lane, name + " " + bytes + " B");
    readsThenWrites(op, src, dst, bytes);
    op.work = new SimOp.Work() {
      byte[] data;

      @Override
      public void begin() {
        data = memory.read(src, bytes);
      }

      @Override
      public void end() {
        memory.write(dst, data);
      }
    };
    return op;
  }

  /** Notes that {@code op} reads {@code bytes} at {@code src} and writes as many at {@code dst}. */
  private void readsThenWrites(SimOp op, long src, long dst, int bytes) {
    engine.range(op, src, bytes, false);
    engine.range(op, dst, bytes, true);
  }

  SimOp memset(int lane, long dst, byte value, int bytes) {
    SimOp op = engine.work(lane, String.format(Locale.ROOT, "memset 0x%02x %d B", value & 0xFF, bytes));
    engine.range(op, dst, bytes, true);
    op.work = new SimOp.Work() {
      @Override
      public void begin() {}

      @Override
      public void end() {
        byte[] data = new byte[bytes];
        Arrays.fill(data, value);
        memory.write(dst, data);
      }
    };
    return op;
  }
}
