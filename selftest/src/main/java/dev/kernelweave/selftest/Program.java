package dev.kernelweave.selftest;

import dev.kernelweave.call.PriorityClass;
import dev.kernelweave.scheduler.Scheduler;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;

/**
 * A self-test program: calls in the order they reach the agent, possibly from several application
 * threads, and the shapes the generator put in it. Immutable.
 *
 * <p>Every program is well formed (see {@link #wellFormed}) by CUDA's own semantics ({@link
 * CudaOrder}), never by what the agent happens to do: buffers are used only while allocated, and
 * the host reads host memory only after a call that CUDA documents to complete every device write
 * into it, and writes it only once CUDA completed every device use of it. Its observable result is
 * then the same on any correct device, whatever the order in which independent work runs.
 */
public final class Program {

  private final long seed;
  private final List<Op> ops;
  private final Map<Shape, Integer> shapes;

  public Program(long seed, List<Op> ops) {
    this(seed, ops, Map.of());
  }

  /** @param shapes how many times the generator made each shape (calls may since have been dropped) */
  public Program(long seed, List<Op> ops, Map<Shape, Integer> shapes) {
    this.seed = seed;
    this.ops = List.copyOf(ops);
    this.shapes = shapes.isEmpty() ? Map.of() : Collections.unmodifiableMap(new EnumMap<>(shapes));
  }

  /**
   * The priority class of application thread {@code thread}'s calls: fixed by the program's seed,
   * so that a shrunk program keeps its threads' classes, and mixed, so that programs have threads
   * of every class depending on one another.
   */
  public PriorityClass priorityOf(int thread) {
    long h = (seed + thread) * 0x9E3779B97F4A7C15L;
    return PriorityClass.ofOrdinal((int) Long.remainderUnsigned(h ^ (h >>> 29), PriorityClass.values().length));
  }

  /** The seed the program was generated from. */
  public long seed() {
    return seed;
  }

  public List<Op> ops() {
    return ops;
  }

  /** How many times the generator made each shape in this program. */
  public Map<Shape, Integer> shapes() {
    return shapes;
  }

  public int size() {
    return ops.size();
  }

  /** The same program with only the calls at {@code keep}, made well formed again. */
  public Program subset(List<Op> keep) {
    return new Program(seed, wellFormed(keep));
  }

  /** One line per call, numbered. */
  public String describe() {
    StringBuilder s = new StringBuilder();
    for (int i = 0; i < ops.size(); i++) {
      Op op = ops.get(i);
      s.append(String.format("  #%-3d t%d %-6s  %s%n", i, op.thread(), priorityOf(Math.max(op.thread(), 0)).label(),
          op.describe()));
    }
    return s.toString();
  }

  @Override
  public String toString() {
    return "program " + Long.toHexString(seed) + " (" + ops.size() + " calls)";
  }

  /** How a stream handle is printed. */
  static String stream(long stream) {
    if (stream == 0) {
      return "stream 0 (default)";
    }
    if (stream == Scheduler.LEGACY_HANDLE) {
      return "stream 0x1 (legacy)";
    }
    if (stream == Scheduler.PER_THREAD_HANDLE) {
      return "stream 0x2 (per-thread)";
    }
    return "stream " + stream;
  }

  /** The {@code elements} 32-bit values of data {@code dataSeed}, little-endian. */
  public static byte[] data(long dataSeed, int elements) {
    SplittableRandom random = new SplittableRandom(dataSeed);
    byte[] bytes = new byte[elements * 4];
    for (int i = 0; i < elements; i++) {
      int v = random.nextInt();
      bytes[4 * i] = (byte) v;
      bytes[4 * i + 1] = (byte) (v >>> 8);
      bytes[4 * i + 2] = (byte) (v >>> 16);
      bytes[4 * i + 3] = (byte) (v >>> 24);
    }
    return bytes;
  }

  /**
   * Drops, in one pass, every call that the calls kept before it make ill-formed by CUDA's
   * semantics: a use of a buffer not (or no longer) allocated, a second allocation of a buffer
   * number, a host read of host memory with a device write into it that CUDA has not completed for
   * the host, a host write of host memory with a device use not completed, a device use of host
   * memory that a host function touches without CUDA ordering it after that function, a launch
   * reading the constant before anything wrote it, a host function waiting for a gate the host never
   * opens later, and, while such a gate is closed, every call that blocks the host (CUDA might wait
   * for the host function, which waits for the host).
   */
  public static List<Op> wellFormed(List<Op> ops) {
    return new WellFormed(ops).kept;
  }

