package dev.kernelweave.interceptor;

import dev.kernelweave.scheduler.Placement;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kernelweave.call.CallKind;
import dev.kernelweave.call.CallRecord;
import dev.kernelweave.journal.LaunchJournal;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A failure inside the scheduler switches the agent to pass-through for the rest of the run, with
 * one warning, and the call in progress still runs as written. Here the failure is real: without a
 * GPU, creating the agent's first stream fails.
 */
class FallbackTest {

  private final ByteArrayOutputStream said = new ByteArrayOutputStream();

  /** The state this test made fail is dropped: later tests start from a fresh one. */
  @AfterEach
  void restore() {
    AgentLog.configure(AgentLog.Level.INFO, System.err);
    AgentState.replaceForTesting();
  }

  @Test
  void schedulerFailureFallsBackToPassThroughWithOneWarning() {
    AgentLog.configure(AgentLog.Level.INFO, new PrintStream(said, true, StandardCharsets.UTF_8));
    AgentLog.forgetWarnings();
    AgentState state = AgentState.replaceForTesting();
    int[] fellBack = {0};
    state.libraries().register(new InterceptedLibraries.Registration(JCudaLibrary.CUBLAS, null, null, null,
        () -> fellBack[0]++));
    Interception.activate(new InterceptorSettings(Mode.SCHEDULE, 4, true, true, () -> LaunchJournal.OFF));
    CallThread.current().context = 0x77;
    assertTrue(state.scheduling);

    for (int i = 0; i < 3; i++) {
      CallRecord r = Calls.begin("cuLaunchKernel", 0L);
      Calls.place(r, Placement.ASYNC);
      assertEquals(CallRecord.NO_STREAM, r.stream, "the call runs on the stream the application asked for");
      assertFalse(((CallScope) r).ticket.holdsLock(), "no lock is left held");
      Calls.end(r, 0, null);
    }

    assertFalse(state.scheduling);
    assertEquals(1, fellBack[0], "the registered library undid what it pointed at the agent's streams, once");
    CallRecord after = Calls.begin("cuLaunchKernel", 0L);
    assertTrue(after != null, "the thread's later calls are still seen: nothing marks it as inside a call");
    Calls.end(after, 0, null);
    String warnings = said.toString(StandardCharsets.UTF_8);
    assertEquals(1, warnings.lines().filter(l -> l.contains("scheduling stopped")).count(), warnings);
    assertTrue(warnings.contains("every call now runs as written"), warnings);
  }
}
