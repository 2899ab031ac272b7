package dev.kernelweave.interceptor;

import dev.kernelweave.call.CallKind;
import dev.kernelweave.call.PriorityClass;
import dev.kernelweave.calltable.CudaCall;
import dev.kernelweave.calltable.HostBlocking;
import dev.kernelweave.calltable.WindowEffect;
import dev.kernelweave.interceptor.jcuda.JCudaNatives;
import dev.kernelweave.journal.RunEnd;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import jcuda.driver.CUcontext;
import jcuda.driver.CUstreamCaptureMode;

/**
 * When the agent starts scheduling: until it <em>engages</em>, the program's device work and host
 * waits run exactly as written, untracked and unjournaled, and only what the agent must know later
 * (allocations, modules, contexts, streams, events, cuBLAS handles) goes through the interception.
 * Why: before the JIT has compiled the interception, each tracked call costs tens of microseconds
 * of interpreted code, more than a short program's launches gain from the agent; an untracked call
 * costs about one. Engaged where the program runs many launches in a row (where graphs pay even
 * interpreted), once it has made enough calls to pay for the tracked path's start ({@code
 * engage=auto}, the default), once the warm-up says the interception is compiled ({@code
 * engage=when-warm}), or before a stream capture; disengaged for good where a stream waits for a
 * value in memory or threads contend ({@link #disengage}). Before it, a program gets CUDA's order
 * and no more: calls on
 * streams CUDA leaves unordered are not ordered by the bytes they touch, so a program that races as
 * written races as it does without the agent.
 *
 * <p><b>The hand-over keeps every order CUDA promises.</b> A call the agent tracks must come after
 * the work of every untracked call that precedes it in the program (the same thread before it, or
 * another thread whose call returned before it began). {@link #engage} marks the agent engaged,
 * then, in every context an untracked call ran in, orders each stream's later work after all work
 * issued on it so far, device-side: the legacy and blocking streams' after the legacy stream's
 * (which CUDA orders after every blocking and per-thread stream's), each non-blocking stream's after
 * its own ({@link #catchUp}), and only then lets tracked calls
 * through ({@link #caughtUp}). Work the agent leaves on the program's own streams, and its host
 * waits, which are the program's own stream or context synchronizations, follow that work as
 * CUDA orders them. An untracked call still in progress at the mark makes its context's streams
 * follow their work once more before it returns to the program ({@link #untrackedCallEnded}), so
 * that its work comes before anything that follows it. No thread waits for the program's earlier
 * work at the mark.
 *
 * <p>Thread-safe: {@link #engaged} and {@link #caughtUp} are volatile and only ever go from false
 * to true; {@link #engage} runs under this object's lock.
 */
final class Engagement {

  /**
   * Launches in a row, with no other call of the thread between them, that engage the agent at once:
   * a window a graph pays for even before the JIT. On an H100, with the agent engaged from the first
   * call, a short run of {@code dynamic} (17 launches between read-backs) ran 2.1 times as fast as
   * without it, and {@code pipeline} (3) and {@code jacobi} (a few) at 0.6 to 0.9 of their speed;
   * on an H200, {@code pipeline-async} (16 batches of a copy in, 3 launches and a copy out between
   * two waits) at 0.68 when a host wait alone ended the run.
   */
  static final int LAUNCHES_WORTH_A_GRAPH = 16;
  /**
   * Calls made as written after which {@code engage=auto} engages where no run of launches did: a
   * program this long pays for the tracked path's start (tens of microseconds a call until the JIT
   * has compiled it, which takes thousands of calls) with a small share of its time.
   */
  static final long CALLS_OF_A_LONG_PROGRAM = 10_000;