  /** One pass of {@link #wellFormed}. */
  private static final class WellFormed {
    final List<Op> kept = new ArrayList<>();
    final CudaOrder cuda = new CudaOrder();
    final Set<Integer> seen = new HashSet<>();
    final Set<Integer> live = new HashSet<>();
    final Set<Integer> hosts = new HashSet<>();
    /** Device accesses to host memory: {host, from, to, writes (0/1), by a host function (0/1)} and the token. */
    final List<long[]> hostUses = new ArrayList<>();
    final List<CudaOrder.Token> hostUseTokens = new ArrayList<>();
    /** Per gate, the index of the last call that opens it. */
    final Map<Integer, Integer> lastOpening = new HashMap<>();
    final Set<Integer> gatesUsed = new HashSet<>();
    final Set<Integer> closedGates = new HashSet<>();
    boolean constantWritten;
    int index;

    WellFormed(List<Op> ops) {
      for (int i = 0; i < ops.size(); i++) {
        if (ops.get(i) instanceof Op.OpenGate g) {
          lastOpening.put(g.gate(), i);
        }
      }
      for (index = 0; index < ops.size(); index++) {
        Op op = ops.get(index);
        if (keep(op)) {
          kept.add(op);
        }
      }
    }

    boolean keep(Op op) {
      int t = op.thread();
      if (!closedGates.isEmpty() && blocksHost(op)) {
        return false;
      }
      if (op instanceof Op.AllocHost a) {
        return hosts.add(a.host());
      } else if (op instanceof Op.CreateStream c) {
        cuda.created(c.stream(), c.nonBlocking());
      } else if (op instanceof Op.Alloc a) {
        if (!seen.add(a.buf())) {
          return false;
        }
        live.add(a.buf());
        cuda.synchronousCopy(t);
      } else if (op instanceof Op.Free f) {
        return live.remove(f.buf());
      } else if (op instanceof Op.Launch l) {
        if (!live(l.out()) || !live(l.in1()) || !live(l.in2())) {
          return false;
        }
        if (l.mode() == Op.LaunchMode.OPAQUE) {
          cuda.enqueue(0, t); // a library's work on the legacy stream
        } else {
          cuda.enqueue(l.stream(), t);
        }
      } else if (op instanceof Op.Memset m) {
        if (!live(m.dst())) {
          return false;
        }
        cuda.enqueue(m.sync() ? 0 : m.stream(), t);
      } else if (op instanceof Op.Write w) {
        if (!live(w.dst())) {
          return false;
        }
        cuda.synchronousCopy(t);
      } else if (op instanceof Op.Read r) {
        if (!live(r.src())) {
          return false;
        }
        cuda.synchronousCopy(t);
      } else if (op instanceof Op.ReadAsync r) {
        return live(r.src()) && deviceUsesHost(op, r.stream(), t, r.host(), r.hostOffset(), r.n(), true, false);
      } else if (op instanceof Op.WriteAsync w) {
        return live(w.dst()) && deviceUsesHost(op, w.stream(), t, w.host(), w.hostOffset(), w.n(), false, false);
      } else if (op instanceof Op.LaunchIntoHost l) {
        return live(l.in()) && deviceUsesHost(op, l.stream(), t, l.host(), l.hostOffset(), l.n(), true, false);
      } else if (op instanceof Op.HostFunction h) {
        if (h.gate() >= 0 && (lastOpening.getOrDefault(h.gate(), -1) < index || !gatesUsed.add(h.gate()))) {
          return false;
        }
        if (!hosts.contains(h.srcHost()) || !hosts.contains(h.dstHost())
            || conflictsWithHostFunction(h.stream(), t, h.srcHost(), h.srcOffset(), h.n(), false)
            || conflictsWithHostFunction(h.stream(), t, h.dstHost(), h.dstOffset(), h.n(), true)) {
          return false;
        }
        CudaOrder.Token token = cuda.enqueue(h.stream(), t);
        noteHostUse(token, h.srcHost(), h.srcOffset(), h.n(), false, true);
        noteHostUse(token, h.dstHost(), h.dstOffset(), h.n(), true, true);
        if (h.gate() >= 0) {
          closedGates.add(h.gate());
        }
      } else if (op instanceof Op.OpenGate g) {
        closedGates.remove(g.gate());
      } else if (op instanceof Op.Copy c) {
        if (!live(c.dst()) || !live(c.src())) {
          return false;
        }
        cuda.enqueue(c.stream(), t);
      } else if (op instanceof Op.WriteConstant) {
        constantWritten = true;
        cuda.synchronousCopy(t);
      } else if (op instanceof Op.LaunchReadingConstant l) {
        if (!constantWritten || !live(l.out())) {
          return false;
        }
        cuda.enqueue(l.stream(), t);
      } else if (op instanceof Op.LaunchWithoutPtx l) {
        if (!live(l.slot()) || !live(l.target())) {
          return false;
        }
        cuda.synchronousCopy(t);
        cuda.enqueue(l.stream(), t);
      } else if (op instanceof Op.SyncContext) {
        cuda.contextSynchronized();
      } else if (op instanceof Op.StreamSync s) {
        cuda.streamSynchronized(s.stream(), t);
      } else if (op instanceof Op.EventRecord e) {
        cuda.record(e.event(), e.stream(), t);
      } else if (op instanceof Op.StreamWaitEvent w) {
        cuda.waitFor(w.stream(), t, w.event());
      } else if (op instanceof Op.EventSync e) {
        cuda.eventSynchronized(e.event());
      } else if (op instanceof Op.HostWrite w) {
        return hosts.contains(w.host()) && hostMayTouch(w.host(), w.offset(), w.offset() + w.n(), true);
      } else if (op instanceof Op.ObserveHost o) {
        return hosts.contains(o.host()) && hostMayTouch(o.host(), 0, Integer.MAX_VALUE, false);
      }
      return true;
    }

