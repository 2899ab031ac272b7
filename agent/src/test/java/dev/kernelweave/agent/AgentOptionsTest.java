package dev.kernelweave.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.kernelweave.call.PriorityClass;
import dev.kernelweave.call.ThreadPriorities;
import dev.kernelweave.interceptor.AgentLog;
import dev.kernelweave.interceptor.Mode;
import dev.kernelweave.scheduler.WindowJudging;
import java.nio.file.Path;
import java.util.List;
import java.util.Properties;
import org.junit.jupiter.api.Test;

class AgentOptionsTest {

  private final Properties none = new Properties();

  @Test
  void defaultsScheduleWithAJournalUnderTheTemporaryDirectory() {
    AgentOptions o = AgentOptions.parse(null, none);
    assertEquals(Mode.SCHEDULE, o.mode());
    assertEquals(AgentOptions.defaultStreams(System.getenv("CUDA_DEVICE_MAX_CONNECTIONS")), o.streams());
    assertEquals(AgentOptions.DEFAULT_JOURNAL, o.journal());
    assertTrue(o.ptx());
    assertTrue(o.graphs());
    assertEquals(WindowJudging.ON, o.judge());
    assertFalse(o.merge(), "merging is off until measured on a GPU");
    assertEquals(AgentLog.Level.INFO, o.log());
  }

  @Test
  void judgeNamesHowKnownWindowsAreIssued() {
    assertEquals(WindowJudging.OFF, AgentOptions.parse("judge=off", none).judge());
    assertEquals(WindowJudging.IN_ORDER, AgentOptions.parse("graphs=on,judge=in-order", none).judge());
    AgentOptions.InvalidOption e = assertThrows(AgentOptions.InvalidOption.class,
        () -> AgentOptions.parse("judge=graph", none));
    assertTrue(e.getMessage().contains("judge=graph") && e.getMessage().contains("on, off or in-order"), e.getMessage());
  }

  @Test
  void mergeIsOnOrOff() {
    assertTrue(AgentOptions.parse("merge=on", none).merge());
    assertFalse(AgentOptions.parse("merge=off", none).merge());
    var e = assertThrows(AgentOptions.InvalidOption.class, () -> AgentOptions.parse("merge=yes", none));
    assertTrue(e.getMessage().contains("merge=yes") && e.getMessage().contains("on or off"), e.getMessage());
  }

  @Test
  void handBackIsOnByDefaultAndOnOrOff() {
    assertTrue(AgentOptions.parse(null, none).handBack(), "a program slower with the agent is handed back by default");
    assertFalse(AgentOptions.parse("handback=off", none).handBack());
    assertTrue(AgentOptions.parse("handback=on", none).handBack());
    var e = assertThrows(AgentOptions.InvalidOption.class, () -> AgentOptions.parse("handback=never", none));
    assertTrue(e.getMessage().contains("handback=never") && e.getMessage().contains("on or off"), e.getMessage());
  }

  @Test
  void engageIsAutoByDefaultOrAtOnceWhenWarmOrACountOfCalls() {
    assertEquals(AgentOptions.ENGAGE_AUTO, AgentOptions.parse(null, none).engage());
    assertEquals(AgentOptions.ENGAGE_AUTO, AgentOptions.parse("engage=auto", none).engage());
    assertEquals(AgentOptions.ENGAGE_WHEN_WARM, AgentOptions.parse("engage=when-warm", none).engage());
    assertEquals(AgentOptions.ENGAGE_AT_ONCE, AgentOptions.parse("engage=at-once", none).engage());
    assertEquals(250, AgentOptions.parse("engage=250", none).engage());
    for (String bad : new String[] {"engage=0", "engage=-3", "engage=later", "engage=-2"}) {
      var e = assertThrows(AgentOptions.InvalidOption.class, () -> AgentOptions.parse(bad, none));
      assertTrue(e.getMessage().contains(bad) && e.getMessage().contains("auto, at-once, when-warm"), e.getMessage());
    }
  }