  private volatile boolean engaged;
  /** Engaged, and every untracked call's work before the mark complete: tracked calls may be placed. */
  volatile boolean caughtUp;
  /** Whether any call ran untracked: until then, the end of an untracked call has nothing to do. */
  private volatile boolean everAsWritten;
  /** Engages after this many untracked calls; {@link Long#MAX_VALUE} when only the warm-up or the program's shape decide. */
  private volatile long engageAfterCalls = Long.MAX_VALUE;
  /** Whether a run of {@link #LAUNCHES_WORTH_A_GRAPH} launches engages: where no count was given. */
  private volatile boolean engagesOnLaunchRuns;
  private final AtomicLong asWrittenCalls = new AtomicLong();
  /**
   * The calls made as written just before the count engages the agent in which {@link
   * #threadsCallAtOnce} looks for threads calling at once; the calls before them pay nothing for it.
   */
  static final int OVERLAP_SAMPLE_CALLS = 2048;
  /** Sampled calls made as written that queue work and are in progress now, on every thread. */
  private final AtomicInteger asWrittenInProgress = new AtomicInteger();
  /** Sampled calls made as written that began while another thread's such call was in progress. */
  private final AtomicLong overlappingCalls = new AtomicLong();
  /** Whether a sampled call's thread is of a priority class other than normal: the agent serves its priority. */
  private volatile boolean prioritizedCalls;
  /** Why the count of calls last started again instead of engaging; null where it never did. */
  private volatile String notEngagedBecause;
  /**
   * Stopped for good ({@link #disengage}): every call that runs as written before engagement, and
   * every event call, runs as written again; set before {@link #handedBack}.
   */
  private volatile boolean disengaged;
  /** Disengaged, and every context's streams made to follow the agent's work: untracked calls may run. */
  private volatile boolean handedBack;
  /** What stops with scheduling: the JIT warm-up, which only the scheduled calls need. */
  private final List<Runnable> whenHandedBack = new CopyOnWriteArrayList<>();
  /** The call made as written at which {@link #atCallMadeAsWritten} runs its action; none where {@link Long#MAX_VALUE}. */
  private volatile long actionAtCallMadeAsWritten = Long.MAX_VALUE;
  private volatile Runnable atCallMadeAsWritten;
  /** What starts with scheduling where engagement was deferred: the JIT warm-up, under {@code engage=auto}. */
  private final List<Runnable> whenEngaged = new CopyOnWriteArrayList<>();
  /** Why the agent engaged after calls made as written; null while it has not, or where it did not wait. */
  private volatile String engagedBecause;
  /** Why the agent stopped scheduling for good; null while it schedules. */
  private volatile String handedBackBecause;
  /** Contexts untracked calls ran in, whose streams follow that work at the hand-over. */
  private final Set<Long> contexts = ConcurrentHashMap.newKeySet();

  /** Engaged from the start: every call is tracked, as without deferral. */
  Engagement() {
    engaged = true;
    caughtUp = true;
  }

  /**
   * Defers engagement until {@link #engage}, or until {@code afterCalls} calls ran untracked (none
   * where 0), or, where {@code onLaunchRuns}, until a run of {@link #LAUNCHES_WORTH_A_GRAPH} launches
   * in a row. Called at activation, before the program's first call.
   */
  synchronized void defer(long afterCalls, boolean onLaunchRuns) {
    engageAfterCalls = afterCalls > 0 ? afterCalls : Long.MAX_VALUE;
    engagesOnLaunchRuns = onLaunchRuns;
    caughtUp = false;
    engaged = false;
  }

  /**
   * Called by {@link Calls#begin} while not {@link #caughtUp}: true when the call runs untracked (the
   * thread is then marked as in an untracked call, ended by {@link #untrackedCallEnded}); false when
   * it is tracked, once tracked calls may be placed.
   */
  boolean runsAsWritten(CallThread t, CudaCall row) {
    boolean asWritten = row.runsAsWrittenUntilEngaged();
    if (disengaged) {
      if (!asWritten && row.kind() != CallKind.EVENT) {
        return false;
      }
      await(true);
      markAsWritten(t);
      joinHandOverOntoPerThreadStream(t);
      return true;
    }
    if (!engaged) {
      if (asWritten) {
        if (!shouldEngageAt(t, row)) {
          markAsWritten(t);
          if (t.asWrittenInProgress) {
            asWrittenInProgress.incrementAndGet();
          }
          return true;
        }
        t.asWrittenInProgress = false;
      } else if (row.engagesTheAgent()) {
        engage("a stream capture");
      } else {
        // Allocations, modules, contexts, streams, events, handles: tracked from the first.
        return false;
      }
    }
    await(false);
    return false;
  }

  /**
   * After the hand-back, before a call made as written: the thread's per-thread default stream
   * waits for its work the agent moved ({@link dev.kernelweave.scheduler.Dispatch#joinHandOverOntoThisThread}).
   */
  private static void joinHandOverOntoPerThreadStream(CallThread t) {
    ContextScheduling cs = t.state.contexts.get(t.context());
    if (cs == null) {
      return;
    }
    try {
      cs.dispatch.joinHandOverOntoThisThread(t.id);
    } catch (Throwable e) {
      AgentLog.debug("a per-thread default stream could not join the work handed back: " + e);
    }
  }