    /** A device call using host memory: kept when no host function's use of it races with it. */
    boolean deviceUsesHost(Op op, long stream, int thread, int host, int offset, int n, boolean writes,
        boolean hostFunction) {
      if (!hosts.contains(host) || conflictsWithHostFunction(stream, thread, host, offset, n, writes)) {
        return false;
      }
      noteHostUse(cuda.enqueue(stream, thread), host, offset, n, writes, hostFunction);
      return true;
    }

    /**
     * Whether a use of host memory on {@code stream} would race with a host function's use that CUDA
     * neither completed nor orders before it: the agent cannot see what a host function touches.
     */
    boolean conflictsWithHostFunction(long stream, int thread, int host, int offset, int n, boolean writes) {
      for (int i = 0; i < hostUses.size(); i++) {
        long[] u = hostUses.get(i);
        CudaOrder.Token token = hostUseTokens.get(i);
        if (u[4] == 1 && u[0] == host && u[1] < offset + n && offset < u[2] && (writes || u[3] == 1)
            && !cuda.complete(token) && !cuda.orderedAfter(token, stream, thread)) {
          return true;
        }
      }
      return false;
    }

    /** Whether the host may read (or write) {@code [from, to)} of host buffer {@code host} now. */
    boolean hostMayTouch(int host, long from, long to, boolean writes) {
      for (int i = 0; i < hostUses.size(); i++) {
        long[] u = hostUses.get(i);
        if (u[0] == host && u[1] < to && from < u[2] && (writes || u[3] == 1) && !cuda.complete(hostUseTokens.get(i))) {
          return false;
        }
      }
      return true;
    }

    void noteHostUse(CudaOrder.Token token, int host, int offset, int n, boolean writes, boolean hostFunction) {
      hostUses.add(new long[] {host, offset, offset + n, writes ? 1 : 0, hostFunction ? 1 : 0});
      hostUseTokens.add(token);
    }

    boolean live(Op.At at) {
      return at == null || live.contains(at.buf());
    }

    /** Calls that block the host until CUDA completes work that may include a waiting host function. */
    static boolean blocksHost(Op op) {
      return op instanceof Op.Alloc || op instanceof Op.Free || op instanceof Op.Write || op instanceof Op.Read
          || op instanceof Op.WriteConstant || op instanceof Op.LaunchWithoutPtx || op instanceof Op.SyncContext
          || op instanceof Op.StreamSync || op instanceof Op.EventSync
          || (op instanceof Op.Launch l && l.mode() == Op.LaunchMode.OPAQUE);
    }
  }

}