  @Test
  void defaultStreamsFollowTheDriversHardwareQueues() {
    assertEquals(8, AgentOptions.defaultStreams(null));
    assertEquals(32, AgentOptions.defaultStreams("32"));
    assertEquals(4, AgentOptions.defaultStreams(" 4 "));
    assertEquals(8, AgentOptions.defaultStreams("0"));
    assertEquals(8, AgentOptions.defaultStreams("many"));
  }

  @Test
  void everyKeyIsRead() {
    AgentOptions o = AgentOptions.parse("mode=passthrough,journal=/tmp/j,streams=4,ptx=off,graphs=off,log=debug", none);
    assertEquals(Mode.PASSTHROUGH, o.mode());
    assertEquals(Path.of("/tmp/j"), o.journal());
    assertEquals(4, o.streams());
    assertFalse(o.ptx());
    assertFalse(o.graphs());
    assertEquals(AgentLog.Level.DEBUG, o.log());
  }

  @Test
  void priorityDefaultsToTheJavaThreadPriorityAndTakesOffAndGlobsFromEverySource() {
    assertSame(ThreadPriorities.THREAD, AgentOptions.parse(null, none).priority());
    assertSame(ThreadPriorities.OFF, AgentOptions.parse("priority=off", none).priority());
    ThreadPriorities globs = AgentOptions.parse("streams=4,priority=high:request-*,low:trainer-*,graphs=off", none).priority();
    assertEquals("high:request-*,low:trainer-*", globs.toString());
    assertEquals(PriorityClass.LOW, globs.classOf("trainer-2", Thread.MAX_PRIORITY));
    assertEquals(PriorityClass.HIGH, globs.classOf("request-9", Thread.MIN_PRIORITY));
    assertFalse(AgentOptions.parse("priority=high:request-*,low:trainer-*,graphs=off", none).graphs());
    Properties p = new Properties();
    p.setProperty("kernelweave.priority", "low:batch-*");
    assertEquals(PriorityClass.LOW, AgentOptions.parse(null, p).priority().classOf("batch-1", 5));
  }

  @Test
  void theWarmupIsCpuMillisecondsOrOffAndDefaultsToASecondWhereAProcessorIsToSpare() {
    assertEquals(AgentOptions.defaultWarmupMillis(Runtime.getRuntime().availableProcessors()),
        AgentOptions.parse(null, none).warmupMillis());
    assertEquals(0, AgentOptions.defaultWarmupMillis(1));
    assertEquals(0, AgentOptions.defaultWarmupMillis(2));
    assertEquals(0, AgentOptions.defaultWarmupMillis(3));
    assertEquals(1000, AgentOptions.defaultWarmupMillis(4));
    assertEquals(1000, AgentOptions.defaultWarmupMillis(128));
    assertEquals(1000, AgentOptions.parse("warmup=1000", none).warmupMillis());
    assertEquals(0, AgentOptions.parse("warmup=off", none).warmupMillis());
    assertEquals(0, AgentOptions.parse("warmup=0", none).warmupMillis());
    assertEquals(250, AgentOptions.parse("graphs=off,warmup=250", none).warmupMillis());
    for (String bad : List.of("warmup=-1", "warmup=", "warmup=1s", "warmup=60001", "warmup=99999999999")) {
      AgentOptions.InvalidOption e = assertThrows(AgentOptions.InvalidOption.class, () -> AgentOptions.parse(bad, none));
      assertEquals("option " + bad + " is not valid; accepted: off, or CPU milliseconds from 0 to 60000", e.getMessage());
    }
  }

  @Test
  void aBadPriorityNamesTheOptionAndTheAcceptedForms() {
    for (String bad : List.of("priority=urgent", "priority=high:", "priority=", "priority=top:a-*")) {
      AgentOptions.InvalidOption e = assertThrows(AgentOptions.InvalidOption.class, () -> AgentOptions.parse(bad, none));
      assertTrue(e.getMessage().startsWith("option " + bad + " is not valid; accepted: off, thread, or class:glob"),
          e.getMessage());
      assertFalse(e.getMessage().contains("\n"));
    }
  }