  /** Marks the thread as in an untracked call, ended by {@link #untrackedCallEnded}. */
  private void markAsWritten(CallThread t) {
    t.asWritten = true;
    t.depth = 1;
    noteContext(t);
    if (!everAsWritten) {
      everAsWritten = true;
    }
  }

  /** Keeps the context of the thread's untracked call for the hand-over; none yet is asked again at the call's end. */
  private void noteContext(CallThread t) {
    long c = t.context();
    if (c != t.asWrittenContext) {
      if (c != 0) {
        contexts.add(c);
      }
      t.asWrittenContext = c;
    }
  }

  /** Counts the untracked call and engages where the program's shape or the count says so. */
  private boolean shouldEngageAt(CallThread t, CudaCall row) {
    long n = asWrittenCalls.incrementAndGet();
    if (n == actionAtCallMadeAsWritten) {
      atCallMadeAsWritten.run(); // n is this call's alone: once
    }
    // Only engage=auto's count gives way to threads calling at once, and only where they would be
    // handed back; a call past the count is always sampled.
    boolean sampled = n > engageAfterCalls - OVERLAP_SAMPLE_CALLS && engagesOnLaunchRuns;
    if (sampled) {
      if (asWrittenInProgress.get() > 0) {
        overlappingCalls.incrementAndGet();
      }
      if (!prioritizedCalls && t.priority(t.state.settings.priorities()) != PriorityClass.NORMAL) {
        prioritizedCalls = true;
      }
      // Host waits are left out: the agent waits outside its lock too, and a thread waiting for its
      // results while another launches is no pool of threads launching at once.
      t.asWrittenInProgress = row.blocksHost() == HostBlocking.NO;
    }
    if (n > engageAfterCalls) {
      if (sampled && threadsCallAtOnce(n)) {
        return false;
      }
      asWrittenCalls.decrementAndGet(); // this call is the first tracked one
      if (engagesOnLaunchRuns) {
        // The count, not n - 1: threads passing it at once each have their own n.
        engage("a long program: " + engageAfterCalls + " calls made as written", false);
      } else {
        engage("the engage option's count of calls");
      }
      return true;
    }
    if (!engagesOnLaunchRuns) {
      return false;
    }
    if (row.windows() == WindowEffect.MAY_BE_HELD) {
      if (++t.asWrittenLaunchRun >= LAUNCHES_WORTH_A_GRAPH) {
        asWrittenCalls.decrementAndGet();
        engage(LAUNCHES_WORTH_A_GRAPH + " launches in a row");
        return true;
      }
    } else {
      // Any other call (a copy, a memset, an event, a wait) ends a window once engaged: launches
      // between copies make windows of a few launches, which a graph does not pay for.
      t.asWrittenLaunchRun = 0;
    }
    return false;
  }

  /**
   * Whether the program, long enough to engage by its count of calls, is a pool of threads calling at
   * once (half or more of the last {@link #OVERLAP_SAMPLE_CALLS} calls began while another thread's
   * call that does not wait for the device was in progress), with no run of {@link
   * #LAUNCHES_WORTH_A_GRAPH} launches and every thread of normal priority: then the count starts
   * again and the calls keep running as written. Engaged, such a program waits for each other's
   * calls in the agent and replays only short windows (and, with {@code handback=on}, is handed back
   * after paying for the engagement and the waits): on an H200, 16 threads serving requests through one
   * context ran at 0.77 of their speed for it in a short run. A thread of another priority class
   * engages the agent as before: only the agent gives it its priority, and it is never handed back.
   * A program whose threads call one by one, or that turns into one, engages at a later count.
   */
  private synchronized boolean threadsCallAtOnce(long n) {
    if (n <= engageAfterCalls) {
      return true; // another thread's call started the count again meanwhile
    }
    long calls = OVERLAP_SAMPLE_CALLS;
    long overlapping = overlappingCalls.getAndSet(0);
    if (overlapping * 2 < calls || prioritizedCalls) {
      return false;
    }
    engageAfterCalls = n + CALLS_OF_A_LONG_PROGRAM;
    notEngagedBecause = overlapping + " of the last " + calls + " calls made as written began while another thread"
        + " queued work, and no thread made " + LAUNCHES_WORTH_A_GRAPH + " launches in a row";
    AgentLog.debug("not scheduling yet: " + notEngagedBecause);
    return true;
  }

