package dev.kernelweave.interceptor;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Actions that run when the program's calls reach given counts: the JIT warm-up starts once the
 * program is past {@code cuInit} and stops once its own calls are many. A call pays one volatile
 * read and one compare ({@link #due}) until the last milestone has passed.
 *
 * <p>Thread-safe. Each action runs once, on the thread of the first call that finds it due, outside
 * any lock; calls numbered concurrently may reach a milestone in either order, and the later number
 * then runs it.
 */
final class CallMilestones {

  private final TreeMap<Long, List<Runnable>> pending = new TreeMap<>();
  /** The smallest count pending, {@link Long#MAX_VALUE} when none is. */
  private volatile long next = Long.MAX_VALUE;

  /** Runs {@code action} when call number {@code call} (counted from 1) or a later one begins. */
  synchronized void at(long call, Runnable action) {
    pending.computeIfAbsent(call, c -> new ArrayList<>()).add(action);
    next = pending.firstKey();
  }

  /** Whether call number {@code call} must run {@link #reached}. */
  boolean due(long call) {
    return call >= next;
  }

  /** Runs every action due at call number {@code call} and not run yet. */
  void reached(long call) {
    List<Runnable> run = new ArrayList<>();
    synchronized (this) {
      Map<Long, List<Runnable>> due = pending.headMap(call, true);
      due.values().forEach(run::addAll);
      due.clear();
      next = pending.isEmpty() ? Long.MAX_VALUE : pending.firstKey();
    }
    for (Runnable r : run) {
      r.run();
    }
  }
}