  @Test
  void theDefaultJournalsRetentionIsReadWithBinaryUnits() {
    AgentOptions defaults = AgentOptions.parse("", none);
    assertEquals(20, defaults.journalKeep());
    assertEquals(1L << 30, defaults.journalMaxBytes());
    AgentOptions o = AgentOptions.parse("journal-keep=3,journal-max-bytes=64m", none);
    assertEquals(3, o.journalKeep());
    assertEquals(64L << 20, o.journalMaxBytes());
    assertEquals(2L << 40, AgentOptions.parse("journal-max-bytes=2T", none).journalMaxBytes());
    assertEquals(4096, AgentOptions.parse("journal-max-bytes=4096", none).journalMaxBytes());
  }

  @Test
  void badRetentionValuesAreNamedWithWhatIsAccepted() {
    for (String bad : List.of("journal-keep=0", "journal-keep=-2", "journal-keep=many", "journal-keep=100001")) {
      AgentOptions.InvalidOption e = assertThrows(AgentOptions.InvalidOption.class, () -> AgentOptions.parse(bad, none));
      assertEquals("option " + bad + " is not valid; accepted: a whole number of runs from 1 to 100000", e.getMessage());
    }
    for (String bad : List.of("journal-max-bytes=0", "journal-max-bytes=1x", "journal-max-bytes=g",
        "journal-max-bytes=-1g", "journal-max-bytes=99999999999t", "journal-max-bytes=")) {
      AgentOptions.InvalidOption e = assertThrows(AgentOptions.InvalidOption.class, () -> AgentOptions.parse(bad, none));
      assertTrue(e.getMessage().startsWith("option " + bad + " is not valid; accepted: a size above 0"), e.getMessage());
    }
  }

  @Test
  void logSystemRoutesThroughTheSystemLogger() {
    assertEquals(AgentLog.Level.SYSTEM, AgentOptions.parse("log=system", none).log());
  }

  @Test
  void journalOffMeansNoJournal() {
    assertNull(AgentOptions.parse("journal=off", none).journal());
  }

  @Test
  void systemPropertiesAreReadAndTheAgentArgumentWins() {
    Properties p = new Properties();
    p.setProperty("kernelweave.streams", "8");
    p.setProperty("kernelweave.mode", "passthrough");
    AgentOptions o = AgentOptions.parse("mode=schedule", p);
    assertEquals(8, o.streams());
    assertEquals(Mode.SCHEDULE, o.mode());
  }

  @Test
  void badValueNamesTheOptionAndTheAcceptedValues() {
    var e = assertThrows(AgentOptions.InvalidOption.class, () -> AgentOptions.parse("streams=0", none));
    assertTrue(e.getMessage().contains("streams=0"), e.getMessage());
    assertTrue(e.getMessage().contains("1 to 64"), e.getMessage());
    e = assertThrows(AgentOptions.InvalidOption.class, () -> AgentOptions.parse("log=loud", none));
    assertTrue(e.getMessage().contains("quiet, info, debug or system"), e.getMessage());
    e = assertThrows(AgentOptions.InvalidOption.class, () -> AgentOptions.parse("ptx=yes", none));
    assertTrue(e.getMessage().contains("on or off"), e.getMessage());
    e = assertThrows(AgentOptions.InvalidOption.class, () -> AgentOptions.parse("graphs=maybe", none));
    assertTrue(e.getMessage().contains("graphs=maybe") && e.getMessage().contains("on or off"), e.getMessage());
  }

  @Test
  void unknownKeyAndMissingValueAreNamed() {
    var e = assertThrows(AgentOptions.InvalidOption.class, () -> AgentOptions.parse("speed=max", none));
    assertTrue(e.getMessage().contains("'speed'") && e.getMessage().contains("mode, journal"), e.getMessage());
    e = assertThrows(AgentOptions.InvalidOption.class, () -> AgentOptions.parse("schedule", none));
    assertTrue(e.getMessage().contains("'schedule'") && e.getMessage().contains("key=value"), e.getMessage());
  }
}