  /**
   * The end of a call that returned a null record ({@link Calls#end}): where it was an untracked
   * call, clears the thread's mark, and where the agent engaged while it was in progress,
   * synchronizes its context before it returns (see the class comment).
   */
  static void untrackedCallEnded() {
    AgentState s = AgentState.current();
    Engagement e = s.engagement;
    if (!e.everAsWritten) {
      return;
    }
    CallThread t = s.threads.current();
    if (!t.asWritten) {
      return;
    }
    if (t.asWrittenNested > 0) {
      t.asWrittenNested--;
      return;
    }
    t.asWritten = false;
    t.depth = 0;
    if (t.asWrittenInProgress) {
      t.asWrittenInProgress = false;
      e.asWrittenInProgress.decrementAndGet();
    }
    if (t.asWrittenContext == 0) {
      // The call made its context (the runtime API's primary one, at its first call): known now.
      e.noteContext(t);
    }
    if (e.engaged && !e.disengaged) {
      e.completeInFlight(t);
    }
  }

  /**
   * An untracked call that ran across the mark: its work must come before every later call that
   * CUDA orders after it. Its context's streams follow their work again, device-side, as at the
   * mark ({@link #catchUp(AgentState, long)}): a host synchronization of the context here would make
   * a request thread caught mid-call wait for every background stream's queued kernels (on an
   * H200, 7 ms at the engagement of {@code tenants-priority}). The host synchronizes where the
   * call's context is no longer current or the agent does not schedule.
   */
  private void completeInFlight(CallThread t) {
    try {
      int[] mode = {CUstreamCaptureMode.CU_STREAM_CAPTURE_MODE_RELAXED};
      JCudaNatives.exchangeCaptureMode(mode);
      try {
        long c = t.asWrittenContext;
        if (c != 0 && c == JCudaNatives.currentContext(new CUcontext())) {
          catchUp(AgentState.current(), c);
          if (AgentLog.debugEnabled()) {
            AgentLog.debug("a call made as written ended after the agent's start: context 0x" + Long.toHexString(c)
                + "'s streams follow it");
          }
        } else {
          JCudaNatives.synchronizeContext();
        }
      } finally {
        JCudaNatives.exchangeCaptureMode(mode);
      }
    } catch (Throwable ex) {
      AgentLog.warnOnce("engage-in-flight", "a call made as written could not be completed at the agent's start: " + ex);
    }
  }

  /** Engages the agent (see the class comment); {@code why} is said in the debug log. Idempotent. */
  void engage(String why) {
    engage(why, true);
  }

  /**
   * {@link #engage}, running the {@link #whenEngaged} actions where {@code early}: not where the
   * program engaged by being long, whose own calls soon compile the tracked path, and beside which a
   * JIT warm-up thread starting in its steady state gave nothing (on an H200, warmed, 6 rounds
   * against the warm-up starting there: {@code host-steps} 1.11x, {@code ensemble} 1.00x).
   */
  private void engage(String why, boolean early) {
    if (caughtUp || disengaged) {
      return;
    }
    long handOverNanos;
    synchronized (this) {
      if (engaged || disengaged) {
        return;
      }
      engaged = true;
      engagedBecause = why;
      long start = System.nanoTime();
      try {
        catchUp();
      } finally {
        // Whatever the driver answered: threads waiting in await must never wait forever.
        caughtUp = true;
        handOverNanos = System.nanoTime() - start;
        notifyAll();
      }
    }
    if (AgentLog.debugEnabled()) {
      AgentLog.debug("scheduling from now on (" + why + "), after " + asWrittenCalls.get() + " calls made as written;"
          + " streams followed in " + handOverNanos / 1000 + " us");
    }
    if (!early) {
      return;
    }
    for (Runnable r : whenEngaged) {
      r.run();
    }
  }

  /** See {@link Interception#atCallMadeAsWritten}; called at activation, before the program's first call. */
  void atCallMadeAsWritten(long calls, Runnable action) {
    atCallMadeAsWritten = action;
    actionAtCallMadeAsWritten = calls;
  }

  /**
   * Runs {@code action} once, on the thread that engages the agent, after the hand-over; never
   * where the agent was engaged from the start, engages because the program is long ({@link
   * #CALLS_OF_A_LONG_PROGRAM}), or never engages. It must not throw.
   */
  void whenEngaged(Runnable action) {
    whenEngaged.add(action);
  }

  /**
   * Why the agent, waiting to engage, let a long program's calls run as written where their count
   * would have engaged it (threads calling at once); null where that never happened.
   */
  String notEngagedBecause() {
    return notEngagedBecause;
  }

  /** What the journal's calls cannot tell of the run so far: the calls made before engagement, and the hand-back. */
  RunEnd runEnd() {
    String why = engagedBecause;
    String back = handedBackBecause;
    return new RunEnd(asWrittenCalls.get(), why == null ? "" : why, back == null ? "" : back);
  }

