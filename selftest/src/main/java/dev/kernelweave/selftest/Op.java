package dev.kernelweave.selftest;

import java.util.Locale;

/**
 * One call of a self-test program, as the application would make it. Device buffers ({@code b3})
 * and page-locked host buffers ({@code h1}) are named by number; ranges are in 32-bit elements.
 * Application streams are handles ({@code 0} and {@code 0x1}: the legacy default stream, {@code 0x2}:
 * the calling thread's per-thread default stream, others created by {@link CreateStream}, or taken
 * for blocking streams when never created); application events are numbers.
 * {@code thread} is the application thread that makes the call; the program's order is the order
 * in which calls reach the agent.
 */
public sealed interface Op {

  /** The application thread making the call. */
  int thread();

  /** One readable line. */
  String describe();

  /** Where a range starts: buffer {@code buf}, element {@code offset}. */
  record At(int buf, int offset) {
    String describe(int n) {
      return "b" + buf + "[" + offset + ".." + (offset + n) + ")";
    }
  }

  /** How the agent sees a launch. */
  enum LaunchMode {
    /** Read and write sets known (from PTX). */
    PRECISE,
    /** Nothing known about the parameters: every pointer read-write. */
    CONSERVATIVE,
    /** A parameter points into unknown memory: the agent makes the launch a barrier. */
    UNKNOWN_POINTER,
    /** A library call the agent does not understand, issued by the library on the legacy stream. */
    OPAQUE,
    /** The real launch fails (say, too many resources requested): nothing runs. */
    FAILS
  }

  /**
   * Host memory the device reaches directly, zeroed: {@code cuMemAllocHost} (page-locked, and mapped
   * under unified addressing), or with {@code registered} ordinary memory made page-locked by
   * {@code cuMemHostRegister}.
   */
  record AllocHost(int thread, int host, int elements, boolean registered) implements Op {
    @Override
    public String describe() {
      return (registered ? "hostRegister h" : "allocHost h") + host + " " + elements + " elements";
    }
  }

  /** {@code cuStreamCreate(stream, flags)}: blocking (flags 0) or {@code CU_STREAM_NON_BLOCKING}. */
  record CreateStream(int thread, long stream, boolean nonBlocking) implements Op {
    @Override
    public String describe() {
      return "streamCreate " + Program.stream(stream) + (nonBlocking ? " non-blocking" : " blocking");
    }
  }

  /** A device allocation, initialized at once with a synchronous copy of data made from {@code dataSeed}. */
  record Alloc(int thread, int buf, int elements, long dataSeed) implements Op {
    @Override
    public String describe() {
      return "alloc b" + buf + " " + elements + " elements, then copyHtoD of data#" + Long.toHexString(dataSeed & 0xFFFF);
    }
  }

  record Free(int thread, int buf) implements Op {
    @Override
    public String describe() {
      return "free b" + buf;
    }
  }

  /** A kernel launch; {@code in1}, {@code in2} are null when the kernel does not read them. */
  record Launch(int thread, long stream, SelfTestKernel kernel, At out, At in1, At in2, int n, int k, LaunchMode mode)
      implements Op {
    @Override
    public String describe() {
      StringBuilder s = new StringBuilder();
      s.append(mode == LaunchMode.OPAQUE ? "opaque " : "launch ").append(kernel).append(' ');
      s.append(out.describe(kernel.outElements(n)));
      if (in1 != null) {
        s.append(kernel.outMode().reads() ? " <-> " : " <- ").append(in1.describe(n));
      }
      if (in2 != null) {
        s.append(", ").append(in2.describe(n));
      }
      s.append(String.format(Locale.ROOT, "  k=0x%08x", k));
      if (mode != LaunchMode.OPAQUE) {
        s.append("  ").append(Program.stream(stream));
      }
      if (mode == LaunchMode.CONSERVATIVE) {
        s.append("  (parameters unknown: all RW)");
      } else if (mode == LaunchMode.UNKNOWN_POINTER) {
        s.append("  (a pointer into unknown memory)");
      } else if (mode == LaunchMode.FAILS) {
        s.append("  (fails: nothing runs)");
      }
      return s.toString();
    }
  }

  /** {@code cuMemsetD8} ({@code sync}, on the legacy stream as written) or {@code cuMemsetD8Async}. */
  record Memset(int thread, long stream, boolean sync, At dst, int n, byte value) implements Op {
    @Override
    public String describe() {
      return (sync ? "memset " : "memsetAsync ") + dst.describe(n) + String.format(Locale.ROOT, " = 0x%02x", value & 0xFF)
          + (sync ? "" : "  " + Program.stream(stream));
    }
  }

  /** A synchronous copy of data made from {@code dataSeed} into device memory. */
  record Write(int thread, At dst, int n, long dataSeed) implements Op {
    @Override
    public String describe() {
      return "copyHtoD " + dst.describe(n) + " <- data#" + Long.toHexString(dataSeed & 0xFFFF);
    }
  }

  /** A synchronous copy to a Java array: what it returns is observed. */
  record Read(int thread, At src, int n) implements Op {
    @Override
    public String describe() {
      return "copyDtoH " + src.describe(n) + "  (observed)";
    }
  }

  /** An asynchronous copy into page-locked memory; observed later, after a synchronization. */
  record ReadAsync(int thread, long stream, int host, int hostOffset, At src, int n) implements Op {
    @Override
    public String describe() {
      return "copyDtoHAsync h" + host + "[" + hostOffset + ".." + (hostOffset + n) + ") <- " + src.describe(n) + "  "
          + Program.stream(stream);
    }
  }

