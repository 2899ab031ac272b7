package dev.kernelweave.interceptor;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.kernelweave.call.CallKind;
import dev.kernelweave.call.CallRecord;
import dev.kernelweave.call.PriorityClass;
import dev.kernelweave.call.ThreadPriorities;
import dev.kernelweave.journal.LaunchJournal;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Each call carries its thread's class, which follows the thread's priority and name as they change. */
class CallThreadPriorityTest {

  @AfterEach
  void defaults() {
    activate(ThreadPriorities.THREAD);
  }

  private static void activate(ThreadPriorities priorities) {
    Interception.activate(
        new InterceptorSettings(Mode.PASSTHROUGH, 4, true, true, () -> LaunchJournal.OFF, priorities));
  }

  private static PriorityClass classOfACall() {
    CallRecord r = Calls.begin("cuLaunchKernel", 0L);
    PriorityClass c = r.priority;
    Calls.end(r, 0, null);
    return c;
  }

  /** Runs {@code body} on a fresh thread named {@code name}, so that this thread's name and priority stay. */
  private static List<PriorityClass> onThread(String name, java.util.function.Consumer<List<PriorityClass>> body)
      throws InterruptedException {
    List<PriorityClass> seen = new ArrayList<>();
    Thread t = new Thread(() -> body.accept(seen), name);
    t.setPriority(Thread.NORM_PRIORITY);
    t.start();
    t.join();
    return seen;
  }

  @Test
  void byDefaultTheClassFollowsThreadSetPriority() throws InterruptedException {
    activate(ThreadPriorities.THREAD);
    List<PriorityClass> seen = onThread("worker", s -> {
      s.add(classOfACall());
      Thread.currentThread().setPriority(Thread.MAX_PRIORITY);
      s.add(classOfACall());
      s.add(classOfACall());
      Thread.currentThread().setPriority(Thread.MIN_PRIORITY);
      s.add(classOfACall());
    });
    assertEquals(List.of(PriorityClass.NORMAL, PriorityClass.HIGH, PriorityClass.HIGH, PriorityClass.LOW), seen);
  }

  @Test
  void globsFollowARenamedThread() throws InterruptedException {
    activate(ThreadPriorities.parse("high:request-*,low:trainer-*"));
    List<PriorityClass> seen = onThread("pool-1", s -> {
      s.add(classOfACall());
      Thread.currentThread().setName("request-7");
      s.add(classOfACall());
      Thread.currentThread().setName("trainer-0");
      s.add(classOfACall());
    });
    assertEquals(List.of(PriorityClass.NORMAL, PriorityClass.HIGH, PriorityClass.LOW), seen);
  }

  @Test
  void offMakesEveryCallNormal() throws InterruptedException {
    activate(ThreadPriorities.OFF);
    List<PriorityClass> seen = onThread("request-1", s -> {
      Thread.currentThread().setPriority(Thread.MAX_PRIORITY);
      s.add(classOfACall());
    });
    assertEquals(List.of(PriorityClass.NORMAL), seen);
  }
}