  /**
   * Makes the work of every untracked call that returned before the mark come first, in every context
   * an untracked call ran in, from whichever thread engages (that thread's context current again
   * afterwards, as {@code HeldWork.issueInEveryContext} does). Where the agent schedules, device-side:
   * each stream's later work follows its own earlier work, as CUDA orders it ({@link
   * Dispatch#followWorkIssuedAsWritten}), and no thread waits for the program's earlier work (a
   * request's stream beside a background stream's long kernels would wait for them whole);
   * elsewhere, or where that fails, the host synchronizes the context.
   */
  private void catchUp() {
    AgentState state = AgentState.current();
    long current = JCudaNatives.currentContext(new CUcontext());
    int[] mode = {CUstreamCaptureMode.CU_STREAM_CAPTURE_MODE_RELAXED};
    JCudaNatives.exchangeCaptureMode(mode);
    boolean switched = false;
    try {
      for (Long c : contexts) {
        try {
          if (c != current || switched) {
            switched = true;
            JCudaNatives.makeCurrent(c);
          }
          catchUp(state, c);
        } catch (Throwable ex) {
          // A context destroyed since: nothing of it is left to complete.
          AgentLog.debug("context 0x" + Long.toHexString(c) + " not synchronized at the agent's start: " + ex);
        }
      }
    } finally {
      JCudaNatives.exchangeCaptureMode(mode);
      if (switched) {
        JCudaNatives.makeCurrent(current);
      }
    }
  }

  /** {@link #catchUp} of context {@code c}, current. */
  private static void catchUp(AgentState state, long c) {
    if (state.scheduling) {
      try {
        state.scheduling(c).dispatch.followWorkIssuedAsWritten();
        return;
      } catch (Throwable ex) {
        AgentLog.debug("context 0x" + Long.toHexString(c) + " synchronized at the agent's start: its lanes could not"
            + " follow its streams: " + ex);
      }
    }
    JCudaNatives.synchronizeContext();
  }

  /**
   * Stops scheduling for good, before the call {@code function} (see {@link
   * CudaCall#disengagesTheAgent}): from the mark, calls that run as written before engagement, and
   * event calls, run as written again; once every context's streams were made to follow the work the
   * agent moved ({@link HeldWork#handBackEveryContext}), device-side, without a host wait that
   * could wait for the program's later calls. A call the agent was placing at the mark hands its
   * context back again when it ends ({@link #afterPlacedCall}). Idempotent.
   */
  void disengage(AgentState state, String why) {
    synchronized (this) {
      if (disengaged) {
        return;
      }
      disengaged = true;
      handedBackBecause = why;
      caughtUp = false; // every call now asks runsAsWritten
    }
    try {
      HeldWork.handBackEveryContext(state);
    } finally {
      synchronized (this) {
        handedBack = true;
        notifyAll();
      }
    }
    AgentLog.info(why + ": the agent stops scheduling, and every later call runs as the program wrote it");
    for (Runnable r : whenHandedBack) {
      r.run();
    }
  }

  /**
   * After a call the agent placed: where the agent stopped meanwhile, the call's work is handed back
   * too; where the call's context says the program would run faster as written ({@link
   * dev.kernelweave.scheduler.Dispatch#handBackAdvice}), the agent stops now, unless a stream
   * captures a graph.
   */
  void afterPlacedCall(AgentState state, ContextScheduling cs) {
    if (disengaged) {
      cs.dispatch.handOverToTheProgram();
      return;
    }
    String advice = cs.dispatch.handBackAdvice();
    // Not while a graph is captured: a later call, once the capture ended, asks again.
    if (advice != null && !HeldWork.anyCapturing(state)) {
      disengage(state, "in context 0x" + Long.toHexString(cs.context) + ", " + advice);
    }
  }

  /** Runs {@code action} once the agent has stopped scheduling for good ({@link #disengage}); it must not throw. */
  void whenHandedBack(Runnable action) {
    whenHandedBack.add(action);
  }

  /** Waits until tracked calls may be placed ({@code handBack} false) or the agent handed back ({@code handBack} true). */
  private void await(boolean handBack) {
    if (handBack ? handedBack : caughtUp) {
      return;
    }
    synchronized (this) {
      boolean interrupted = false;
      while (!(handBack ? handedBack : caughtUp)) {
        try {
          wait();
        } catch (InterruptedException ex) {
          interrupted = true;
        }
      }
      if (interrupted) {
        Thread.currentThread().interrupt();
      }
    }
  }
}
