package dev.kernelweave.interceptor.cublas;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kernelweave.interceptor.jcuda.JCudaPointers;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadLocalRandom;
import jcuda.jcublas.cublasHandle;
import jcuda.runtime.cudaStream_t;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class ShadowHandlesTest {

  private final FakeShadowNatives natives = new FakeShadowNatives();
  private final ShadowHandles shadows = new ShadowHandles(natives);
  private final cublasHandle app = natives.application("app");
  private final cudaStream_t lane1 = natives.stream("lane1");
  private final cudaStream_t lane2 = natives.stream("lane2");

  @AfterEach
  void theApplicationsHandleIsNeverChanged() {
    assertEquals(List.of(), natives.violations);
  }

  @Test
  void aShadowIsCreatedOnFirstUseWithTheApplicationHandlesSettingsAndAWorkspaceOfItsOwn() {
    shadows.created(app);
    shadows.settingSet(app, BlasSetting.POINTER_MODE, 1);
    shadows.settingSet(app, BlasSetting.MATH_MODE, 3);
    shadows.workspaceSet(app, 4096);
    assertEquals(List.of(), natives.drain(), "no shadow yet, nothing to follow");

    cublasHandle used = shadows.forCall(shadows.lookup(app), lane1);

    assertInstanceOf(ShadowHandles.Shadow.class, used);
    assertEquals(List.of("create s1", "setStream s1 lane1", "set s1 POINTER_MODE 1", "set s1 MATH_MODE 3",
        "allocate b1 4096", "workspace s1 b1 4096"), natives.drain());
    assertTrue(shadows.lookup(app).devicePointerMode());
  }

  @Test
  void aLaneKeepsItsShadowAndTwoLanesNeverShareAWorkspace() {
    shadows.created(app);
    shadows.workspaceSet(app, 4096);
    ShadowHandles.Handle h = shadows.lookup(app);
    cublasHandle first = use(h, lane1);
    natives.drain();

    assertSame(first, use(h, lane1));
    assertEquals(List.of(), natives.drain(), "the second use of a lane makes no call");
    cublasHandle second = use(h, lane2);
    assertNotSame(first, second);
    assertEquals(List.of("create s2", "setStream s2 lane2", "allocate b2 4096", "workspace s2 b2 4096"),
        natives.drain());
  }

  @Test
  void withoutAWorkspaceFromTheApplicationAShadowStaysOnTheDefaultOne() {
    shadows.created(app);
    use(shadows.lookup(app), lane1);
    assertEquals(List.of("create s1", "setStream s1 lane1"), natives.drain());

    shadows.workspaceSet(app, 0);
    assertEquals(List.of("workspace s1 null 0"), natives.drain(), "no workspace at all: no buffer either");
  }

  @Test
  void aRoutineOnTheApplicationsOwnStreamRunsOnTheApplicationsHandle() {
    shadows.created(app);
    ShadowHandles.Handle h = shadows.lookup(app);
    assertSame(app, shadows.forCall(h, new cudaStream_t()), "both on the legacy default stream");
    shadows.streamSet(app, lane1);
    assertSame(app, shadows.forCall(h, lane1));
    assertEquals(List.of(), natives.drain());
    assertEquals(JCudaPointers.nativePointer(lane1), h.applicationStream());
  }

  @Test
  void settingsTheApplicationChangesLaterReachEveryShadow() {
    shadows.created(app);
    ShadowHandles.Handle h = shadows.lookup(app);
    use(h, lane1);
    use(h, lane2);
    natives.drain();

    shadows.settingSet(app, BlasSetting.ATOMICS_MODE, 1);
    shadows.settingSet(app, BlasSetting.SM_COUNT_TARGET, 20);
    shadows.settingSet(app, BlasSetting.POINTER_MODE, 1);

    assertEquals(List.of("set s1 ATOMICS_MODE 1", "set s2 ATOMICS_MODE 1", "set s1 SM_COUNT_TARGET 20",
        "set s2 SM_COUNT_TARGET 20", "set s1 POINTER_MODE 1", "set s2 POINTER_MODE 1"), natives.drain());
    assertTrue(h.devicePointerMode());
  }

  @Test
  void aWorkspaceOfAnotherSizeReplacesEachBufferOnceItsStreamIsDone() {
    shadows.created(app);
    shadows.workspaceSet(app, 4096);
    ShadowHandles.Handle h = shadows.lookup(app);
    use(h, lane1);
    use(h, lane2);
    natives.drain();

    shadows.workspaceSet(app, 8192);
    assertEquals(List.of("allocate b3 8192", "workspace s1 b3 8192", "allocate b4 8192", "workspace s2 b4 8192",
        "synchronize lane1", "free b1", "synchronize lane2", "free b2"), natives.drain());

    shadows.workspaceSet(app, 8192);
    assertEquals(List.of(), natives.drain(), "the same workspace size again changes nothing");
  }

  @Test
  void setStreamPutsEveryShadowBackOnTheDefaultWorkspaceAndKeepsItsBuffer() {
    shadows.created(app);
    shadows.workspaceSet(app, 4096);
    use(shadows.lookup(app), lane1);
    natives.drain();

    shadows.streamSet(app, natives.stream("appStream"));
    assertEquals(List.of("setStream s1 lane1"), natives.drain(), "cuBLAS's one way back to the default workspace");
    shadows.streamSet(app, natives.stream("appStream2"));
    assertEquals(List.of(), natives.drain(), "already on the default workspace");

    shadows.workspaceSet(app, 4096);
    assertEquals(List.of("workspace s1 b1 4096"), natives.drain(), "the buffer of that size is reused");
  }

  @Test
  void destroyingTheApplicationsHandleDestroysItsShadowsAndFreesTheirBuffers() {
    shadows.created(app);
    shadows.workspaceSet(app, 4096);
    ShadowHandles.Handle h = shadows.lookup(app);
    use(h, lane1);
    use(h, lane2);
    natives.drain();

    shadows.destroyed(app);

    assertEquals(List.of("destroy s1", "free b1", "destroy s2", "free b2"), natives.drain());
    assertNull(shadows.lookup(app));
  }

  @Test
  void aShadowInUseWhenSchedulingFallsBackIsDestroyedByItsLastUser() {
    shadows.created(app);
    ShadowHandles.Handle h = shadows.lookup(app);
    ShadowHandles.Shadow inUse = (ShadowHandles.Shadow) shadows.forCall(h, lane1);
    natives.drain();

    shadows.retireAll();
    assertEquals(List.of(), natives.drain(), "not while a call uses it");
    shadows.callEnded(inUse);
    assertEquals(List.of("destroy s1"), natives.drain());
  }

  @Test
  void afterTheFallbackARoutineStillOnAnAgentStreamIsOrderedAroundIt() {
    shadows.created(app);
    ShadowHandles.Handle h = shadows.lookup(app);
    use(h, lane1);
    shadows.retireAll();
    natives.drain();

    ShadowHandles.Shadow standIn = (ShadowHandles.Shadow) shadows.forCall(h, lane1);
    assertTrue(standIn.isOrdered());
    assertEquals(JCudaPointers.nativePointer(app), JCudaPointers.nativePointer(standIn),
        "the application's native handle, unchanged");
    shadows.orderBefore(standIn);
    shadows.callEnded(standIn);
    assertEquals(List.of("order null after lane1", "order lane1 after null"), natives.drain());
  }

  @Test
  void aShadowThatCannotBeCreatedIsReplacedByAnOrderedStandIn() {
    shadows.created(app);
    natives.failing.put("create", 3);
    cublasHandle used = use(shadows.lookup(app), lane1);
    assertTrue(((ShadowHandles.Shadow) used).isOrdered());
    assertEquals(List.of("create failed", "order lane1 after null"), natives.drain());
  }

  @Test
  void aShadowThatCannotGetItsWorkspaceIsDestroyedAndReplaced() {
    shadows.created(app);
    shadows.workspaceSet(app, 4096);
    natives.failing.put("allocate", 2);
    cublasHandle used = use(shadows.lookup(app), lane1);
    assertTrue(((ShadowHandles.Shadow) used).isOrdered());
    assertEquals(List.of("create s1", "setStream s1 lane1", "allocate failed 4096", "destroy s1",
        "order lane1 after null"), natives.drain());
  }

  @Test
  void aShadowThatCannotTakeALaterSettingIsReplacedByOneThatHasIt() {
    shadows.created(app);
    ShadowHandles.Handle h = shadows.lookup(app);
    cublasHandle first = use(h, lane1);
    natives.drain();
    natives.failing.put("set", 7);
    shadows.settingSet(app, BlasSetting.MATH_MODE, 1);
    natives.failing.clear();
    assertEquals(List.of("set s1 MATH_MODE 1", "destroy s1"), natives.drain());

    cublasHandle second = use(h, lane1);
    assertNotSame(first, second);
    assertEquals(List.of("create s2", "setStream s2 lane1", "set s2 MATH_MODE 1"), natives.drain());
  }

  @Test
  void aHandleTheAgentDidNotSeeCreatedIsReadNotChanged() {
    natives.applicationSettings.put(BlasSetting.POINTER_MODE, 1);
    ShadowHandles.Handle h = shadows.of(app);
    assertTrue(h.devicePointerMode());
    use(h, lane1);
    assertEquals(List.of("get app POINTER_MODE", "get app MATH_MODE", "get app ATOMICS_MODE",
        "get app SM_COUNT_TARGET", "create s1", "setStream s1 lane1", "set s1 POINTER_MODE 1"), natives.drain());
  }

  @Test
  void usingAnExistingShadowAllocatesNothing() {
    shadows.created(app);
    ShadowHandles.Handle h = shadows.lookup(app);
    use(h, lane1);
    use(h, lane2);
    com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
    for (int i = 0; i < 20_000; i++) {
      use(h, (i & 1) == 0 ? lane1 : lane2);
    }
    long before = threads.getCurrentThreadAllocatedBytes();
    for (int i = 0; i < 100_000; i++) {
      use(h, (i & 1) == 0 ? lane1 : lane2);
    }
    long allocated = threads.getCurrentThreadAllocatedBytes() - before;
    assertTrue(allocated < 4096, allocated + " bytes allocated by 100,000 uses");
  }

  @Test
  void concurrentUsersNeverMeetADestroyedShadowAndEveryShadowIsDestroyedOnce() throws Exception {
    shadows.created(app);
    ShadowHandles.Handle h = shadows.lookup(app);
    cudaStream_t[] lanes = {lane1, lane2, natives.stream("lane3")};
    Set<ShadowHandles.Shadow> seen = ConcurrentHashMap.newKeySet();
    List<String> problems = new ArrayList<>();
    CountDownLatch started = new CountDownLatch(4);
    List<Thread> threads = new ArrayList<>();
    for (int t = 0; t < 4; t++) {
      Thread thread = new Thread(() -> {
        started.countDown();
        for (int i = 0; i < 5_000; i++) {
          cublasHandle used = shadows.forCall(h, lanes[ThreadLocalRandom.current().nextInt(lanes.length)]);
          ShadowHandles.Shadow s = (ShadowHandles.Shadow) used;
          seen.add(s);
          if (!s.isOrdered() && !natives.isLive(s)) {
            synchronized (problems) {
              problems.add("a destroyed shadow was in use");
            }
          }
          shadows.callEnded(s);
        }
      });
      threads.add(thread);
      thread.start();
    }
    started.await();
    for (int i = 0; i < 50; i++) {
      shadows.settingSet(app, BlasSetting.MATH_MODE, i % 2);
    }
    shadows.retireAll();
    for (Thread thread : threads) {
      thread.join();
    }
    shadows.destroyed(app);
    assertEquals(List.of(), problems);
    for (ShadowHandles.Shadow s : seen) {
      assertFalse(!s.isOrdered() && natives.isLive(s), "a shadow outlived its handle");
    }
  }

  /** One routine's use of the handle: the handle it runs on, then the end of the call. */
  private cublasHandle use(ShadowHandles.Handle h, cudaStream_t lane) {
    cublasHandle used = shadows.forCall(h, lane);
    if (used instanceof ShadowHandles.Shadow s) {
      shadows.callEnded(s);
    }
    return used;
  }
}
