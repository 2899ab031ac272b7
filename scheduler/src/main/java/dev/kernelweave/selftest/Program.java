package dev.kernelweave.selftest;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;

/**
 * A self-test program: calls in the order they reach the agent, possibly from several application
 * threads. Immutable.
 *
 * <p>Every program is well formed (see {@link #wellFormed}): buffers are used only while allocated,
 * every allocation is initialized, and the host reads page-locked memory only after the
 * application synchronized with every copy into it. Its observable result is then the same on any
 * correct device, whatever the order in which independent work runs.
 */
public final class Program {

  private final long seed;
  private final List<Op> ops;

  public Program(long seed, List<Op> ops) {
    this.seed = seed;
    this.ops = List.copyOf(ops);
  }

  /** The seed the program was generated from. */
  public long seed() {
    return seed;
  }

  public List<Op> ops() {
    return ops;
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
      s.append(String.format("  #%-3d t%d  %s%n", i, op.thread(), op.describe()));
    }
    return s.toString();
  }

  @Override
  public String toString() {
    return "program " + Long.toHexString(seed) + " (" + ops.size() + " calls)";
  }

  /** How a stream handle is printed. */
  static String stream(long stream) {
    return stream == 0 ? "stream 0 (default)" : "stream " + stream;
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
   * Drops, in one pass, every call that the calls kept before it make ill-formed: a use of a buffer
   * not (or no longer) allocated, a second allocation of a buffer number, a host read of a
   * page-locked buffer with a copy into it not yet synchronized.
   */
  public static List<Op> wellFormed(List<Op> ops) {
    List<Op> kept = new ArrayList<>(ops.size());
    Set<Integer> seen = new HashSet<>();
    Set<Integer> live = new HashSet<>();
    Set<Integer> hosts = new HashSet<>();
    // Copies into page-locked memory not yet known complete: token -> {host, stream}.
    Map<Integer, long[]> pending = new HashMap<>();
    Map<Integer, Set<Integer>> eventCovers = new HashMap<>();
    int token = 0;
    for (Op op : ops) {
      boolean ok = true;
      if (op instanceof Op.AllocHost a) {
        ok = hosts.add(a.host());
      } else if (op instanceof Op.Alloc a) {
        ok = seen.add(a.buf());
        if (ok) {
          live.add(a.buf());
        }
      } else if (op instanceof Op.Free f) {
        ok = live.remove(f.buf());
      } else if (op instanceof Op.Launch l) {
        ok = live(live, l.out()) && live(live, l.in1()) && live(live, l.in2());
      } else if (op instanceof Op.Memset m) {
        ok = live(live, m.dst());
      } else if (op instanceof Op.Write w) {
        ok = live(live, w.dst());
      } else if (op instanceof Op.Read r) {
        ok = live(live, r.src());
      } else if (op instanceof Op.ReadAsync r) {
        ok = live(live, r.src()) && hosts.contains(r.host());
        if (ok) {
          pending.put(token++, new long[] {r.host(), r.stream()});
        }
      } else if (op instanceof Op.Copy c) {
        ok = live(live, c.dst()) && live(live, c.src());
      } else if (op instanceof Op.SyncContext) {
        pending.clear();
      } else if (op instanceof Op.StreamSync s) {
        pending.values().removeIf(p -> p[1] == s.stream());
      } else if (op instanceof Op.EventRecord e) {
        Set<Integer> covers = new HashSet<>();
        pending.forEach((t, p) -> {
          if (p[1] == e.stream()) {
            covers.add(t);
          }
        });
        eventCovers.put(e.event(), covers);
      } else if (op instanceof Op.EventSync e) {
        pending.keySet().removeAll(eventCovers.getOrDefault(e.event(), Set.of()));
      } else if (op instanceof Op.ObserveHost o) {
        ok = hosts.contains(o.host()) && pending.values().stream().noneMatch(p -> p[0] == o.host());
      }
      if (ok) {
        kept.add(op);
      }
    }
    return kept;
  }

  private static boolean live(Set<Integer> live, Op.At at) {
    return at == null || live.contains(at.buf());
  }
}
