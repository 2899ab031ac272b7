package dev.kernelweave.scheduler;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kernelweave.call.AccessMode;
import dev.kernelweave.call.CallKind;
import dev.kernelweave.call.CallRecord;
import dev.kernelweave.call.PriorityClass;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class SharedContextCheckTest {

  private final CallRecord normal = new CallRecord();
  private final CallRecord urgent = new CallRecord();
  private final SharedContextCheck check = new SharedContextCheck();

  SharedContextCheckTest() {
    urgent.priority = PriorityClass.HIGH;
    check.enable();
  }

  /** One period of calls, {@code contended} of them having waited, and the windows replayed so far then. */
  private void period(int contended, long windows, long launches) {
    for (int i = 0; i < SharedContextCheck.PERIOD; i++) {
      check.entered(normal, i < contended, windows, launches);
    }
  }

  @Test
  void aQuarterOfTheCallsWaitingTwoPeriodsInARowWithShortWindowsHandsBack() {
    int quarter = SharedContextCheck.PERIOD / 4;
    period(quarter, 100, 400);
    assertNull(check.verdict(), "one period may be the threads' start");
    period(quarter, 200, 800);
    assertNotNull(check.verdict());
    assertTrue(check.verdict().contains(quarter + " of the last " + SharedContextCheck.PERIOD + " calls"), check.verdict());
    assertTrue(check.verdict().contains("windows of 4.0 launches"), check.verdict());
  }

  @Test
  void fewerWaitsOrOnePeriodBetweenKeepTheContext() {
    int quarter = SharedContextCheck.PERIOD / 4;
    for (int i = 0; i < 10; i++) {
      period(quarter - 1, 0, 0);
    }
    assertNull(check.verdict(), "less than a quarter waited");
    period(quarter, 0, 0);
    period(0, 0, 0);
    period(quarter, 0, 0);
    assertNull(check.verdict(), "the periods that cost were not in a row");
    period(quarter, 0, 0);
    assertNotNull(check.verdict(), "no window replayed at all");
  }

  @Test
  void longReplayedWindowsKeepTheContextHoweverTheThreadsWait() {
    long launches = 0;
    for (int i = 1; i <= 10; i++) {
      launches += SharedContextCheck.LONG_WINDOW * 10;
      period(SharedContextCheck.PERIOD, 10L * i, launches);
    }
    assertNull(check.verdict(), "graphs of " + SharedContextCheck.LONG_WINDOW + " launches pay for the waits");
  }

  @Test
  void aPriorityCallInEveryPeriodKeepsTheContext() {
    for (int p = 0; p < 10; p++) {
      check.entered(urgent, true, 0, 0);
      for (int i = 1; i < SharedContextCheck.PERIOD; i++) {
        check.entered(normal, true, 0, 0);
      }
    }
    assertNull(check.verdict(), "priorities need the agent's lanes");
  }

  @Test
  void neverAVerdictUntilEnabled() {
    SharedContextCheck off = new SharedContextCheck();
    for (int i = 0; i < 10 * SharedContextCheck.PERIOD; i++) {
      off.entered(normal, true, 0, 0);
    }
    assertNull(off.verdict());
  }

  /**
   * Through the dispatch: a call of one thread holds the context's lock from its enter to its exit,
   * and another thread's call made meanwhile waits; where half the calls waited so for two periods,
   * the dispatch advises handing back; a dispatch nobody enabled never does.
   */
  @Test
  void aDispatchWhoseCallsWaitForAnotherThreadsAdvisesHandingBack() throws Exception {
    assertNull(contend(true, SharedContextCheck.PERIOD), "one period is not enough");
    String advice = contend(true, SharedContextCheck.PERIOD * SharedContextCheck.PERIODS_IN_A_ROW);
    assertNotNull(advice);
    assertTrue(advice.contains("threads calling at once waited for each other"), advice);
    assertNull(contend(false, SharedContextCheck.PERIOD * SharedContextCheck.PERIODS_IN_A_ROW), "handback=off");
  }

  /** {@code calls} calls, half of this thread's made while another thread's held the lock; the advice then. */
  private static String contend(boolean enabled, int calls) throws Exception {
    Dispatch d = new Dispatch(new NullDevice(), 4, OrderingRules.CUDA);
    if (enabled) {
      d.handBackWhereThreadsContend();
    }
    // Spun on, not waited for: the only place the other thread can wait is the dispatch's lock.
    AtomicInteger turn = new AtomicInteger();
    AtomicInteger done = new AtomicInteger();
    Thread other = new Thread(() -> {
      Ticket t = new Ticket();
      for (int i = 0; i < calls / 2; i++) {
        while (turn.get() <= i) {
          Thread.onSpinWait();
        }
        CallRecord c = launch(2 * i);
        d.enter(c, Placement.ASYNC, t); // waits: the main thread holds the lock
        d.exit(c, true, t);
        done.incrementAndGet();
      }
    });
    other.start();
    Ticket mine = new Ticket();
    for (int i = 0; i < calls / 2; i++) {
      CallRecord c = launch(2 * i + 1);
      d.enter(c, Placement.ASYNC, mine);
      assertTrue(mine.holdsLock(), "an asynchronous call holds the lock until its exit");
      turn.set(i + 1);
      while (other.getState() != Thread.State.WAITING) {
        Thread.onSpinWait();
      }
      d.exit(c, true, mine);
      while (done.get() <= i) {
        Thread.onSpinWait();
      }
    }
    other.join();
    assertEquals(Thread.State.TERMINATED, other.getState());
    return d.handBackAdvice();
  }

  private static CallRecord launch(long seq) {
    CallRecord c = new CallRecord();
    c.seq = seq + 1;
    c.kind = CallKind.LAUNCH;
    c.addAccess((int) (100 + seq), 1, 0x1000L * (seq + 1), 0, 64, AccessMode.WRITE);
    return c;
  }
}