  /** An asynchronous device-to-device copy. */
  record Copy(int thread, long stream, At dst, At src, int n) implements Op {
    @Override
    public String describe() {
      return "copyDtoDAsync " + dst.describe(n) + " <- " + src.describe(n) + "  " + Program.stream(stream);
    }
  }

  /** {@code cuCtxSynchronize}. */
  record SyncContext(int thread) implements Op {
    @Override
    public String describe() {
      return "ctxSynchronize";
    }
  }

  /** {@code cuStreamSynchronize}. */
  record StreamSync(int thread, long stream) implements Op {
    @Override
    public String describe() {
      return "streamSynchronize " + Program.stream(stream);
    }
  }

  /** {@code cuEventRecord}. */
  record EventRecord(int thread, int event, long stream) implements Op {
    @Override
    public String describe() {
      return "eventRecord e" + event + "  " + Program.stream(stream);
    }
  }

  /** {@code cuEventSynchronize}. */
  record EventSync(int thread, int event) implements Op {
    @Override
    public String describe() {
      return "eventSynchronize e" + event;
    }
  }

  /** {@code cuStreamWaitEvent}: later work on {@code stream} waits for what the event's last record stands for. */
  record StreamWaitEvent(int thread, long stream, int event) implements Op {
    @Override
    public String describe() {
      return "streamWaitEvent " + Program.stream(stream) + " e" + event;
    }
  }

  /** The host writes data made from {@code dataSeed} into host buffer {@code host} directly. */
  record HostWrite(int thread, int host, int offset, int n, long dataSeed) implements Op {
    @Override
    public String describe() {
      return "host writes h" + host + "[" + offset + ".." + (offset + n) + ") <- data#" + Long.toHexString(dataSeed & 0xFFFF);
    }
  }

  /** {@code cuMemcpyHtoDAsync} from host buffer {@code host}. */
  record WriteAsync(int thread, long stream, At dst, int host, int hostOffset, int n) implements Op {
    @Override
    public String describe() {
      return "copyHtoDAsync " + dst.describe(n) + " <- h" + host + "[" + hostOffset + ".." + (hostOffset + n) + ")  "
          + Program.stream(stream);
    }
  }

  /**
   * A launch of {@link SelfTestKernel#SCALE} whose output is host buffer {@code host}, through its mapped
   * address: the device writes host memory directly.
   */
  record LaunchIntoHost(int thread, long stream, int host, int hostOffset, At in, int n, int k) implements Op {
    @Override
    public String describe() {
      return "launch SCALE h" + host + "[" + hostOffset + ".." + (hostOffset + n) + ") (mapped) <- " + in.describe(n)
          + String.format(Locale.ROOT, "  k=0x%08x  ", k) + Program.stream(stream);
    }
  }

  /** {@code cuMemcpyHtoD} of data made from {@code dataSeed} into the module's {@code __constant__} words. */
  record WriteConstant(int thread, long dataSeed) implements Op {
    @Override
    public String describe() {
      return "copyHtoD constant <- data#" + Long.toHexString(dataSeed & 0xFFFF);
    }
  }

  /**
   * A launch of a kernel that reads the module's {@code __constant__} words, which no parameter
   * names: {@code out[i] = (k ^ constant[0]) + i * 0x9E3779B9}. The agent knows its use of the
   * constant from its PTX.
   */
  record LaunchReadingConstant(int thread, long stream, At out, int n, int k) implements Op {
    @Override
    public String describe() {
      return "launch FILL_FROM_CONSTANT " + out.describe(n) + String.format(Locale.ROOT, "  k=0x%08x  ", k)
          + Program.stream(stream);
    }
  }

  /**
   * A synchronous copy of the address of {@code target} into {@code slot} (8 bytes), then a launch
   * of a kernel whose code the agent cannot read (no PTX) with {@code slot} as its only parameter: it
   * writes {@code target[i] = k + i * 0x9E3779B9} through the stored pointer.
   */
  record LaunchWithoutPtx(int thread, long stream, At slot, At target, int n, int k) implements Op {
    @Override
    public String describe() {
      return "copyHtoD " + slot.describe(2) + " <- &" + target.describe(n) + "; launch FILL_INDIRECT (no PTX) through "
          + slot.describe(2) + String.format(Locale.ROOT, "  k=0x%08x  ", k) + Program.stream(stream);
    }
  }

  /**
   * {@code cuLaunchHostFunc}: once the stream reaches it, and, when {@code gate} is not negative,
   * once the host opened that gate, the function sets {@code dst[i] = src[i] * 5 + 1} on host memory.
   */
  record HostFunction(int thread, long stream, int gate, int srcHost, int srcOffset, int dstHost, int dstOffset, int n)
      implements Op {
    @Override
    public String describe() {
      return "launchHostFunc h" + dstHost + "[" + dstOffset + ".." + (dstOffset + n) + ") <- h" + srcHost + "["
          + srcOffset + ".." + (srcOffset + n) + ")" + (gate >= 0 ? " once gate " + gate + " opens" : "") + "  "
          + Program.stream(stream);
    }
  }

  /** The host action a host function waits for: opens {@code gate}. */
  record OpenGate(int thread, int gate) implements Op {
    @Override
    public String describe() {
      return "host opens gate " + gate;
    }
  }

  /** The host reads a page-locked buffer directly: observed. */
  record ObserveHost(int thread, int host) implements Op {
    @Override
    public String describe() {
      return "host reads h" + host + "  (observed)";
    }
  }
}
